"""``nano.local``'s Relationships candidates: the kept rows made, the dropped tail made on read.

At 100k entities a hub question gathers ~10⁵ edges and the Relationships budget keeps a few hundred; every
edge past the cut is dropped "over budget" with its running total. The tail (``core.candidates.Tail``)
keeps the gather's columns and the running totals, and makes a row — its label, data, reasons — exactly
as the kept rows are made, when a reader asks for it (a CSV download, a grid's first 300, the JSON).
"""

from __future__ import annotations

import numpy as np

from graphrag_ui.base.i18n import Reason, lmsg
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import Candidates
from graphrag_ui.retrieval.core.result import Candidate
from graphrag_ui.retrieval.nano.local_gather import Edges


def over(running: int, limit: int) -> Reason:
    return lmsg("over budget (section Relationships: {running}/{limit} tokens)", running=running, limit=limit)


OVER = over(0, 0).template  # the tail's one reason template (``binding`` counts the tail's drops by it)


def candidate(got: Edges, pos: int, kept: int, running: np.ndarray, limit: int, shown: dict) -> Candidate:
    """Row ``pos`` of the gather as a candidate (``shown``: labels and row data by id, shared in a sweep)."""
    rank, weight, a, b, rel, _via = got.row(pos)
    found = shown.get(("r", rel.id))
    if found is None:
        data = {"source": a, "target": b, "description": rel.description, "weight": weight}
        found = shown["r", rel.id] = (f"{a} — {b}", data)
    dropped = "" if pos < kept else over(int(running[pos]), limit)
    return Candidate(rel.id, *found, pos, got.why(pos), None, float(rank), pos < kept, dropped, int(got.costs[pos]))


class RelationTail:
    """Rows ``kept``.. of the gather: every one dropped by the budget."""

    def __init__(self, got: Edges, kept: int, running: np.ndarray, limit: int, shown: dict) -> None:
        self.got, self.kept, self.running, self.limit, self.shown = got, kept, running, limit, shown

    def __len__(self) -> int:
        return len(self.got) - self.kept

    def row(self, i: int) -> Candidate:
        return candidate(self.got, self.kept + i, self.kept, self.running, self.limit, self.shown)

    def ids(self) -> list[str]:
        table = self.got.table
        return [table[no][3].id for no in self.got.nos[self.kept :].tolist()]

    def reasons(self) -> list[tuple[str, None, int]]:
        return [(OVER, None, len(self))] if len(self) else []


def relation_candidates(
    got: Edges, kept: int, running: np.ndarray, limit: int, shown: dict, before: list[Candidate] = ()
) -> Candidates:
    """The section after the rows ``before`` it: rows before ``kept`` made now, the rest on read.

    A kept row is a function of its edge and the recalled entity that brought it (its reason names it), its
    order aside: a sweep's steps (``shown`` shared) make it once and each reads a copy at its own place."""
    made = got.made.setdefault("kept", [])  # this gather's first rows, as far as a step has read them
    if len(made) < kept:
        start, names = len(made), got.names
        nos, via = got.nos[start:kept].tolist(), got.via[start:kept].tolist()
        for pos, no, by in zip(range(start, kept), nos, via, strict=True):
            key = (no, by, names[by])  # the edge by its number in the index's edge table, and what brought it
            found = shown.get(key)
            if found is None:
                found = shown[key] = candidate(got, pos, kept, running, limit, shown)
            made.append(found)
    head = list(before)
    copied = reuse.copied
    for pos, found in enumerate(made[:kept]):
        row = copied(found)
        row.order = pos
        head.append(row)
    return Candidates(head, RelationTail(got, kept, running, limit, shown))
