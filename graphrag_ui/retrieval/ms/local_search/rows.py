"""A local-search section's rows: the ones its builder made, and the dropped rest made on read.

At a wide ``top_k_mapped_entities`` a question touches ~10³ relationships, text units and reports and the
budget keeps a few dozen; a sweep built a ``Row`` and a ``Candidate`` (with its reasons) for every one at
every step. A builder now makes the rows up to its last kept one and leaves the rest — every one dropped —
as a ``core.candidates.ColumnTail`` of ``Row``s: how many, their reasons counted in runs (what ``binding`` reads),
and their keys and a maker that builds row ``i`` exactly as the loop would have (``mixed_context``), both on read. ``section_candidates`` turns a section
into the ``core.candidates.Candidates`` a reader walks like the eager list (its tail a ``ColumnTail``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.i18n import Reason
from graphrag_ui.retrieval.core.candidates import Candidates, ColumnTail
from graphrag_ui.retrieval.core.result import Candidate
from graphrag_ui.retrieval.core.reuse import SummaryRow, copied, summary_row


@dataclass
class Row:
    key: str  # our id: community id / entity id / relation id / chunk id
    short_id: str  # the id GraphRAG prints in the table
    order: int
    tokens: int = 0
    in_context: bool = False
    dropped: str | Reason = ""  # reasons kept as data until read (``lmsg``)
    why: str | Reason = ""


@dataclass
class Section:
    text: str  # the section as it goes into the context ("" = absent)
    used: int  # tokens the reference counted for it
    limit: int
    rows: list[Row] = field(default_factory=list)  # the rows made (every kept row is one)
    notes: list[str] = field(default_factory=list)
    tail: ColumnTail | None = None  # the dropped rows after ``rows`` (``Row``s), made on read
    # in a sweep, the candidates of the rows every step sharing this list makes the same (``section_candidates``)
    made: list[Candidate] | None = None

    def total(self) -> int:
        """Rows in all: made and in the tail."""
        return len(self.rows) + (len(self.tail) if self.tail is not None else 0)


class Selected(list):
    """A step's selected entities (``EntityView``) with their ids and names as tuples: a sweep's step cuts them
    from its widest step's (``entities.HitList``) where each section's builder listed them again."""

    def __init__(self, views: list[Any], ids: tuple[str, ...], names: tuple[str, ...]) -> None:
        super().__init__(views)
        self.ids, self.names = ids, names


def ids_of(selected: list[Any]) -> tuple[str, ...]:
    """The selected entities' ids (a key of what a sweep's steps share)."""
    return selected.ids if isinstance(selected, Selected) else tuple(v.entity.id for v in selected)


def names_of(selected: list[Any]) -> tuple[str, ...]:
    return selected.names if isinstance(selected, Selected) else tuple(v.entity.name for v in selected)


def merge_rows(cands: list[Candidate], section: Section) -> None:
    """The local section's entity rows onto the entity search's candidates (by id): tokens, in or out, why."""
    by_id = {c.id: c for c in cands}
    for row in section.rows:
        cand = by_id[row.key]
        if cand.data.get("short_id") != row.short_id:  # the search's row data names it already (a new dict if not)
            cand.data = {**cand.data, "short_id": row.short_id}
        cand.in_context, cand.dropped, cand.tokens = row.in_context, row.dropped, row.tokens


Shown = Callable[[str], "tuple[str, dict] | None"]


def section_candidates(
    section: Section, shown: Shown, rank: Mapping[str, int] | None = None, summary: dict | None = None
) -> list[Candidate]:
    """A section's rows as candidates in its order — ``shown(key)`` a row's label and data (None: its item is
    not in the index), ``rank`` the reference's rank by key —, the tail's made when read. ``summary``: a sweep's
    summary step (``reuse.summaries``), its kept rows one ``reuse.SummaryRow`` per key and sweep (held there)."""

    def candidate(row: Row, order: int) -> Candidate:
        made = shown(row.key)
        label, data = made if made is not None else (row.key, {})
        data["short_id"] = row.short_id  # ``shown`` makes a new dict: the row's own
        ranked = None if rank is None else float(rank[row.key])
        return Candidate(row.key, label, data, order, row.why, None, ranked, row.in_context, row.dropped, row.tokens)

    made = section.made
    if summary is not None:
        head = [
            _summary_row(row, shown, summary) if row.in_context else candidate(row, order)
            for order, row in enumerate(section.rows)
        ]
    elif made is None:
        head = [candidate(row, order) for order, row in enumerate(section.rows)]
    else:  # row ``order`` is the same at every step sharing ``made``: made once, copied (a step's rows are its own)
        head = [copied(made[order]) for order in range(min(len(made), len(section.rows)))]
        for order in range(len(head), len(section.rows)):
            head.append(candidate(section.rows[order], order))
            made.append(copied(head[-1]))
    if section.tail is None:
        return head
    tail, start = section.tail, len(head)
    return Candidates(head, ColumnTail(len(tail), tail.ids, lambda i: candidate(tail.row(i), start + i), tail.runs))


def _summary_row(row: Row, shown: Shown, kept: dict) -> SummaryRow:
    """A kept row as a summary step reads it: its id and the label ``section_candidates`` gives it."""

    def label() -> str:
        made = shown(row.key)
        return made[0] if made is not None else row.key

    return summary_row(kept, row.key, label)
