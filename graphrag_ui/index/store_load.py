"""Load an index folder and verify it against its manifest (``store.load``; saving is in ``store``).

``load`` accepts a folder only if its manifest exists and every table and vector count matches it
(``IndexFormatError`` names the file and the problem otherwise). It does not cache: the app keeps
loaded indexes itself.
"""

from __future__ import annotations

import dataclasses
import fcntl
import functools
import itertools
import json
import os
import sqlite3
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pyarrow as pa

from graphrag_ui.base import timing, tokens
from graphrag_ui.base.errors import IndexFormatError, UserError
from graphrag_ui.base.gc_pause import paused_gc
from graphrag_ui.base.i18n import msg
from graphrag_ui.index import row_checks, tables, validate, vectorstore
from graphrag_ui.index.model import FORMAT_VERSION, CheckedOnRead, Index, Manifest, VectorTable
from graphrag_ui.index.servers import vector_server

MANIFEST = "manifest.json"
LAYOUT = 1  # version of the ``storage`` section (files inside the folder)


def read_manifest(path: str | Path) -> tuple[Manifest, dict[str, Any]]:
    """The manifest of the index at ``path`` and its storage section, checked for format."""
    folder = Path(path)
    if not folder.is_dir():
        leftovers = sorted(folder.parent.glob(f".{folder.name}.old-*")) if folder.name else []
        if leftovers:
            raise IndexFormatError(
                msg("no index folder here: a save was interrupted while swapping folders"),
                where=str(folder),
                fix=msg(
                    "the previous complete index is {leftovers}; rename it to {name} (or save again)",
                    leftovers=str(leftovers[-1]),
                    name=folder.name,
                ),
            )
        raise IndexFormatError(
            msg("no index folder here"), where=str(folder), fix=msg("give the folder `save`/build wrote")
        )
    file = validate.contained(folder, folder / MANIFEST)
    if not file.is_file():
        raise IndexFormatError(
            msg("manifest.json is missing: not an index, or a save that did not finish"),
            where=str(folder),
            fix=msg("rebuild or re-import the index"),
        )
    with validate.reading(file):
        data = json.loads(file.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise IndexFormatError(msg("the manifest is not a JSON object"), where=str(file), fix=validate.REBUILD)
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        newer = isinstance(version, int) and version > FORMAT_VERSION
        raise IndexFormatError(
            msg(
                "index format version {version}, this program reads version {format_version}",
                version=repr(version),
                format_version=FORMAT_VERSION,
            ),
            where=str(file),
            fix=msg("upgrade graphrag_ui") if newer else msg("rebuild or re-import the index with this version"),
        )
    storage = data.pop("storage", None)
    if not isinstance(storage, dict) or storage.get("layout") != LAYOUT:
        raise IndexFormatError(
            msg("the manifest has no valid storage section"), where=str(file), fix=msg("rebuild or re-import the index")
        )
    validate.check_manifest(data, file)
    known = {f.name for f in dataclasses.fields(Manifest)}
    try:
        manifest = Manifest(**{k: v for k, v in data.items() if k in known})
    except TypeError as exc:
        raise IndexFormatError(msg("incomplete manifest: {error}", error=str(exc)), where=str(file)) from None
    return manifest, storage


def load(path: str | Path, *, finite_vectors: bool = True, vectors: str = "local", lazy: bool = False) -> Index:
    """Load and verify the index at ``path``; ``Index.path`` is set to it.

    ``vectors="server"`` reads no ``.npy`` matrix: the index's chroma server collections answer the
    vector searches (``retrieval.vector_engine``). ``lazy`` (the app's and the benchmarks' open,
    ``retrieval.prepare.open_index``) leaves what a mode may never read to its first read: each local vector
    table's row checks (``model.CheckedOnRead``: a NaN row refused when a search first reads the table, a
    far-off norm said in ``Index.problems`` and by that query from then on) and each stored column's decoding
    and null check (``tables.ParquetColumns``, from the file kept open). Headers, schemas, row counts, ids
    and the built columns are checked now either way.

    The cyclic garbage collector is paused while rows are built: creating ~10⁵ small objects
    otherwise triggers repeated full collections that double the load time (measured).
    """
    folder = Path(path)
    _BEGUN.add(str(folder.absolute()))
    start, absent = timing.now(), 0
    with paused_gc():
        while True:
            before = identity(folder)
            try:
                index = _load(folder, finite_vectors, vectors, lazy)
            except IndexFormatError:
                after = identity(folder)
                if before is not None and after == before:
                    raise  # damaged: no save swapped the folder while it was read
                absent += before is None and after is None
                if absent > SWAP_RETRIES or timing.elapsed_s(start) > SWAP_PATIENCE_S:
                    raise
            else:
                if identity(folder) == before:
                    index.folder_identity = before  # type: ignore[attr-defined]  (catalog.for_index)
                    return index
                if timing.elapsed_s(start) > SWAP_PATIENCE_S:  # read whole, but maybe two saves' halves
                    raise IndexFormatError(
                        msg(
                            "saves kept replacing the index folder for {s} s while it was read",
                            s=f"{SWAP_PATIENCE_S:g}",
                        ),
                        where=str(folder),
                        fix=msg("open it again once the saves are done"),
                    )
            _wait_for_swap(folder)


_BEGUN: set[str] = set()  # every folder this process began to load (``loads_begun``)


def loads_begun() -> frozenset[str]:
    """The folders (absolute) this process has begun to load: the start-up preload warms its default index
    only while no session has asked for another one (``cli.serve``), not to take the cores from it."""
    return frozenset(_BEGUN)


# A read of a folder that saves keep swapping starts again after each swap for up to SWAP_PATIENCE_S
# seconds (a count ran out under load: 20 readers each slower than a save's interval met 5 swaps in a
# row and reported a whole, valid index as damaged); SWAP_RETRIES bounds reads of a folder found absent
# before and after a read (a missing folder is said at once, not after the patience).
SWAP_PATIENCE_S = 30.0
SWAP_RETRIES = 5


def identity(folder: Path) -> tuple[int, int, int] | None:
    """Which directory ``folder`` is now: a save puts a new one in its place (another inode; rename
    also sets the directory's ctime, so an inode number reused by a later save still differs)."""
    try:
        st = os.stat(folder)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_ctime_ns


def _wait_for_swap(folder: Path) -> None:
    """Wait while a save holds the parent folder's swap lock (``store._swap``: two renames)."""
    try:
        fd = os.open(folder.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    finally:
        os.close(fd)


def _load(folder: Path, finite_vectors: bool = True, engine: str = "local", lazy: bool = False) -> Index:
    manifest, storage = read_manifest(folder)
    tokens.warm(manifest.tokenizer)  # the first query's slowest step, loaded while the tables are read
    paths = validate.check_storage(folder, storage, tables.TABLES, folder / MANIFEST)
    counts = manifest.counts
    if engine not in ("local", "server"):
        raise UserError(msg("--vectors must be local or server, not {engine}", engine=repr(engine)))
    squared: dict[str, np.ndarray] = {}
    # Three threads: this one builds Python objects; the vectors are checked (numpy) and the Parquet files
    # decoded (Arrow) on the others, which let go of the interpreter lock. Errors come in the order a
    # reader expects: the tables' (in table order), the vectors', the catalog's, and last those of the
    # columns rows read on first use (``model.Stored``), whose decoding runs while the graph is built.
    with ThreadPoolExecutor(1, thread_name_prefix="vectors") as pool, ThreadPoolExecutor(1, "tables") as reader:
        deferred = lazy and engine == "local"
        kept = None if deferred else squared  # None: no pass now, each table's on its first read
        pending = pool.submit(_read_vectors, folder, storage, engine, finite_vectors, kept)
        loaded, stored = _read_tables(reader, paths, counts, lazy)
        vectors = pending.result()
        index = _assemble(folder, manifest, storage, paths, loaded, vectors, kept)
        if deferred:
            _check_on_read(index, folder, finite_vectors)
        for name, decoding in stored.items():
            validate.check_nulls(name, decoding.result(), paths[name])
            tables.check_extras(name, decoding.result(), paths[name])
    return index


def _read_tables(
    reader: ThreadPoolExecutor, paths: dict[str, Path], counts: dict[str, int], lazy: bool = False
) -> tuple[dict[str, list], dict[str, Future[pa.Table]]]:
    """Every table's rows, and the decoding of the columns they read on first use (``stored.StoredColumns``).

    The built columns of every file are decoded first, in table order (ids, names: small), then the
    stored ones (texts, descriptions: most of the decoding), so this thread waits only for the former.
    ``lazy``: no stored column is decoded now; each field on its first read (``tables.ParquetColumns``)."""
    present = list(itertools.takewhile(lambda name: paths[name].is_file(), tables.TABLES))
    read = tables.read_built if lazy else functools.partial(tables.read_arrow, part="built")
    built = {name: reader.submit(read, name, paths[name], counts.get(name)) for name in present}
    stored = {
        name: reader.submit(tables.read_arrow, name, paths[name], counts.get(name), "stored")
        for name in present
        if tables.stored_fields(name) and not lazy
    }
    loaded: dict[str, list] = {}
    for name in tables.TABLES:
        file = paths[name]
        if name not in built:
            what = msg("is not a file") if file.exists() else msg("is missing")
            raise IndexFormatError(
                msg("the {name} table {what}", name=name, what=what), where=str(file), fix=validate.REBUILD
            )
        if lazy:
            table, source = built.pop(name).result()
            loaded[name] = tables.rows_of(name, table, file, source)
        else:
            loaded[name] = tables.rows_of(name, built.pop(name).result(), file, stored.get(name))
        # the table's built columns are Python rows now: give their buffers back. Freed here, Arrow's
        # allocator (mimalloc) would keep them for the reader thread that made them until it ends, after
        # the graph is built too: ~45 MB more at the peak of a 100k-entity index's open
        pa.default_memory_pool().release_unused()
    return loaded, stored


def _assemble(
    folder: Path,
    manifest: Manifest,
    storage: dict[str, Any],
    paths: dict[str, Path],
    loaded: dict[str, list],
    vectors: dict[str, VectorTable],
    squared: dict[str, np.ndarray] | None,
) -> Index:
    """The index of the tables and vectors read, after checking them against the manifest and the catalog."""
    counts = manifest.counts
    expected = {k.split(".", 1)[1] for k in counts if k.startswith("vectors.")}
    if expected != set(vectors):
        raise IndexFormatError(
            msg(
                "vector kinds {vectors} differ from the manifest's {expected}",
                vectors=str(sorted(vectors)),
                expected=str(sorted(expected)),
            ),
            where=str(folder / MANIFEST),
            fix=validate.REBUILD,
        )
    for kind, table in vectors.items():
        if len(table) != counts.get(f"vectors.{kind}"):
            raise IndexFormatError(
                msg(
                    "{n} {kind} vectors but the manifest counts {expected}",
                    n=len(table),
                    kind=kind,
                    expected=counts.get(f"vectors.{kind}"),
                ),
                where=str(folder / MANIFEST),
                fix=validate.REBUILD,
            )
    catalog_file = paths["catalog"]
    if not catalog_file.is_file():
        raise IndexFormatError(msg("the entity catalog is missing"), where=str(catalog_file), fix=validate.REBUILD)
    _check_catalog(catalog_file, storage.get("catalog", {}).get("rows", len(loaded["entities"])))
    problems = row_checks.check_rows(loaded, vectors if squared is not None else {}, squared)
    with validate.reading(folder):
        index = Index(manifest=manifest, vectors=vectors, **loaded)
    index.problems = problems
    for kind, norms in (squared or {}).items():  # kept after ``Index`` is made: its refresh forgets the tables' values
        validate.keep_squared_norms(vectors[kind], norms)
    index.path = str(folder.absolute())
    return index


def _read_vectors(
    folder: Path, storage: dict, engine: str, finite: bool, squared: dict[str, np.ndarray] | None
) -> dict[str, VectorTable]:
    """The vector tables, each checked finite with one pass that also gives ``row_checks`` its norms
    (``squared`` is filled: the matrices are not read twice more; None: no pass, ``_check_on_read``)."""
    if engine == "server":
        return vector_server.server_tables(folder, storage)
    vectors = vectorstore.read_vectors(folder, storage, finite=False)
    for kind, table in vectors.items() if squared is not None else ():
        if table.matrix.ndim == 2:
            squared[kind] = validate.squared_norms(table.matrix)
        if finite:
            validate.check_finite(table.matrix, str(folder / "vectors" / f"{kind}.npy"), squared=squared.get(kind))
    return vectors


def _check_on_read(index: Index, folder: Path, finite: bool) -> None:
    """Put each vector table of ``index`` behind its first-read check (``model.CheckedOnRead``): the one pass
    ``_read_vectors`` makes at a load, then ``row_checks``' norm check, whose lines join ``index.problems``."""
    problems = index.problems

    def check(kind: str, table: VectorTable, matrix: np.ndarray) -> np.ndarray:
        squared = validate.squared_norms(matrix)
        if finite:
            validate.check_finite(matrix, str(folder / "vectors" / f"{kind}.npy"), squared=squared)
        fixed, lines = row_checks.vector_problems(kind, table.ids, matrix, squared)
        problems.extend(line for line in lines if line not in problems)
        validate.keep_squared_norms(table, squared if fixed is matrix else validate.squared_norms(fixed), fixed)
        return fixed

    for kind, table in list(index.vectors.items()):
        checked = CheckedOnRead(table.ids, table.matrix, lambda t, m, kind=kind: check(kind, t, m))
        index.vectors[kind] = checked


def _check_catalog(file: Path, rows: int) -> None:
    """The catalog opens read-only, holds its table and the recorded row count (a lock is waited out briefly)."""
    with validate.reading(file):
        db = sqlite3.connect(f"file:{quote(str(file.resolve()))}?mode=ro", uri=True, timeout=validate.LOCK_WAIT)
        try:
            found = db.execute("SELECT COUNT(*) FROM entities").fetchone()[0]
        finally:
            db.close()
    if found != rows:
        raise IndexFormatError(
            msg("the entity catalog holds {found} rows but the manifest says {rows}", found=found, rows=rows),
            where=str(file),
            fix=validate.REBUILD,
        )


def is_index(path: str | Path) -> bool:
    """True when ``path`` holds a readable manifest of this format (cheap; no tables read)."""
    try:
        read_manifest(path)
    except UserError:
        return False
    return True
