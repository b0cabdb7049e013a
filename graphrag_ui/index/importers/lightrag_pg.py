"""Import a LightRAG Server workspace straight from PostgreSQL (``PGKVStorage``, ``PGVectorStorage``,
``PGDocStatusStorage``, lightrag-hku 1.5) into the canonical ``Index``.

``import lightrag "postgresql://USER@HOST:PORT/DB?workspace=NAME&graph=PATH"``: the workspace's rows are
written out as the JSON working dir LightRAG's default storages hold for the same data (the same
fields; vectors as nano-vectordb matrices, in the tables' insertion order), beside the workspace's
NetworkX GraphML (``graph=``: the graph storage that runs beside PostgreSQL without the Apache AGE
extension), and that folder is read by ``lightrag.import_dir``: one reader for both kinds of storage.
The password comes from libpq's usual places (``PGPASSWORD``, ``~/.pgpass``) or the URL, and is never
printed: every message names the URL without it.
"""

from __future__ import annotations

import base64
import json
import tempfile
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np

from graphrag_ui.errors import IndexFormatError, UserError
from graphrag_ui.i18n import msg
from graphrag_ui.index.importers import lightrag
from graphrag_ui.index.model import SEP, Index
from graphrag_ui.progress import ProgressFn

SCHEMES = ("postgresql://", "postgres://")
KV_TABLES = {  # table -> (working-dir file, columns kept as record fields)
    "lightrag_doc_full": ("kv_store_full_docs.json", ("content", "doc_name")),
    "lightrag_doc_chunks": (
        "kv_store_text_chunks.json",
        ("tokens", "content", "chunk_order_index", "full_doc_id", "file_path", "llm_cache_list"),
    ),
    "lightrag_doc_status": (
        "kv_store_doc_status.json",
        ("status", "content_summary", "content_length", "chunks_count", "chunks_list", "file_path", "track_id"),
    ),
    "lightrag_entity_chunks": ("kv_store_entity_chunks.json", ("chunk_ids", "count")),
    "lightrag_relation_chunks": ("kv_store_relation_chunks.json", ("chunk_ids", "count")),
    "lightrag_full_entities": ("kv_store_full_entities.json", ("entity_names", "count")),
    "lightrag_full_relations": ("kv_store_full_relations.json", ("relation_pairs", "count")),
}
VDB_TABLES = {  # table prefix (a model suffix follows: _hash_256d) -> working-dir file
    "lightrag_vdb_entity": "vdb_entities.json",
    "lightrag_vdb_relation": "vdb_relationships.json",
    "lightrag_vdb_chunks": "vdb_chunks.json",
}


def is_url(src: str | Path) -> bool:
    return str(src).startswith(SCHEMES)


def shown(url: str) -> str:
    """The URL as messages print it: no password."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = (f"{parts.username}@" if parts.username else "") + host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))


def parse(url: str) -> tuple[str, str, Path]:
    """(libpq connection URL, workspace, GraphML path) of an import URL."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    workspace, graph = query.pop("workspace", ""), query.pop("graph", "")
    where = shown(url)
    if not workspace:
        raise UserError(
            msg("the URL names no LightRAG workspace"),
            where=where,
            fix=msg("add ?workspace=NAME (LightRAG's POSTGRES_WORKSPACE or the server's --workspace)"),
        )
    if not graph or not Path(graph).expanduser().is_file():
        raise UserError(
            msg("the workspace's graph file is missing: PostgreSQL holds no graph without the AGE extension"),
            where=where,
            fix=msg(
                "add &graph=PATH to the GraphML NetworkXStorage wrote "
                "(WORKING_DIR/{workspace}/graph_chunk_entity_relation.graphml)",
                workspace=workspace,
            ),
        )
    conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))
    return conninfo, workspace, Path(graph).expanduser()


def _connect(conninfo: str, where: str):
    import psycopg

    try:
        return psycopg.connect(conninfo, connect_timeout=10)
    except psycopg.Error as exc:
        first = (str(exc).strip().splitlines() or [""])[0]
        raise UserError(
            msg("cannot connect to PostgreSQL: {error}", error=first[:200]),
            where=where,
            fix=msg("check the host, port, database and user; the password comes from PGPASSWORD or ~/.pgpass"),
        ) from None


def _tables(cur) -> set[str]:
    cur.execute("SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'lightrag%%'")
    return {row[0] for row in cur.fetchall()}


def _value(value):
    return value.isoformat() if hasattr(value, "isoformat") else value


def _kv(cur, table: str, columns: tuple[str, ...], workspace: str, have: set[str]) -> dict[str, dict]:
    if table not in have:
        return {}
    cur.execute(f"SELECT * FROM {table} WHERE workspace = %s ORDER BY id", (workspace,))  # noqa: S608 (a known name)
    names = [d.name for d in cur.description]
    out = {}
    for row in cur.fetchall():
        record = dict(zip(names, row, strict=True))
        out[record["id"]] = {c: _value(record[c]) for c in columns if c in record}
    if table == "lightrag_doc_full":  # the JSON store names the file of a document file_path
        for record in out.values():
            record["file_path"] = record.pop("doc_name", None) or "unknown_source"
    return out


def _vdb_table(cur, prefix: str, workspace: str, have: set[str], where: str) -> str | None:
    """The vector table of ``prefix`` that holds this workspace (one per embedding model and width)."""
    found = []
    for table in sorted(t for t in have if t == prefix or t.startswith(prefix + "_")):
        cur.execute(f"SELECT count(*) FROM {table} WHERE workspace = %s", (workspace,))  # noqa: S608
        if cur.fetchone()[0]:
            found.append(table)
    if len(found) > 1:
        raise IndexFormatError(
            msg("the workspace has vectors of several models: {tables}", tables=", ".join(found)),
            where=where,
            fix=msg("import a workspace whose vectors one embedding model made"),
        )
    return found[0] if found else None


def _vdb(cur, table: str | None, workspace: str) -> dict:
    """A nano-vectordb file's content from one vector table (rows in insertion order)."""
    if table is None:
        return {"embedding_dim": 1, "data": [], "matrix": ""}
    cur.execute(
        f"SELECT *, content_vector::text AS vector_text FROM {table} WHERE workspace = %s "  # noqa: S608
        "ORDER BY create_time, id",
        (workspace,),
    )
    names = [d.name for d in cur.description]
    rows, vectors = [], []
    for raw in cur.fetchall():
        record = dict(zip(names, raw, strict=True))
        vectors.append(json.loads(record["vector_text"]))
        row = {"__id__": record["id"], "content": record.get("content") or ""}
        chunk_ids = record.get("chunk_ids") or []
        if "entity_name" in record:
            row.update(entity_name=record["entity_name"], source_id=SEP.join(chunk_ids))
        elif "source_id" in record:
            row.update(src_id=record["source_id"], tgt_id=record["target_id"], source_id=SEP.join(chunk_ids))
        else:
            row.update(full_doc_id=record.get("full_doc_id"))
        row["file_path"] = record.get("file_path") or ""
        rows.append(row)
    matrix = np.asarray(vectors, dtype=np.float32)
    dim = int(matrix.shape[1]) if matrix.ndim == 2 else 1
    return {"embedding_dim": dim, "data": rows, "matrix": base64.b64encode(matrix.tobytes()).decode("ascii")}


def export(url: str, folder: Path) -> tuple[str, Path]:
    """Write the workspace as a LightRAG working dir into ``folder``; returns (workspace, graph path)."""
    conninfo, workspace, graph = parse(url)
    where = shown(url)
    with _connect(conninfo, where) as conn, conn.cursor() as cur:
        have = _tables(cur)
        if not any(t.startswith("lightrag_vdb_") for t in have) or "lightrag_doc_chunks" not in have:
            raise IndexFormatError(
                msg("this database holds no LightRAG tables (LIGHTRAG_DOC_CHUNKS, LIGHTRAG_VDB_*)"),
                where=where,
                fix=msg("give the database LightRAG's PostgreSQL storages write to"),
            )
        for table, (name, columns) in KV_TABLES.items():
            records = _kv(cur, table, columns, workspace, have)
            if table == "lightrag_doc_chunks" and not records:
                raise IndexFormatError(
                    msg("workspace {workspace} has no chunks in this database", workspace=repr(workspace)),
                    where=where,
                    fix=msg("check the workspace name (LightRAG's POSTGRES_WORKSPACE)"),
                )
            if records:
                (folder / name).write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
        for prefix, name in VDB_TABLES.items():
            data = _vdb(cur, _vdb_table(cur, prefix, workspace, have, where), workspace)
            (folder / name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    (folder / lightrag.GRAPHML).write_bytes(graph.read_bytes())
    return workspace, graph


def import_url(url: str, embedder: str | None = None, progress: ProgressFn | None = None) -> Index:
    with tempfile.TemporaryDirectory(prefix="graphrag-ui-lightrag-pg-") as tmp:
        workspace, graph = export(url, Path(tmp))
        index = lightrag.import_dir(tmp, embedder=embedder, progress=progress)
    settings = index.manifest.settings
    settings.update(
        imported_from=shown(url),
        postgres_workspace=workspace,
        graph_file=str(graph.resolve()),
        layout=str(lightrag.PG_LAYOUT),
    )
    index.manifest.source = "lightrag-1.5"
    index.manifest.title = workspace
    return index
