"""Import a LightRAG working directory (any layout from 1.0 to 1.5.x) into the canonical ``Index``.

What is kept, and why:
- entities in GraphML node order and relations in GraphML *file* edge order, so rebuilding the
  graph gives the adjacency order LightRAG's ``nx.read_graphml`` saw (local relations follow it);
- names, types and descriptions exactly as stored (``<SEP>`` joins included); a missing type or
  description becomes "UNKNOWN", which is what LightRAG prints for it;
- vector rows in vdb row order (nano-vectordb's tie order depends on it); entity rows keyed by
  ``Entity.id`` (= LightRAG's ``ent-md5(name)``), relation rows by ``Relation.id``
  (= ``rel-md5(sorted pair)``); a row whose own id differs keeps it in the item's ``extra``;
- per chunk, what the vector store holds besides the matrix (content, file_path, created_at and
  the float16 copy that 1.4.7's VECTOR chunk pick reads), since those reach the context.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.progress import ProgressFn
from graphrag_ui.index import coverage
from graphrag_ui.index.importers.fields import as_int
from graphrag_ui.index.importers.lightrag_files import read_vdb
from graphrag_ui.index.importers.workdir_files import GRAPHML, read_graphml, read_kv
from graphrag_ui.index.lightrag_precount import precount
from graphrag_ui.index.model import SEP, Chunk, Document, Entity, Index, Manifest, Relation, VectorTable

KIND = "lightrag"
VDB_FILES = {"entities": "vdb_entities.json", "relations": "vdb_relationships.json", "chunks": "vdb_chunks.json"}
_NEW_CHUNK_ID = re.compile(r"-chunk-\d{3,}$")
# progress stages of an import (the Index page shows them translated)
GRAPH, VECTORS, TOKEN_COUNTS = msg("lightrag: graph"), msg("lightrag: vectors"), msg("lightrag: token counts")


def detect(path: str | Path) -> bool:
    """A LightRAG dir has the graphml plus the relation vdb or doc status (nano-graphrag has neither)."""
    folder = Path(path)
    return (folder / GRAPHML).is_file() and (
        (folder / VDB_FILES["relations"]).is_file() or (folder / "kv_store_doc_status.json").is_file()
    )


def md5_id(prefix: str, text: str) -> str:
    return prefix + hashlib.md5(text.encode("utf-8")).hexdigest()


def entity_id(name: str) -> str:
    return md5_id("ent-", name)


def relation_id(a: str, b: str) -> str:
    lo, hi = sorted((a, b))
    return md5_id("rel-", lo + hi)


def split_sep(value: object) -> list[str]:
    """LightRAG's ``split_string_by_multi_markers(v, [GRAPH_FIELD_SEP])``: stripped, no empties."""
    if not isinstance(value, str):
        return []
    return [part.strip() for part in value.split(SEP) if part.strip()]


def layout_version(folder: Path, chunks: dict[str, dict], nodes: list[tuple[str, dict]], vdbs: dict) -> str:
    """The oldest LightRAG layout the files show: "1.1" (1.0–1.1: quoted upper-case names, no
    ``entity_id``), "1.2" (``entity_id``, no chunk text in ``vdb_chunks.json``), "1.3" (``file_path``,
    chunk text in the vector store), "1.4" (float16 vector copy, ``chunks_list``, full entity stores) or
    "1.5" (chunk-tracking stores, ``<doc>-chunk-000`` ids)."""
    if (folder / "kv_store_entity_chunks.json").is_file() or (folder / "kv_store_relation_chunks.json").is_file():
        return "1.5"
    if any(_NEW_CHUNK_ID.search(cid) for cid in list(chunks)[:50]):
        return "1.5"
    rows = [row for kind in VDB_FILES for row in vdbs[kind][0][:20]]
    if (
        (folder / "kv_store_full_entities.json").is_file()
        or any(isinstance(row.get("vector"), str) for row in rows)
        or any("llm_cache_list" in row for row in list(chunks.values())[:20])
    ):
        return "1.4"
    sample = [attrs for _, attrs in nodes[:50]]
    if any("content" in row for row in vdbs["chunks"][0][:20]) or any("file_path" in a for a in sample):
        return "1.3"
    if any("entity_id" in a for a in sample) or not nodes or not all(n.startswith('"') for n, _ in nodes[:50]):
        return "1.2"
    return "1.1"


# what each layout is called where a person reads it (the manifest keeps the short form)
LAYOUT_LABELS = {
    "1.1": msg("LightRAG ≤ 1.1 layout"),
    "1.2": msg("LightRAG 1.2 layout"),
    "1.3": msg("LightRAG 1.3 layout"),
    "1.4": msg("LightRAG 1.4 layout"),
    "1.5": msg("LightRAG 1.5 layout"),
}
PG_LAYOUT = msg("LightRAG 1.5 workspace on PostgreSQL")  # lightrag_pg: the server's PostgreSQL storages


def _entities(nodes: list[tuple[str, dict]]) -> list[Entity]:
    out = []
    for name, attrs in nodes:
        chunks = split_sep(attrs.get("source_id"))
        extra = {k: v for k, v in attrs.items() if k not in {"entity_type", "description", "source_id"}}
        out.append(
            Entity(
                id=entity_id(name),
                name=name,
                type=str(attrs.get("entity_type", "UNKNOWN")),
                description=str(attrs.get("description", "UNKNOWN")),
                source_chunk_ids=chunks,
                occurrence=len(chunks),
                extra=extra,
            )
        )
    return out


def _relations(edges: list[tuple[str, str, dict]]) -> list[Relation]:
    out = []
    for src, tgt, attrs in edges:
        extra = {k: v for k, v in attrs.items() if k not in {"description", "keywords", "weight", "source_id"}}
        if "weight" not in attrs:
            extra["weight_missing"] = True  # LightRAG logs and uses 1.0
        weight = attrs.get("weight", 1.0)
        out.append(
            Relation(
                id=relation_id(src, tgt),
                source=src,
                target=tgt,
                description=str(attrs.get("description", "UNKNOWN")),
                keywords=str(attrs.get("keywords", "")),
                weight=float(weight) if isinstance(weight, (int, float)) else 1.0,
                source_chunk_ids=split_sep(attrs.get("source_id")),
                extra=extra,
            )
        )
    return out


def _chunks(kv: dict[str, dict], vdb_rows: list[dict], where: Path) -> list[Chunk]:
    out: dict[str, Chunk] = {}
    for cid, row in kv.items():
        if "content" not in row:
            raise IndexFormatError(msg("chunk {cid} has no content", cid=repr(cid)), where=str(where))
        extra = {k: v for k, v in row.items() if k in {"file_path", "llm_cache_list", "content_headings", "heading"}}
        out[cid] = Chunk(
            id=cid,
            doc_id=str(row.get("full_doc_id", "")),
            text=str(row["content"]),
            order=as_int(row.get("chunk_order_index"), where, cid, "chunk_order_index"),
            tokens=as_int(row.get("tokens"), where, cid, "tokens"),
            extra=extra,
        )
    for row in vdb_rows:
        cid = str(row["__id__"])
        chunk = out.get(cid)
        if chunk is None:  # in the vector store only: naive/mix can still return it
            chunk = out[cid] = Chunk(cid, str(row.get("full_doc_id", "")), str(row.get("content", "")), 0, 0)
            chunk.extra["in_kv"] = False
        vdb: dict = {"created_at": row.get("__created_at__")}
        if "file_path" in row:
            vdb["file_path"] = row["file_path"]
        if "content" not in row:
            vdb["no_content"] = True
        elif row["content"] != chunk.text:
            vdb["content"] = row["content"]
        chunk.extra["vdb"] = vdb
        if isinstance(row.get("vector"), str):
            chunk.extra["vector_f16"] = row["vector"]
    return list(out.values())


def _tracked_chunks(folder: Path, entities: list[Entity], relations: list[Relation]) -> None:
    """1.5's chunk-tracking stores keep every chunk id (source_id is capped); note where they differ."""
    ent_store = read_kv(folder / "kv_store_entity_chunks.json", required=False)
    rel_store = read_kv(folder / "kv_store_relation_chunks.json", required=False)
    for entity in entities:
        ids = ent_store.get(entity.name, {}).get("chunk_ids")
        if isinstance(ids, list) and ids != entity.source_chunk_ids:
            entity.extra["tracked_chunk_ids"] = ids
    for rel in relations:
        ids = rel_store.get(SEP.join(sorted((rel.source, rel.target))), {}).get("chunk_ids")
        if isinstance(ids, list) and ids != rel.source_chunk_ids:
            rel.extra["tracked_chunk_ids"] = ids


def _documents(folder: Path) -> list[Document]:
    docs = read_kv(folder / "kv_store_full_docs.json", required=False)
    status = read_kv(folder / "kv_store_doc_status.json", required=False)
    full_entities = read_kv(folder / "kv_store_full_entities.json", required=False)
    full_relations = read_kv(folder / "kv_store_full_relations.json", required=False)
    out = []
    for doc_id in list(docs) + [d for d in status if d not in docs]:
        row, st = docs.get(doc_id, {}), status.get(doc_id, {})
        path = row.get("file_path") or st.get("file_path") or doc_id
        extra = {"file_path": path}
        for key in ("status", "chunks_count", "chunks_list", "content_summary", "track_id"):
            if key in st:
                extra[key] = st[key]
        if doc_id in full_entities:
            extra["entity_names"] = full_entities[doc_id].get("entity_names", [])
        if doc_id in full_relations:
            extra["relation_pairs"] = full_relations[doc_id].get("relation_pairs", [])
        out.append(Document(id=doc_id, title=str(path), text=str(row.get("content", "")), extra=extra))
    return out


def _entity_table(rows: list[dict], matrix, by_name: dict[str, Entity]) -> VectorTable:
    ids, keep, used = [], [], set()
    for i, row in enumerate(rows):
        entity = by_name.get(row.get("entity_name", ""))
        vid = str(row["__id__"])
        key = entity.id if entity is not None else vid
        if key in used:  # the same entity twice: the first row stands (the search would show it once)
            continue
        if entity is not None and vid != entity.id:
            entity.extra["vdb_id"] = vid
        used.add(key)
        ids.append(key)
        keep.append(i)
    return VectorTable(ids, matrix if len(keep) == len(rows) else matrix[keep])


def _relation_table(rows: list[dict], matrix, by_pair: dict[frozenset, Relation]) -> tuple[VectorTable, int]:
    """Relation vectors keyed by ``Relation.id``; a pair stored in both directions (1.4 made the id
    from the row's own order) keeps its first row only. Returns the table and how many rows merged."""
    ids, keep, used = [], [], set()
    for i, row in enumerate(rows):
        vid = str(row["__id__"])
        src, tgt = row.get("src_id"), row.get("tgt_id")
        rel = by_pair.get(frozenset((src, tgt)))
        key = rel.id if rel is not None else vid
        if key in used:
            continue
        if rel is not None:  # the global path prints the row's own src/tgt order
            rel.extra.setdefault("vdb_rows", []).append([key, vid, src, tgt])
        used.add(key)
        ids.append(key)
        keep.append(i)
    merged = len(rows) - len(keep)
    return VectorTable(ids, matrix[keep] if merged else matrix), merged


def import_dir(src: str | Path, embedder: str | None = None, progress: ProgressFn | None = None) -> Index:
    """Read and validate a whole LightRAG working dir; raises ``IndexFormatError`` on any problem."""
    folder = Path(src)
    if not folder.is_dir():
        raise IndexFormatError(msg("not a directory"), where=str(folder), fix=msg("give the LightRAG working_dir"))
    if not any(folder.iterdir()):
        raise IndexFormatError(msg("the directory is empty"), where=str(folder))
    if not detect(folder):
        raise IndexFormatError(
            msg(
                "not a LightRAG working_dir (needs {graphml} and {relations})",
                graphml=GRAPHML,
                relations=VDB_FILES["relations"],
            ),
            where=str(folder),
            fix=msg("for nano-graphrag use `import nano`, for GraphRAG `import msgraphrag`"),
        )
    step = (lambda s, d, t: progress(s, d, t)) if progress else (lambda s, d, t: None)
    step(GRAPH, 0, 1)
    nodes, edges = read_graphml(folder / GRAPHML)
    entities, relations = _entities(nodes), _relations(edges)
    step(GRAPH, 1, 1)
    kv_chunks = read_kv(folder / "kv_store_text_chunks.json")
    vdbs = {}
    for i, (kind, name) in enumerate(VDB_FILES.items()):
        step(VECTORS, i, len(VDB_FILES))
        vdbs[kind] = read_vdb(folder / name)
    step(VECTORS, len(VDB_FILES), len(VDB_FILES))
    dims = {kind: v[2] for kind, v in vdbs.items() if v[0]}  # an empty file's embedding_dim says nothing
    if len(set(dims.values())) > 1:
        detail = ", ".join(f"{VDB_FILES[k]}: {d}" for k, d in dims.items())
        raise IndexFormatError(
            msg("vector files disagree on the dimension ({detail})", detail=detail), where=str(folder)
        )
    _tracked_chunks(folder, entities, relations)
    chunks = _chunks(kv_chunks, vdbs["chunks"][0], folder / "kv_store_text_chunks.json")
    documents = _documents(folder)
    by_name = {e.name: e for e in entities}
    by_pair = {frozenset((r.source, r.target)): r for r in relations}
    relation_table, merged = _relation_table(vdbs["relations"][0], vdbs["relations"][1], by_pair)
    vectors = {
        "entities": _entity_table(vdbs["entities"][0], vdbs["entities"][1], by_name),
        "relations": relation_table,
        "chunks": VectorTable([str(r["__id__"]) for r in vdbs["chunks"][0]], vdbs["chunks"][1]),
    }
    warnings: list[str] = []
    if merged:
        warnings.append(
            msg(
                "{file}: {n} relation row(s) stored a pair already stored in the other direction: "
                "kept the first row of each pair",
                file=VDB_FILES["relations"],
                n=merged,
            )
        )
    version = layout_version(folder, kv_chunks, nodes, vdbs)
    manifest = Manifest(
        source=f"lightrag-{version}",
        embedder=embedder or "unknown",
        dimension=next(iter(dims.values()), 0),
        tokenizer="o200k_base",
        settings={
            "lightrag_layout": version,
            "layout": str(LAYOUT_LABELS[version]),
            "lightrag_version": "1.5.7" if version == "1.5" else "1.4.7",  # the release lightrag.* modes follow
            "imported_from": str(folder.resolve()),
            "import_warnings": warnings,
            "merged_relation_rows": merged,
        },
        vector_sources={kind: f"{VDB_FILES[kind]} (stored vectors)" for kind in VDB_FILES},
        title=folder.name,
    )
    index = Index(manifest, documents, chunks, entities, relations, [], vectors)
    warnings += coverage.prune(index)
    manifest.counts = index.counts()
    if version != "1.5":  # the counts 1.4.7's token control charges; 1.5.7 counts other texts
        step(TOKEN_COUNTS, 0, 1)
        precount(index)
        step(TOKEN_COUNTS, 1, 1)
    return index
