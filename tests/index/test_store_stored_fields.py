"""Row fields (texts, descriptions, lists) an opened index reads from its decoded columns on first use (``model.Stored``).

Whether a field is read one row at a time or its column converted whole, every value equals the saved
row's; a value the program set stays; copies and pickles carry values, not the table; nothing is read
from the files after the load (a save replacing them changes no open index). A lazy load (the app's open)
decodes each stored field from the file it opened, on the field's first read, checked as the load checks it.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import shutil
import threading

import pytest

from graphrag_ui.index import store, stored, tables
from graphrag_ui.index.model import STORED_FIELDS, Chunk, Document, Entity, Relation
from tests.support.store_fixtures import small_index


def _fields(row) -> tuple:
    return dataclasses.astuple(row)


def test_rows_hold_only_the_built_fields_until_read(saved):
    _index, out = saved
    loaded = store.load(out)
    tables_ = (
        (loaded.documents, Document),
        (loaded.chunks, Chunk),
        (loaded.entities, Entity),
        (loaded.relations, Relation),
    )
    for rows, cls in tables_:
        for row in rows:
            assert not set(STORED_FIELDS[cls]) & set(row.__dict__), row.id
            assert row.__dict__["_columns"] is rows[0].__dict__["_columns"]


@pytest.mark.parametrize("row_reads", [0, 2, 1000])  # whole columns at once, a mix, one row at a time
def test_stored_values_equal_the_saved_rows(saved, monkeypatch, row_reads):
    index, out = saved
    monkeypatch.setattr(stored.StoredColumns, "ROW_READS", row_reads)
    loaded = store.load(out)
    for name in ("documents", "chunks", "entities", "relations", "communities"):
        assert [_fields(r) for r in getattr(loaded, name)] == [_fields(r) for r in getattr(index, name)], name
    zed = loaded.entity_by_id["e3"]
    assert zed.communities == [(1, "c2"), (0, "c1")] and all(isinstance(c, tuple) for c in zed.communities)
    assert loaded.relation_by_id["r3"].keywords == "meeting,club"


def test_a_value_the_program_set_survives_a_later_whole_column_read(saved, monkeypatch):
    index, out = saved
    monkeypatch.setattr(stored.StoredColumns, "ROW_READS", 1)
    loaded = store.load(out)
    alice = loaded.entity_by_id["e1"]
    alice.description = "edited"
    alice.source_chunk_ids.append("k9")  # read one row (its own list), then changed in place
    for entity in loaded.entities:  # more reads than ROW_READS: the columns are converted whole
        entity.description, entity.source_chunk_ids  # noqa: B018
    assert alice.description == "edited" and alice.source_chunk_ids == ["k1", "k2", "k9"]
    others = [e for e in loaded.entities if e.id != "e1"]
    assert [e.description for e in others] == [e.description for e in index.entities if e.id != "e1"]


@pytest.mark.parametrize("lazy", [False, True], ids=["read at the open", "lazy open: the files it opened"])
def test_values_come_from_what_was_opened_not_from_a_later_save(saved, lazy):
    index, out = saved
    loaded = store.load(out, lazy=lazy)
    other = small_index(seed=1)
    for entity in other.entities:
        entity.description = "replaced " + entity.description
    store.save(other, out)  # a save swaps in another index at the same path while this one is open
    assert [e.description for e in loaded.entities] == [e.description for e in index.entities]
    shutil.rmtree(out)
    assert [_fields(r) for r in loaded.relations] == [_fields(r) for r in index.relations]
    assert [c.text for c in loaded.chunks] == [c.text for c in index.chunks]


def test_copies_and_pickles_carry_the_values_not_the_table(saved):
    index, out = saved
    loaded = store.load(out)
    row, expected = loaded.relation_by_id["r2"], index.relation_by_id["r2"]
    data = pickle.dumps(row)
    assert b"_columns" not in data and b"StoredColumns" not in data
    assert pickle.loads(data) == expected and copy.copy(row) == expected and copy.deepcopy(row) == expected
    assert "_columns" not in pickle.loads(data).__dict__
    assert "_columns" not in copy.deepcopy(loaded.entity_by_id["e1"]).__dict__
    assert dataclasses.replace(row, weight=9.0).description == "Alice lives in Beijing"


def test_rows_made_in_code_are_plain_dataclasses():
    row = Relation("r", "a", "b", "d")
    assert (row.keywords, row.weight, row.source_chunk_ids, row.extra) == ("", 1.0, [], {})
    assert Relation.keywords == "" and not hasattr(Relation, "source_chunk_ids")  # the class's defaults as before
    assert "_columns" not in row.__dict__ and pickle.loads(pickle.dumps(row)) == row
    with pytest.raises(AttributeError):
        Entity.__dict__["description"].__get__(object.__new__(Entity), Entity)  # a row with no table: no value


def test_threads_reading_at_once_get_the_saved_values(saved, monkeypatch):
    index, out = saved
    monkeypatch.setattr(stored.StoredColumns, "ROW_READS", 3)
    loaded = store.load(out)
    expected = [_fields(r) for r in index.entities]
    seen, barrier = [], threading.Barrier(8)

    def scan() -> None:
        barrier.wait()
        seen.append([_fields(r) for r in loaded.entities])

    threads = [threading.Thread(target=scan) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [expected] * 8


def test_a_maker_out_of_date_with_the_model_fails_at_import(monkeypatch):
    monkeypatch.setitem(stored._MAKERS, "relations", lambda row, id, source, weight, target, extra, c, r: row)
    with pytest.raises(RuntimeError, match="maker of relations"):
        tables._check_field_order()


@pytest.mark.parametrize(
    ("name", "field"), [("relations", "description"), ("chunks", "text"), ("entities", "communities")]
)
def test_a_bad_stored_column_fails_the_load_not_a_later_read(saved, name, field):
    """The stored columns are decoded while the graph is built, and checked before the index is given out."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from graphrag_ui.base.errors import IndexFormatError

    _index, out = saved
    path = out / f"{name}.parquet"
    table = pq.read_table(path)
    column = table.column(field).to_pylist()
    column[0] = None
    table = table.set_column(
        table.schema.get_field_index(field), field, pa.array(column, table.schema.field(field).type)
    )
    path.unlink()
    pq.write_table(table, path)
    with pytest.raises(IndexFormatError, match=f"column '{field}' of the {name} table has 1 null value"):
        store.load(out)


def test_a_scan_converts_the_column_whole_and_scattered_reads_do_not(saved, monkeypatch):
    index, out = saved
    monkeypatch.setattr(stored.StoredColumns, "SCAN_RUN", 3)
    loaded = store.load(out)
    columns = loaded.entities[0].__dict__["_columns"]
    for i in (4, 1, 3, 0, 5):  # scattered: one row at a time
        loaded.entities[i].description  # noqa: B018
    assert "description" in columns._arrays
    for entity in loaded.entities[:3]:  # three in a row: a scan
        entity.source_chunk_ids  # noqa: B018
    assert "source_chunk_ids" not in columns._arrays and "source_chunk_ids" in columns._converted
    # converted whole into the column's list: rows not read yet hold no value of their own (nothing written
    # into 10⁵ rows at once), and take theirs from the list on their first read
    assert not any("source_chunk_ids" in e.__dict__ for e in loaded.entities[3:])
    assert [_fields(r) for r in loaded.entities] == [_fields(r) for r in index.entities]


def test_small_columns_convert_whole_at_once_and_big_ones_stay_in_arrow(saved, monkeypatch):
    """``convert_small``: what an open does for a small index (``prepare_index``); a column over either limit
    stays to be read row by row (a 100k-entity index's first view converts nothing whole)."""
    index, out = saved
    loaded = store.load(out)
    assert len(loaded.relations) < len(loaded.entities)
    monkeypatch.setattr(stored.StoredColumns, "EAGER_ROWS", len(loaded.relations))
    assert sorted(stored.convert_small(loaded.relations)) == ["description", "extra", "keywords", "source_chunk_ids"]
    assert not loaded.relations[0].__dict__["_columns"]._arrays
    assert not any("description" in r.__dict__ for r in loaded.relations)  # nothing written into the rows
    assert stored.convert_small(loaded.entities) == []  # more rows than EAGER_ROWS
    assert set(loaded.entities[0].__dict__["_columns"]._arrays) == set(STORED_FIELDS[Entity])
    monkeypatch.setattr(stored.StoredColumns, "EAGER_ROWS", 10**6)
    monkeypatch.setattr(stored.StoredColumns, "EAGER_BYTES", 0)
    assert stored.convert_small(loaded.chunks) == [] and "text" in loaded.chunks[0].__dict__["_columns"]._arrays
    for name in ("chunks", "entities", "relations"):
        assert [_fields(r) for r in getattr(loaded, name)] == [_fields(r) for r in getattr(index, name)], name
    assert stored.convert_small(index.entities) == []  # rows made in code hold every value


def test_numbers_is_a_view_of_the_arrow_buffer_honouring_its_offset():
    import numpy as np
    import pyarrow as pa

    ints = pa.array([5, -1, 7, 2**40], type=pa.int64())
    assert stored.numbers(ints).tolist() == [5, -1, 7, 2**40]
    assert stored.numbers(ints.slice(1, 2)).tolist() == [-1, 7] and stored.numbers(ints.slice(4)).tolist() == []
    assert stored.numbers(pa.array([1.5, 2.0])).dtype == np.float64
    assert stored.numbers(pa.array([1, None], type=pa.int64())) is None  # nulls: no buffer value to trust
    assert stored.numbers(pa.array(["1"])) is None
    lists = pa.array([["a"], ["b", "c"], [], ["d"]]).slice(1, 2)
    assert stored.numbers(lists.offsets).tolist() == [1, 3, 3]


def test_opening_an_index_and_its_column_views_do_not_import_pandas(tmp_path):
    """Arrow's own ``to_numpy`` imports pandas: ~0.4 s and ~15 MB of an index's open."""
    import subprocess
    import sys

    index = small_index()  # with GraphRAG's community numbers, which the column views read vectorised
    for e in index.entities:
        e.communities = [(level, cid[1:]) for level, cid in e.communities]
    index.entities[2].source_chunk_ids = ["k1", "k2", "k1"]
    for c in index.communities:
        c.id, c.parent = c.id[1:], c.parent and c.parent[1:]
    index.vectors["communities"].ids = ["2", "1"]
    out = tmp_path / "idx"
    store.save(index, out)
    code = (
        "import sys; from graphrag_ui.index import store; from graphrag_ui.retrieval.ms import column_view, indexer_adapters as ia;"
        f"index = store.load({str(out)!r}); assert ia.unit_counts(index, 1) == {{'1': 2, '2': 0}};"
        "assert column_view.community_ids_by_row(index.entities, 1) is not None;"
        "assert ia.level_view(index, 1).entities; print('pandas' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_a_relations_endpoints_are_one_string_per_name(saved):
    index, out = saved
    loaded = store.load(out)
    assert [(r.source, r.target) for r in loaded.relations] == [(r.source, r.target) for r in index.relations]
    alice = [end for r in loaded.relations for end in (r.source, r.target) if end == "ALICE"]
    assert len(alice) == 3 and all(a is alice[0] for a in alice)


def _with_extra(out, name: str, row: int, text: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = out / f"{name}.parquet"
    table = pq.read_table(path)
    column = table.column("extra").to_pylist()
    column[row] = text
    table = table.set_column(table.schema.get_field_index("extra"), "extra", pa.array(column, pa.string()))
    path.unlink()
    pq.write_table(table, path)


def test_extras_are_decoded_on_first_read(saved):
    """GraphRAG's 300k relation ranks and 50k chunks' id lists were ~130 MB of dicts at 100k entities, decoded at
    every open; ms.global reads none of them."""
    index, out = saved
    loaded = store.load(out)
    for name in ("documents", "chunks", "entities", "relations"):
        rows = getattr(loaded, name)
        assert not any("extra" in r.__dict__ for r in rows), name
        assert [r.extra for r in rows] == [r.extra for r in getattr(index, name)], name


def test_an_extra_not_json_is_refused_on_every_read_of_its_row_naming_file_and_row(saved):
    from graphrag_ui.base.errors import IndexFormatError

    index, out = saved
    _with_extra(out, "relations", 2, '{"human_readable_id": 2,}')
    loaded = store.load(out)  # braced like every extra: found when the row is read
    assert loaded.relations[0].extra == index.relations[0].extra
    for _ in range(2):
        with pytest.raises(IndexFormatError) as caught:
            loaded.relations[2].extra  # noqa: B018
        said = str(caught.value)
        assert "relations.parquet" in said and "row 3" in said and "not JSON" in said and "—" in said
    with pytest.raises(IndexFormatError, match="relations.parquet"):
        [r.extra for r in loaded.relations]  # a scan converting the column whole is refused too


@pytest.mark.parametrize("text", ["5", "[1]", "", "not json", '"{}"'])
def test_an_extra_that_is_no_json_object_is_refused_at_the_load(saved, text):
    from graphrag_ui.base.errors import IndexFormatError

    _index, out = saved
    _with_extra(out, "entities", 1, text)
    with pytest.raises(IndexFormatError, match=r"entities.parquet: an 'extra' value is not a JSON object \(row 2"):
        store.load(out)


def test_a_lazy_open_decodes_a_stored_field_on_its_first_read_only(saved, monkeypatch):
    """``open_index``'s load (``lazy``): at 100k entities the stored columns were ~200 MB decoded at the open,
    most of which a mode never reads (ms.global: three of the entities' fields)."""
    index, out = saved
    monkeypatch.setattr(stored.StoredColumns, "EAGER_ROWS", 0)  # a big index: nothing converted at the open
    loaded = store.load(out, lazy=True)
    stored.convert_small(loaded.relations)
    relations = loaded.relations[0].__dict__["_columns"]
    assert relations._arrays == {}
    assert loaded.relations[1].description == index.relations[1].description
    assert set(relations._arrays) == {"description"}
    for name in ("documents", "chunks", "entities", "relations", "communities"):
        assert [_fields(r) for r in getattr(loaded, name)] == [_fields(r) for r in getattr(index, name)], name


@pytest.mark.parametrize("row_reads", [0, 1000])
def test_a_lazy_open_gives_the_values_of_a_full_one(saved, monkeypatch, row_reads):
    index, out = saved
    monkeypatch.setattr(stored.StoredColumns, "ROW_READS", row_reads)
    loaded = store.load(out, lazy=True)
    for name in ("documents", "chunks", "entities", "relations", "communities"):
        assert [_fields(r) for r in getattr(loaded, name)] == [_fields(r) for r in getattr(index, name)], name


def test_a_bad_stored_column_of_a_lazy_open_is_refused_on_every_read_of_it(saved, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from graphrag_ui.base.errors import IndexFormatError

    index, out = saved
    path = out / "relations.parquet"
    table = pq.read_table(path)
    column = table.column("description").to_pylist()
    column[0] = None
    at = table.schema.get_field_index("description")
    table = table.set_column(at, "description", pa.array(column, pa.string()))
    path.unlink()
    pq.write_table(table, path)
    monkeypatch.setattr(stored.StoredColumns, "EAGER_ROWS", 0)
    loaded = store.load(out, lazy=True)  # the column is decoded when a row first reads it
    assert loaded.relations[1].keywords == index.relations[1].keywords
    for _ in range(2):
        with pytest.raises(IndexFormatError, match="column 'description' of the relations table has 1 null value"):
            loaded.relations[1].description  # noqa: B018
