"""Save/load round trip: tables, graph order, vectors bit for bit, manifest, and load errors."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from graphrag_ui.base.errors import IndexFormatError, UserError
from graphrag_ui.index import store
from graphrag_ui.index.model import FORMAT_VERSION, Index, Manifest, VectorTable
from tests.support.store_fixtures import small_index


def test_tables_round_trip_exactly(saved):
    index, out = saved
    loaded = store.load(out)
    for name in ("documents", "chunks", "entities", "relations", "communities"):
        assert getattr(loaded, name) == getattr(index, name), name
    assert [e.id for e in loaded.entities] == ["e3", "e1", "e2", "e4", "e5", "e6"]


def test_types_in_extra_and_lists_are_preserved(saved):
    _index, out = saved
    loaded = store.load(out)
    zed = loaded.entity_by_id["e3"]
    assert zed.extra["pair"] == (1, "x") and isinstance(zed.extra["pair"], tuple)
    assert zed.extra["by_level"] == {0: "c1", 1: "c2"}
    assert isinstance(zed.extra["rank"], int) and isinstance(zed.extra["score"], float)
    assert zed.extra["nested"] == [{"a": None}]
    assert zed.communities == [(1, "c2"), (0, "c1")] and all(isinstance(c, tuple) for c in zed.communities)
    assert loaded.community_by_id["c2"].rating is None
    assert loaded.community_by_id["c2"].parent == "c1" and loaded.community_by_id["c1"].parent is None
    assert isinstance(loaded.chunk_by_id["k2"].order, int)
    assert loaded.relation_by_id["r2"].weight == 2.5


def test_graph_adjacency_order_is_preserved(saved):
    index, out = saved
    loaded = store.load(out)
    assert list(loaded.graph.nodes) == list(index.graph.nodes)
    for node in index.graph.nodes:
        assert list(loaded.graph.adj[node]) == list(index.graph.adj[node]), node
    assert list(loaded.graph.edges(data="id")) == list(index.graph.edges(data="id"))


def test_tables_written_in_many_row_groups_read_back_the_same(tmp_path):
    """Fast column paths (list offsets, struct children) must respect chunk boundaries."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from graphrag_ui.index import tables

    index = small_index()
    for name in ("entities", "relations", "communities"):
        table = tables.to_arrow(name, getattr(index, name))
        path = tmp_path / f"{name}.parquet"
        pq.write_table(table, path, row_group_size=1)
        assert pq.ParquetFile(path).metadata.num_row_groups > 1
        assert tables.read_table(name, path) == getattr(index, name)
        sliced = pa.concat_tables([table.slice(1, 2), table.slice(3)])  # non-zero offsets inside chunks
        pq.write_table(sliced, path)
        assert tables.read_table(name, path) == getattr(index, name)[1:]


@pytest.mark.parametrize("row_reads", [0, 1000])  # each stored column converted whole, or one row at a time
def test_rows_of_one_sliced_chunk_read_their_own_values(tmp_path, monkeypatch, row_reads):
    """A column of one chunk is read in place (not copied): a chunk that starts inside its buffers still
    gives each row its own values."""
    from graphrag_ui.index import stored, tables

    monkeypatch.setattr(stored.StoredColumns, "ROW_READS", row_reads)
    index = small_index()
    for name in ("documents", "chunks", "entities", "relations", "communities"):
        sliced = tables.to_arrow(name, getattr(index, name)).slice(1)
        assert all(sliced.column(f).num_chunks == 1 for f in sliced.column_names)
        assert tables.rows_of(name, sliced, tmp_path / name) == getattr(index, name)[1:], name


def test_vectors_are_bit_exact(saved):
    index, out = saved
    loaded = store.load(out)
    assert set(loaded.vectors) == set(index.vectors)
    for kind, table in index.vectors.items():
        got = loaded.vectors[kind]
        assert got.ids == table.ids
        assert got.matrix.dtype == np.float32
        assert got.matrix.tobytes() == table.matrix.tobytes()


def test_vectors_can_be_read_back_from_chroma(saved):
    """Without the .npy mirror the vectors come from chroma itself (cosine space: ≤ 1 ulp off)."""
    index, out = saved
    for kind in index.vectors:
        (out / "vectors" / f"{kind}.npy").unlink()
    loaded = store.load(out)
    for kind, table in index.vectors.items():
        assert loaded.vectors[kind].ids == table.ids
        np.testing.assert_allclose(loaded.vectors[kind].matrix, table.matrix, rtol=1e-6, atol=1e-6)


def test_without_chroma_the_mirror_is_the_only_copy(tmp_path, monkeypatch):
    """chroma=False writes no chroma store; load reads the mirror bit for bit and checks it alone."""
    monkeypatch.delenv("CHROMA_HOST", raising=False)
    index = small_index()
    out = tmp_path / "idx"
    store.save(index, out, chroma=False)
    assert not (out / "chroma").exists()
    assert json.loads((out / "manifest.json").read_text(encoding="utf-8"))["storage"]["chroma"] == {"mode": "none"}
    loaded = store.load(out)
    for kind, table in index.vectors.items():
        assert loaded.vectors[kind].ids == table.ids
        assert loaded.vectors[kind].matrix.tobytes() == table.matrix.tobytes()
    (out / "vectors" / "chunks.npy").unlink()
    with pytest.raises(IndexFormatError, match="keeps no chroma copy"):
        store.load(out)


def test_manifest_is_pretty_utf8_and_counts_are_recomputed(saved):
    index, out = saved
    text = (out / "manifest.json").read_text(encoding="utf-8")
    assert "Small 测试" in text and "\n  " in text
    loaded = store.load(out)
    assert loaded.manifest.counts == index.counts()
    assert loaded.manifest.title == "Small 测试" and loaded.manifest.settings["levels"] == [0, 1]
    assert loaded.manifest.format_version == FORMAT_VERSION
    assert loaded.path == str(out)


def test_dimension_is_filled_from_vectors_and_mismatch_rejected(tmp_path):
    index = small_index(dim=6)
    index.manifest.dimension = 0
    store.save(index, tmp_path / "a")
    assert store.load(tmp_path / "a").manifest.dimension == 6
    index.manifest.dimension = 512
    with pytest.raises(UserError, match="dimension"):
        store.save(index, tmp_path / "b")
    assert not (tmp_path / "b").exists()


def test_empty_index_round_trips(tmp_path):
    empty = Index(Manifest(source="build", embedder="hash", dimension=256), [], [], [], [], [])
    empty.vectors = {"entities": VectorTable([], np.zeros((0, 256), np.float32))}
    store.save(empty, tmp_path / "e")
    loaded = store.load(tmp_path / "e")
    assert loaded.entities == [] and loaded.vectors["entities"].matrix.shape == (0, 256)


def test_overwrite_replaces_an_index_and_leaves_no_temp_folders(saved):
    index, out = saved
    index.entities[0].description = "changed"
    index.refresh()
    store.save(index, out)
    assert store.load(out).entity_by_id["e3"].description == "changed"
    assert sorted(p.name for p in out.parent.iterdir()) == ["idx"]


def test_refuses_to_overwrite_a_folder_that_is_not_an_index(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "keep.txt").write_text("precious")
    with pytest.raises(UserError, match="not empty"):
        store.save(small_index(), tmp_path / "docs")
    assert (tmp_path / "docs" / "keep.txt").read_text() == "precious"


def test_bad_rows_give_a_clear_error(tmp_path):
    index = small_index()
    index.entities[1].extra = {"when": object()}
    with pytest.raises(UserError, match=r"entities row 1 \(id 'e1'\) extra"):
        store.save(index, tmp_path / "x")
    index = small_index()
    index.relations[2].weight = "heavy"
    with pytest.raises(UserError, match="weight"):
        store.save(index, tmp_path / "x")
    assert not (tmp_path / "x").exists() and list(tmp_path.iterdir()) == []


# --- load errors -------------------------------------------------------------------------------


def test_missing_manifest_is_rejected(saved):
    _index, out = saved
    (out / "manifest.json").unlink()
    with pytest.raises(IndexFormatError, match="manifest.json is missing"):
        store.load(out)


def test_missing_folder_is_rejected(tmp_path):
    with pytest.raises(IndexFormatError, match="no index folder"):
        store.load(tmp_path / "nope")


def _edit_manifest(out, fn):
    path = out / "manifest.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    fn(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_wrong_format_version_is_rejected(saved):
    _index, out = saved
    _edit_manifest(out, lambda d: d.update(format_version=FORMAT_VERSION + 1))
    with pytest.raises(IndexFormatError, match="upgrade"):
        store.load(out)
    _edit_manifest(out, lambda d: d.update(format_version=0))
    with pytest.raises(IndexFormatError, match="format version 0"):
        store.load(out)


def test_table_count_mismatch_names_the_file(saved):
    _index, out = saved
    _edit_manifest(out, lambda d: d["counts"].update(relations=5))
    with pytest.raises(IndexFormatError, match=r"relations\.parquet.*4 rows but the manifest says 5"):
        store.load(out)


def test_vector_count_mismatch_is_rejected(saved):
    _index, out = saved
    _edit_manifest(out, lambda d: d["storage"]["vectors"]["chunks"].update(rows=3))
    with pytest.raises(IndexFormatError, match="chroma collection 'chunks' is 2 vectors but the manifest says 3"):
        store.load(out)


def test_missing_table_or_chroma_or_catalog_is_rejected(saved, tmp_path):
    _index, out = saved
    for victim, message in [
        ("entities.parquet", "entities table is missing"),
        ("chroma", "chroma store is missing"),
        ("catalog.sqlite", "catalog is missing"),
    ]:
        copy = tmp_path / f"copy-{victim}"
        shutil.copytree(out, copy)
        target = copy / victim
        shutil.rmtree(target) if target.is_dir() else target.unlink()
        with pytest.raises(IndexFormatError, match=message):
            store.load(copy)


def test_corrupt_manifest_is_rejected(saved):
    _index, out = saved
    (out / "manifest.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(IndexFormatError, match="manifest.json: not valid JSON"):
        store.load(out)
    assert not store.is_index(out)


def test_each_folder_a_load_begins_is_recorded_even_when_the_load_fails(saved, tmp_path):
    """``loads_begun`` tells the server's preload that a session asks for another index (``cli.serve``)."""
    from graphrag_ui.index import store_load

    _index, out = saved
    store.load(out)
    with pytest.raises(IndexFormatError):
        store.load(tmp_path / "absent")
    assert {str(out.absolute()), str((tmp_path / "absent").absolute())} <= store_load.loads_begun()
