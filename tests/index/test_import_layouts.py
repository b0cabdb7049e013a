"""Every on-disk layout the three libraries released imports, and every mode runs or says why not.

tests/goldens/layouts/ holds one small index written by each release that changed the layout
(scripts/goldens/layouts_*.py: the real library in a throwaway venv, a scripted LLM, the hash
embedder); the 1.4.7, 1.5.7, nano 0.0.8.2 and GraphRAG 2.x/3.x layouts are the goldens beside it.
"""

from __future__ import annotations

import base64
import json
import shutil

import numpy as np
import pytest

from graphrag_ui.index import store
from graphrag_ui.index.import_report import report
from graphrag_ui.index.importers.command import import_source
from graphrag_ui.index.reembed import reembed
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.services.query import run_query
from graphrag_ui.services.readiness import CANNOT, READY, readiness
from tests.conftest import GOLDENS

LAYOUTS = GOLDENS / "layouts"
# folder -> (manifest source, layout label, modes that cannot run on it)
EXPECTED = {
    LAYOUTS / "lightrag-1.0.9": (
        "lightrag-1.1",
        "LightRAG ≤ 1.1 layout",
        {"lightrag.naive", "nano.global", "ms.global", "ms.local", "ms.drift"},
    ),
    LAYOUTS / "lightrag-1.1.7": (
        "lightrag-1.1",
        "LightRAG ≤ 1.1 layout",
        {"lightrag.naive", "nano.global", "ms.global", "ms.local", "ms.drift"},
    ),
    LAYOUTS / "lightrag-1.2.5": (
        "lightrag-1.2",
        "LightRAG 1.2 layout",
        {"lightrag.naive", "nano.global", "ms.global", "ms.local", "ms.drift"},
    ),
    LAYOUTS / "lightrag-1.3.9": (
        "lightrag-1.3",
        "LightRAG 1.3 layout",
        {"nano.global", "ms.global", "ms.local", "ms.drift"},
    ),
    GOLDENS / "lightrag-1.4.7" / "en": (
        "lightrag-1.4",
        "LightRAG 1.4 layout",
        {"nano.global", "ms.global", "ms.local", "ms.drift"},
    ),
    GOLDENS / "lightrag-1.5.7" / "en": (
        "lightrag-1.5",
        "LightRAG 1.5 layout",
        {"nano.global", "ms.global", "ms.local", "ms.drift"},
    ),
    LAYOUTS / "nano-graphrag-0.0.8": (
        "nano-graphrag",
        "nano-graphrag 0.0.8.x layout",
        {"nano.naive", "lightrag.global", "lightrag.naive", "ms.basic", "ms.drift"},
    ),
    GOLDENS / "nano" / "en": ("nano-graphrag", "nano-graphrag 0.0.8.x layout", {"lightrag.global", "ms.drift"}),
    LAYOUTS / "graphrag-1.2.0": ("graphrag-1", "GraphRAG 1.x layout", {"lightrag.global"}),
    LAYOUTS / "graphrag-1.2.0-parquet": ("graphrag-1", "GraphRAG 1.x layout", {"lightrag.global"}),
    GOLDENS / "graphrag-2" / "en": ("graphrag-2", "GraphRAG 2.x layout", {"lightrag.global"}),
    GOLDENS / "graphrag-3" / "en": ("graphrag-3", "GraphRAG 3.x layout", {"lightrag.global"}),
}
QUESTION = "How is the Tidewater Institute related to Kelp Bay?"
KEYWORDS = {"hl": ["location", "research site"], "ll": ["Tidewater Institute", "Kelp Bay"]}  # the corpus' own


def _id(folder) -> str:
    return str(folder.relative_to(GOLDENS))


@pytest.fixture(scope="module", params=list(EXPECTED), ids=_id)
def imported(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("layout") / "index"
    import_source("auto", request.param, out, embedder="hash")
    return request.param, store.load(out)


def test_every_layout_golden_is_tested():
    assert {p for p in LAYOUTS.iterdir() if p.is_dir()} <= set(EXPECTED)


def test_manifest_says_the_layout_the_files_show(imported):
    folder, index = imported
    source, label, _ = EXPECTED[folder]
    assert index.manifest.source == source
    assert index.manifest.settings["layout"] == label
    assert index.entities and index.relations and index.chunks
    assert len(index.vectors["entities"]) == len(index.entities)


def test_every_mode_runs_or_says_why_not(imported):
    folder, index = imported
    rows = {r.mode: r for r in readiness(index)}
    assert {m for m, r in rows.items() if r.status == CANNOT} == EXPECTED[folder][2]
    for mode, row in rows.items():
        result = run_query(index, mode, QUESTION, **(KEYWORDS if mode.startswith("lightrag") else {}))
        kept = sum(1 for kind in KINDS for c in result.candidates(kind) if c.in_context)
        if mode == "lightrag.bypass":
            assert kept == 0
        elif row.status == CANNOT:
            assert kept == 0, mode
            assert any("found nothing" in w for w in result.warnings), (mode, result.warnings)
        else:
            assert kept, (mode, row.reasons, result.warnings)
            if row.status == READY:
                assert not any("found nothing" in w for w in result.warnings), mode


def test_nano_empty_vdb_chunks_file_imports_as_no_chunk_vectors(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(LAYOUTS / "nano-graphrag-0.0.8", src)
    # what nano-vectordb writes for a store that never got a row (naive RAG switched on, nothing inserted)
    (src / "vdb_chunks.json").write_text(json.dumps({"embedding_dim": 1536, "data": [], "matrix": ""}))
    _, index = import_source("auto", src, tmp_path / "out", embedder="hash")
    assert index.manifest.dimension == 256  # the empty file's embedding_dim says nothing
    assert not len(index.vectors.get("chunks", [])) and len(index.vectors["entities"]) == len(index.entities)
    rows = {r.mode: r for r in readiness(index)}
    assert rows["nano.naive"].status == CANNOT and rows["nano.local"].status == READY


def test_entities_without_a_vector_are_counted_and_reembed_fills_them(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(GOLDENS / "lightrag-1.5.7" / "en", src)
    vdb = src / "vdb_entities.json"
    data = json.loads(vdb.read_text(encoding="utf-8"))
    total = len(data["data"])
    data["data"] = data["data"][:-5]  # a run stopped half way: the last five entities never got a vector
    dim = data["embedding_dim"]
    matrix = np.frombuffer(base64.b64decode(data["matrix"]), dtype=np.float32).reshape(-1, dim)[: total - 5]
    data["matrix"] = base64.b64encode(matrix.tobytes()).decode()
    data.pop("vector", None)
    for row in data["data"]:
        row.pop("vector", None)
    vdb.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "out"
    import_source("auto", src, out, embedder="hash")
    facts = report(store.load(out))
    assert f"5 of {total} entities have no vector: found by name only until you re-embed" in facts.missing
    reembed(out, "hash")
    index = store.load(out)
    assert len(index.vectors["entities"]) == len(index.entities) == total
    assert report(index).missing == ["no communities"]  # LightRAG makes none


def test_graphrag_0x_vectors_in_table_columns(tmp_path):
    """0.x/1.0 ``store_in_table``: each table carries its own ``*_embedding`` column (no snapshot files,
    no LanceDB); made from the 1.2.0 snapshot golden, whose vectors move into those columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    gold = LAYOUTS / "graphrag-1.2.0-parquet"
    src = tmp_path / "output"
    shutil.copytree(gold, src, ignore=shutil.ignore_patterns("embeddings.*"))
    moves = {
        "entity.description": ("create_final_entities", "description_embedding"),
        "text_unit.text": ("create_final_text_units", "text_embedding"),
        "community.full_content": ("create_final_community_reports", "full_content_embedding"),
    }
    for field, (table_name, column) in moves.items():
        vectors = {r["id"]: r["embedding"] for r in pq.read_table(gold / f"embeddings.{field}.parquet").to_pylist()}
        table = pq.read_table(src / f"{table_name}.parquet")
        values = [vectors.get(i) for i in table.column("id").to_pylist()]
        pq.write_table(
            table.append_column(column, pa.array(values, pa.list_(pa.float32()))), src / f"{table_name}.parquet"
        )
    _, index = import_source("auto", tmp_path, tmp_path / "out", embedder="hash")
    assert index.manifest.vector_sources["entities"] == "create_final_entities.parquet:description_embedding"
    assert len(index.vectors["entities"]) == len(index.entities) and len(index.vectors["chunks"]) == len(index.chunks)
    assert {r.status for r in readiness(index, ["ms.local", "ms.basic", "ms.global"])} == {READY}
    result = run_query(index, "ms.local", QUESTION)
    assert any(c.in_context for c in result.entities)


def test_graphrag_0x_numbers_written_as_text_are_read_as_numbers(tmp_path):
    """GraphRAG 0.x wrote ``create_final_relationships.human_readable_id`` as text ("0", "1", …; found on a
    real 0.x output): read as numbers; a value that is no number is still refused with its record."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from graphrag_ui.base.errors import IndexFormatError

    src = tmp_path / "output"
    shutil.copytree(LAYOUTS / "graphrag-1.2.0-parquet", src)
    path = src / "create_final_relationships.parquet"
    table = pq.read_table(path)
    position = table.schema.get_field_index("human_readable_id")
    text = pa.array([str(v) for v in table.column("human_readable_id").to_pylist()])
    pq.write_table(table.set_column(position, "human_readable_id", text), path)
    _, index = import_source("auto", tmp_path, tmp_path / "out", embedder="hash")
    want = table.column("human_readable_id").to_pylist()
    assert [r.extra["human_readable_id"] for r in index.relations] == want and all(isinstance(v, int) for v in want)
    broken = pa.array(["x"] + [str(v) for v in range(1, table.num_rows)])
    pq.write_table(table.set_column(position, "human_readable_id", broken), path)
    with pytest.raises(IndexFormatError, match="human_readable_id"):
        import_source("auto", tmp_path, tmp_path / "out2", embedder="hash")
