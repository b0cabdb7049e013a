"""Import a LightRAG Server workspace straight from PostgreSQL (``PGKVStorage``, ``PGVectorStorage``,
``PGDocStatusStorage``, lightrag-hku 1.5) into the canonical ``Index``.

``import lightrag "postgresql://USER@HOST:PORT/DB?workspace=NAME&graph=PATH"``: the workspace's rows are
written out as the JSON working dir LightRAG's default storages hold for the same data (the same
fields; vectors as nano-vectordb matrices, in the tables' insertion order), beside the workspace's
NetworkX GraphML (``graph=``: the graph storage that runs beside PostgreSQL without the Apache AGE
extension), and that folder is read by ``lightrag.import_dir``: one reader for both kinds of storage.
The URL is read by ``pg_url`` (strictly when typed in a browser: the server's credentials stay home);
the password is never printed: every message names the URL without it. Table names go into SQL only
as ``psycopg.sql.Identifier``; a LightRAG-like table whose name is not plain lower case is refused.
"""

from __future__ import annotations

import base64
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from graphrag_ui.base.errors import IndexFormatError, UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.progress import ProgressFn
from graphrag_ui.index.importers import lightrag, pg_url
from graphrag_ui.index.importers.pg_url import is_url, shown  # noqa: F401 (the importer's names for them)
from graphrag_ui.index.model import SEP, Index

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
NAME = re.compile(r"[a-z0-9_]{1,63}")
VDB_TABLES = {  # table prefix (a model suffix follows: _hash_256d) -> working-dir file
    "lightrag_vdb_entity": "vdb_entities.json",
    "lightrag_vdb_relation": "vdb_relationships.json",
    "lightrag_vdb_chunks": "vdb_chunks.json",
}


def _connect(source: pg_url.Source):
    import psycopg

    try:
        if source.conninfo:
            return psycopg.connect(source.conninfo, connect_timeout=10)
        return psycopg.connect(**source.options, connect_timeout=10)
    except psycopg.Error as exc:
        first = (str(exc).strip().splitlines() or [""])[0]
        raise UserError(
            msg("cannot connect to PostgreSQL: {error}", error=first[:200]),
            where=source.shown,
            fix=msg("check the host, port, database and user; the password comes from PGPASSWORD or ~/.pgpass")
            if source.conninfo
            else msg("check the host, port, database, user and password in the URL"),
        ) from None


def _tables(cur, where: str) -> dict[str, tuple[str, str]]:
    """LightRAG's tables in the database: name -> (schema, name). A table whose name is not plain lower
    case letters, digits and ``_`` (LightRAG writes no other) is refused by name, never read."""
    cur.execute(
        "SELECT table_schema, table_name FROM information_schema.tables "
        "WHERE lower(table_name) LIKE 'lightrag%%' AND table_schema = current_schema()"
    )
    found = {}
    for schema, name in cur.fetchall():
        if not NAME.fullmatch(name):
            raise IndexFormatError(
                msg("the database holds a table named {name}, which is no LightRAG table name", name=repr(name[:80])),
                where=where,
                fix=msg("rename or drop that table (LightRAG's names are lower case letters, digits and _)"),
            )
        found[name] = (schema, name)
    return found


def _ident(have: dict[str, tuple[str, str]], table: str):
    from psycopg import sql

    return sql.Identifier(*have[table])


def _value(value):
    return value.isoformat() if hasattr(value, "isoformat") else value


def _kv(cur, table: str, columns: tuple[str, ...], workspace: str, have: dict) -> dict[str, dict]:
    from psycopg import sql

    if table not in have:
        return {}
    cur.execute(sql.SQL("SELECT * FROM {} WHERE workspace = %s ORDER BY id").format(_ident(have, table)), (workspace,))
    names = [d.name for d in cur.description]
    out = {}
    for row in cur.fetchall():
        record = dict(zip(names, row, strict=True))
        out[record["id"]] = {c: _value(record[c]) for c in columns if c in record}
    if table == "lightrag_doc_full":  # the JSON store names the file of a document file_path
        for record in out.values():
            record["file_path"] = record.pop("doc_name", None) or "unknown_source"
    return out


def _vdb_table(cur, prefix: str, workspace: str, have: dict, where: str) -> str | None:
    """The vector table of ``prefix`` that holds this workspace (one per embedding model and width)."""
    from psycopg import sql

    found = []
    for table in sorted(t for t in have if t == prefix or t.startswith(prefix + "_")):
        query = sql.SQL("SELECT count(*) FROM {} WHERE workspace = %s").format(_ident(have, table))
        cur.execute(query, (workspace,))
        if cur.fetchone()[0]:
            found.append(table)
    if len(found) > 1:
        raise IndexFormatError(
            msg("the workspace has vectors of several models: {tables}", tables=", ".join(found)),
            where=where,
            fix=msg("import a workspace whose vectors one embedding model made"),
        )
    return found[0] if found else None


def _vdb(cur, table: str | None, workspace: str, have: dict) -> dict:
    """A nano-vectordb file's content from one vector table (rows in insertion order)."""
    from psycopg import sql

    if table is None:
        return {"embedding_dim": 1, "data": [], "matrix": ""}
    query = sql.SQL(
        "SELECT *, content_vector::text AS vector_text FROM {} WHERE workspace = %s ORDER BY create_time, id"
    ).format(_ident(have, table))
    cur.execute(query, (workspace,))
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


def export(url: str, folder: Path, guard: Any = None) -> tuple[str, Path]:
    """Write the workspace as a LightRAG working dir into ``folder``; returns (workspace, graph path).

    ``guard``: the operator's limits when the URL was typed in a browser (``pg_url``)."""
    import psycopg

    nowhere = folder / ".none"  # a folder never created: libpq's password file and client key point into it
    source = pg_url.parse(url, guard, nowhere)
    where = source.shown
    try:
        with _connect(source) as conn, conn.cursor() as cur:
            _export_rows(cur, source.workspace, folder, where)
    except psycopg.Error as exc:  # a query the database refused, a connection cut mid-way
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UserError(
            msg("PostgreSQL failed while reading the workspace: {error}", error=first[:200]),
            where=where,
            fix=msg("check that the database holds LightRAG's tables and the user may read them"),
        ) from None
    (folder / lightrag.GRAPHML).write_bytes(source.graph.read_bytes())
    return source.workspace, source.graph


def _export_rows(cur, workspace: str, folder: Path, where: str) -> None:
    have = _tables(cur, where)
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
        data = _vdb(cur, _vdb_table(cur, prefix, workspace, have, where), workspace, have)
        (folder / name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def import_url(url: str, embedder: str | None = None, progress: ProgressFn | None = None, guard: Any = None) -> Index:
    with tempfile.TemporaryDirectory(prefix="graphrag-ui-lightrag-pg-") as tmp:
        workspace, graph = export(url, Path(tmp), guard)
        index = lightrag.import_dir(tmp, embedder=embedder, progress=progress)
    settings = index.manifest.settings
    settings.update(
        imported_from=pg_url.shown(url),
        postgres_workspace=workspace,
        graph_file=str(graph.resolve()),
        layout=str(lightrag.PG_LAYOUT),
    )
    index.manifest.source = "lightrag-1.5"
    index.manifest.title = workspace
    return index
