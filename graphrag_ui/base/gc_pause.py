"""Pause the cyclic garbage collector while an index's rows and lookups are built.

Creating 10⁵–10⁶ small objects (rows, tuples of the per-index lookups) triggers repeated full
collections, each walking every object loaded so far: at 100k entities opening a LightRAG index
took 7–8 s with the collector running and 5 s without, and preparing its lookups 3 s instead of
0.35 s (measured). Nothing built here is garbage, so nothing is lost by not collecting it.
"""

from __future__ import annotations

import gc


class paused_gc:  # lower case: used as the function it was, ``with paused_gc():``
    """Collector off inside; back on after only if it was on before (nesting keeps the outer state). A class,
    not a generator context manager: a sweep enters it once per step (0.3 µs instead of 1 µs)."""

    __slots__ = ("_was_enabled",)

    def __enter__(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._was_enabled:
            gc.enable()
