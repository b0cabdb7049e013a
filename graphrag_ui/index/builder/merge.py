"""Merge the per-chunk records into one entity per name and one relation per entity pair.

Names match after normalisation (Unicode NFKC, wrapping quotes removed, blanks collapsed, case
folded) but each entity keeps a display name as written: the most frequent spelling, the first seen
on ties. Descriptions are joined with ``<SEP>`` (unique fragments, first-seen order) and, past a
token limit, summarised by the LLM when there is one or cut to the fragments that fit when there is
not. Relation weights are summed; chunk ids keep their first-seen order.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from graphrag_ui.base import tokens
from graphrag_ui.base.i18n import msg
from graphrag_ui.index.builder.records import Extraction
from graphrag_ui.index.model import SEP, Chunk, Entity, Relation

# (subject, fragments, is_relation) -> summary text
Summariser = Callable[[str, list[str], bool], str]
_QUOTES = "\"'`“”‘’「」『』《》"
UNKNOWN = "unknown"
MERGE_ENTITIES, MERGE_RELATIONS = msg("merge entities"), msg("merge relations")  # progress stages


def normalise(name: str) -> str:
    """The matching key of a name: same key, same entity."""
    text = unicodedata.normalize("NFKC", name).strip()
    while text and (text[0] in _QUOTES or text[-1] in _QUOTES):
        text = text.strip(_QUOTES).strip()
    return " ".join(text.split()).casefold()


def display(name: str) -> str:
    """A name as shown: wrapping quotes removed, blanks collapsed, case kept."""
    text = unicodedata.normalize("NFKC", name).strip().strip(_QUOTES).strip()
    return " ".join(text.split())


def entity_id(name: str) -> str:
    return "ent-" + hashlib.md5(name.encode("utf-8")).hexdigest()


def relation_id(a: str, b: str) -> str:
    lo, hi = sorted((a, b))
    return "rel-" + hashlib.md5((lo + hi).encode("utf-8")).hexdigest()


def _add_unique(items: list[str], new: str) -> None:
    if new and new not in items:
        items.append(new)


@dataclass
class _Node:
    names: Counter = field(default_factory=Counter)
    order: list[str] = field(default_factory=list)  # spellings, first seen first
    types: Counter = field(default_factory=Counter)
    fragments: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    chunks: list[str] = field(default_factory=list)
    edge_chunks: list[str] = field(default_factory=list)
    mentions: int = 0

    def spell(self, name: str) -> None:
        self.names[name] += 1
        _add_unique(self.order, name)

    def name(self) -> str:
        return max(self.order, key=lambda n: (self.names[n], -self.order.index(n)))

    def type(self) -> str:
        """Most frequent type, a real one before unknown/other; first seen on ties (stable sort)."""
        ranked = sorted(self.types.items(), key=lambda tc: (tc[0] in (UNKNOWN, "other", ""), -tc[1]))
        return ranked[0][0] if ranked and ranked[0][0] else UNKNOWN


@dataclass
class _Edge:
    ends: tuple[str, str]  # normalised keys, direction of the first record
    fragments: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    weight: float = 0.0
    chunks: list[str] = field(default_factory=list)


@dataclass
class Merged:
    entities: list[Entity]
    relations: list[Relation]
    dropped_self_loops: int = 0


def fit_description(fragments: list[str], max_tokens: int) -> str:
    """Offline: the fragments that fit in ``max_tokens`` (always at least the first), ``<SEP>``-joined."""
    kept: list[str] = []
    used = 0
    for frag in fragments:
        cost = tokens.count(frag) + (2 if kept else 0)
        if kept and used + cost > max_tokens:
            break
        kept.append(frag)
        used += cost
    return SEP.join(kept)


def _describe(subject: str, fragments: list[str], max_tokens: int, summarise: Summariser | None, relation: bool) -> str:
    joined = SEP.join(fragments)
    if len(fragments) <= 1 or tokens.count(joined) <= max_tokens:
        return joined
    if summarise is None:
        return fit_description(fragments, max_tokens)
    return summarise(subject, fragments, relation).strip() or joined


def merge(
    chunks: list[Chunk],
    extractions: list[Extraction],
    *,
    max_tokens: int = 500,
    summarise: Summariser | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Merged:
    """One Entity per normalised name, one Relation per unordered pair, in first-seen order."""
    nodes: dict[str, _Node] = {}
    edges: dict[tuple[str, str], _Edge] = {}
    loops = 0
    for chunk, ext in zip(chunks, extractions, strict=True):
        for rec in ext.entities:
            key = normalise(rec.name)
            if not key:
                continue
            node = nodes.setdefault(key, _Node())
            node.spell(display(rec.name))
            node.types[rec.type.strip().lower()] += 1
            _add_unique(node.fragments, rec.description.strip())
            for alias in rec.aliases:
                if normalise(alias) != key and all(normalise(a) != normalise(alias) for a in node.aliases):
                    node.aliases.append(display(alias))
            _add_unique(node.chunks, chunk.id)
            node.mentions += rec.mentions
        for rec in ext.relations:
            a, b = normalise(rec.source), normalise(rec.target)
            if not a or not b or a == b:
                loops += int(bool(a) and a == b)
                continue
            for key, raw in ((a, rec.source), (b, rec.target)):
                node = nodes.setdefault(key, _Node())
                if not node.order:
                    node.spell(display(raw))
                _add_unique(node.edge_chunks, chunk.id)
            pair = (a, b) if a < b else (b, a)
            edge = edges.setdefault(pair, _Edge((a, b)))
            _add_unique(edge.fragments, rec.description.strip())
            for word in rec.keywords.split(","):
                word = " ".join(word.split())
                if word and all(k.casefold() != word.casefold() for k in edge.keywords):
                    edge.keywords.append(word)
            edge.weight += rec.strength
            _add_unique(edge.chunks, chunk.id)
    paths = {c.id: c.extra.get("file_path", "") for c in chunks}
    return Merged(
        _entities(nodes, paths, max_tokens, summarise, progress),
        _relations(edges, nodes, paths, max_tokens, summarise, progress),
        loops,
    )


def _paths(chunk_ids: list[str], paths: dict[str, str]) -> str:
    seen: list[str] = []
    for cid in chunk_ids:
        _add_unique(seen, paths.get(cid, ""))
    return SEP.join(seen)


def _entities(nodes: dict[str, _Node], paths, max_tokens, summarise, progress) -> list[Entity]:
    out: list[Entity] = []
    for i, node in enumerate(nodes.values(), start=1):
        name = node.name()
        chunk_ids = node.chunks or node.edge_chunks
        description = _describe(name, node.fragments, max_tokens, summarise, False)
        occurrence = node.mentions or len(chunk_ids)
        extra = {"file_path": _paths(chunk_ids, paths)}
        out.append(
            Entity(entity_id(name), name, node.type(), description, node.aliases, chunk_ids, occurrence, [], extra)
        )
        if progress:
            progress(MERGE_ENTITIES, i, len(nodes))
    return out


def _relations(edges: dict[tuple[str, str], _Edge], nodes, paths, max_tokens, summarise, progress) -> list[Relation]:
    out: list[Relation] = []
    for i, edge in enumerate(edges.values(), start=1):
        src, tgt = nodes[edge.ends[0]].name(), nodes[edge.ends[1]].name()
        description = _describe(f"{src} -> {tgt}", edge.fragments, max_tokens, summarise, True)
        extra = {"file_path": _paths(edge.chunks, paths)}
        keywords = ", ".join(edge.keywords)
        out.append(Relation(relation_id(src, tgt), src, tgt, description, keywords, edge.weight, edge.chunks, extra))
        if progress:
            progress(MERGE_RELATIONS, i, len(edges))
    return out
