"""Import a nano-graphrag working directory (0.0.2–0.0.8.x layouts) into the canonical ``Index``.

What nano stored is kept exactly: node names keep their literal double quotes (``"ALICE CHEN"``),
types and descriptions keep theirs and their ``<SEP>`` joins, ``source_id`` keeps its stored chunk
order (the text-unit step breaks ties with it), entities follow the GraphML node order and relations
the GraphML edge order (rebuilding the graph from them gives the adjacency order nano's networkx
graph had after loading), and vector rows keep the nano-vectordb row order (its argsort ties depend
on it). ``Entity.id`` is ``"ent-" + md5(stored name)``, which is exactly nano's vector ``__id__``.

Everything is read and validated before an ``Index`` is returned; a problem raises one
``IndexFormatError`` naming the file and the item.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.progress import ProgressFn
from graphrag_ui.index import coverage
from graphrag_ui.index.importers.fields import as_float, as_int
from graphrag_ui.index.importers.workdir_files import GRAPHML, normalise_rows, read_graphml, read_json, read_kv
from graphrag_ui.index.model import SEP, Chunk, Community, Document, Entity, Index, Manifest, Relation, VectorTable
from graphrag_ui.index.nano_precount import precount

KIND = "nano"
SOURCE = "nano-graphrag"
CHUNKS = "kv_store_text_chunks.json"
DOCS = "kv_store_full_docs.json"
REPORTS = "kv_store_community_reports.json"
VDB_ENTITIES = "vdb_entities.json"
VDB_CHUNKS = "vdb_chunks.json"
LAYOUT = msg("nano-graphrag 0.0.8.x layout")  # 0.0.8 and 0.0.8.2 write the same files
LAYOUT_BEFORE_0_0_8 = msg("nano-graphrag 0.0.4–0.0.7 layout")  # the same files; edges carry no `order` yet
LAYOUT_MILVUS = msg("nano-graphrag ≤ 0.0.3 layout (entity vectors in Milvus Lite)")
MILVUS = "milvus_lite.db"  # where 0.0.2/0.0.3 kept entity vectors (no vdb_entities.json)
# files only LightRAG writes next to the same graphml name
_LIGHTRAG_MARKERS = ("vdb_relationships.json", "kv_store_doc_status.json")


def detect(path: str | Path) -> bool:
    """A nano working dir: nano's graphml and chunk store, and none of LightRAG's own files."""
    folder = Path(path)
    return (
        (folder / GRAPHML).is_file()
        and (folder / CHUNKS).is_file()
        and not any((folder / m).exists() for m in _LIGHTRAG_MARKERS)
    )


def entity_id(name: str) -> str:
    """nano's vector id for an entity: md5 of the stored name, quotes included."""
    return "ent-" + hashlib.md5(name.encode("utf-8")).hexdigest()


def split_sep(value: str) -> list[str]:
    """nano's ``split_string_by_multi_markers(value, ["<SEP>"])``: pieces stripped, empties dropped."""
    return [p.strip() for p in value.split(SEP) if p.strip()]


def read_vdb(path: Path, required: bool) -> tuple[int, list[dict], np.ndarray] | None:
    """nano-vectordb file -> (dim, data rows, float32 matrix) with shape checks."""
    raw = read_json(path, required)
    if raw is None:
        return None
    if not isinstance(raw, dict) or not {"embedding_dim", "data", "matrix"} <= raw.keys():
        raise IndexFormatError(
            msg("expected a nano-vectordb object with embedding_dim, data and matrix"), where=str(path)
        )
    dim, rows = raw["embedding_dim"], raw["data"]
    if not isinstance(dim, int) or dim <= 0 or not isinstance(rows, list):
        raise IndexFormatError(msg("bad embedding_dim {dim} or data", dim=repr(dim)), where=str(path))
    try:
        flat = np.frombuffer(base64.b64decode(raw["matrix"], validate=True), dtype=np.float32)
    except (binascii.Error, ValueError, TypeError):
        raise IndexFormatError(msg("matrix is not base64 float32 data"), where=str(path)) from None
    if flat.size % dim or flat.size // dim != len(rows):
        raise IndexFormatError(
            msg(
                "matrix holds {size} floats: not {rows} rows of dimension {dim} (wrong dimension or truncated)",
                size=flat.size,
                rows=len(rows),
                dim=dim,
            ),
            where=str(path),
            fix=msg("re-export the working dir, or pass the embedder whose dimension matches"),
        )
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or "__id__" not in row:
            raise IndexFormatError(msg("data row {i} has no __id__", i=i), where=str(path))
    return dim, rows, normalise_rows(flat.reshape(len(rows), dim))


def _clusters(raw: Any, name: str, path: Path) -> list[tuple[int, str]]:
    if raw is None or raw == "":
        return []
    try:
        items = json.loads(raw)
        return [(int(c["level"]), str(c["cluster"])) for c in items]
    except (json.JSONDecodeError, TypeError, KeyError, ValueError):
        raise IndexFormatError(
            msg("node {name}: 'clusters' is not a JSON list of {{level, cluster}}", name=name),
            where=str(path),
        ) from None


def _entities(nodes: list[tuple[str, dict]], path: Path) -> list[Entity]:
    out = []
    for name, a in nodes:
        chunk_ids = split_sep(str(a.get("source_id", "")))
        extra = {k: v for k, v in a.items() if k not in {"entity_type", "description", "source_id", "clusters"}}
        if "entity_type" not in a:
            extra["missing_type"] = True
        if "description" not in a:
            extra["missing_description"] = True
        out.append(
            Entity(
                id=entity_id(name),
                name=name,
                type=str(a.get("entity_type", "UNKNOWN")),
                description=str(a.get("description", "UNKNOWN")),
                source_chunk_ids=chunk_ids,
                occurrence=len(chunk_ids),
                communities=_clusters(a.get("clusters"), name, path),
                extra=extra,
            )
        )
    return out


def _relations(edges: list[tuple[str, str, dict]]) -> list[Relation]:
    out = []
    for src, tgt, a in edges:
        pair = "\x1f".join(sorted((src, tgt)))
        out.append(
            Relation(
                id="rel-" + hashlib.md5(pair.encode("utf-8")).hexdigest(),
                source=src,
                target=tgt,
                description=str(a.get("description", "")),
                weight=as_float(a.get("weight"), GRAPHML, f"{src} -> {tgt}", "weight", 1.0),
                source_chunk_ids=split_sep(str(a.get("source_id", ""))),
                extra={k: v for k, v in a.items() if k not in {"description", "weight", "source_id"}},
            )
        )
    return out


def _communities(reports: dict[str, dict], path: Path) -> list[Community]:
    parent_of: dict[str, str] = {}
    for key, rep in reports.items():
        for sub in rep.get("sub_communities") or []:
            parent_of.setdefault(str(sub), key)
    out = []
    for key, rep in reports.items():
        if "report_string" not in rep:
            raise IndexFormatError(msg("community {key} has no report_string", key=key), where=str(path))
        report_json = rep.get("report_json") if isinstance(rep.get("report_json"), dict) else {}
        rating = report_json.get("rating")
        out.append(
            Community(
                id=str(key),
                level=as_int(rep.get("level"), path, key, "level"),
                parent=parent_of.get(str(key)),
                title=str(report_json.get("title") or rep.get("title") or f"Cluster {key}"),
                report=str(rep["report_string"]),
                rating=float(rating) if isinstance(rating, (int, float)) and not isinstance(rating, bool) else None,
                members=[str(n) for n in rep.get("nodes") or []],
                extra={
                    "report_json": report_json,
                    "schema_title": rep.get("title"),
                    "occurrence": rep.get("occurrence"),
                    "sub_communities": [str(s) for s in rep.get("sub_communities") or []],
                    "chunk_ids": list(rep.get("chunk_ids") or []),
                    "edges": [list(e) for e in rep.get("edges") or []],
                },
            )
        )
    return out


def _check_embedder_dim(embedder: str | None, dims: set[int], folder: Path) -> None:
    """The named embedder must make vectors of the stored dimension (checked without loading it)."""
    from graphrag_ui.embedding import embed

    classes = {"hash": embed.HashEmbedder, "use-m3": embed.UseM3Embedder, "usem3": embed.UseM3Embedder}
    classes["chroma-minilm"] = getattr(embed, "ChromaMiniLMEmbedder", None)
    expected = getattr(classes.get(embedder or ""), "dim", None)
    if expected and dims and expected not in dims:
        raise IndexFormatError(
            msg(
                "the stored vectors are {dims}-dimensional but embedder {embedder} makes {expected}-dimensional ones",
                dims=sorted(dims)[0],
                embedder=repr(embedder),
                expected=expected,
            ),
            where=str(folder / VDB_ENTITIES),
            fix=msg("pass the embedder that built this working dir, or omit --embedder and re-embed after import"),
        )


def _layout(folder: Path, edges: list[tuple[str, str, dict]], has_vdb: bool) -> str:
    """The release range the files show: Milvus Lite entity vectors (≤ 0.0.3), edges without ``order``
    (0.0.4–0.0.7), else 0.0.8.x (0.0.8 and 0.0.8.2 write identical files)."""
    if not has_vdb and (folder / MILVUS).is_file():
        return LAYOUT_MILVUS
    if edges and not any("order" in data for _, _, data in edges):
        return LAYOUT_BEFORE_0_0_8
    return LAYOUT


def _language(chunks: list[Chunk]) -> str:
    sample = "".join(c.text[:200] for c in chunks[:20])
    cjk = sum("\u4e00" <= ch <= "\u9fff" for ch in sample)
    return "zh" if sample and cjk > len(sample) * 0.2 else ("en" if sample else "")


def import_dir(src: str | Path, embedder: str | None = None, progress: ProgressFn | None = None) -> Index:
    """Read and validate a nano-graphrag working directory; nothing is written."""
    folder = Path(src)
    if not folder.is_dir():
        raise IndexFormatError(msg("not a directory"), where=str(folder), fix=msg("give the nano-graphrag working_dir"))
    if not any(folder.iterdir()):
        raise IndexFormatError(msg("the directory is empty"), where=str(folder))
    if any((folder / m).exists() for m in _LIGHTRAG_MARKERS):
        raise IndexFormatError(
            msg("this is a LightRAG working directory (it has vdb_relationships.json / kv_store_doc_status.json)"),
            where=str(folder),
            fix=msg("import it with `import lightrag` (or `import auto`)"),
        )
    if not (folder / GRAPHML).is_file() and (any(folder.glob("*.parquet")) or (folder / "output").is_dir()):
        raise IndexFormatError(
            msg("this looks like a GraphRAG output folder, not a nano-graphrag working_dir"),
            where=str(folder),
            fix=msg("import it with `import msgraphrag` (or `import auto`)"),
        )
    steps = 7
    step = 0

    def tick(stage: str) -> None:
        nonlocal step
        step += 1
        if progress:
            progress(stage, step, steps)

    nodes, edges = read_graphml(folder / GRAPHML)
    tick(msg("read graph"))
    chunk_kv = read_kv(folder / CHUNKS, required=True)
    doc_kv = read_kv(folder / DOCS, required=False)
    tick(msg("read chunks"))
    report_kv = read_kv(folder / REPORTS, required=False)
    empty_reports = (folder / REPORTS).is_file() and not report_kv
    tick(msg("read community reports"))
    vdb_ent = read_vdb(folder / VDB_ENTITIES, required=False)
    tick(msg("read entity vectors"))
    vdb_chunks = read_vdb(folder / VDB_CHUNKS, required=False)
    tick(msg("read chunk vectors"))

    chunks = []
    for cid, c in chunk_kv.items():
        if not isinstance(c.get("content"), str):
            raise IndexFormatError(msg("chunk {cid} has no text 'content'", cid=cid), where=str(folder / CHUNKS))
        chunks.append(
            Chunk(
                id=cid,
                doc_id=str(c.get("full_doc_id", "")),
                text=c["content"],
                order=as_int(c.get("chunk_order_index"), folder / CHUNKS, cid, "chunk_order_index"),
                tokens=as_int(c.get("tokens"), folder / CHUNKS, cid, "tokens"),
            )
        )
    documents = [
        Document(id=did, title=str(d.get("content", "")).strip().split("\n", 1)[0][:80], text=str(d.get("content", "")))
        for did, d in doc_kv.items()
    ]
    entities = _entities(nodes, folder / GRAPHML)
    relations = _relations(edges)
    communities = _communities(report_kv, folder / REPORTS)

    vectors: dict[str, VectorTable] = {}
    dims: set[int] = set()
    sources: dict[str, str] = {}
    warnings: list[str] = []
    by_name = {e.name: e for e in entities}
    if vdb_ent is not None:
        dim, rows, matrix = vdb_ent
        ids = []
        for row in rows:
            ent = by_name.get(row.get("entity_name", ""))
            ids.append(ent.id if ent is not None else str(row["__id__"]))
        entity_ids = {e.id for e in entities}
        missing = sum(1 for i in ids if i not in entity_ids)
        if missing:
            warnings.append(
                msg(
                    "{vdb_entities}: {missing} vector rows name entities that are not in the graph",
                    vdb_entities=VDB_ENTITIES,
                    missing=missing,
                )
            )
        vectors["entities"] = VectorTable(ids=ids, matrix=matrix)
        if rows:  # an empty file's embedding_dim says nothing
            dims.add(dim)
        sources["entities"] = f"{VDB_ENTITIES} (nano-vectordb rows, re-normalised on load as nano-vectordb does)"
    elif (folder / MILVUS).is_file():
        warnings.append(
            msg(
                "the entity vectors are in {milvus} (nano-graphrag ≤ 0.0.3 kept them in Milvus Lite), which is "
                "not read here: vector recall has nothing to search until you re-embed",
                milvus=MILVUS,
            )
        )
    else:
        warnings.append(
            msg(
                "{vdb_entities} is missing: vector recall has nothing to search (was enable_local off?)",
                vdb_entities=VDB_ENTITIES,
            )
        )
    if vdb_chunks is not None:
        dim, rows, matrix = vdb_chunks
        vectors["chunks"] = VectorTable(ids=[str(r["__id__"]) for r in rows], matrix=matrix)
        if rows:
            dims.add(dim)
        sources["chunks"] = f"{VDB_CHUNKS} (nano-vectordb rows)"
    if len(dims) > 1:
        raise IndexFormatError(
            msg("entity and chunk vectors have different dimensions {dims}", dims=str(sorted(dims))),
            where=str(folder),
            fix=msg("both vdb files must come from the same embedder"),
        )
    _check_embedder_dim(embedder, dims, folder)
    known_chunks = set(chunk_kv)
    dangling = sorted({c for e in entities for c in e.source_chunk_ids if c not in known_chunks})
    if dangling:
        warnings.append(
            msg(
                "{dangling} chunk ids cited by entities are missing from {chunks}",
                dangling=len(dangling),
                chunks=CHUNKS,
            )
        )
    no_report = sorted({cid for e in entities for _, cid in e.communities} - set(report_kv))
    if no_report:
        warnings.append(
            msg("{n} clusters have no community report (e.g. {example})", n=len(no_report), example=no_report[0])
        )
    if empty_reports:
        warnings.append(
            msg(
                "{reports} holds no community reports: the index has no communities (global modes find nothing)",
                reports=REPORTS,
            )
        )
    manifest = Manifest(
        source=SOURCE,
        embedder=embedder or "unknown",
        dimension=next(iter(dims)) if dims else 0,
        tokenizer="o200k_base",
        settings={
            "source_dir": str(folder.resolve()),
            "import_warnings": warnings,
            "nano_version": "0.0.8.2",  # the release nano.* modes follow
            "layout": str(_layout(folder, edges, vdb_ent is not None)),
        },
        vector_sources=sources,
        title=folder.resolve().name,
        language=_language(chunks),
    )
    index = Index(
        manifest=manifest,
        documents=documents,
        chunks=chunks,
        entities=entities,
        relations=relations,
        communities=communities,
        vectors=vectors,
    )
    warnings += coverage.prune(index, ghosts=False)
    tick(msg("build index"))
    precount(index)
    tick(msg("token counts"))
    return index
