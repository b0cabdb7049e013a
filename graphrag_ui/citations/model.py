"""What an answer's citations and support are, as plain data (JSON-ready through ``asdict``).

A ``Citation`` is one marker as the model wrote it (``[Data: Entities (5, 7, +more)]``, a ``[2]``, a
``* [1] file.md`` line of a ``### References`` list), its ids, and per id the context items it stands
for — or ``in_context=False`` when the id names nothing the model was shown (an invented or
out-of-range id). ``Estimate`` rows are support found by word overlap for sentences that cite nothing;
they are kept apart from cited support everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# what a context item is: the Retrieval's kinds, plus rows the context holds without a candidate
ITEM_KINDS = ("entities", "relations", "communities", "chunks", "claims")


@dataclass(frozen=True)
class Item:
    """One context item: a Retrieval candidate (kind and ``Candidate.id``) or a context row (claims)."""

    kind: str
    item_id: str


@dataclass
class CitedId:
    """One id of a marker and what it resolved to."""

    id: str  # as written ("5", "Anselm Varrick", "02-guild.md")
    in_context: bool
    items: list[Item] = field(default_factory=list)
    note: str = ""  # e.g. "not in the Entities table", "3 rows share id 0"


@dataclass
class Citation:
    """One marker in the answer (or in a map point / a DRIFT answer: ``scope``)."""

    text: str  # the marker exactly as written (one over 1000 characters cut, ending in "…")
    table: str  # "Entities", "Relationships", "Sources", "Reports", "Claims", "References", "KG", "DC", "[n]"
    ids: list[CitedId]
    sentence: str  # the answer sentence that made it
    start: int  # offsets of the marker in its text
    end: int
    more: bool = False  # "+more": the model said it left ids out
    scope: str = "answer"  # "answer", "point 3", "question 2"
    note: str = ""  # what was read loosely: a malformed marker, a range cut short

    @property
    def in_context(self) -> bool:
        return bool(self.ids) and all(i.in_context for i in self.ids)


@dataclass
class Estimate:
    """An item that supports a sentence by word overlap: an estimate, never a citation."""

    kind: str
    item_id: str
    score: float  # weighted share of the sentence's words found in the item (0–1)


@dataclass
class Sentence:
    text: str
    start: int
    end: int
    cited: list[Item] = field(default_factory=list)  # items its own markers resolve to
    invented: int = 0  # its marker ids that are not in the context
    estimates: list[Estimate] = field(default_factory=list)  # only when it cites nothing

    @property
    def supported(self) -> bool:
        return bool(self.cited or self.estimates)


@dataclass
class Split:
    """Tokens of one section (a Retrieval kind) by how the answer used its items."""

    section: str
    cited: int = 0
    estimated: int = 0
    unused: int = 0
    items: int = 0
    cited_items: int = 0

    @property
    def total(self) -> int:
        return self.cited + self.estimated + self.unused


@dataclass
class Trace:
    """An answer traced to its context (see ``graphrag_ui.citations.trace_answer``)."""

    style: str  # "graphrag", "lightrag", "none" (the mode's prompt asks for no citations)
    scope: str = "answer"
    citations: list[Citation] = field(default_factory=list)
    sentences: list[Sentence] = field(default_factory=list)
    cited: list[Item] = field(default_factory=list)  # unique, in first-cited order
    estimated: list[Item] = field(default_factory=list)  # unique, not cited
    items: int = 0  # context items in all
    split: list[Split] = field(default_factory=list)
    parts: list[Trace] = field(default_factory=list)  # map points / DRIFT questions, each traced alone

    @property
    def not_in_context(self) -> int:
        """Citations with at least one id that names nothing in the context."""
        return sum(1 for c in self.all_citations() if any(not i.in_context for i in c.ids))

    @property
    def unused_share(self) -> float | None:
        total = sum(s.total for s in self.split)
        return None if not total else sum(s.unused for s in self.split) / total

    def all_citations(self) -> list[Citation]:
        return [*self.citations, *(c for p in self.parts for c in p.all_citations())]

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        out = asdict(self)
        out["not_in_context"] = self.not_in_context
        out["unused_share"] = self.unused_share
        return out
