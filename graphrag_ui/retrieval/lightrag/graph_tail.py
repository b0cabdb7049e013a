"""LightRAG's entity and relation candidates past the token cut, made on read (``core.candidates``).

A hub question at 100k entities finds ~10⁵ edges; ``max_relation_tokens`` keeps a few hundred and every
other one is dropped "over max_relation_tokens" with its running total, then come the round-robin merge's
duplicates. The tail keeps the search's hits, costs and running totals and makes a row exactly as
``explain.graph_rows`` makes the kept ones, when a reader asks for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from graphrag_ui.base.i18n import Reason, lmsg
from graphrag_ui.retrieval.core.result import Candidate
from graphrag_ui.retrieval.lightrag.lazy_hits import printed


def over(kind: str, limit: int, running: int) -> Reason:
    if kind == "entity":
        return lmsg("over max_entity_tokens {limit} ({running})", limit=limit, running=running)
    return lmsg("over max_relation_tokens {limit} ({running})", limit=limit, running=running)


class GraphTail:
    """Hits ``keep``.. (over the budget) then the duplicates, of one kind; ``make`` is ``explain.candidate``."""

    def __init__(
        self,
        make: Callable[..., Candidate],
        kind: str,
        hits: list,
        dupes: list,
        costs: Sequence[int],
        running: Callable[[int], int],  # i -> the sum of costs 0..i (``lazy_costs.running_of``)
        keep: int,
        limit: int,
    ) -> None:
        self.make, self.kind, self.hits, self.dupes = make, kind, hits, dupes
        self.costs, self.running, self.keep, self.limit = costs, running, keep, limit

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
