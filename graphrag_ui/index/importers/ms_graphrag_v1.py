"""GraphRAG 0.x/1.x output (``create_final_*.parquet``) read into the rows of the 2.x tables.

1.x wrote the same tables under other names, with a few columns elsewhere: an entity's degree is in
``create_final_nodes`` (one row per entity and level), and its vectors are either LanceDB tables with
2.x's names (``default-entity-description``…, the 1.x default), ``embeddings.<field>.parquet`` files
(``id, embedding``, the embeddings snapshot) or columns of the tables themselves
(``description_embedding``, ``text_embedding``, ``full_content_embedding``, 0.x and 1.0). Older
outputs name an entity ``name`` instead of ``title`` and a community by its ``id`` alone; both are
mapped. What comes out is what ``ms_graphrag.import_dir`` reads from a 2.x folder.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.i18n import msg
from graphrag_ui.index.model import VectorTable

FILES = {
    "entities": "create_final_entities",
    "relationships": "create_final_relationships",
    "communities": "create_final_communities",
    "community_reports": "create_final_community_reports",
    "text_units": "create_final_text_units",
    "documents": "create_final_documents",
    "nodes": "create_final_nodes",
}
REQUIRED = {
    "entities": ("id",),
    "relationships": ("id", "source", "target"),
    "communities": ("id",),
    "community_reports": ("community", "full_content"),
    "text_units": ("id", "text"),
}
# vector kind -> (snapshot file, column inside the table, table)
EMBEDDINGS = {
    "entities": ("embeddings.entity.description.parquet", "description_embedding", "entities"),
    "chunks": ("embeddings.text_unit.text.parquet", "text_embedding", "text_units"),
    "communities": ("embeddings.community.full_content.parquet", "full_content_embedding", "community_reports"),
}
Reader = Callable[..., list[dict[str, Any]] | None]


def is_v1(folder: Path) -> bool:
    return (folder / f"{FILES['entities']}.parquet").is_file() and not (folder / "entities.parquet").is_file()


def _degrees(nodes: list[dict]) -> tuple[dict[str, int], dict[str, list[tuple[int, int]]]]:
    """Degree per entity id (or title) and the (level, community) rows of ``create_final_nodes``."""
    degree: dict[str, int] = {}
    member: dict[str, list[tuple[int, int]]] = {}
    for row in nodes:
        key = str(row.get("id") or row.get("title") or "")
        if row.get("degree") is not None:
            degree.setdefault(key, int(row["degree"]))
        level, community = row.get("level"), row.get("community")
        if level is not None and community is not None and str(community) not in ("", "nan", "-1"):
            member.setdefault(key, []).append((int(level), int(float(community))))
    return degree, member


def read_tables(folder: Path, read: Reader) -> tuple[dict[str, list[dict]], list[dict]]:
    """The 2.x rows of a 1.x folder (``read(folder, file, columns, required)`` reads one Parquet file)."""
    raw = {name: read(folder, FILES[name], REQUIRED[name], True) for name in REQUIRED}
    documents = read(folder, FILES["documents"], (), False) or []
    nodes = read(folder, FILES["nodes"], (), False) or []
    degree, member = _degrees(nodes)
    for e in raw["entities"]:
        if "title" not in e:
            e["title"] = e.get("name", "")
        e.setdefault("degree", degree.get(str(e["id"]), degree.get(str(e["title"]))))
        e.setdefault("frequency", len(e.get("text_unit_ids") or []) or None)
    by_title = {str(e["title"]): str(e["id"]) for e in raw["entities"]}
    for r in raw["relationships"]:
        if "combined_degree" not in r:
            r["combined_degree"] = r.get("rank")
        r.setdefault("human_readable_id", r.get("short_id"))
    communities = raw["communities"]
    for c in communities:
        if c.get("community") is None:
            c["community"] = int(float(c["id"]))
        c.setdefault("parent", -1)
    if communities and not any(c.get("entity_ids") is not None for c in communities):
        members: dict[int, list[str]] = {}
        for key, rows in member.items():
            for _, number in rows:
                members.setdefault(number, []).append(by_title.get(key, key))
        for c in communities:
            c["entity_ids"] = members.get(int(c["community"]), [])
    for rep in raw["community_reports"]:
        rep.setdefault("id", str(rep["community"]))
        rep.setdefault("title", "")
        rep.setdefault("summary", "")
        rep.setdefault("rank", None)
        rep.setdefault("level", None)
    return raw, documents


def _matrix(values: list, where: Path) -> np.ndarray:
    lengths = {len(v) for v in values if v is not None}
    if len(lengths) > 1:
        raise IndexFormatError(
            msg("vectors of different dimensions {lengths}", lengths=str(sorted(lengths))), where=str(where)
        )
    return np.asarray([list(v) for v in values], dtype=np.float32).reshape(len(values), lengths.pop() if lengths else 0)


def parquet_vectors(folder: Path, rows: dict[str, list[dict]]) -> tuple[dict[str, VectorTable], dict[str, str]]:
    """Vectors from the embeddings snapshot files or the tables' own ``*_embedding`` columns."""
    import pyarrow.parquet as pq

    tables: dict[str, VectorTable] = {}
    sources: dict[str, str] = {}
    for kind, (file, column, table) in EMBEDDINGS.items():
        path = folder / file
        if path.is_file():
            data = pq.read_table(path).to_pylist()
            pairs = [(str(r.get("id")), r.get("embedding")) for r in data if r.get("embedding") is not None]
            sources[kind] = file
        else:
            pairs = [(str(r.get("id")), r[column]) for r in rows[table] if r.get(column) is not None]
            sources[kind] = f"{FILES[table]}.parquet:{column}"
        if pairs:
            tables[kind] = VectorTable([i for i, _ in pairs], _matrix([v for _, v in pairs], path))
        else:
            sources.pop(kind)
    return tables, sources
