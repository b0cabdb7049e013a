"""Parquet tables of an index: one Arrow schema per row type, converted column-wise both ways.

Column-wise conversion is the fast path the design asks for (GraphRAG spends most of its load
turning Parquet rows into objects one by one). Row order is data and is kept exactly.

Typed fields are Arrow columns (``list<string>`` for aliases, members and chunk ids,
``list<struct<level, id>>`` for an entity's communities). The free-form ``extra`` dicts are one
JSON string per row, written by :func:`encode_extra`, which keeps what plain JSON would lose:
tuples, dicts with non-string keys and the difference between ``1`` and ``1.0`` (JSON already
keeps that one). numpy scalars and arrays, which importers reading Parquet tend to leave in
``extra``, are stored as the equivalent Python numbers and lists.
"""

from __future__ import annotations

import dataclasses
import json
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from graphrag_ui.base.errors import IndexFormatError, UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.index import validate
from graphrag_ui.index.model import STORED_FIELDS, Chunk, Community, Document, Entity, Relation
from graphrag_ui.index.stored import (
    _MAKERS,
    _TAG_DICT,
    _TAG_TUPLE,
    ColumnSource,
    StoredColumns,
    _array,
    _shared_strings,
    _values,
)

_STR_LIST = pa.list_(pa.string())
_COMMUNITY_REFS = pa.list_(pa.struct([("level", pa.int64()), ("id", pa.string())]))

# table name -> (row class, [(field, arrow type)])
SCHEMAS: dict[str, tuple[type, list[tuple[str, pa.DataType]]]] = {
    "documents": (Document, [("id", pa.string()), ("title", pa.string()), ("text", pa.string())]),
    "chunks": (
        Chunk,
        [
            ("id", pa.string()),
            ("doc_id", pa.string()),
            ("text", pa.string()),
            ("order", pa.int64()),
            ("tokens", pa.int64()),
        ],
    ),
    "entities": (
        Entity,
        [
            ("id", pa.string()),
            ("name", pa.string()),
            ("type", pa.string()),
            ("description", pa.string()),
            ("aliases", _STR_LIST),
            ("source_chunk_ids", _STR_LIST),
            ("occurrence", pa.int64()),
            ("communities", _COMMUNITY_REFS),
        ],
    ),
    "relations": (
        Relation,
        [
            ("id", pa.string()),
            ("source", pa.string()),
            ("target", pa.string()),
            ("description", pa.string()),
            ("keywords", pa.string()),
            ("weight", pa.float64()),
            ("source_chunk_ids", _STR_LIST),
        ],
    ),
    "communities": (
        Community,
        [
            ("id", pa.string()),
            ("level", pa.int64()),
            ("parent", pa.string()),
            ("title", pa.string()),
            ("report", pa.string()),
            ("rating", pa.float64()),
            ("members", _STR_LIST),
        ],
    ),
}
TABLES = tuple(SCHEMAS)


# --- extra dicts -------------------------------------------------------------------------------


def _plain(value: Any, where: str) -> Any:
    """``value`` as JSON-able data; tuples and non-string-keyed dicts become tagged objects."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, np.generic):
        return _plain(value.item(), where)
    if isinstance(value, np.ndarray):
        return [_plain(v, where) for v in value.tolist()]
    if isinstance(value, tuple):
        return {_TAG_TUPLE: [_plain(v, where) for v in value]}
    if isinstance(value, list):
        return [_plain(v, where) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and not (len(value) == 1 and next(iter(value)).startswith("$")):
            return {k: _plain(v, where) for k, v in value.items()}
        return {_TAG_DICT: [[_plain(k, where), _plain(v, where)] for k, v in value.items()]}
    raise UserError(
        msg("cannot store a {type} value in an index ({value})", type=type(value).__name__, value=f"{value!r:.80}"),
        where=where,
        fix=msg("store it as a string, number, list or dict in the row's extra"),
    )


def encode_extra(extra: dict[str, Any], where: str) -> str:
    if not extra:
        return "{}"
    if not isinstance(extra, dict):
        raise UserError(msg("extra must be a dict, not {type}", type=type(extra).__name__), where=where)
    return json.dumps(_plain(extra, where), ensure_ascii=False, allow_nan=True)


# --- rows -> Arrow -----------------------------------------------------------------------------


def to_arrow(name: str, rows: list) -> pa.Table:
    """One Arrow table for ``rows`` of table ``name``; a clear error names the offending row."""
    _cls, fields = SCHEMAS[name]
    columns: dict[str, list] = {f: [] for f, _ in fields}
    extras = []
    for i, row in enumerate(rows):
        for f, _ in fields:
            columns[f].append(getattr(row, f))
        extras.append(encode_extra(row.extra, f"{name} row {i} (id {getattr(row, 'id', '?')!r}) extra"))
    if name == "entities":
        columns["communities"] = [[{"level": lv, "id": cid} for lv, cid in refs] for refs in columns["communities"]]
    arrays = []
    for f, typ in fields:
        try:
            arrays.append(pa.array(columns[f], type=typ))
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError) as exc:
            bad = _first_bad(columns[f], typ)
            raise UserError(
                msg(
                    "field {f} of {name} cannot be stored as {typ}: {error}",
                    f=repr(f),
                    name=name,
                    typ=str(typ),
                    error=str(exc),
                ),
                where=f"{name} row {bad}" if bad is not None else name,
                fix=msg("fix the value's type in the importer/builder"),
            ) from None
    arrays.append(pa.array(extras, type=pa.string()))
    return pa.Table.from_arrays(arrays, names=[f for f, _ in fields] + ["extra"])


def _first_bad(values: list, typ: pa.DataType) -> int | None:
    for i, v in enumerate(values):
        try:
            pa.array([v], type=typ)
        except Exception:  # noqa: BLE001 - only used to locate the row for the message
            return i
    return None


def write_table(name: str, rows: list, path: Path) -> int:
    """Write ``rows`` to ``path`` (zstd Parquet) and return the row count."""
    table = to_arrow(name, rows)
    pq.write_table(table, path, compression="zstd")
    return table.num_rows


# --- Arrow -> rows -----------------------------------------------------------------------------


def read_table(name: str, path: Path, expected_rows: int | None = None) -> list:
    """Rows of table ``name`` from ``path``, in file order, after checking its schema, row count and nulls."""
    return rows_of(name, read_arrow(name, path, expected_rows), path)


def read_arrow(name: str, path: Path, expected_rows: int | None = None, part: str = "all") -> pa.Table:
    """The Arrow table of ``name`` at ``path``, its schema and row count checked (the part of ``read_table``
    that runs in Arrow's C++ without the interpreter lock: the loader does it on a worker thread while
    this one builds rows). ``part``: ``all`` columns, those ``built`` into the rows at load, or those
    ``stored`` until first read (``stored_fields``)."""
    with validate.reading(path):
        file = _checked_file(name, path, expected_rows)
        stored = stored_fields(name)
        names = [f for f, _ in SCHEMAS[name][1]] + ["extra"]
        wanted = [f for f in names if part == "all" or (f in stored) == (part == "stored")]
        # one thread: arrow's own pool only added hand-offs (slower on a busy machine, measured); the
        # loader overlaps whole files instead
        return file.read(columns=wanted, use_threads=False)


def read_built(name: str, path: Path, expected_rows: int | None = None) -> tuple[pa.Table, ParquetColumns | None]:
    """``read_arrow``'s ``built`` part, and the file kept open to decode each stored field on its first read
    (``ParquetColumns``; None for a table without stored fields)."""
    with validate.reading(path):
        file = _checked_file(name, path, expected_rows)
        stored = stored_fields(name)
        names = [f for f, _ in SCHEMAS[name][1]] + ["extra"]
        built = file.read(columns=[f for f in names if f not in stored], use_threads=False)
    return built, ParquetColumns(name, file, path) if stored else None


def _checked_file(name: str, path: Path, expected_rows: int | None) -> pq.ParquetFile:
    file = pq.ParquetFile(path)  # not pq.read_table: its dataset layer costs ~0.6 s on first use
    validate.check_schema(name, file.schema_arrow, SCHEMAS[name][1], path)
    if expected_rows is not None and file.metadata.num_rows != expected_rows:
        raise IndexFormatError(
            msg(
                "{num_rows} rows but the manifest says {expected_rows}",
                num_rows=file.metadata.num_rows,
                expected_rows=expected_rows,
            ),
            where=str(path),
            fix=validate.REBUILD,
        )
    return file


class ParquetColumns(ColumnSource):
    """A table file's stored fields, each decoded and checked (nulls, ``check_extras``) on its first read.

    The app's open (``store.load(lazy=True)``): decoding every stored column at the open put ~200 MB of
    texts, descriptions and id lists into memory at 100k entities, most of which a mode never reads
    (ms.global reads three of the entities' fields and nothing of the chunks, documents and relations). The
    file stays open: a save that swaps another index in at the same path does not change what is read."""

    def __init__(self, name: str, file: pq.ParquetFile, path: Path) -> None:
        self.name, self._file, self._path = name, file, path
        self.fields, self.rows = stored_fields(name), file.metadata.num_rows
        self._sizes: dict[str, int] = {}
        meta = file.metadata
        for group in range(meta.num_row_groups):
            chunks = meta.row_group(group)
            for c in range(chunks.num_columns):
                column = chunks.column(c)
                top = column.path_in_schema.split(".", 1)[0]
                self._sizes[top] = self._sizes.get(top, 0) + column.total_uncompressed_size

    def size(self, field: str) -> int:
        return self._sizes.get(field, 0)

    def read(self, field: str) -> pa.Array:
        with validate.reading(self._path):
            table = self._file.read(columns=[field], use_threads=False)
        validate.check_nulls(self.name, table, self._path)
        check_extras(self.name, table, self._path)
        return _array(table.column(field))


def stored_fields(name: str) -> tuple[str, ...]:
    """The fields of table ``name`` its rows read from the decoded columns on first use (``model.Stored``)."""
    return STORED_FIELDS.get(SCHEMAS[name][0], ())


def rows_of(name: str, table: pa.Table, path: Path, stored: Future[pa.Table] | ColumnSource | None = None) -> list:
    """The row objects of an Arrow table ``read_arrow`` gave, after checking its nulls (``path`` names it).

    Documents, chunks, entities and relations keep their ``stored_fields`` in decoded columns
    (``StoredColumns``) until first read: ``table``'s own, those ``stored`` will give (the loader
    decodes them meanwhile and checks them before it returns the index), or those a ``ColumnSource``
    decodes field by field on first read; the rows hold the rest."""
    cls, fields = SCHEMAS[name]
    validate.check_nulls(name, table, path)
    kept = stored_fields(name)
    built = [f for f in [f for f, _ in fields] + ["extra"] if f not in kept]
    shared = _SHARED.get(name, ())
    repeated = _shared_strings([table.column(f) for f in shared]) if shared else None
    try:
        cols = [
            repeated[shared.index(f)] if repeated is not None and f in shared else _values(name, f, table.column(f))
            for f in built
        ]
    except (ValueError, TypeError) as exc:  # only an ``extra`` is decoded from text here
        raise IndexFormatError(
            msg("an 'extra' value is not JSON ({error})", error=str(exc)), where=str(path), fix=validate.REBUILD
        ) from None
    if not kept:
        return [cls(*values) for values in zip(*cols, strict=True)]
    if stored is None:
        check_extras(name, table, path)
    columns = StoredColumns(name, table.select(list(kept)) if stored is None else stored, str(path))
    make, new = _MAKERS[name], object.__new__
    return [make(new(cls), *values, columns, i) for i, values in enumerate(zip(*cols, strict=True))]


def check_extras(name: str, table: pa.Table, path: Path) -> None:
    """Every ``extra`` of a table whose rows decode it on first read is one JSON object's text as
    ``encode_extra`` writes it (``{`` … ``}``), found from the column's bytes without decoding: a column
    holding anything else is refused at the load. One whose text is braced but not JSON is refused on the
    first read of that row (``stored.StoredColumns``), never decoded into a value."""
    if "extra" not in table.column_names:
        return
    for chunk in table.column("extra").chunks:
        if not len(chunk) or chunk.type != pa.string():
            continue
        _validity, bounds, data = chunk.buffers()
        offsets = np.frombuffer(bounds, dtype=np.int32, count=chunk.offset + len(chunk) + 1)[chunk.offset :]
        text = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, dtype=np.uint8)
        starts, ends = offsets[:-1].astype(np.int64), offsets[1:].astype(np.int64)
        braced = ends - starts >= 2
        if braced.all():
            braced = (text[starts] == ord("{")) & (text[ends - 1] == ord("}"))
        if not braced.all():
            row = int(np.flatnonzero(~braced)[0])
            raise IndexFormatError(
                msg(
                    "an 'extra' value is not a JSON object (row {row}: {text})",
                    row=row + 1,
                    text=repr(chunk[row].as_py())[:80],
                ),
                where=str(path),
                fix=validate.REBUILD,
            )


_SHARED = {"relations": ("source", "target")}  # built string columns whose values repeat (``_shared_strings``)


def _check_field_order() -> None:
    """Rows are built positionally (fast); fail loudly at import if the model's field order changes."""
    for name, (cls, fields) in SCHEMAS.items():
        expected = [f.name for f in dataclasses.fields(cls)]
        if expected != [f for f, _ in fields] + ["extra"]:
            raise RuntimeError(f"graphrag_ui.index.tables: schema of {name} is out of date with {cls.__name__}")
        if cls in STORED_FIELDS:
            built = [f for f in expected if f not in STORED_FIELDS[cls]] + ["_columns", "_row"]
            if list(_MAKERS[name].__code__.co_varnames[1 : 1 + len(built)]) != built:
                raise RuntimeError(f"graphrag_ui.index.tables: the maker of {name} is out of date with its fields")


_check_field_order()
