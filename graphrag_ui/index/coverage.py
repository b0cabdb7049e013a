"""Which rows of an index have a vector, and vector tables that name no row at all.

Other people's sources are not always whole: a LightRAG run stopped half way leaves entities without
a vector, a GraphRAG output re-indexed into an old ``lancedb/`` keeps vectors whose ids match none of
``entities.parquet``'s. Such a table would be searched for nothing, and ``reembed`` could not tell
which text to embed for its ids, so an importer drops it (``prune``) and says so; the import report
(``graphrag_ui.index.import_report``) counts the rows left without a vector.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphrag_ui.base.i18n import msg
from graphrag_ui.index.model import Index, VectorTable

KINDS = ("entities", "relations", "chunks", "communities")
KIND_NAMES = {
    "entities": msg("entity"),
    "relations": msg("relation"),
    "chunks": msg("chunk"),
    "communities": msg("community"),
}


def row_ids(index: Index, kind: str) -> list[str]:
    rows = {"entities": index.entities, "relations": index.relations, "chunks": index.chunks}
    return [r.id for r in rows.get(kind, index.communities)]


@dataclass
class Coverage:
    """Vectors of one kind against its rows."""

    kind: str
    rows: int  # rows of the table (entities, relations, …)
    vectors: int  # rows of the vector table
    covered: int  # rows that have a vector
    ghosts: int  # vector ids that name no row

    @property
    def missing(self) -> int:
        return self.rows - self.covered


def coverage(index: Index, kind: str) -> Coverage:
    rows = row_ids(index, kind)
    table = index.vectors.get(kind)
    if table is not None and table.ids == rows:  # one vector per row in row order (the usual case): no set of
        n = len(set(rows))  # the vector ids to build and compare (~0.1 s of a 100k-entity index's first view)
        return Coverage(kind, n, len(table), n, 0)
    ids = set(rows)
    vector_ids = set(table.ids) if table is not None else set()
    covered = len(ids & vector_ids)
    return Coverage(kind, len(ids), len(table) if table is not None else 0, covered, len(vector_ids - ids))


def prune(index: Index, ghosts: bool = True) -> list[str]:
    """Drop vector tables none of whose ids names a row (and say so); returns the warnings
    (``ghosts``: also name rows that name no row, for an importer that has not said so itself)."""
    notes: list[str] = []
    for kind, table in list(index.vectors.items()):
        if not len(table):
            continue
        found = coverage(index, kind)
        if found.rows and not found.covered:
            dim = table.matrix.shape[1] if table.matrix.ndim == 2 else 0
            index.vectors[kind] = VectorTable([], np.zeros((0, dim), dtype=np.float32))
            notes.append(
                msg(
                    "{kind} vectors match no {kind} id: ignored; re-embed to search by vector",
                    kind=KIND_NAMES[kind],
                )
            )
        elif found.ghosts and ghosts:
            notes.append(
                msg(
                    "{n} {kind} vector row(s) name no {kind} of the index: a search can hit them but they add nothing",
                    n=found.ghosts,
                    kind=KIND_NAMES[kind],
                )
            )
    return notes
