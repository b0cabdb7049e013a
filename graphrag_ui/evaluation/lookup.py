"""The index, seen from the gold's side: names and aliases to entities, documents to chunks, item texts.

Built once per index (kept on it) and shared by every question, mode and step of an evaluation. The
normalisation is the one every evidence match uses: NFKC, case folding, whitespace collapsed to one space,
and no space left between two CJK characters (a Chinese fact broken over two lines of the document
is still the same fact).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from graphrag_ui.index.model import Index

_CJK = r"\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f"
_CJK_GAP = re.compile(f"(?<=[{_CJK}]) (?=[{_CJK}])")


_HAS_CJK = re.compile(f"[{_CJK}]")


def norm(text: str) -> str:
    """NFKC, casefold, whitespace collapsed (and dropped between CJK characters)."""
    collapsed = " ".join(unicodedata.normalize("NFKC", text).casefold().split())  # str.split: faster than a regex
    return _CJK_GAP.sub("", collapsed) if _HAS_CJK.search(collapsed) else collapsed


_WORD = re.compile(rf"[{_CJK}]|[^\W_]+")


def words(text: str) -> list[str]:
    """Answer tokens: words of letters and digits, each CJK character one token (of the normalised text)."""
    return _WORD.findall(norm(text))


def has_word(normalised: str, word: str) -> bool:
    """Whether a normalised text holds ``word`` (one of ``words``' tokens) as a whole word; a CJK character
    anywhere. One search per answer word: a context can be a million characters, an answer is a few words."""
    if _HAS_CJK.fullmatch(word):
        return word in normalised
    return re.search(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", normalised) is not None


@dataclass
class Lookup:
    """What the gold items name, resolved in one index."""

    index: Index
    entity_ids: dict[str, set[str]] = field(default_factory=dict)  # normalised name or alias -> entity ids
    doc_chunks: dict[str, list[str]] = field(default_factory=dict)  # doc id or normalised title -> chunk ids
    chunk_doc: dict[str, str] = field(default_factory=dict)  # chunk id -> doc id
    chunk_pos: dict[str, tuple[str, int]] = field(default_factory=dict)  # chunk id -> (doc id, order)
    _texts: dict[tuple[str, str], str] = field(default_factory=dict)
    _holding: dict[str, list[str]] = field(default_factory=dict)
    _chunk_entities: dict[str, list[str]] = field(default_factory=dict)
    _joins: dict[tuple[str, str], str] = field(default_factory=dict)

    def joined(self, first: str, second: str, join: Callable[[str, str], str]) -> str:
        """The normalised texts of two neighbouring chunks joined by ``join``, once per pair."""
        key = (first, second)
        if key not in self._joins:
            if len(self._joins) > 4096:
                self._joins.clear()
            self._joins[key] = join(self.text("chunks", first), self.text("chunks", second))
        return self._joins[key]

    def entities_of_chunk(self, chunk_id: str) -> list[str]:
        """Ids of the entities extracted from a chunk (their ``source_chunk_ids``), in table order."""
        if not self._chunk_entities:
            for entity in self.index.entities:
                for cid in entity.source_chunk_ids or []:
                    self._chunk_entities.setdefault(cid, []).append(entity.id)
            self._chunk_entities.setdefault("", [])  # built, even for an index without sources
        return self._chunk_entities.get(chunk_id, [])

    def chunks_holding(self, needle: str) -> list[str]:
        """Ids of the index's chunks whose normalised text holds ``needle`` (already normalised)."""
        if needle not in self._holding:
            if len(self._holding) > 4096:
                self._holding.clear()
            self._holding[needle] = [c.id for c in self.index.chunks if needle in self.text("chunks", c.id)]
        return self._holding[needle]

    def entities_named(self, name: str) -> set[str]:
        return self.entity_ids.get(norm(name), set())

    def chunks_of_doc(self, doc: str) -> list[str]:
        return self.doc_chunks.get(doc) or self.doc_chunks.get(norm(doc)) or self.doc_chunks.get(norm(_stem(doc)), [])

    def text(self, kind: str, item_id: str, fallback: str = "") -> str:
        """The normalised text an item puts into a context (chunk text, description, report)."""
        key = (kind, item_id)
        if key not in self._texts:
            self._texts[key] = norm(self._raw(kind, item_id) or fallback)
        return self._texts[key]

    def _raw(self, kind: str, item_id: str) -> str:
        index = self.index
        if kind == "chunks":
            found = _by_id(index, kind, index.chunks).get(item_id)
            return found.text if found else ""
        table = {"entities": index.entities, "relations": index.relations, "communities": index.communities}[kind]
        row = _by_id(index, kind, table).get(item_id)
        if row is None:
            return ""
        if kind == "communities":
            return f"{row.title}\n{row.report}"
        return row.description


def _stem(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name[-6:] else name


def _by_id(index: Index, kind: str, table: list) -> dict:
    cache = index.__dict__.setdefault("_eval_by_id", {})
    if kind not in cache or len(cache[kind]) != len(table):
        cache[kind] = {row.id: row for row in table}
    return cache[kind]


def lookup(index: Index) -> Lookup:
    """The ``Lookup`` of ``index``, made on first use and kept on it."""
    kept = index.__dict__.get("_eval_lookup")
    if kept is not None and kept[0] == (len(index.entities), len(index.chunks), len(index.documents)):
        return kept[1]
    made = Lookup(index)
    for entity in index.entities:
        for name in [entity.name, *(entity.aliases or [])]:
            made.entity_ids.setdefault(norm(name), set()).add(entity.id)
    titles = {}
    for doc in index.documents:
        titles[doc.id] = [doc.id, norm(doc.title), norm(_stem(doc.title)), norm(doc.id)]
    for chunk in sorted(index.chunks, key=lambda c: (c.doc_id, c.order)):
        made.chunk_doc[chunk.id] = chunk.doc_id
        made.chunk_pos[chunk.id] = (chunk.doc_id, chunk.order)
        for key in titles.get(chunk.doc_id, [chunk.doc_id]):
            if key:
                made.doc_chunks.setdefault(key, []).append(chunk.id)
    index.__dict__["_eval_lookup"] = ((len(index.entities), len(index.chunks), len(index.documents)), made)
    return made
