"""A question set with gold evidence: the one JSONL format the evaluation reads and writes.

One question per line, a JSON object::

    {"id": "q1", "question": "Who founded the guild?", "answer": "Anselm Varrick",
     "evidence": ["founded in 288 AC by Anselm Varrick"], "evidence_docs": ["02-guild-of-tidewrights.md"],
     "evidence_chunks": ["chunk-…"], "evidence_entities": ["Anselm Varrick"],
     "hl_keywords": ["…"], "ll_keywords": ["…"], "type": "local"}

``id`` and ``question`` are required; every other field is optional. ``evidence`` strings are facts as
written in the source documents (matched after NFKC, case folding and whitespace collapse);
``evidence_docs`` are document ids or titles, ``evidence_chunks`` chunk ids, ``evidence_entities`` entity
names or aliases. A line that cannot be read is a ``LineProblem`` naming its line number and what is wrong:
the reader skips it (and says so) or refuses the whole file, as the caller chooses. Nothing is dropped
silently. Public benchmark formats are read by ``formats``.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from graphrag_ui.base.i18n import msg

# bounds: a question set is read whole into memory and each question runs every mode and step
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_QUESTIONS = 5000
MAX_TEXT_CHARS = 20_000  # a question, an answer or one evidence string
MAX_ITEMS = 200  # gold items of one kind per question

GOLD_KINDS = ("evidence", "doc", "chunk", "entity")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
LIST_FIELDS = {
    "evidence": "evidence",
    "evidence_docs": "doc",
    "evidence_chunks": "chunk",
    "evidence_entities": "entity",
}


@dataclass(frozen=True)
class GoldItem:
    """One thing the context should hold: an evidence string, a document, a chunk or an entity."""

    kind: str  # one of GOLD_KINDS
    value: str  # the text, the document id or title, the chunk id, the entity name or alias


@dataclass
class Question:
    """One question of a set and its gold (fields as in the JSONL format above)."""

    id: str
    question: str
    answer: str = ""
    evidence: list[str] = field(default_factory=list)
    evidence_docs: list[str] = field(default_factory=list)
    evidence_chunks: list[str] = field(default_factory=list)
    evidence_entities: list[str] = field(default_factory=list)
    hl_keywords: list[str] | None = None
    ll_keywords: list[str] | None = None
    type: str = ""

    def gold(self) -> list[GoldItem]:
        """Every gold item, evidence strings first, then documents, chunks and entities."""
        return [GoldItem(kind, value) for name, kind in LIST_FIELDS.items() for value in getattr(self, name)]

    def to_json(self) -> dict[str, Any]:
        """The JSONL object of this question (empty optional fields left out)."""
        return {k: v for k, v in asdict(self).items() if v not in (None, "", [])}


@dataclass
class LineProblem:
    """A line of a question file that could not be read: where, and what is wrong with it."""

    line: int  # 1-based; 0 for the file as a whole
    what: str  # a message (``msg``)

    def __str__(self) -> str:
        return str(msg("line {line}: {what}", line=self.line, what=self.what))


@dataclass
class QuestionSet:
    """The questions read from one file, and every line that was skipped and why."""

    name: str
    questions: list[Question]
    skipped: list[LineProblem] = field(default_factory=list)
    source_format: str = "jsonl"  # "jsonl" | "multihop-rag" | "hotpotqa" | "graphrag-bench"

    def by_id(self, qid: str) -> Question | None:
        return next((q for q in self.questions if q.id == qid), None)

    def to_jsonl(self) -> str:
        import json

        return "".join(json.dumps(q.to_json(), ensure_ascii=False) + "\n" for q in self.questions)


def _text(value: Any, name: str, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ValueError(msg("'{name}' must be a non-empty string, got {value}", name=name, value=_short(value)))
    if len(value) > MAX_TEXT_CHARS:
        raise ValueError(
            msg("'{name}' is {n} characters long, more than {limit}", name=name, n=len(value), limit=MAX_TEXT_CHARS)
        )
    lone = _LONE_SURROGATE.search(value)
    if lone:
        raise ValueError(
            msg(
                "'{name}' holds a lone surrogate U+{code} at character {at} (broken UTF-16 in the JSON)",
                name=name,
                code=f"{ord(lone.group()):04x}",
                at=lone.start() + 1,
            )
        )
    return value


def text_id(value: Any, fallback: str) -> str:
    """A record's id: a string or a whole number as written (``fallback`` when missing); anything else
    (a list, an object, a fraction, true/false) is refused, never turned into some text of its own."""
    if value is None or value == "":
        return fallback
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**30:
        return str(value)
    return _text(value, "id", required=True)


def _strings(value: Any, name: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(msg("'{name}' must be a list of strings, got {value}", name=name, value=_short(value)))
    if len(value) > MAX_ITEMS:
        raise ValueError(msg("'{name}' holds {n} items, more than {limit}", name=name, n=len(value), limit=MAX_ITEMS))
    return [_text(v, name) for v in value if v.strip()]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def question_from(obj: Any) -> Question:
    """A ``Question`` from one parsed JSONL object of our format; ``ValueError`` (a message) says what is wrong."""
    if not isinstance(obj, dict):
        raise ValueError(msg("each line must be a JSON object, got {kind}", kind=type(obj).__name__))
    q = Question(
        id=text_id(obj.get("id"), "") or _text(None, "id", required=True),
        question=_text(obj.get("question"), "question", required=True),
        answer=_text(obj.get("answer"), "answer"),
        type=_text(obj.get("type"), "type"),
    )
    for name in LIST_FIELDS:
        setattr(q, name, _strings(obj.get(name), name))
    for name in ("hl_keywords", "ll_keywords"):
        if obj.get(name) is not None:
            setattr(q, name, _strings(obj[name], name))
    return q
