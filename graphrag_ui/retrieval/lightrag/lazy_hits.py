"""Relation hits made when first read: a top_k step's local path lists every edge of its entities (10²–10³),
while the token cut keeps the first ~10² and the rest are read only as dropped rows, if a reader asks.

``LazyHits`` holds what every step reads of each hit without making it — its relation and the pair it
prints (``printed``: what the costs, lines and ids read) and its merge key — and makes a hit from its
position on first read (``make(i)``, the same hit the eager list held there). The round-robin merge of a
lazy list is lazy in turn (``search.round_robin``). Made hits are kept: they are read only, like every hit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, overload


class LazyHits(Sequence):
    """Hits ``make(0)``, ``make(1)``, … of which ``printed[i]`` is the i-th one's (relation, pair) and
    ``keys[i]`` its merge key (the sorted pair)."""

    def __init__(self, printed: list[tuple[Any, tuple[str, str]]], keys: list[tuple[str, str]], make: Callable) -> None:
        self.printed, self.keys, self._make = printed, keys, make
        self._made: dict[int, Any] = {}

    def __len__(self) -> int:
        return len(self.printed)

    @overload
    def __getitem__(self, i: int) -> Any: ...

    @overload
    def __getitem__(self, i: slice) -> list: ...

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):  # a step's kept hits (10²): ``_hit`` inline
            made, make, out = self._made, self._make, []
            for j in range(*i.indices(len(self.printed))):
                hit = made.get(j)
                if hit is None:
                    hit = made[j] = make(j)
                out.append(hit)
            return out
        if i < 0:
            i += len(self.printed)
        if not 0 <= i < len(self.printed):
            raise IndexError(i)
        return self._hit(i)

    def _hit(self, i: int) -> Any:
        hit = self._made.get(i)
        if hit is None:
            hit = self._made[i] = self._make(i)
        return hit


def printed(hits: Sequence) -> list[tuple[Any, tuple[str, str]]]:
    """Each relation hit's (relation, pair as printed), without making a lazy list's hits."""
    if isinstance(hits, LazyHits):
        return hits.printed
    return [(h.relation, h.pair) for h in hits]
