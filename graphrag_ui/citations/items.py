"""The items a Retrieval put into its context, looked up the ways citations name them.

GraphRAG's tables name rows by their ``id`` column (the candidates' ``short_id``; several text units
may share one, as GraphRAG writes them); LightRAG 1.5.7 by the Reference Document List's ids and the
chunks behind each, 1.4.7 by entity names, "A - B" relation names, file paths and the Document Chunks'
running ``id``. Rows a table holds without a candidate (GraphRAG's Claims) are items too.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from graphrag_ui.citations.model import Item
from graphrag_ui.retrieval.core.candidates import in_context
from graphrag_ui.retrieval.core.result import KINDS, Candidate, Retrieval

TABLE_KIND = {
    "Entities": "entities",
    "Relationships": "relations",
    "Sources": "chunks",
    "Reports": "communities",
    "Claims": "claims",
}
_SECTION = re.compile(r"^-----(?P<name>[A-Za-z ]+?)(?:\(\w+\))?-----[ \t]*$", re.MULTILINE)
_REFERENCE_LINE = re.compile(r"^\[(?P<n>\d+)\][ \t]+(?P<path>.+?)[ \t]*$", re.MULTILINE)
MAX_TABLE_CHARS = 5_000_000  # a context table bigger than this is not parsed for extra rows


def norm(text: str) -> str:
    return " ".join(str(text).split()).strip().lower()


def path_keys(path: str) -> set[str]:
    """A file path and the shorter names a model writes for it (its base name, without the extension)."""
    full = norm(path)
    base = PurePosixPath(full.replace("\\", "/")).name
    return {k for k in (full, base, base.rsplit(".", 1)[0] if "." in base else base) if k}


@dataclass
class ContextItems:
    """Lookups from what citations write to the context's items."""

    by_kind: dict[str, list[Candidate]]
    tables: dict[str, dict[str, list[Item]]] = field(default_factory=dict)  # table -> id -> items
    row_text: dict[Item, str] = field(default_factory=dict)  # context rows with no candidate text of their own
    references: dict[str, str] = field(default_factory=dict)  # LightRAG 1.5.7: reference id -> file path
    _index: dict[Item, Candidate] | None = field(default=None, repr=False)

    def all_items(self) -> list[Item]:
        items = [Item(kind, c.id) for kind, cands in self.by_kind.items() for c in cands]
        extra = {i for ids in self.tables.values() for items_ in ids.values() for i in items_ if i.kind == "claims"}
        return items + sorted(extra, key=lambda i: i.item_id)

    def candidate(self, item: Item) -> Candidate | None:
        if self._index is None:
            self._index = {Item(kind, c.id): c for kind, cands in self.by_kind.items() for c in cands}
        return self._index.get(item)

    def tokens(self, item: Item) -> int:
        c = self.candidate(item)
        return int(c.tokens or 0) if c is not None else 0

    def text(self, item: Item) -> str:
        c = self.candidate(item)
        own = candidate_text(item.kind, c) + " " if c is not None else ""
        return own + self.row_text.get(item, "")

    def by_path(self, title: str) -> list[Item]:
        keys = path_keys(title)
        return [
            Item("chunks", c.id)
            for c in self.by_kind.get("chunks", [])
            if keys & path_keys(str(c.data.get("file_path") or c.data.get("doc_id") or ""))
        ]

    def by_reference(self, n: str) -> list[Item]:
        return [Item("chunks", c.id) for c in self.by_kind.get("chunks", []) if str(c.data.get("reference_id")) == n]

    def by_name(self, name: str) -> list[Item]:
        key = norm(name).strip("`'\"*")
        found = [Item("entities", c.id) for c in self.by_kind.get("entities", []) if norm(_name(c)) == key]
        if found:
            return found
        ends = [norm(part).strip("`'\"*") for part in re.split(r"\s+(?:-|–|—|<->|->|→)\s+", name, maxsplit=1)]
        if len(ends) != 2:
            return []
        return [
            Item("relations", c.id)
            for c in self.by_kind.get("relations", [])
            if {
                norm(c.data.get("entity1") or c.data.get("source") or ""),
                norm(c.data.get("entity2") or c.data.get("target") or ""),
            }
            == set(ends)
        ]


def _name(c: Candidate) -> str:
    return str(c.data.get("name") or c.data.get("entity") or c.label)


def candidate_text(kind: str, c: Candidate) -> str:
    """The words an item brings into the context (for the overlap estimate)."""
    data = c.data
    parts = [c.label]
    for key in ("name", "entity1", "entity2", "source", "target", "keywords", "title", "description", "summary"):
        if data.get(key):
            parts.append(str(data[key]))
    for key in ("text", "content", "report"):
        if data.get(key):
            parts.append(str(data[key]))
    return " ".join(parts)


def context_items(retrieval: Retrieval, only: dict[str, set[str]] | None = None) -> ContextItems:
    """Every in-context item of ``retrieval`` (``only``: kind -> ids to keep, e.g. one map batch's reports)."""
    by_kind: dict[str, list[Candidate]] = {}
    for kind in KINDS:
        cands = in_context(retrieval.candidates(kind))
        if only is not None:
            cands = [c for c in cands if c.id in only.get(kind, set())]
        by_kind[kind] = cands
    items = ContextItems(by_kind)
    for table, kind in TABLE_KIND.items():
        ids: dict[str, list[Item]] = {}
        for c in by_kind.get(kind, []):
            ids.setdefault(norm(c.data.get("short_id", c.id)), []).append(Item(kind, c.id))
        items.tables[table] = ids
    if only is None:
        _add_table_rows(retrieval.context, items)
        _add_references(retrieval.context, items)
    if retrieval.stages is not None:  # map batches: GraphRAG's report tables without a section line
        for batch in retrieval.stages.batches:
            if only is None or set(batch.community_ids) & only.get("communities", set()):
                _add_table_rows("-----Reports-----\n" + batch.context, items, add_rows=only is None)
    return items


def _add_table_rows(context: str, items: ContextItems, add_rows: bool = True) -> None:
    """Rows of GraphRAG's ``-----Name-----`` tables: the text of rows (report contents) and rows without a candidate."""
    if len(context) > MAX_TABLE_CHARS:
        return
    sections = list(_SECTION.finditer(context))
    for i, head in enumerate(sections):
        table = head.group("name").strip().title()
        if table not in TABLE_KIND:
            continue
        body = context[head.end() : sections[i + 1].start() if i + 1 < len(sections) else len(context)].strip("\n")
        reader = csv.reader(io.StringIO(body), delimiter="|")
        try:
            header = [h.strip().lower() for h in next(reader, [])]
            rows = list(reader)
        except csv.Error:
            continue
        if "id" not in header:
            continue
        col = header.index("id")
        ids = items.tables.setdefault(table, {})
        for row in rows:
            if len(row) <= col or not row[col].strip():
                continue
            key = norm(row[col])
            if key not in ids:
                if not add_rows:
                    continue
                ids[key] = [Item(TABLE_KIND[table], row[col].strip())]
            for item in ids[key]:
                items.row_text[item] = (items.row_text.get(item, "") + " " + " ".join(row)).strip()


def _add_references(context: str, items: ContextItems) -> None:
    at = context.find("Reference Document List")
    if at < 0:
        return
    for found in _REFERENCE_LINE.finditer(context, at):
        items.references[found.group("n")] = found.group("path")
