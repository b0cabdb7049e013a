"""Vectors of an index: chromadb collections plus a plain ``.npy`` mirror that loading reads.

Why two copies. Retrieval searches exactly with numpy by default (``--vectors server`` hands the
search to a chroma server instead, see ``index/vector_server.py``), so loading must bring every
vector into memory. Measured on 2 cores (chromadb 1.5.9): reading
30k×256 vectors back with ``collection.get`` takes ~1.2 s and importing chromadb alone ~1.5 s,
which would eat the whole 3 s budget for a 10k-entity index; and a collection in cosine space
does not give the stored float32 values back bit for bit (values come back up to 1 ulp off).
So ``save`` also writes ``vectors/<kind>.npy`` (float32, the exact rows) and
``vectors/<kind>.ids.json``; ``load`` reads those (milliseconds) and checks each chroma
collection's count against the manifest. For the embedded client the count comes from
chroma's own SQLite file, opened read-only, without importing chromadb; if that file's schema
is not the one chromadb 1.x writes, the check falls back to the chromadb client. If a mirror
file is missing, the vectors are read from chroma instead (slower, ≤ 1 ulp off).

Chroma is the store other tools can query (cosine space, ids = the row ids, no per-record
metadata), so it is written only when someone will read it: when the caller asks (``--chroma``;
``build`` and ``reembed`` always do) or when a chroma server is configured. Otherwise the manifest
says ``{"mode": "none"}`` and the mirror is the only copy; building chroma's HNSW graph was 15 of
the 21 s of a 10k-entity LightRAG import, on a path that retrieval never reads. With ``CHROMA_HOST`` (and optionally ``CHROMA_PORT``, default 8000) set when an index
is saved, the collections go to that chroma server instead of ``chroma/``; their names are
``<prefix>-<kind>`` with a prefix unique to each save, so many indexes can share one server.
The manifest records host, port and names; at load ``CHROMA_HOST``/``CHROMA_PORT`` override the
recorded address (the server moved). Only ``--vectors server`` asks the server (a local load reads the
mirror, so a down server does not stop it), and a server that cannot be reached is a clear error.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from graphrag_ui.base.errors import IndexFormatError, UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.redact import redact
from graphrag_ui.index import validate
from graphrag_ui.index.model import VECTOR_KINDS, VectorTable
from graphrag_ui.index.servers import server_timeouts

Progress = Callable[[int, int], None]
# HNSW settings for chroma. Retrieval never searches chroma, and building chroma's graph is most
# of the save time (10.9k×256 vectors on 2 busy cores: chroma's default 24 s, 64/12 14 s, 32/8 8 s,
# 16/4 4.7 s), so the graph is lighter than chroma's default; other tools querying the
# collections can raise ``ef_search`` for better recall.
HNSW = {"space": "cosine", "ef_construction": 32, "max_neighbors": 8}
# ef_search of collections written to a chroma server, which ``--vectors server`` searches. It must be
# set when the collection is created: chroma 1.5 records a later ``modify`` but keeps searching with
# the ef it loaded the index with until the server restarts (measured: 10k hash vectors, recall@25
# 0.33 before and after the modify, 0.73 after a restart). 1000 covers ``vector_engine.search_ef``
# for every top-k up to 250, which includes every mode's default.
SERVER_EF_SEARCH = 1000
_HOST = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?|\[?[0-9A-Fa-f:.]*:[0-9A-Fa-f:.%\w]*\]?")


def server_from_env() -> tuple[str, int] | None:
    """(host, port) of the chroma server named by the environment, or None for the embedded store."""
    host = os.environ.get("CHROMA_HOST", "").strip()
    if not host:
        return None
    if not _HOST.fullmatch(host):  # e.g. user:password@host or a URL: it would be written into manifests
        raise UserError(
            msg("CHROMA_HOST must be a host name or address, not {host}", host=repr(redact(host))),
            fix=msg("set CHROMA_HOST to the server's name (e.g. chroma.internal) and CHROMA_PORT to its port"),
        )
    port = os.environ.get("CHROMA_PORT", "8000").strip() or "8000"
    if not port.isdigit():
        raise UserError(
            msg("CHROMA_PORT must be a number, not {port}", port=repr(port)),
            fix=msg("unset it or set the server's port"),
        )
    return host, int(port)


def new_prefix(name: str) -> str:
    """Collection-name prefix unique to one save: ``gri-<folder name>-<random>``."""
    slug = re.sub(r"[^a-zA-Z0-9_-]+", "-", name).strip("-_")[:40] or "index"
    return f"gri-{slug}-{uuid.uuid4().hex[:10]}"


def _settings():
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False)


def client_for(info: dict[str, Any], folder: Path):
    import chromadb

    if info["mode"] == "server":
        host, port = server_from_env() or (info["host"], info["port"])
        try:
            return server_timeouts.chroma_client(host, port, _settings())
        except UserError:
            raise
        except Exception as exc:  # connection refused, DNS, wrong protocol
            raise UserError(
                msg(
                    "cannot reach the chroma server at {host}:{port} ({type}: {error})",
                    host=host,
                    port=port,
                    type=type(exc).__name__,
                    error=str(exc)[:160],
                ),
                where=str(folder),
                fix=msg("start the server, or set CHROMA_HOST/CHROMA_PORT to where it runs"),
            ) from None
    return chromadb.PersistentClient(path=str(validate.contained(folder, folder / "chroma")), settings=_settings())


def _check(kind: str, table: VectorTable) -> np.ndarray:
    matrix = np.ascontiguousarray(table.matrix, dtype=np.float32)
    if not table.ids and matrix.size == 0 and matrix.ndim != 2:
        matrix = matrix.reshape(0, 0)  # an empty kind given as a 1-d empty array
    if matrix.ndim != 2 or matrix.shape[0] != len(table.ids):
        raise UserError(
            msg(
                "vectors.{kind}: matrix shape {shape} does not match {ids} ids",
                kind=kind,
                shape=str(matrix.shape),
                ids=len(table.ids),
            ),
            fix=msg("give one float32 row per id"),
        )
    if len(set(table.ids)) != len(table.ids):
        seen: set[str] = set()
        dup = next(i for i in table.ids if i in seen or seen.add(i))
        raise UserError(
            msg("vectors.{kind}: duplicate id {dup}", kind=kind, dup=repr(dup)),
            fix=msg("each vector id must be unique"),
        )
    if any(not isinstance(i, str) or not i for i in table.ids):
        raise UserError(msg("vectors.{kind}: ids must be non-empty strings", kind=kind))
    validate.check_finite(
        matrix,
        f"vectors.{kind}",
        fix=msg("the embedder or the source produced them: re-embed, or fix the source's vectors"),
    )
    return matrix


FINGERPRINT_ROWS = 8


def fingerprint(matrix: np.ndarray) -> dict[str, list]:
    """A few rows spread over ``matrix`` and each row's projection on a fixed random unit vector.

    Recorded at a save to a server, compared when the index is opened on it: a collection whose
    vectors were overwritten under the same ids projects differently, while chroma's ≤ 1 ulp
    rounding of stored values does not move a projection past ``same_projection``'s tolerance."""
    n = int(matrix.shape[0])
    if not n:
        return {"rows": [], "values": []}
    rows = sorted({round(i * (n - 1) / (FINGERPRINT_ROWS - 1)) for i in range(FINGERPRINT_ROWS)})
    return {"rows": rows, "values": [float(v) for v in projections(matrix[rows])]}


def projections(rows: np.ndarray) -> np.ndarray:
    direction = np.random.default_rng(20261126).standard_normal(rows.shape[1])
    return np.asarray(rows, dtype=np.float64) @ (direction / np.linalg.norm(direction))


def same_projection(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-4 * max(1.0, abs(a), abs(b))


def write_vectors(
    folder: Path,
    vectors: dict[str, VectorTable],
    server: tuple[str, int] | None,
    prefix: str,
    progress: Progress | None = None,
    hnsw: dict[str, Any] | None = None,
    chroma_wanted: bool = True,
) -> dict[str, Any]:
    """Write the mirror, and the chroma collections when wanted or a server is set; return the manifest section."""
    unknown = sorted(set(vectors) - set(VECTOR_KINDS))
    if unknown:
        raise UserError(
            msg("unknown vector kinds {unknown}", unknown=str(unknown)),
            fix=msg("use only {vector_kinds}", vector_kinds=", ".join(VECTOR_KINDS)),
        )
    checked = {kind: _check(kind, vectors[kind]) for kind in VECTOR_KINDS if kind in vectors}
    mirror = folder / "vectors"
    mirror.mkdir()
    section: dict[str, Any] = {}
    for kind, matrix in checked.items():
        np.save(mirror / f"{kind}.npy", matrix, allow_pickle=False)
        (mirror / f"{kind}.ids.json").write_text(json.dumps(vectors[kind].ids, ensure_ascii=False), encoding="utf-8")
        section[kind] = {"rows": int(matrix.shape[0]), "dim": int(matrix.shape[1])}
    if not server and not chroma_wanted:
        return {"vectors": section, "chroma": {"mode": "none"}}
    if server:
        chroma: dict[str, Any] = {"mode": "server", "host": server[0], "port": server[1]}
        chroma["collections"] = {kind: f"{prefix}-{kind}" for kind in checked}
    else:
        chroma = {"mode": "persistent", "collections": {kind: kind for kind in checked}}
    client = client_for(chroma, folder)
    server_ef = {"ef_search": SERVER_EF_SEARCH} if server else {}
    created: list[str] = []
    try:
        batch = client.get_max_batch_size()
        total, done = sum(len(m) for m in checked.values()), 0
        for kind, matrix in checked.items():
            name = chroma["collections"][kind]
            collection = client.create_collection(
                name,
                embedding_function=None,
                configuration={"hnsw": {**HNSW, **server_ef, **(hnsw or {}), "space": "cosine"}},
                metadata={"kind": kind},
            )
            created.append(name)
            if server:  # a collection replaced or overwritten later is told by these (vector_server)
                chroma.setdefault("collection_ids", {})[kind] = str(collection.id)
                chroma.setdefault("fingerprints", {})[kind] = fingerprint(matrix)
            ids = vectors[kind].ids
            for start in range(0, len(ids), batch):
                collection.add(ids=ids[start : start + batch], embeddings=matrix[start : start + batch])
                done += min(batch, len(ids) - start)
                if progress:
                    progress(done, total)
    except BaseException as exc:
        if server:  # a server outlives this save: drop what it got (the embedded store goes with tmp)
            for name in created:
                try:
                    client.delete_collection(name)
                except Exception:  # noqa: BLE001 - best effort cleanup
                    pass
        if isinstance(exc, (UserError, KeyboardInterrupt, SystemExit)) or not isinstance(exc, Exception):
            raise
        raise UserError(
            msg("writing vectors to chroma failed: {type}: {error}", type=type(exc).__name__, error=str(exc)[:200])
        ) from None
    finally:
        client.close()  # releases chroma's SQLite and HNSW files before the folder is renamed
    return {"vectors": section, "chroma": chroma}


def delete_collections(chroma: dict[str, Any], folder: Path) -> None:
    """Drop a replaced index's server collections (the embedded store goes with its folder)."""
    if chroma.get("mode") != "server":
        return
    client = client_for(chroma, folder)
    try:
        for name in chroma.get("collections", {}).values():
            try:
                client.delete_collection(name)
            except Exception:  # noqa: BLE001 - already gone: nothing to clean
                pass
    finally:
        client.close()


def _sqlite_counts(folder: Path) -> dict[str, int] | None:
    """Collection sizes read straight from chroma 1.x's SQLite file (read-only), or None for another schema."""
    db_path = validate.contained(folder, folder / "chroma" / "chroma.sqlite3")
    if not db_path.is_file():
        raise IndexFormatError(msg("the chroma store is missing"), where=str(db_path), fix=validate.REBUILD)
    with validate.reading(db_path):
        db = sqlite3.connect(f"file:{quote(str(db_path.resolve()))}?mode=ro", uri=True, timeout=validate.LOCK_WAIT)
        try:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "collections" not in tables:
                raise IndexFormatError(msg("holds no chroma collections"), where=str(db_path), fix=validate.REBUILD)
            try:
                rows = db.execute(
                    "SELECT c.name, COUNT(e.id) FROM collections c JOIN segments s ON s.collection = c.id "
                    "AND s.scope = 'METADATA' LEFT JOIN embeddings e ON e.segment_id = s.id GROUP BY c.name"
                ).fetchall()
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc):
                    raise
                return None  # another chroma schema: ask the chromadb client
        finally:
            db.close()
    return {name: n for name, n in rows}


def chroma_counts(chroma: dict[str, Any], folder: Path) -> dict[str, int]:
    """kind -> number of vectors chroma holds (missing collections are absent from the result)."""
    if chroma.get("mode") == "none":
        return {}
    if chroma.get("mode") == "persistent":
        by_name = _sqlite_counts(folder)
        if by_name is not None:
            return {kind: by_name[name] for kind, name in chroma["collections"].items() if name in by_name}
    with chroma_errors(chroma, folder):
        client = client_for(chroma, folder)
        try:
            existing = {c.name if hasattr(c, "name") else str(c) for c in client.list_collections()}
            return {
                kind: client.get_collection(name).count()
                for kind, name in chroma["collections"].items()
                if name in existing
            }
        finally:
            client.close()


@contextlib.contextmanager
def chroma_errors(chroma: dict[str, Any], folder: Path) -> Iterator[None]:
    """chromadb's own exceptions (a damaged store, a failing server) become one clear line."""
    try:
        yield
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001 - chromadb raises many internal types
        where = folder / "chroma" if chroma.get("mode") == "persistent" else folder
        detail = " ".join(str(exc).split())[:160]
        if chroma.get("mode") == "server":  # the server failed or ran out of time, not the index
            raise UserError(
                msg("the chroma server failed ({type}: {detail})", type=type(exc).__name__, detail=detail),
                where=str(where),
                fix=msg(
                    "check that the server is running and not overloaded, or raise {env}",
                    env=server_timeouts.CHROMA_ENV,
                ),
            ) from None
        raise IndexFormatError(
            msg("the chroma vector store cannot be read ({type}: {detail})", type=type(exc).__name__, detail=detail),
            where=str(where),
            fix=validate.REBUILD,
        ) from None


def _read_chroma(chroma: dict[str, Any], folder: Path, kind: str, ids: list[str] | None) -> VectorTable:
    with chroma_errors(chroma, folder):
        client = client_for(chroma, folder)
        try:
            collection = client.get_collection(chroma["collections"][kind])
            got = collection.get(include=["embeddings"])
        finally:
            client.close()
    matrix = np.asarray(got["embeddings"], dtype=np.float32)
    if ids is None:
        return VectorTable(list(got["ids"]), matrix.reshape(len(got["ids"]), -1))
    row = {i: n for n, i in enumerate(got["ids"])}
    missing = [i for i in ids if i not in row]
    if missing:
        raise IndexFormatError(
            msg("chroma collection {kind} lacks id {missing}", kind=kind, missing=repr(missing[0])),
            where=str(folder / "vectors"),
        )
    return VectorTable(list(ids), matrix[[row[i] for i in ids]])


def read_vectors(folder: Path, storage: dict[str, Any], *, finite: bool = True) -> dict[str, VectorTable]:
    """All vector tables, verified against the manifest's counts and chroma's counts (and finite unless
    ``finite`` is False: re-embedding replaces every vector, so it may open an index whose vectors are NaN)."""
    section, chroma = storage.get("vectors", {}), storage.get("chroma", {})
    mirror_only = chroma.get("mode") == "none"
    # a server's collections are for --vectors server: a local load reads the mirror and never asks it
    local_only = mirror_only or chroma.get("mode") == "server"
    counts = chroma_counts(chroma, folder) if section and not local_only else {}
    out: dict[str, VectorTable] = {}
    for kind, meta in section.items():
        rows, dim = meta["rows"], meta["dim"]
        if not local_only and counts.get(kind) != rows:  # both integers (validate.check_storage)
            where = msg("chroma collection {kind}", kind=repr(chroma["collections"].get(kind)))
            what = (
                msg("{where} is missing but the manifest says {rows}", where=where, rows=rows)
                if kind not in counts
                else msg(
                    "{where} is {got} but the manifest says {rows}",
                    where=where,
                    got=msg("{kind} vectors", kind=counts[kind]),
                    rows=rows,
                )
            )
            raise IndexFormatError(what, where=str(folder), fix=msg("re-save or rebuild the index"))
        npy, ids_file = folder / "vectors" / f"{kind}.npy", folder / "vectors" / f"{kind}.ids.json"
        validate.contained(folder, npy)
        ids = validate.read_ids(ids_file, folder) if validate.contained(folder, ids_file).is_file() else None
        if ids is not None and len(ids) != rows:
            raise IndexFormatError(
                msg("{ids} ids but the manifest says {rows}", ids=len(ids), rows=rows),
                where=str(ids_file),
                fix=validate.REBUILD,
            )
        if npy.is_file():
            matrix = validate.load_matrix(npy, rows, dim, mapped=True)  # the header is checked first
            if ids is None:
                raise IndexFormatError(
                    msg("the ids file beside the vectors is missing"), where=str(ids_file), fix=validate.REBUILD
                )
            table = VectorTable(ids, matrix)
        elif mirror_only:
            raise IndexFormatError(
                msg("the vector file is missing and this index keeps no chroma copy"),
                where=str(npy),
                fix=msg("re-import or rebuild the index"),
            )
        else:
            table = _read_chroma(chroma, folder, kind, ids)
        if table.matrix.dtype != np.float32 or table.matrix.shape != (rows, dim):
            raise IndexFormatError(
                msg(
                    "vectors.{kind} has shape {shape} {dtype}, manifest says ({rows}, {dim}) float32",
                    kind=kind,
                    shape=str(table.matrix.shape),
                    dtype=str(table.matrix.dtype),
                    rows=rows,
                    dim=dim,
                ),
                where=str(npy),
                fix=validate.REBUILD,
            )
        if finite:
            validate.check_finite(table.matrix, str(npy))
        out[kind] = table
    return out
