"""The one stopwatch: every duration the package reports (trace steps, a query's embed, keyword and
retrieval times, a model call, a sweep step, an evaluation run, a background job) is measured here.

A mark is a ``time.perf_counter()`` value (monotonic, sub-microsecond); a duration is read from it
in milliseconds, to the microsecond as traces show them, or in seconds. One clock for all of them
keeps the numbers comparable: a trace step's ms and the query total it is part of come from the same
source.
"""

from __future__ import annotations

import time


def now() -> float:
    """A mark to measure a duration from."""
    return time.perf_counter()


def elapsed_ms(start: float) -> float:
    """Milliseconds since ``start`` (a ``now()`` mark), to the microsecond as traces show them: whole
    microseconds over 1000 (``round(x, 3)`` goes through decimal digits, 4× slower; a sweep step reads
    the clock 5–15 times)."""
    return round((time.perf_counter() - start) * 1_000_000) / 1000


def to_microsecond(ms: float) -> float:
    """Milliseconds rounded to the microsecond (a sum or difference of ``elapsed_ms`` values)."""
    return round(ms * 1000) / 1000


def elapsed_s(start: float) -> float:
    """Seconds since ``start`` (a ``now()`` mark): model calls, evaluation runs and jobs are said in seconds."""
    return time.perf_counter() - start
