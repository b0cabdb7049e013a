"""A local-search section's rows: the ones its builder made, and the dropped rest made on read.

At a wide ``top_k_mapped_entities`` a question touches ~10³ relationships, text units and reports and the
budget keeps a few dozen; a sweep built a ``Row`` and a ``Candidate`` (with its reasons) for every one at
every step. A builder now makes the rows up to its last kept one and leaves the rest — every one dropped —
as a ``RowTail``: their keys, each row's reason in runs (what ``binding`` counts) and a maker that builds
row ``i`` exactly as the loop would have (``mixed_context``). ``search._section_candidates`` turns a section
into the ``core.candidates.Candidates`` a reader walks like the eager list (its tail a ``ColumnTail``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.i18n import Reason


@dataclass
class Row:
    key: str  # our id: community id / entity id / relation id / chunk id
    short_id: str  # the id GraphRAG prints in the table
    order: int
    tokens: int = 0
    in_context: bool = False
    dropped: str | Reason = ""  # reasons kept as data until read (``lmsg``)
    why: str | Reason = ""


class RowTail:
    """Rows after a section's made ones, all dropped: ``make(i)`` builds the ``i``-th when read."""

    __slots__ = ("keys", "make", "runs")

    def __init__(self, keys: list[str], make: Callable[[int], Row], runs: list[tuple[Any, int]]) -> None:
        self.keys, self.make, self.runs = keys, make, runs

    def __len__(self) -> int:
        return len(self.keys)


@dataclass
class Section:
    text: str  # the section as it goes into the context ("" = absent)
    used: int  # tokens the reference counted for it
    limit: int
    rows: list[Row] = field(default_factory=list)  # the rows made (every kept row is one)
    notes: list[str] = field(default_factory=list)
    tail: RowTail | None = None  # the dropped rows after ``rows``, made on read

    def total(self) -> int:
        """Rows in all: made and in the tail."""
        return len(self.rows) + (len(self.tail) if self.tail is not None else 0)
