"""Arrow columns as Python values: a whole column at load, or one row at a time later (``StoredColumns``).

The whole-column converters are the loader's fast path (``tables.rows_of``); ``StoredColumns`` holds the
columns whose values a row converts only when read (``model.Stored``), and the makers build the rows of
a table with such fields.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import numpy as np
import pyarrow as pa

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.base.i18n import msg


def _array(column: pa.ChunkedArray) -> pa.Array:
    """The column as one array: its only chunk as it is (a file of one row group, the usual case), else the
    chunks combined (``combine_chunks`` copies even one chunk: 0.1–0.2 s of a 100k-entity index's columns)."""
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _pylist(column: pa.ChunkedArray) -> list:
    """Python values of a column; list<string> columns via one flat list sliced by offsets
    (``to_pylist`` on nested arrays is several times slower)."""
    if not pa.types.is_list(column.type) or not pa.types.is_string(column.type.value_type) or column.null_count:
        return column.to_pylist()
    array = _array(column)
    flat = array.flatten().to_pylist()  # flatten honours the array's offset, so slice from offsets[0]
    offsets = array.offsets.to_pylist()
    base = offsets[0]
    return [flat[a - base : b - base] for a, b in zip(offsets, offsets[1:])]  # noqa: B905


def _community_refs(column: pa.ChunkedArray) -> list:
    """list<struct<level, id>> as lists of ``(level, id)`` tuples, built from the flat children."""
    if column.null_count:
        return [[(r["level"], r["id"]) for r in refs] if refs is not None else None for refs in column.to_pylist()]
    array = _array(column)
    levels, ids = (child.to_pylist() for child in array.flatten().flatten())
    pairs = list(zip(levels, ids, strict=True))
    offsets = array.offsets.to_pylist()
    base = offsets[0]
    return [pairs[a - base : b - base] for a, b in zip(offsets, offsets[1:])]  # noqa: B905


_TAG_TUPLE, _TAG_DICT = "$tuple", "$dict"  # ``tables.encode_extra``'s tags for what plain JSON loses


def _unhashable_to_tuple(value: Any) -> Any:
    return tuple(_unhashable_to_tuple(v) for v in value) if isinstance(value, list) else value


def _revive(obj: dict) -> Any:
    if len(obj) == 1:
        if _TAG_TUPLE in obj:
            return tuple(obj[_TAG_TUPLE])
        if _TAG_DICT in obj:
            return {_unhashable_to_tuple(k): v for k, v in obj[_TAG_DICT]}
    return obj


def decode_extra(text: str) -> dict[str, Any]:
    if text == "{}":
        return {}
    if '"$' in text:  # only tagged values need the slower object hook
        return json.loads(text, object_hook=_revive)
    return json.loads(text)


def decode_extras(texts: list[str]) -> list[dict[str, Any]]:
    """Every row's ``extra``, as ``decode_extra`` of each, in one ``json.loads`` of the joined array.

    At 10⁵–10⁶ rows the per-call overhead of ``json.loads`` was the largest cost of opening an index
    (2 s of 3 at 100k entities; the array form takes a third of that). A row holding anything but
    exactly one JSON value (so the element count differs or the array does not parse), or tagged
    values needing the object hook, goes through the per-row path, which raises the usual error.
    """
    joined = ",".join(texts)  # a '"$' cannot span two texts: a comma stands between them
    if '"$' not in joined:
        try:
            values = json.loads("[" + joined + "]")
        except ValueError:
            values = None
        if isinstance(values, list) and len(values) == len(texts):
            return values
    return [decode_extra(t) for t in texts]


def _values(name: str, field: str, column: pa.ChunkedArray) -> list:
    if field == "extra":
        return decode_extras(column.to_pylist())
    return _community_refs(column) if (name, field) == ("entities", "communities") else _pylist(column)


_NUMPY = {pa.int32(): np.int32, pa.int64(): np.int64, pa.uint32(): np.uint32, pa.float64(): np.float64}


def numbers(array: pa.Array) -> np.ndarray | None:
    """An Arrow array of int32/int64/uint32/float64 without nulls as a read-only numpy view of its buffer,
    else ``None``. Arrow's own ``to_numpy`` imports pandas (~0.4 s and ~15 MB the loader does not need)."""
    dtype = _NUMPY.get(array.type)
    if dtype is None or array.null_count:
        return None
    if not len(array):
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=array.offset + len(array))[array.offset :]


def _shared_strings(columns: list[pa.ChunkedArray]) -> list[list] | None:
    """String columns whose values repeat (a relation's two endpoints: 6·10⁵ names, 10⁵ distinct at 100k
    entities) as lists holding one ``str`` per distinct value: ~30 MB less than a ``str`` per cell, and
    each name hashed once by the graph and lookups built from them. ``None`` when any is null."""
    if any(c.null_count for c in columns):
        return None
    encoded = pa.concat_arrays([_array(c) for c in columns]).dictionary_encode()
    distinct = np.array(encoded.dictionary.to_pylist(), dtype=object)
    values = distinct[numbers(encoded.indices)].tolist() if len(distinct) else []
    bounds = np.cumsum([0] + [len(c) for c in columns]).tolist()
    return [values[a:b] for a, b in zip(bounds, bounds[1:])]  # noqa: B905  (n + 1 bounds)


def _row_value(name: str, field: str, column: pa.Array, row: int) -> Any:
    """One row's value of ``column``, as ``_values`` gives it (communities as ``(level, id)`` pairs)."""
    value = column[row].as_py()
    if field == "extra":
        return decode_extra(value)
    if (name, field) == ("entities", "communities") and value is not None:
        return [(ref["level"], ref["id"]) for ref in value]
    return value


class ColumnSource:
    """Where a table's stored columns are decoded from one field at a time (``tables.ParquetColumns``: the
    app's open). ``read`` checks what it decodes and raises ``IndexFormatError`` for a bad column."""

    fields: tuple[str, ...]
    rows: int

    def size(self, field: str) -> int:
        """The field's bytes as the file stores them uncompressed (an estimate, without decoding)."""
        raise NotImplementedError

    def read(self, field: str) -> pa.Array:
        raise NotImplementedError


class StoredColumns:
    """The decoded columns of one table that its rows read on first use (``model.Stored``): decoded by the
    loader, or (a ``ColumnSource``, the app's open) each field from the file on its first read.

    A query reads a few hundred rows' descriptions or chunk ids: those are converted one row at a time
    (~1–7 µs each; ``_row_value``). A scan (``SCAN_RUN`` rows in a row: nano's community schema, a
    re-save), or more reads than ``ROW_READS`` and a tenth of the table, converts the column whole
    (~0.2 µs a row) into a list kept here, and lets its Arrow column go; a row takes its value from that
    list on its first read as before. Nothing is written into the rows that are not read: putting the
    value into each of 300k rows took ~0.3 s of a 100k-entity index's first nano.local query (the rows'
    attribute tables grow one by one). The tenth keeps that one-off conversion out of the first few
    dozen queries of a large index. A small column (``EAGER_ROWS`` values and ``EAGER_BYTES`` at most, as a
    10k-entity index's) is converted whole when the index is opened (``convert_small``), where its lists are
    frozen with the rest of the load. Both paths give the values converting at load gives (a test compares
    every field of every row, each way).
    """

    ROW_READS = 1000
    SCAN_RUN = 64
    EAGER_ROWS = 50_000
    EAGER_BYTES = 8 << 20

    def __init__(self, name: str, table: pa.Table | Future[pa.Table] | ColumnSource, where: str = "") -> None:
        # a Future until the first read (``rows_of``); a ``ColumnSource`` decodes each field on its first read
        self._source = table if isinstance(table, ColumnSource) else None
        self._name, self._table = name, None if self._source else table
        self._where = where  # the file, named when a value cannot be decoded (an ``extra`` that is not JSON)
        # field -> its column, while not converted whole (None: not decoded yet, ``_decoded``)
        self._arrays: dict[str, pa.Array] | None = {} if self._source else None
        self._converted: dict[str, list] = {}  # field -> every row's value, once converted whole
        self._reads: dict[str, int] = {}
        self._runs: dict[str, tuple[int, int]] = {}  # field -> (last row read, rows read in a row up to it)
        self._lock = threading.Lock()

    def value(self, field: str, item: Any) -> Any:
        """The value of ``field`` for the row ``item`` (one this table made; ``Stored`` keeps it in the row).
        A row read converts without the lock (the counts may miss a read when two threads race: harmless);
        a whole conversion holds it."""
        position = item._row
        converted = self._converted.get(field)
        if converted is not None:
            return converted[position]
        array = self._array_of(field)
        if array is not None:
            last, run = self._runs.get(field, (-2, 0))
            run = run + 1 if position == last + 1 else 1
            self._runs[field] = (position, run)
            reads = self._reads[field] = self._reads.get(field, 0) + 1
            if run < self.SCAN_RUN and reads <= max(self.ROW_READS, len(array) // 10):
                with self._decoding(field, position):
                    return _row_value(self._name, field, array, position)
        with self._decoding(field, None):
            self._convert(field)
        return self._converted[field][position]

    @contextlib.contextmanager
    def _decoding(self, field: str, position: int | None) -> Iterator[None]:
        """An ``extra`` that is not JSON (its text was only shape-checked at load, ``tables.check_extras``)
        is refused on every read, naming the file (and the row read): never a value made up for it."""
        try:
            yield
        except (ValueError, TypeError) as exc:
            if field != "extra":
                raise
            row = "" if position is None else msg(" (row {row})", row=position + 1)
            raise IndexFormatError(
                msg("an 'extra' value{row} is not JSON ({error})", row=row, error=str(exc)),
                where=self._where,
                fix=msg("rebuild or re-import the index"),
            ) from None

    def _decoded(self) -> dict[str, pa.Array]:
        """The columns not converted whole yet (decoded by now: the loader waited for them before returning)."""
        arrays = self._arrays
        if arrays is None:
            with self._lock:
                if self._arrays is None:
                    table = self._table.result() if isinstance(self._table, Future) else self._table
                    self._arrays = {f: _array(table.column(f)) for f in table.column_names}
                    self._table = None  # type: ignore[assignment]  (the arrays hold the data)
                arrays = self._arrays
        return arrays

    def _array_of(self, field: str) -> pa.Array | None:
        """The column of ``field`` while it is not converted whole, decoded from the source on its first read."""
        found = self._decoded().get(field)
        if found is not None or self._source is None or field in self._converted:
            return found
        with self._lock:
            found = self._arrays.get(field)  # type: ignore[union-attr]  (a source's arrays are a dict from the start)
            if found is None and field not in self._converted and field in self._source.fields:
                found = self._arrays[field] = self._source.read(field)  # type: ignore[index]
        return found

    def _convert(self, field: str) -> None:
        with self._lock:
            array = self._arrays.get(field) if self._arrays is not None else None
            if array is not None:
                self._converted[field] = _values(self._name, field, pa.chunked_array([array]))
                del self._arrays[field]  # its Arrow buffers go

    def convert_small(self) -> list[str]:
        """Convert every column of at most ``EAGER_ROWS`` values and ``EAGER_BYTES`` whole now; the fields
        converted. Opening a 10k-entity index converts the seven of its chunks, entities and relations in
        ~28 ms (measured; ``retrieval.prepare``): counting reads put each into a later query instead (the 11th
        and 17th of a LightRAG session, 5–6 ms each on a 13 ms query: their p95), after ~3 µs more per read
        until then, and a collection walked the new lists there (4 ms more in the next young collection)."""
        source = self._source
        if source is not None:  # decode only the fields the file says are small (a big one waits for its reader)
            if source.rows > self.EAGER_ROWS:
                return []
            for field in source.fields:
                if source.size(field) <= self.EAGER_BYTES:
                    self._array_of(field)
        small = [f for f, a in self._decoded().items() if len(a) <= self.EAGER_ROWS and a.nbytes <= self.EAGER_BYTES]
        for field in small:
            self._convert(field)
        return small

    def array(self, field: str) -> pa.Array | None:
        """The Arrow column of ``field`` while it is not converted whole (then ``None``)."""
        return self._array_of(field)

    def decode_all(self) -> None:
        """Decode every field not decoded yet (``retrieval.prepare``'s background decoding); a bad column is
        left undecoded, to be refused when a row reads it."""
        for field in self._source.fields if self._source is not None else ():
            try:
                self._array_of(field)
            except IndexFormatError:
                continue


def _columns_of(rows: list) -> StoredColumns | None:
    """The ``StoredColumns`` the table whose rows are ``rows`` reads from (None when its rows hold every value:
    built in code, or of a table with no stored fields)."""
    columns = rows[0].__dict__.get("_columns") if rows else None
    return columns if isinstance(columns, StoredColumns) else None


def convert_small(rows: list) -> list[str]:
    """``StoredColumns.convert_small`` for the table whose rows are ``rows`` (none without stored columns)."""
    columns = _columns_of(rows)
    return columns.convert_small() if columns is not None else []


def source_columns(rows: list) -> StoredColumns | None:
    """The ``StoredColumns`` of the table whose rows are ``rows`` when they decode from a ``ColumnSource`` (the
    app's open), for ``StoredColumns.decode_all``; None otherwise."""
    columns = _columns_of(rows)
    return columns if columns is not None and columns._source is not None else None


def shared_column(rows: list, field: str) -> pa.Array | None:
    """The Arrow column of ``field`` for ``rows``, one value per row: given only when they are rows of one
    loaded table, in its order (the load may have left some out), none holding a value of its own (read
    before, or set). A reader of a whole column then works on it vectorised instead of converting 10⁵
    rows' values to Python objects it keeps; any other rows (built, imported, changed) give ``None``:
    read them one by one."""
    if not rows:
        return None
    columns = rows[0].__dict__.get("_columns")
    if columns is None:
        return None
    positions, last = [], -1
    for row in rows:
        own = row.__dict__
        position = own.get("_row", -1)
        if own.get("_columns") is not columns or position <= last or field in own:
            return None
        positions.append(position)
        last = position
    array = columns.array(field)
    if array is None or last >= len(array):
        return None
    return array if len(positions) == len(array) else array.take(pa.array(positions, type=pa.int64()))


def _stored_document(row, id, title, _columns, _row):  # noqa: A002, ANN001, ANN202
    row.id = id
    row.title = title
    row._columns = _columns
    row._row = _row
    return row


def _stored_chunk(row, id, doc_id, order, tokens, _columns, _row):  # noqa: A002, ANN001, ANN202
    row.id = id
    row.doc_id = doc_id
    row.order = order
    row.tokens = tokens
    row._columns = _columns
    row._row = _row
    return row


def _stored_entity(row, id, name, type, aliases, occurrence, _columns, _row):  # noqa: A002, ANN001, ANN202
    row.id = id
    row.name = name
    row.type = type
    row.aliases = aliases
    row.occurrence = occurrence
    row._columns = _columns
    row._row = _row
    return row


def _stored_relation(row, id, source, target, weight, _columns, _row):  # noqa: A002, ANN001, ANN202
    row.id = id
    row.source = source
    row.target = target
    row.weight = weight
    row._columns = _columns
    row._row = _row
    return row


# the built fields of a table with stored ones, set in one call per row (as fast as the dataclass's own
# ``__init__``; a generic ``setattr`` loop took twice as long)
_MAKERS = {
    "documents": _stored_document,
    "chunks": _stored_chunk,
    "entities": _stored_entity,
    "relations": _stored_relation,
}
