"""Parse the LLM's extraction records (LightRAG 1.4 / nano-graphrag tuple style) and tolerate mistakes.

Accepted, one record per ``##`` separator or per line, ending with ``<|COMPLETE|>``::

    ("entity"<|>NAME<|>TYPE<|>DESCRIPTION[<|>ALIAS; ALIAS])
    ("relationship"<|>SOURCE<|>TARGET<|>DESCRIPTION<|>KEYWORDS<|>STRENGTH)
    ("relationship"<|>SOURCE<|>TARGET<|>DESCRIPTION<|>STRENGTH)          # nano, no keywords
    ("content_keywords"<|>KEYWORDS)                                     # kept as chunk keywords

Fields may be wrapped in double quotes. A record that cannot be understood is skipped with a warning
naming where it came from and its line number; the other records of the reply are kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from graphrag_ui.base.i18n import msg

FIELD_SEP = "<|>"
RECORD_SEP = "##"
COMPLETE = "<|COMPLETE|>"
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_SPACE = re.compile(r"\s+")
# records written back to back with no separator: ...)("entity"<|>...
_GLUED = re.compile(r'(?<=\))\s*(?=\(\s*"?(?:entity|relationship|relation|content_keywords)"?\s*<\|>)', re.IGNORECASE)


@dataclass
class EntityRecord:
    name: str
    type: str
    description: str
    aliases: list[str] = field(default_factory=list)
    mentions: int = 1


@dataclass
class RelationRecord:
    source: str
    target: str
    description: str
    keywords: str = ""
    strength: float = 1.0


@dataclass
class Extraction:
    """Everything one chunk yielded (over all gleaning passes)."""

    entities: list[EntityRecord] = field(default_factory=list)
    relations: list[RelationRecord] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    unparsed: str = ""  # the model's first answer when it held no usable record (reported by the build)

    @property
    def empty(self) -> bool:
        return not self.entities and not self.relations

    def extend(self, other: Extraction) -> None:
        self.entities.extend(other.entities)
        self.relations.extend(other.relations)
        self.keywords.extend(k for k in other.keywords if k not in self.keywords)


def clean(value: str) -> str:
    """Strip whitespace and one layer of wrapping quotes; collapse inner runs of blanks."""
    value = value.strip()
    while len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1].strip()
    return _SPACE.sub(" ", value)


def _pieces(text: str) -> list[tuple[int, str]]:
    """(1-based line number, raw record text) for each record-like piece of ``text``."""
    out: list[tuple[int, str]] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        for part in line.split(RECORD_SEP):
            for piece in _GLUED.split(part.replace(COMPLETE, "")):
                if piece.strip():
                    out.append((lineno, piece.strip()))
    return out


def parse_records(text: str, where: str, warn: Callable[[str], None]) -> Extraction:
    """Records of one LLM reply; ``where`` (e.g. ``a.txt chunk 2``) is used in warnings."""
    result = Extraction()
    for lineno, piece in _pieces(text):
        start, end = piece.find("("), piece.rfind(")")
        if start < 0 or end <= start:
            if FIELD_SEP in piece:
                warn(
                    msg(
                        "{where}, line {lineno}: record without parentheses skipped: {piece}",
                        where=where,
                        lineno=lineno,
                        piece=repr(piece[:80]),
                    )
                )
            continue  # free text around the records (e.g. "Here are the entities:") is ignored
        fields = [clean(f) for f in piece[start + 1 : end].split(FIELD_SEP)]
        kind = fields[0].lower()
        problem = _add(result, kind, fields)
        if problem:
            warn(
                msg(
                    "{where}, line {lineno}: {problem}; record skipped: {piece}",
                    where=where,
                    lineno=lineno,
                    problem=problem,
                    piece=repr(piece[:80]),
                )
            )
    return result


def _add(result: Extraction, kind: str, fields: list[str]) -> str:
    """Append one parsed record; return a reason when it is malformed ('' when fine)."""
    if kind == "entity":
        if len(fields) not in (4, 5):
            return msg("an entity needs 4 or 5 fields, got {fields}", fields=len(fields))
        name, etype, desc = fields[1], fields[2].lower(), fields[3]
        if not name:
            return msg("empty entity name")
        aliases = [clean(a) for a in fields[4].split(";")] if len(fields) == 5 else []
        result.entities.append(EntityRecord(name, etype, desc, [a for a in aliases if a]))
        return ""
    if kind in ("relationship", "relation"):
        if len(fields) == 5:  # nano: no keywords
            src, tgt, desc, keywords, strength = fields[1], fields[2], fields[3], "", fields[4]
        elif len(fields) == 6:
            src, tgt, desc, keywords, strength = fields[1:6]
        else:
            return msg("a relationship needs 5 or 6 fields, got {fields}", fields=len(fields))
        if not src or not tgt:
            return msg("empty relationship endpoint")
        weight = float(strength) if _NUMBER.match(strength) else 1.0
        result.relations.append(RelationRecord(src, tgt, desc, keywords, weight))
        return ""
    if kind in ("content_keywords", "keywords"):
        for part in fields[1:]:
            result.keywords.extend(k for k in (clean(x) for x in part.split(",")) if k and k not in result.keywords)
        return ""
    return msg("unknown record kind {fields}", fields=repr(fields[0]))
