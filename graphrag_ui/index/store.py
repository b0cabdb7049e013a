"""Save and load an index directory, atomically.

Layout of ``INDEX_DIR``::

    manifest.json            what the index is (``Manifest``) + a ``storage`` section; written LAST
    documents.parquet …      one Parquet table per row type, rows in their original order
    vectors/<kind>.npy       exact float32 rows + ``<kind>.ids.json`` (what ``load`` reads)
    chroma/                  chromadb PersistentClient store (absent when a chroma server holds them,
                             or when the index was saved without chroma: imports by default)
    catalog.sqlite           the SQL entity catalog for ILIKE recall (``catalog.py``); with
                             GRAPHRAG_UI_CATALOG_URL set, also a table on that server (PostgreSQL)

``save`` builds everything in a hidden sibling folder, closes every writer (chroma's client,
the SQLite engine), fsyncs, writes the manifest, then swaps the folder in with renames: the old
index is renamed away first and deleted only after the new one is in place. A folder that also holds
files a save does not write (notes, another tool's data) is never replaced: that would delete them. So a crash leaves
either the old complete index or no index at the target, never a half one; and ``load`` accepts
a folder only if its manifest exists and every table and vector count matches it
(``IndexFormatError`` names the file and the problem otherwise).

Vectors: see ``vectorstore.py`` (chroma, optionally a chroma server via ``CHROMA_HOST`` /
``CHROMA_PORT``, plus the ``.npy`` mirror that makes loading fast and bit-exact).
A crash can leave hidden siblings: ``.NAME.tmp-*`` (an unfinished save; never loadable; the next
save into the same parent folder deletes those no live save holds a lock on) and, only if it struck between the two renames, ``.NAME.old-*`` (the previous complete
index; ``load`` of the missing target says so and how to restore it).

``load`` (in ``store_load``, re-exported here) does not cache: the app keeps loaded indexes itself.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import shutil
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.index import tables, vectorstore
from graphrag_ui.index.model import FORMAT_VERSION, Index, Manifest
from graphrag_ui.index.store_load import LAYOUT, MANIFEST, is_index, load, read_manifest  # noqa: F401 (re-exported)

Progress = Callable[[str, int, int], None]  # (stage, done, total), as graphrag_ui.base.progress.TextProgress
STALE_AFTER = 5.0  # seconds; an unlocked .tmp-* folder older than this belongs to a killed save
CATALOG_FILE = "catalog.sqlite"  # = catalog.CATALOG_FILE; catalog (SQLAlchemy) is imported only to write
# progress stages of ``save`` (the Index page shows them translated)
SAVE_TABLES, SAVE_VECTORS, SAVE_CATALOG = msg("save tables"), msg("save vectors"), msg("save catalog")


def _manifest_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _stage(progress: Progress | None, stage: str, done: int, total: int) -> None:
    if progress:
        progress(stage, done, total)


def _fsync_tree(folder: Path) -> None:
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            with open(os.path.join(dirpath, name), "rb") as fh:
                os.fsync(fh.fileno())
        _fsync_dir(Path(dirpath))


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def check_target(target: Path) -> None:
    """Refuse an output folder a save must not replace (the builder asks before its long work)."""
    if target.exists() and not target.is_dir():
        raise UserError(msg("exists and is not a folder"), where=str(target), fix=msg("choose another output path"))
    if target.is_dir() and any(target.iterdir()) and not (target / MANIFEST).is_file():
        raise UserError(
            msg("the folder is not empty and holds no index; refusing to replace it"),
            where=str(target),
            fix=msg("choose an empty or new folder, or an existing index folder to overwrite"),
        )
    if target.is_dir():
        foreign = sorted(p.name + ("/" if p.is_dir() else "") for p in target.iterdir() if not _written_here(p.name))
        if foreign:
            raise UserError(
                msg(
                    "the index folder also holds files a save did not write ({names}); replacing it would delete them",
                    names=", ".join(foreign[:5]) + (", …" if len(foreign) > 5 else ""),
                ),
                where=str(target),
                fix=msg("move those files out of the folder, or save the index to a new folder"),
            )


def _written_here(name: str) -> bool:
    """Whether a save writes an entry of this name into an index folder (the rest is someone else's)."""
    return (
        name in (MANIFEST, "vectors", "chroma", CATALOG_FILE)
        or name in {f"{t}.parquet" for t in tables.TABLES}
        or name.startswith((CATALOG_FILE + "-", MANIFEST + "."))  # SQLite's journal, an unfinished manifest
    )


def _manifest_for(index: Index) -> Manifest:
    manifest = dataclasses.replace(index.manifest, counts=index.counts(), format_version=FORMAT_VERSION)
    dims = {k: int(v.matrix.shape[1]) for k, v in index.vectors.items() if np.ndim(v.matrix) == 2 and len(v)}
    if dims and not manifest.dimension:
        manifest.dimension = next(iter(dims.values()))
    wrong = {k: d for k, d in dims.items() if d != manifest.dimension}
    if wrong:
        raise UserError(
            msg(
                "vector dimensions {wrong} differ from the manifest's dimension {dimension}",
                wrong=str(wrong),
                dimension=manifest.dimension,
            ),
            fix=msg("embed every kind with the same embedder and record its dimension in the manifest"),
        )
    return manifest


def save(
    index: Index,
    path: str | Path,
    progress: Progress | None = None,
    *,
    chroma_hnsw: dict[str, Any] | None = None,
    chroma: bool = True,
    replace: bool = True,
) -> None:
    """Write ``index`` to the folder ``path`` atomically (replacing an index already there).

    ``manifest.counts`` is recomputed from the index; ``chroma_hnsw`` overrides chroma's HNSW build
    settings (e.g. ``{"ef_construction": 16, "max_neighbors": 4}`` for throw-away benchmark indexes);
    ``chroma=False`` skips the embedded chroma collections (a configured chroma server still gets them);
    ``replace=False`` refuses, at the swap itself, an index that appeared at ``path`` meanwhile (two
    analysts building one name at once: neither replaces the other's silently).
    """
    target = Path(path).absolute()
    check_target(target)
    manifest = _manifest_for(index)
    server_url = check_servers()  # a malformed server setting stops the save before anything is written
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_tmp(target.parent)
    tmp = target.parent / f".{target.name}.tmp-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    owner = os.open(tmp, os.O_RDONLY)  # held (and flock'ed) while this save runs: the folder is not stale
    fcntl.flock(owner, fcntl.LOCK_EX)
    server = vectorstore.server_from_env()
    storage: dict[str, Any] = {"layout": LAYOUT, "tables": {}}
    rows = {name: getattr(index, name) for name in tables.TABLES}
    n_rows = sum(len(r) for r in rows.values())
    n_vectors = sum(len(v) for v in index.vectors.values())
    try:
        done = 0
        _stage(progress, SAVE_TABLES, 0, n_rows)
        for name, items in rows.items():
            tables.write_table(name, items, tmp / f"{name}.parquet")
            storage["tables"][name] = f"{name}.parquet"
            done += len(items)
            _stage(progress, SAVE_TABLES, done, n_rows)
        _stage(progress, SAVE_VECTORS, 0, n_vectors)
        storage.update(
            vectorstore.write_vectors(
                tmp,
                index.vectors,
                server,
                vectorstore.new_prefix(target.name),
                (lambda d, t: progress(SAVE_VECTORS, d, t)) if progress else None,
                chroma_hnsw,
                chroma,
            )
        )
        _stage(progress, SAVE_CATALOG, 0, len(index.entities))
        from graphrag_ui.index.servers import catalog

        catalog.write_catalog(index.entities, tmp / CATALOG_FILE)
        storage["catalog"] = {"file": CATALOG_FILE, "rows": len(index.entities)}
        if server_url:  # a team's shared catalog (PostgreSQL): this index gets its own table there
            from graphrag_ui.index.servers.catalog_server import server_errors

            table = catalog.new_table_name(target.name)
            with server_errors(server_url, msg("writing the entity catalog")):
                catalog.write_catalog(index.entities, server_url, table)
            storage["catalog"]["server_table"] = table
        _stage(progress, SAVE_CATALOG, len(index.entities), len(index.entities))
        _write_manifest(tmp, manifest, storage)
        _fsync_tree(tmp)
        _swap(tmp, target, replace)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if server_url and storage.get("catalog", {}).get("server_table"):
            _drop_catalog_table(server_url, storage["catalog"]["server_table"])
        if server and storage.get("chroma", {}).get("collections"):
            try:
                vectorstore.delete_collections(storage["chroma"], tmp)
            except Exception:  # noqa: BLE001 - best effort; the original error matters more
                pass
        raise
    finally:
        os.close(owner)


def check_servers() -> str | None:
    """Read the team servers' settings strictly (``GRAPHRAG_UI_CATALOG_URL``, ``CHROMA_HOST``/``CHROMA_PORT``):
    a malformed one is a ``UserError`` naming it, its password masked. Returns the catalog URL or None.

    Import, build and reembed call it first, so a bad setting fails before minutes of work."""
    from graphrag_ui.index.servers.catalog_server import server_url_from_env

    vectorstore.server_from_env()
    return server_url_from_env()


def remove_stale_tmp(parent: Path) -> list[Path]:
    """Delete the ``.NAME.tmp-*`` folders of saves that were killed (a live save holds a lock on its folder)."""
    removed = []
    for folder in parent.glob(".*.tmp-*"):
        try:
            if not folder.is_dir() or folder.is_symlink() or time.time() - folder.stat().st_mtime < STALE_AFTER:
                continue  # young: perhaps a save between creating its folder and locking it
        except OSError:
            continue
        try:
            fd = os.open(folder, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # a save in progress
        finally:
            os.close(fd)
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _write_manifest(folder: Path, manifest: Manifest, storage: dict[str, Any]) -> None:
    data = dataclasses.asdict(manifest)
    data["storage"] = storage
    text = json.dumps(data, ensure_ascii=False, indent=2, default=_manifest_default) + "\n"
    part = folder / (MANIFEST + ".part")
    with open(part, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(part, folder / MANIFEST)


def _swap(tmp: Path, target: Path, replace: bool = True) -> None:
    """Put ``tmp`` at ``target``; the previous index there is removed only after the swap.

    The two renames run under an exclusive ``flock`` on the parent folder, so two saves to the
    same target (two processes, or threads) never interleave them.
    """
    fd = os.open(target.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        old = _swap_locked(tmp, target, replace)
    finally:
        os.close(fd)  # closing releases the lock
    if old is not None:
        try:
            previous = json.loads((old / MANIFEST).read_text(encoding="utf-8")).get("storage", {})
            vectorstore.delete_collections(previous.get("chroma", {}), old)
        except Exception:  # noqa: BLE001 - the old index is gone from view either way
            pass
        _drop_replaced_table(old)
        shutil.rmtree(old, ignore_errors=True)


def _drop_replaced_table(old: Path) -> None:
    """The replaced index's table on the team catalog server goes with it (each save writes a new one)."""
    from graphrag_ui.index.servers import catalog
    from graphrag_ui.index.servers.catalog_server import server_url_from_env

    try:
        url = server_url_from_env()
    except UserError:
        return
    table = catalog.server_table(old)
    if url and table:
        _drop_catalog_table(url, table)


def _drop_catalog_table(url: str, table: str) -> None:
    from graphrag_ui.index.servers import catalog

    try:
        catalog.drop_table(url, table)
    except Exception:  # noqa: BLE001 - best effort: the save's own result (or error) matters more
        pass


def _swap_locked(tmp: Path, target: Path, replace: bool) -> Path | None:
    old = None
    if target.exists() and not replace:
        raise UserError(
            msg("another index of this name was saved while this one was being made; it stays"),
            where=target.name,
            fix=msg("tick the box to replace it, or choose another name"),
        )
    if target.exists():
        old = target.parent / f".{target.name}.old-{uuid.uuid4().hex[:8]}"
        os.rename(target, old)
    try:
        os.rename(tmp, target)
    except BaseException:
        if old is not None:
            os.rename(old, target)
        raise
    _fsync_dir(target.parent)
    return old
