"""The msgraphrag importer on real GraphRAG 2.7.0 / 3.3.0 output, and on broken folders."""

from __future__ import annotations

import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.index import importers
from graphrag_ui.index.importers import ms_graphrag, ms_graphrag_lance
from tests.conftest import GOLDENS

SRC = {"graphrag-2": GOLDENS / "graphrag-2" / "en", "graphrag-3": GOLDENS / "graphrag-3" / "en"}


@pytest.fixture(scope="module", params=sorted(SRC))
def imported(request):
    return request.param, ms_graphrag.import_dir(SRC[request.param], embedder="hash")


def test_tables_rows_and_ids_as_stored(imported):
    layout, index = imported
    folder = SRC[layout]
    ents = pq.read_table(folder / "entities.parquet").to_pylist()
    assert [e.id for e in index.entities] == [r["id"] for r in ents]
    assert [e.name for e in index.entities] == [r["title"] for r in ents]
    first, row = index.entities[0], ents[0]
    assert first.extra["human_readable_id"] == row["human_readable_id"]
    assert first.extra["degree"] == row["degree"] and first.extra["frequency"] == row["frequency"]
    assert first.source_chunk_ids == list(row["text_unit_ids"])
    rels = pq.read_table(folder / "relationships.parquet").to_pylist()
    assert [(r.id, r.source, r.target) for r in index.relations] == [(r["id"], r["source"], r["target"]) for r in rels]
    assert index.relations[0].extra["combined_degree"] == rels[0]["combined_degree"]
    units = pq.read_table(folder / "text_units.parquet").to_pylist()
    assert [c.id for c in index.chunks] == [u["id"] for u in units]
    assert [c.extra["short_id"] for c in index.chunks] == [str(i) for i in range(len(units))]
    assert index.manifest.source == layout and index.manifest.tokenizer == "cl100k_base"
    assert index.manifest.embedder == "hash" and index.manifest.dimension == 256


def test_communities_and_memberships(imported):
    _, index = imported
    comm_rows = pq.read_table(SRC[imported[0]] / "communities.parquet").to_pylist()
    reports = {r["community"]: r for r in pq.read_table(SRC[imported[0]] / "community_reports.parquet").to_pylist()}
    assert [c.id for c in index.communities] == [str(r["community"]) for r in comm_rows]
    for c, row in zip(index.communities, comm_rows, strict=True):
        rep = reports[row["community"]]
        assert c.level == row["level"] and c.title == rep["title"] and c.report == rep["full_content"]
        assert c.rating == rep["rank"] and c.extra["summary"] == rep["summary"]
        assert c.parent == (None if row["parent"] < 0 else str(row["parent"]))
    member_of = {}
    for row in comm_rows:
        for eid in row["entity_ids"]:
            member_of.setdefault(eid, []).append((row["level"], str(row["community"])))
    for e in index.entities:
        assert e.communities == member_of.get(e.id, [])


def test_vectors_kept_in_lancedb_row_order(imported):
    layout, index = imported
    import lancedb

    names = {k: v[0] if layout == "graphrag-2" else v[1] for k, v in ms_graphrag_lance.LANCE_TABLES.items()}
    arrow = lancedb.connect(str(SRC[layout] / "lancedb")).open_table(names["entities"]).to_arrow()
    table = index.vectors["entities"]
    assert table.ids == arrow.column("id").to_pylist()
    assert table.matrix.dtype == np.float32
    assert np.array_equal(table.matrix, np.asarray(arrow.column("vector").to_pylist(), dtype=np.float32))
    assert set(index.vectors) == {"entities", "chunks", "communities"}
    assert set(index.vectors["communities"].ids) <= {c.id for c in index.communities}
    assert index.manifest.vector_sources["entities"] == f"lancedb:{names['entities']}"
    assert index.manifest.settings["lance_kernel"] == ms_graphrag_lance.LANCE_KERNEL[layout]


def test_detect_and_auto():
    for folder in SRC.values():
        assert ms_graphrag.detect(folder)
        assert importers.detect(folder) == "msgraphrag"
    assert not ms_graphrag.detect(GOLDENS)


def test_output_parent_folder_is_accepted(tmp_path):
    shutil.copytree(SRC["graphrag-3"], tmp_path / "output")
    assert ms_graphrag.detect(tmp_path)
    assert len(ms_graphrag.import_dir(tmp_path).entities) > 0


def test_import_writes_nothing(tmp_path):
    src = tmp_path / "out"
    shutil.copytree(SRC["graphrag-2"], src)
    before = sorted((p.relative_to(src), p.stat().st_mtime_ns) for p in src.rglob("*"))
    ms_graphrag.import_dir(src)
    assert sorted((p.relative_to(src), p.stat().st_mtime_ns) for p in src.rglob("*")) == before


def test_float64_vectors_of_older_2x_become_float32(tmp_path):
    """Early 2.x wrote `vector: list<double>` (seed 004); the rows are kept, as float32."""
    import lancedb

    src = tmp_path / "out"
    shutil.copytree(SRC["graphrag-2"], src, ignore=shutil.ignore_patterns("lancedb"))
    ids = [r["id"] for r in pq.read_table(src / "entities.parquet").to_pylist()]
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(len(ids), 8))
    data = pa.table(
        {
            "id": ids,
            "text": ["t"] * len(ids),
            "vector": pa.array(vecs.tolist(), pa.list_(pa.float64())),
            "attributes": ["{}"] * len(ids),
        }
    )
    lancedb.connect(str(src / "lancedb")).create_table("default-entity-description", data=data)
    index = ms_graphrag.import_dir(src)
    assert index.vectors["entities"].matrix.dtype == np.float32
    assert np.allclose(index.vectors["entities"].matrix, vecs.astype(np.float32))
    assert index.manifest.dimension == 8 and index.manifest.embedder == "unknown"


def _broken(tmp_path, mutate) -> str:
    src = tmp_path / "out"
    shutil.copytree(SRC["graphrag-3"], src)
    mutate(src)
    with pytest.raises(IndexFormatError) as err:
        ms_graphrag.import_dir(src)
    return str(err.value)


def test_missing_table(tmp_path):
    msg = _broken(tmp_path, lambda p: (p / "relationships.parquet").unlink())
    assert "relationships.parquet" in msg and "missing" in msg


def test_truncated_parquet(tmp_path):
    def cut(p):
        data = (p / "entities.parquet").read_bytes()
        (p / "entities.parquet").write_bytes(data[: len(data) // 2])

    msg = _broken(tmp_path, cut)
    assert "entities.parquet" in msg and "cannot read Parquet" in msg


def test_missing_column(tmp_path):
    def drop(p):
        table = pq.read_table(p / "entities.parquet").drop(["degree"])
        pq.write_table(table, p / "entities.parquet")

    msg = _broken(tmp_path, drop)
    assert "degree" in msg and "entities.parquet" in msg


def test_wrong_dimension_for_embedder(tmp_path):
    with pytest.raises(IndexFormatError, match="dimension 256"):
        ms_graphrag.import_dir(SRC["graphrag-2"], embedder="use-m3")


def test_corrupt_lancedb_table(tmp_path):
    def smash(p):
        for f in (p / "lancedb" / "entity_description.lance" / "data").iterdir():
            f.write_bytes(b"not lance")

    msg = _broken(tmp_path, smash)
    assert "entity_description.lance" in msg


def test_empty_missing_and_foreign_directories(tmp_path):
    with pytest.raises(IndexFormatError, match="empty"):
        ms_graphrag.import_dir(tmp_path)
    with pytest.raises(IndexFormatError, match="not a directory"):
        ms_graphrag.import_dir(tmp_path / "nope")
    (tmp_path / "graph_chunk_entity_relation.graphml").write_text("<graphml/>")
    with pytest.raises(IndexFormatError, match="nano-graphrag/LightRAG"):
        ms_graphrag.import_dir(tmp_path)


def test_ragged_vectors(tmp_path):
    """lancedb itself turns vectors of another length into nulls (on_bad_vectors="null"): a clear error."""
    import lancedb

    src = tmp_path / "out"
    shutil.copytree(SRC["graphrag-2"], src, ignore=shutil.ignore_patterns("lancedb"))
    ids = [r["id"] for r in pq.read_table(src / "entities.parquet").to_pylist()][:3]
    vectors = pa.array([[0.1, 0.2], [0.3, 0.4, 0.5], [0.6, 0.7]], pa.list_(pa.float64()))
    data = pa.table({"id": ids, "text": ["t"] * 3, "vector": vectors, "attributes": ["{}"] * 3})
    lancedb.connect(str(src / "lancedb")).create_table("default-entity-description", data=data, on_bad_vectors="null")
    with pytest.raises(IndexFormatError, match="1 row\\(s\\) have no vector") as err:
        ms_graphrag.import_dir(src)
    assert "default-entity-description.lance" in str(err.value)


def test_incomplete_graphrag_1x_output_names_the_missing_table(tmp_path):
    shutil.copy(SRC["graphrag-2"] / "entities.parquet", tmp_path / "create_final_entities.parquet")
    assert importers.detect(tmp_path) == "msgraphrag"
    with pytest.raises(IndexFormatError, match="missing create_final_relationships.parquet"):
        ms_graphrag.import_dir(tmp_path)


def test_cli_import_of_a_broken_folder_writes_nothing(tmp_path, capsys):
    from graphrag_ui.cli import main

    src = tmp_path / "out"
    shutil.copytree(SRC["graphrag-3"], src)
    (src / "communities.parquet").unlink()
    target = tmp_path / "ix"
    assert main(["import", "msgraphrag", str(src), "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert "communities.parquet" in err and "Traceback" not in err
    assert not target.exists()


@pytest.mark.parametrize(
    ("folder", "kernel", "writer"),
    [
        ("graphrag-2", "ivf_flat", "lance 13.0.0"),  # 2.7.0: IVF_FLAT index over every row
        ("graphrag-2.3", "flat_topk", "lance 0.20.0"),  # 2.3.0: no index, pylance 0.20's TopK tie order
        ("graphrag-3", "flat", "lance 11.0.0"),
    ],
)
def test_lance_kernel_follows_the_writer_in_the_table_manifest(folder, kernel, writer):
    settings = ms_graphrag.import_dir(GOLDENS / folder / "en").manifest.settings
    assert (settings["lance_kernel"], settings["lance_writer"]) == (kernel, writer)


def test_lance_kernel_is_not_a_layout_guess(tmp_path):
    """The same 2.x layout, an unindexed table: pylance < 0.33 orders ties by its heap, newer by row."""
    lance_dir = GOLDENS / "graphrag-2.3" / "en" / "lancedb" / "default-entity-description.lance"
    assert ms_graphrag_lance.lance_kernel("graphrag-2", lance_dir) == ("flat_topk", "lance 0.20.0")
    assert ms_graphrag_lance.lance_kernel("graphrag-2", None) == ("ivf_flat", "unknown")
    copy = tmp_path / "t.lance"
    shutil.copytree(lance_dir, copy)
    for manifest in (copy / "_versions").glob("*.manifest"):
        manifest.write_bytes(manifest.read_bytes().replace(b"0.20.0", b"0.33.0"))
    assert ms_graphrag_lance.lance_kernel("graphrag-2", copy) == ("ivf_flat", "lance 0.33.0")


def test_broken_lance_manifest_is_one_clear_line(tmp_path):
    src = tmp_path / "out"
    shutil.copytree(GOLDENS / "graphrag-2.3" / "en", src)
    for manifest in (src / "lancedb" / "default-entity-description.lance" / "_versions").glob("*.manifest"):
        manifest.write_bytes(manifest.read_bytes()[:-4] + b"XXXX")
    with pytest.raises(IndexFormatError) as err:
        ms_graphrag.import_dir(src)
    assert "Lance manifest" in str(err.value) and "\n" not in str(err.value)
