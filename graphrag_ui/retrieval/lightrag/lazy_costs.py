"""Token costs of a list of hits counted when first read, front to back.

LightRAG's token cut (``truncate_list_by_token_size``) reads the costs only up to the first item over
its budget; a top_k step's local path lists 10²–10³ edges and keeps ~10², and a sweep counts a new
list at every step. ``LazyCosts`` counts an item when a reader first reaches it — the cut, the kept
rows, a dropped row asked for — and keeps what it counted, so every reader sees the numbers the
eager list held.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import overload


class LazyCosts(Sequence[int]):
    """``cost_at(0)``, ``cost_at(1)``, … for ``n`` items, each counted once when first read; ``running(i)``
    is the sum of the first ``i + 1``."""

    def __init__(self, n: int, cost_at: Callable[[int], int]) -> None:
        self._n, self._cost_at = n, cost_at
        self._made: list[int] = []
        self._sums: list[int] = []

    def __len__(self) -> int:
        return self._n

    def _upto(self, end: int) -> None:
        made, cost_at = self._made, self._cost_at
        for i in range(len(made), min(end, self._n)):
            made.append(cost_at(i))

    @overload
    def __getitem__(self, i: int) -> int: ...

    @overload
    def __getitem__(self, i: slice) -> list[int]: ...

    def __getitem__(self, i: int | slice) -> int | list[int]:
        if isinstance(i, slice):
            _start, stop, step = i.indices(self._n)
            self._upto(stop if step == 1 else self._n)
            return self._made[i]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        self._upto(i + 1)
        return self._made[i]

    def __iter__(self) -> Iterator[int]:
        i = 0
        while i < self._n:
            if i >= len(self._made):
                self._made.append(self._cost_at(i))
            yield self._made[i]
            i += 1

    def fit(self, budget: int) -> int:
        """How many leading items fit ``budget``: 1.4.7's ``truncate_list_by_token_size`` (``context.prefix_fit``:
        a budget of 0 or less keeps none), counting up to the first item over it."""
        if budget <= 0:
            return 0
        made, cost_at, total = self._made, self._cost_at, 0
        for i in range(self._n):
            if i == len(made):
                made.append(cost_at(i))
            total += made[i]
            if total > budget:
                return i
        return self._n

    def running(self, i: int) -> int:
        """The sum of costs ``0..i``."""
        sums = self._sums
        if i >= len(sums):
            self._upto(i + 1)
            total = sums[-1] if sums else 0
            for cost in self._made[len(sums) : i + 1]:
                total += cost
                sums.append(total)
        return sums[i]


def running_of(costs: Sequence[int]) -> Callable[[int], int]:
    """``i -> sum(costs[: i + 1])`` for lazy costs or a plain list (summed once, when first asked)."""
    if isinstance(costs, LazyCosts):
        return costs.running
    sums: list[int] = []

    def running(i: int) -> int:
        if not sums:
            total = 0
            for cost in costs:
                total += cost
                sums.append(total)
        return sums[i]

    return running
