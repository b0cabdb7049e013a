"""Slider ranges that suit the parameter: log-scale steps for wide ranges, maxima from the index.

A token budget of 0–64,000 in steps of 100 is 640 positions on a slider a few hundred pixels wide:
one pixel jumps hundreds of tokens and small budgets cannot be hit. Such a parameter gets a ladder of
round values instead (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 per decade), always with its default and its
current value on it, so a link's exact value (``max_total_tokens=4321``) stays reachable. A count
(``top_k``, ``k``, ``chunk_top_k``, …) ends at the number of rows the index has of what it counts:
beyond that every value retrieves the same.
"""

from __future__ import annotations

from typing import Any

from graphrag_ui.retrieval.spec.schema import ParamSpec

LADDER_STEPS = 200  # an int range with more slider positions than this gets the ladder
IDENTIFIER_STEPS = 10**6  # ... and one with more than this is an identifier (a seed): a number box
MANTISSAS = (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8)

# parameter name -> the index rows it counts; ``top_k`` counts chunks in the naive modes
COUNTS = {
    "top_k": ("entities", "relations"),
    "chunk_top_k": ("chunks",),
    "k": ("chunks",),
    "top_k_mapped_entities": ("entities",),
    "top_k_relationships": ("relations",),
    "related_chunk_number": ("chunks",),
    "global_max_consider_community": ("communities",),
}
CHUNK_MODES = (".naive", ".basic")


def kind(param: ParamSpec) -> str:
    """``slider`` (the spec's own steps), ``ladder`` (round values) or ``number`` (an exact box)."""
    if param.type == "float":
        return "slider"
    low = param.min if param.min is not None else 0
    high = param.max if param.max is not None else max(param.default * 4, 1)
    positions = (high - low) / (param.step or 1)
    if positions > IDENTIFIER_STEPS:
        return "number"
    return "ladder" if positions > LADDER_STEPS else "slider"


def index_cap(param: ParamSpec, mode: str, index: Any) -> int | None:
    """How many rows the index has of what ``param`` counts (None: it counts nothing, or no index)."""
    kinds = ("chunks",) if param.name == "top_k" and mode.endswith(CHUNK_MODES) else COUNTS.get(param.name)
    if not kinds or index is None:
        return None
    return max(len(getattr(index, k, []) or []) for k in kinds)


def ladder(low: int, high: int, step: int, keep: tuple[Any, ...] = ()) -> list[int]:
    """Round values from ``low`` to ``high`` (none finer than ``step``), plus the values in ``keep``."""
    values = {low, high}
    scale = 1
    while scale <= high:
        for m in MANTISSAS:
            value = m * scale
            if value == int(value) and max(low, step) <= value <= high:
                values.add(int(value))
        scale *= 10
    values |= {int(v) for v in keep if v is not None}
    return sorted(values)


def bounds(param: ParamSpec, cap: int | None, keep: tuple[Any, ...]) -> tuple[int, int]:
    """The ladder's ends: the spec's range, its top lowered to ``cap`` but never below ``keep``'s values."""
    low = int(param.min if param.min is not None else 0)
    high = int(param.max if param.max is not None else max(param.default * 4, 1))
    if cap is not None:
        high = max(min(high, cap), low, *(int(v) for v in keep if v is not None))
    return low, high
