"""When the app's page runs began and ended, process-wide: the start-up preload (``cli.serve``) leaves its
work for later views until the first views are drawn, not to share the cores with them."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from graphrag_ui.base.timing import elapsed_s, now

_lock = threading.Lock()
_running = 0  # page runs in progress (each session runs on its own thread)
_last: float | None = None  # when the last page run ended


@contextlib.contextmanager
def page_run() -> Iterator[None]:
    """Count one page run (the frame's) from its start to its end, however it ends (st.stop, st.rerun)."""
    global _running, _last
    with _lock:
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            _last = now()


def quiet_since(mark: float) -> float:
    """Seconds without a page run, counted from ``mark`` (a ``timing.now()``) or from the last run's end if
    later; 0.0 while a run is in progress."""
    with _lock:
        if _running:
            return 0.0
        return elapsed_s(mark if _last is None else max(mark, _last))
