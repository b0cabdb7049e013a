"""Progress of long steps (build, import, re-embed) that fits where it goes.

Every long step reports ``progress(stage, done, total)``. ``TextProgress`` turns those calls into
output on stderr: on a terminal, one tqdm bar per stage, redrawn in place, with counts, rate and
time left; anywhere else (a log file, a pipe, CI) one plain line per stage at its start, at every
~10 % and at its end, so a log reads as a list instead of a smear of carriage returns. The app
draws the same calls with ``st.status``/``st.progress`` and takes rate and time left from
``StageClock``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from graphrag_ui.base import timing

if TYPE_CHECKING:
    from tqdm import tqdm

ProgressFn = Callable[[str, int, int], None]  # (stage, done, total)
LOG_STEP = 0.10  # a plain log gets a line at every 10 % of a stage


def _interval(seconds: float) -> str:
    from tqdm import tqdm  # imported on first use: importers name ProgressFn and must stay fast to import

    return tqdm.format_interval(max(seconds, 0.0))


class StageClock:
    """Rate and time left per stage, measured from the stage's first report."""

    def __init__(self, now: Callable[[], float] = timing.now) -> None:
        self._now = now
        self._start: dict[str, tuple[float, int]] = {}

    def tick(self, stage: str, done: int, total: int) -> tuple[str, str]:
        """(``12.5/s``, ``00:04``) for this report; ``?`` until the stage has moved."""
        now = self._now()
        started, first = self._start.setdefault(stage, (now, done))
        elapsed, moved = now - started, done - first
        if elapsed <= 0 or moved <= 0:
            return "?/s", "?"
        rate = moved / elapsed
        return f"{rate:.1f}/s", _interval((total - done) / rate) if total >= done else "?"


class TextProgress:
    """stderr progress: tqdm bars on a terminal, a line per ~10 % elsewhere (see the module doc)."""

    def __init__(self, stream: TextIO | None = None, *, terminal: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        is_tty = getattr(self.stream, "isatty", lambda: False)
        self.terminal = bool(is_tty()) if terminal is None else terminal
        self._bar: tqdm | None = None
        self._stage = self._finished = ""
        self._next_line = 0.0
        self._clock = StageClock()

    def __call__(self, stage: str, done: int, total: int) -> None:
        finished = total == 0 or done >= total
        if finished and stage == self._finished:
            return  # a stage that reports its end twice gets one end line
        if stage != self._stage:
            self._end_stage()
            self._stage = stage
            self._next_line = 0.0
        if self.terminal:
            self._draw(stage, done, total)
        else:
            self._log(stage, done, total)
        if finished:
            self._end_stage()
            self._finished = stage

    def close(self) -> None:
        self._end_stage()

    def _draw(self, stage: str, done: int, total: int) -> None:
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(
                total=total, desc=f"{stage:<16}", file=self.stream, leave=True, dynamic_ncols=True, unit="it"
            )
        if self._bar.total != total:
            self._bar.total = total
        self._bar.update(done - self._bar.n)

    def _log(self, stage: str, done: int, total: int) -> None:
        rate, eta = self._clock.tick(stage, done, total)
        fraction = done / total if total else 1.0
        finished = total == 0 or done >= total
        if not finished and fraction < self._next_line:
            return
        self._next_line = (int(fraction / LOG_STEP + 1e-9) + 1) * LOG_STEP
        if done == 0 and not finished:
            line = f"{stage}: start, {total} to do"
        elif finished:
            line = f"{stage}: done {done}/{total} ({rate})"
        else:
            line = f"{stage}: {done}/{total} ({fraction:.0%}) · {rate} · {eta} left"
        self.stream.write(line + "\n")
        self.stream.flush()

    def _end_stage(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        self._stage = ""
