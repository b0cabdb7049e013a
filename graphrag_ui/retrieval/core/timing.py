"""Step timings for retrieval traces: milliseconds since a ``time.perf_counter()`` mark."""

from __future__ import annotations

import time


def elapsed_ms(start: float) -> float:
    """Milliseconds since ``start`` (a ``time.perf_counter()`` value), to the microsecond as traces show them."""
    return round((time.perf_counter() - start) * 1000, 3)
