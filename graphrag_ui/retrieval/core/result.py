"""The ``Retrieval`` object every mode returns: what was recalled, why, and what was dropped.

It is plain data (dataclasses of str/int/float/bool/list/dict) so that it serialises to JSON for
the CLI, the batch runner, downloads and the app's tables without any special casing.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from graphrag_ui.base.i18n import ReadText, Reason, msg, pmsg
from graphrag_ui.retrieval.core.stages import Stages
from graphrag_ui.retrieval.core.tree import QuestionTree

KINDS = ("entities", "relations", "communities", "chunks")
# budget sections the modes name in words (the references' own section names — Reports, Sources,
# Entities, Relationships — stay as the references spell them)
SECTIONS = {
    "total": pmsg("budget section", "total"),
    "chunks": pmsg("budget section", "chunks"),
    "entities": pmsg("budget section", "entities"),
    "relations": pmsg("budget section", "relations"),
    "system prompt": pmsg("budget section", "system prompt"),
    "kg template": pmsg("budget section", "kg template"),
    "query": pmsg("budget section", "query"),
    "buffer": pmsg("budget section", "buffer"),
    "reports": pmsg("budget section", "reports"),
    "local": pmsg("budget section", "local"),
    "text units": pmsg("budget section", "text units"),
}


# nano-graphrag's own section names, kept as the reference spells them in the context; a reader of
# another language sees them translated beside that spelling (change line, Budget view)
REFERENCE_SECTIONS = {
    "Entities": pmsg("reference section", "Entities"),
    "Relationships": pmsg("reference section", "Relationships"),
    "Reports": pmsg("reference section", "Reports"),
    "Sources": pmsg("reference section", "Sources"),
}


def section_label(section: str) -> str:
    """A budget section's name for a reader (a ``Msg`` to translate for the reference's own names)."""
    return REFERENCE_SECTIONS.get(section, section)


@dataclass(init=False)
class Candidate:
    """One recalled item (entity, relation, community or chunk) and the reasons around it."""

    id: str
    label: str  # what a person reads: entity name, "A — B", report title, chunk preview
    data: dict[str, Any]  # the row as the mode saw it (description, type, weight, text, ...)
    order: int  # position in the order the mode found it (0-based)
    why: str = ReadText()  # why it was selected, e.g. "entity #3 by vector, sim 0.71"
    score: float | None = None  # similarity where the mode had one
    rank: float | None = None  # degree / edge degree / report rating: the reference's rank
    in_context: bool = True
    dropped: str = ReadText()  # why it is not in the context ("" when it is)
    tokens: int = 0  # tokens this item cost in its section

    def __init__(
        self,
        id: str,
        label: str,
        data: dict[str, Any],
        order: int,
        why: str | Reason = "",
        score: float | None = None,
        rank: float | None = None,
        in_context: bool = True,
        dropped: str | Reason = "",
        tokens: int = 0,
    ) -> None:
        # plain stores (a retrieval makes 10⁴–10⁵ candidates): the reasons straight into their slots
        self.id = id
        self.label = label
        self.data = data
        self.order = order
        self._why = why
        self.score = score
        self.rank = rank
        self.in_context = in_context
        self._dropped = dropped
        self.tokens = tokens

    def raw(self, name: str) -> str | Reason:
        """``why`` or ``dropped`` as given, a ``Reason`` not formatted (its template classifies it)."""
        return self.__dict__["_" + name]


@dataclass
class Budget:
    section: str
    used: int
    limit: int | None  # None: the section has no limit of its own


@dataclass
class TraceStep:
    name: str
    detail: str
    n_in: int
    n_out: int
    ms: float


@dataclass
class Keywords:
    hl: list[str] = field(default_factory=list)
    ll: list[str] = field(default_factory=list)
    source: str = ""  # "llm" | "offline" | "user" | "cache" | "" (mode uses none)


# where the keywords came from, in words (the run line, LightRAG's keywords trace step)
KEYWORD_SOURCES = {
    "offline": msg("offline"),
    "llm": msg("llm"),
    "user": pmsg("keywords source", "user"),
    "cache": msg("cache"),
}


@dataclass
class Retrieval:
    mode: str
    query: str
    params: dict[str, Any]
    keywords: Keywords = field(default_factory=Keywords)
    # each kind reads as a list; a section with a large dropped tail is a ``core.candidates.Candidates``
    entities: list[Candidate] = field(default_factory=list)
    relations: list[Candidate] = field(default_factory=list)
    communities: list[Candidate] = field(default_factory=list)
    chunks: list[Candidate] = field(default_factory=list)
    budgets: list[Budget] = field(default_factory=list)
    trace: list[TraceStep] = field(default_factory=list)
    context: str = ""
    messages: list[dict[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)  # e.g. {"embed": .., "context": ..}
    stages: Stages | None = None  # map-reduce modes only: batches, model calls, points (see stages.py)
    # answer-side fields of the reference's parameter object, for the answer layer (param_intake):
    # conversation_history (already cut to what the reference sends), stream, only_need_context/prompt
    answer_options: dict[str, Any] = field(default_factory=dict)
    # set only when a chroma server answered the vector searches (``vector_engine.summary``): the engine,
    # and per search k, ef and the overlap with the exact top-k when the local copy exists
    vector_search: dict[str, Any] = field(default_factory=dict)
    tree: QuestionTree | None = None  # ms.drift only: the questions it asked itself (see tree.py)

    def candidates(self, kind: str) -> list[Candidate]:
        return getattr(self, kind)

    def selected_ids(self, kind: str) -> list[str]:
        """Ids of the items that made it into the context, in context order."""
        items = self.candidates(kind)
        made = getattr(items, "made", items)  # a lazy section's tail holds dropped rows only (core.candidates)
        return [c.id for c in made if c.in_context]

    def to_dict(self) -> dict[str, Any]:
        lazy = {kind: list(items) for kind in KINDS if type(items := self.candidates(kind)) is not list}
        return asdict(replace(self, **lazy) if lazy else self)  # a lazy section as the list it reads as

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent, default=_jsonable)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Retrieval:
        data = dict(data)
        data["keywords"] = Keywords(**data.get("keywords", {}))
        for kind in KINDS:
            data[kind] = [Candidate(**c) for c in data.get(kind, [])]
        data["budgets"] = [Budget(**b) for b in data.get("budgets", [])]
        data["trace"] = [TraceStep(**t) for t in data.get("trace", [])]
        if data.get("stages") is not None:
            data["stages"] = Stages.from_dict(data["stages"])
        if data.get("tree") is not None:
            data["tree"] = QuestionTree.from_dict(data["tree"])
        return cls(**data)


def _jsonable(value: Any) -> Any:
    """numpy scalars and tuples reach the JSON encoder from row data; make them plain."""
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, tuple)):
        return list(value)
    return str(value)
