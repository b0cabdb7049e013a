"""A text progress bar on stderr for the CLI; the app passes its own callback instead."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

ProgressFn = Callable[[str, int, int], None]  # (stage, done, total)


class TextProgress:
    """Redraws one line per stage at most ~10 times a second; ends the line when a stage completes."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self._last = 0.0
        self._stage = ""

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        finished = total > 0 and done >= total
        if stage == self._stage and not finished and now - self._last < 0.1:
            return
        if stage != self._stage and self._stage:
            self.stream.write("\n")
        self._stage, self._last = stage, now
        frac = done / total if total else 1.0
        filled = int(self.width * frac)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{stage:<22} [{bar}] {done}/{total}")
        if finished:
            self.stream.write("\n")
            self._stage = ""
        self.stream.flush()
