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
    row = got.row(pos)
    rank, weight, a, b, rel, _via = row
    found = shown.get(("r", rel.id))
    if found is None:
        data = {"source": a, "target": b, "description": rel.description, "weight": weight}
        found = shown["r", rel.id] = (f"{a} — {b}", data)
    dropped = "" if pos < kept else over(int(running[pos]), limit)
    why = got.why_of(row)
    return Candidate(rel.id, *found, pos, why, None, float(rank), pos < kept, dropped, int(got.costs[pos]))


def rooted(got: Edges, start: int, stop: int) -> tuple[Edges, list[int]]:
    """The gather ``got`` was narrowed from (``Edges.narrowed``), or ``got``, and which of its rows are rows
    ``start`` to ``stop`` of ``got``: the same edges brought by the same entities."""
    origin = got.made.get("from")
    if origin is None:
        return got, list(range(start, stop))
    return origin[0], origin[1][start:stop].tolist()


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
    order aside: a sweep's steps cutting one gather, or gathers narrowed from one, make it once (``rooted``)
    and each reads a copy at its own place."""
    if not reuse.active():  # one query: its own gather, nothing to share or copy
        head = [*before, *(candidate(got, pos, kept, running, limit, shown) for pos in range(kept))]
        return Candidates(head, RelationTail(got, kept, running, limit, shown))
    if reuse.summary_only():  # a summary step: each kept edge's id and label, one per root row (``SummaryRow``)
        return Candidates([*before, *_summary_rows(got, kept)], RelationTail(got, kept, running, limit, shown))
    made = got.made.setdefault("kept", [])  # this gather's first rows, as far as a step has read them
    if len(made) < kept:
        root, rows = rooted(got, len(made), kept)
        cache = root.made.setdefault("kept by row", {})
        for i in rows:
            found = cache.get(i)
            if found is None:  # its fields (the order aside): a step's row is a copy at its own place
                found = cache[i] = candidate(root, i, i + 1, running, limit, shown).__dict__
            made.append(found)
    head = list(before)
    new = object.__new__
    for pos, fields in enumerate(made[:kept]):
        row, own = new(Candidate), fields.copy()  # ``reuse.copied``, its order set before the copy is its own
        own["order"] = pos
        row.__dict__ = own
        head.append(row)
    return Candidates(head, RelationTail(got, kept, running, limit, shown))


def _summary_rows(got: Edges, kept: int) -> list:
    """The first ``kept`` rows of ``got`` as ``reuse.SummaryRow``s, held per row of the gather it was cut from
    (``rooted``) as one column: a step picks its rows from it by their numbers there, making only new ones."""
    origin = got.made.get("from")
    root, picks = (got, np.arange(kept)) if origin is None else (origin[0], origin[1][:kept])
    held = root.made.get("summary rows")
    if held is None:
        held = root.made["summary rows"] = (np.empty(len(root), dtype=object), np.zeros(len(root), dtype=bool))
    rows, made = held
    for i in picks[~made[picks]].tolist():
        _rank, _weight, a, b, rel, _via = root.row(i)
        rows[i] = reuse.SummaryRow(rel.id, f"{a} — {b}")
    made[picks] = True
    return rows[picks].tolist()
