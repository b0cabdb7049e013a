"""LightRAG's entity and relation candidates past the token cut, made on read (``core.candidates``).

A hub question at 100k entities finds ~10⁵ edges; ``max_relation_tokens`` keeps a few hundred and every
other one is dropped "over max_relation_tokens" with its running total, then come the round-robin merge's
duplicates. The tail keeps the search's hits and their costs (counted when read: ``LazyCosts``) and makes a
row, with its running total, exactly as ``explain.graph_rows`` makes the kept ones, when a reader asks for it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, overload

from graphrag_ui.base.i18n import Reason, lmsg
from graphrag_ui.retrieval.core.result import Candidate
from graphrag_ui.retrieval.lightrag.lazy_hits import printed


def over(kind: str, limit: int, running: int) -> Reason:
    if kind == "entity":
        return lmsg("over max_entity_tokens {limit} ({running})", limit=limit, running=running)
    return lmsg("over max_relation_tokens {limit} ({running})", limit=limit, running=running)


class LazyCosts(Sequence):
    """Each hit's token cost, counted when first read and kept (``cost_of(i)``, in order): the truncation
    reads the costs up to the first one over its budget, and only a reader of the dropped rows asks for the
    rest (at 10k entities a mix query keeps ~140 of ~330 entities and relations; counting the others was
    ~2 ms of it). A sweep's budget steps share one (``reuse.once``): a wider budget counts further."""

    def __init__(self, n: int, cost_of: Callable[[int], int]) -> None:
        self._n, self._cost_of = n, cost_of
        self._made: list[int] = []
        self._lock = threading.Lock()  # two readers of a shared tail count each position once, in order

    def __len__(self) -> int:
        return self._n

    def _upto(self, stop: int) -> list[int]:
        made = self._made
        if len(made) < stop:
            with self._lock:
                for i in range(len(made), stop):
                    made.append(self._cost_of(i))
        return made

    @overload
    def __getitem__(self, i: int) -> int: ...

    @overload
    def __getitem__(self, i: slice) -> list[int]: ...

    def __getitem__(self, i: int | slice) -> int | list[int]:
        if isinstance(i, slice):
            positions = range(*i.indices(self._n))
            made = self._upto(max(positions, default=-1) + 1)
            return [made[j] for j in positions]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        return self._upto(i + 1)[i]

    def __iter__(self):  # noqa: ANN204  (one at a time: ``prefix_fit`` stops at the first over budget)
        for i in range(self._n):
            yield self[i]

    def fit(self, budget: int) -> int:
        """``prefix_fit`` over these costs: how many leading ones fit ``budget`` (a total past it stops), each
        counted as far as that (one loop here: a sweep step fits 10² costs, ~1 µs a call through ``__iter__``)."""
        if budget <= 0:
            return 0
        made, cost_of, total = self._made, self._cost_of, 0
        with self._lock:
            for i in range(self._n):
                if i == len(made):
                    made.append(cost_of(i))
                total += made[i]
                if total > budget:
                    return i
        return self._n


class GraphTail:
    """Hits ``keep``.. (over the budget) then the duplicates, of one kind; ``make`` is ``explain.candidate``."""

    def __init__(
        self,
        make: Callable[..., Candidate],
        kind: str,
        hits: list,
        dupes: list,
        costs: Sequence[int],
        keep: int,
        limit: int,
    ) -> None:
        self.make, self.kind, self.hits, self.dupes = make, kind, hits, dupes
        self.costs, self.keep, self.limit = costs, keep, limit
        self._running: list[int] = []  # running totals of the costs, made as far as a row reads them
        self._lock = threading.Lock()  # two readers of one retrieval's rows extend it once, in order

    def running(self, pos: int) -> int:
        """The sum of the costs up to and including ``pos`` (what the reason names)."""
        running = self._running
        if len(running) <= pos:
            with self._lock:
                for i in range(len(running), pos + 1):
                    running.append((running[-1] if running else 0) + self.costs[i])
        return running[pos]

    def __len__(self) -> int:
        return len(self.hits) - self.keep + len(self.dupes)

    def row(self, i: int) -> Candidate:
        pos = self.keep + i
        if pos < len(self.hits):
            hit = self.hits[pos]
            return self.make(
                hit, self.kind, pos, hit.why, over(self.kind, self.limit, self.running(pos)), self.costs[pos]
            )
        hit = self.dupes[pos - len(self.hits)]
        return self.make(hit, self.kind, pos, hit.why, hit.duplicate_of, 0)

    def ids(self) -> list[str]:
        if self.kind == "entity":
            return [hit.entity.id for hit in [*self.hits[self.keep :], *self.dupes]]
        return [rel.id for rel, _ in printed(self.hits)[self.keep :]] + [hit.relation.id for hit in self.dupes]

    def reasons(self) -> list[tuple[Any, Any, int]]:
        n = len(self.hits) - self.keep
        out = [(over(self.kind, 0, 0).template, None, n)] if n > 0 else []
        return out + [(hit.duplicate_of, hit.sim, 1) for hit in self.dupes]
