"""Checks that turn a damaged index folder into one ``IndexFormatError`` naming the file, not a traceback.

Loading trusts nothing it reads: the manifest is checked against a schema (types, required
fields, integer counts, paths that stay inside the folder), each Parquet table against its Arrow
schema (columns, dtypes, nulls), each vector file for finite values, and every OS, Arrow, JSON or
SQLite error on the way becomes ``IndexFormatError(what, where=file, fix)``. The checks read only
footers, schemas and null counts, plus one pass over the vectors, so loading stays fast.
"""

from __future__ import annotations

import contextlib
import errno
import json
import mmap as mmap_module
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.i18n import msg
from graphrag_ui.index import cache

REBUILD = msg("rebuild or re-import the index (or restore the folder from a backup)")
REEMBED = msg("run `python -m graphrag_ui reembed` on the index, or rebuild/re-import it")
LOCKED_FIX = msg("another program (an import, a save) is writing it: wait for it to finish, then try again")
# seconds SQLite's busy handler keeps retrying a file another process has locked before we report it
LOCK_WAIT = 1.0
DEEP_JSON = msg("its JSON is nested too deeply to read (deeper than Python's recursion limit)")
NULLABLE = {("communities", "parent"), ("communities", "rating")}
_MANIFEST_TYPES: dict[str, tuple[type, ...]] = {
    "source": (str,),
    "embedder": (str,),
    "dimension": (int,),
    "tokenizer": (str,),
    "format_version": (int,),
    "counts": (dict,),
    "settings": (dict,),
    "vector_sources": (dict,),
    "title": (str,),
    "language": (str,),
}
REQUIRED = ("source", "embedder", "dimension", "counts")


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _expect(ok: bool, what: str, file: Path) -> None:
    if not ok:
        raise IndexFormatError(msg("the manifest is damaged: {what}", what=what), where=str(file), fix=REBUILD)


def check_manifest(data: dict[str, Any], file: Path) -> None:
    """Field types of the manifest's top level (``storage`` is checked by ``check_storage``)."""
    for name in REQUIRED:
        _expect(name in data, msg("required field {name} is missing", name=repr(name)), file)
    for name, types in _MANIFEST_TYPES.items():
        if name in data:
            value = data[name]
            ok = isinstance(value, types) and not (int in types and isinstance(value, bool))
            shown = "null" if value is None else f"{_type_name(value)} {value!r:.40}"
            _expect(
                ok,
                msg("{name} is {shown}, expected {type}", name=repr(name), shown=shown, type=types[0].__name__),
                file,
            )
    dimension = data["dimension"]
    _expect(dimension >= 0, msg("'dimension' is {dimension}, expected ≥ 0", dimension=dimension), file)
    for key, value in data["counts"].items():
        what = msg("count {key} is {value}, expected an integer ≥ 0", key=repr(key), value=f"{value!r:.40}")
        _expect(_is_int(value) and value >= 0, what, file)


def inside(folder: Path, relative: Any, file: Path, what: str) -> Path:
    """``folder/relative`` when it is a plain relative path that stays inside ``folder``."""
    shown = f"{relative!r:.60}"
    _expect(
        isinstance(relative, str) and relative != "",
        msg("{what} is {relative}, expected a file name", what=what, relative=shown),
        file,
    )
    path = _resolved(folder / relative)
    root = folder.resolve()
    _expect(
        path != root and root in path.parents and not Path(relative).is_absolute(),
        msg("{what} {relative} points outside the index folder", what=what, relative=shown),
        file,
    )
    return folder / relative


def _resolved(path: Path) -> Path:
    """``path`` with every symbolic link followed; a link loop is an ``IndexFormatError`` naming it."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError for a loop, later versions OSError
        raise IndexFormatError(
            msg("a symbolic link loop: the path never reaches a file"), where=str(path), fix=REBUILD
        ) from None


def contained(folder: Path, path: Path) -> Path:
    """``path`` when it stays inside ``folder`` once its symbolic links are followed.

    The loader runs every file it opens through this one check (the manifest, the tables, the catalog,
    ``vectors/`` and its files, ``chroma/``), so a link loop or a link leaving the folder is refused the
    same way wherever it is: one ``IndexFormatError`` naming the path."""
    resolved, root = _resolved(path), _resolved(folder)
    if resolved != root and root not in resolved.parents:
        raise IndexFormatError(
            msg("a symbolic link leads outside the index folder (to {target})", target=str(resolved)),
            where=str(path),
            fix=REBUILD,
        )
    return path


def check_storage(folder: Path, storage: Any, tables: tuple[str, ...], file: Path) -> dict[str, Path]:
    """The ``storage`` section's shape; returns table name -> file, every path inside ``folder``."""
    _expect(
        isinstance(storage, dict),
        msg("'storage' is {storage}, expected an object", storage=_type_name(storage)),
        file,
    )
    section = storage.get("tables")
    _expect(
        isinstance(section, dict),
        msg("'storage.tables' is {section}, expected an object", section=_type_name(section)),
        file,
    )
    paths = {
        name: inside(folder, section.get(name, f"{name}.parquet"), file, msg("table {name}", name=repr(name)))
        for name in tables
    }
    vectors = storage.get("vectors", {})
    _expect(
        isinstance(vectors, dict),
        msg("'storage.vectors' is {vectors}, expected an object", vectors=_type_name(vectors)),
        file,
    )
    for kind, meta in vectors.items():
        ok = isinstance(meta, dict) and _is_int(meta.get("rows")) and _is_int(meta.get("dim"))
        what = msg("'storage.vectors.{kind}' is {meta}, expected integer rows and dim", kind=kind, meta=f"{meta!r:.60}")
        _expect(ok, what, file)
    if vectors:
        chroma = storage.get("chroma")
        _expect(
            isinstance(chroma, dict),
            msg("'storage.chroma' is {chroma}, expected an object", chroma=_type_name(chroma)),
            file,
        )
        mode = chroma.get("mode")
        _expect(mode in ("persistent", "server", "none"), msg("chroma mode {mode}", mode=f"{mode!r:.40}"), file)
        names = chroma.get("collections", {} if mode == "none" else None)
        ok = isinstance(names, dict) and all(isinstance(v, str) for v in names.values())
        _expect(ok, msg("'storage.chroma.collections' is {names}, expected names", names=f"{names!r:.60}"), file)
    catalog = storage.get("catalog", {})
    _expect(
        isinstance(catalog, dict),
        msg("'storage.catalog' is {catalog}, expected an object", catalog=_type_name(catalog)),
        file,
    )
    paths["catalog"] = inside(folder, catalog.get("file", "catalog.sqlite"), file, msg("the catalog file"))
    if "rows" in catalog:
        rows = f"{catalog['rows']!r:.40}"
        _expect(_is_int(catalog["rows"]), msg("'storage.catalog.rows' is {rows}", rows=rows), file)
    return paths


@contextlib.contextmanager
def reading(path: Path, fix: str = REBUILD) -> Iterator[None]:
    """Any OS, Arrow, JSON, NumPy or SQLite failure while reading ``path`` becomes ``IndexFormatError``."""
    try:
        yield
    except IndexFormatError:
        raise
    except PermissionError:
        raise IndexFormatError(
            msg("cannot read the file: permission denied"),
            where=str(path),
            fix=msg("check the file's owner and permissions"),
        ) from None
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise IndexFormatError(
                msg("the database is locked by another process (waited {lock_wait} s)", lock_wait=f"{LOCK_WAIT:g}"),
                where=str(path),
                fix=LOCKED_FIX,
            ) from None
        raise IndexFormatError(
            msg("not a usable SQLite database ({error})", error=str(exc)), where=str(path), fix=fix
        ) from None
    except sqlite3.DatabaseError as exc:
        raise IndexFormatError(
            msg("not a usable SQLite database ({error})", error=str(exc)), where=str(path), fix=fix
        ) from None
    except json.JSONDecodeError as exc:
        raise IndexFormatError(msg("not valid JSON ({error})", error=str(exc)), where=str(path), fix=fix) from None
    except RecursionError:
        raise IndexFormatError(DEEP_JSON, where=str(path), fix=fix) from None
    except (OSError, EOFError, ValueError, TypeError, pa.ArrowException, UnicodeDecodeError) as exc:
        if isinstance(exc, OSError) and exc.errno == errno.ENOENT:
            raise IndexFormatError(msg("the file is missing"), where=str(path), fix=fix) from None
        detail = " ".join(str(exc).split())[:160] or type(exc).__name__
        raise IndexFormatError(
            msg("unreadable or damaged ({detail})", detail=detail), where=str(path), fix=fix
        ) from None


def compatible(found: pa.DataType, expected: pa.DataType) -> bool:
    """Arrow types that read back to the same Python values (string vs large_string, etc.)."""
    if found == expected:
        return True
    if pa.types.is_string(expected) or pa.types.is_large_string(expected):
        return pa.types.is_string(found) or pa.types.is_large_string(found)
    if pa.types.is_list(expected) and (pa.types.is_list(found) or pa.types.is_large_list(found)):
        return compatible(found.value_type, expected.value_type)
    return False


def check_schema(name: str, schema: pa.Schema, fields: list[tuple[str, pa.DataType]], path: Path) -> None:
    """Every column the model needs is present with a usable Arrow type."""
    wanted = [*fields, ("extra", pa.string())]
    missing = [f for f, _ in wanted if f not in schema.names]
    if missing:
        raise IndexFormatError(
            msg("the {name} table lacks columns {missing}", name=name, missing=str(missing)),
            where=str(path),
            fix=REBUILD,
        )
    for field, expected in wanted:
        found = schema.field(field).type
        if not compatible(found, expected):
            raise IndexFormatError(
                msg(
                    "column {field} of the {name} table is {found}, expected {expected}",
                    field=repr(field),
                    name=name,
                    found=str(found),
                    expected=str(expected),
                ),
                where=str(path),
                fix=REBUILD,
            )


def check_nulls(name: str, table: pa.Table, path: Path) -> None:
    """No nulls where the model expects a value (ids, names, texts, counts; O(1) per column)."""
    for field in table.column_names:
        column = table.column(field)
        if column.null_count and (name, field) not in NULLABLE:
            raise IndexFormatError(
                msg(
                    "column {field} of the {name} table has {null_count} null value(s)",
                    field=repr(field),
                    name=name,
                    null_count=column.null_count,
                ),
                where=str(path),
                fix=REBUILD,
            )
        if pa.types.is_list(column.type) and column.null_count == 0 and column.num_chunks:
            inner = sum(chunk.values.null_count for chunk in column.chunks)  # .values: no pyarrow.compute import
            if inner:
                raise IndexFormatError(
                    msg(
                        "column {field} of the {name} table holds {inner} null item(s)",
                        field=repr(field),
                        name=name,
                        inner=inner,
                    ),
                    where=str(path),
                    fix=REBUILD,
                )


def check_ids(ids: Any, path: Path) -> list[str]:
    if not isinstance(ids, list) or not set(map(type, ids)) <= {str}:  # one pass in C, ~3x faster than all()
        raise IndexFormatError(msg("expected a JSON list of id strings"), where=str(path), fix=REBUILD)
    return ids


def read_ids(path: Path, folder: Path | None = None) -> list[str]:
    if folder is not None:
        contained(folder, path)
    with reading(path):
        return check_ids(json.loads(path.read_text(encoding="utf-8")), path)


def squared_norms(matrix: np.ndarray) -> np.ndarray:
    """Each row's squared norm in float64: finite exactly when the row is (a float32's square cannot
    overflow a float64), so one pass both checks the rows and gives ``row_checks`` its norms."""
    return np.einsum("ij,ij->i", matrix, matrix, dtype=np.float64)


def keep_squared_norms(table: Any, squared: np.ndarray, matrix: np.ndarray | None = None) -> None:
    """Keep a table's ``squared_norms`` with it (``index.cache``): the loader's finiteness pass made them,
    and a search that pre-filters by distance reads them (``table_squared_norms``) instead of another
    pass, which also copied a 100k-entity matrix to float64 (195 MB at 256 dimensions). ``matrix``: the
    one they are of, when it is not ``table.matrix`` yet (a first-read check, ``model.CheckedOnRead``)."""
    cache.values(table)[_SQUARED] = (id(table.matrix if matrix is None else matrix), squared)


def table_squared_norms(table: Any) -> np.ndarray:
    """The squared row norms of a ``VectorTable``: those kept with it, else worked out (and kept)."""
    kept = cache.values(table).get(_SQUARED)
    if kept is not None and kept[0] == id(table.matrix) and len(kept[1]) == len(table):
        return kept[1]
    squared = squared_norms(table.matrix)
    keep_squared_norms(table, squared)
    return squared


_SQUARED = "squared_norms"  # (id of the matrix they belong to, the norms)


def check_finite(matrix: np.ndarray, where: str, fix: str = REEMBED, squared: np.ndarray | None = None) -> None:
    """Refuse NaN/inf vectors: they rank as ``sim nan`` and give a confident wrong answer. ``squared``:
    the rows' ``squared_norms`` when known (then the matrix is not read again)."""
    if squared is not None:
        if not np.isfinite(squared).all():
            _refuse(np.flatnonzero(~np.isfinite(squared)), where, fix)
        return
    if matrix.size and not np.isfinite(matrix).all():
        _refuse(
            np.flatnonzero(~np.isfinite(matrix).all(axis=1) if matrix.ndim == 2 else ~np.isfinite(matrix)), where, fix
        )


def _refuse(bad: np.ndarray, where: str, fix: str) -> None:
    raise IndexFormatError(
        msg("{n} vector(s) hold NaN or infinite values (first at row {row})", n=len(bad), row=int(bad[0])),
        where=where,
        fix=fix,
    )


def load_matrix(path: Path, rows: int, dim: int, *, mmap: bool = False, mapped: bool = False) -> np.ndarray:
    """The float32 (rows, dim) matrix of the ``.npy`` file at ``path``. Its header is read first and must
    say exactly that, with the file's size to match: a crafted header claiming a huge shape is refused
    before numpy allocates anything (it would try 134 GiB). Header and data come from one open file, so
    a save replacing it meanwhile cannot pair one file's header with another's data.

    ``mapped``: a read-only ndarray over the file's pages instead of a copy (no read of 300 MB before
    the first view at 100k entities; the page cache's copy is the only one). A save never rewrites a
    mapped file: it writes a new folder and swaps it in, and the old inode lives while it is mapped."""
    with reading(path), path.open("rb") as handle:
        version = np.lib.format.read_magic(handle)
        if version not in ((1, 0), (2, 0)):
            raise IndexFormatError(msg("not a .npy file this app writes (version {v})", v=str(version)), str(path))
        header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = header(handle)
        start, size = handle.tell(), os.fstat(handle.fileno()).st_size
        wanted = np.dtype("<f4")
        if shape != (rows, dim) or dtype != wanted or fortran or size != start + rows * dim * wanted.itemsize:
            raise IndexFormatError(
                msg(
                    "the vector file's header says {shape} {dtype} in {size} bytes, the manifest says ({rows}, {dim}) float32",
                    shape=str(shape),
                    dtype=str(dtype),
                    size=size,
                    rows=rows,
                    dim=dim,
                ),
                where=str(path),
                fix=REBUILD,
            )
        if mmap:
            return np.memmap(handle, dtype=wanted, mode="r", offset=start, shape=(rows, dim))
        if mapped and rows * dim:
            pages = mmap_module.mmap(handle.fileno(), 0, access=mmap_module.ACCESS_READ)
            return np.frombuffer(pages, dtype=wanted, count=rows * dim, offset=start).reshape(rows, dim)
        matrix = np.fromfile(handle, dtype=wanted, count=rows * dim)
        return matrix.reshape(rows, dim)
