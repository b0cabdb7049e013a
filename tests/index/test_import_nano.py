"""The nano-graphrag importer: exact names/order/vectors from a real working dir, clear errors otherwise."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.index.importers import detect
from graphrag_ui.index.importers import nano_graphrag as nano

GOLDEN = Path(__file__).parents[1] / "goldens" / "nano"
EN = GOLDEN / "en"


@pytest.fixture()
def workdir(tmp_path: Path) -> Path:
    dst = tmp_path / "nano_work"
    shutil.copytree(EN, dst)
    return dst


@pytest.fixture(scope="module")
def index():
    return nano.import_dir(EN, embedder="hash")


def test_detect_and_auto_detect():
    assert nano.detect(EN)
    assert detect(EN) == "nano"


def test_entities_keep_stored_names_quotes_and_graphml_node_order(index):
    graph = nx.read_graphml(EN / nano.GRAPHML)
    assert [e.name for e in index.entities] == list(graph.nodes)
    names = {e.name for e in index.entities}
    assert '"BRIGID O\'NEILL"' in names and '"RIVERTON FISHERS\' COOPERATIVE"' in names
    assert '"INÊS MOURA"' in names
    alice = index.entity_by_name['"ALICE CHEN"']
    assert alice.type == '"PERSON"'
    assert alice.description == graph.nodes['"ALICE CHEN"']["description"]
    assert alice.id == "ent-" + hashlib.md5(b'"ALICE CHEN"').hexdigest()
    assert "<SEP>" in alice.description


def test_source_ids_keep_stored_order_and_clusters_their_order(index):
    graph = nx.read_graphml(EN / nano.GRAPHML)
    for entity in index.entities:
        node = graph.nodes[entity.name]
        assert entity.source_chunk_ids == [c for c in node["source_id"].split("<SEP>") if c]
        if "clusters" in node:
            assert entity.communities == [(c["level"], str(c["cluster"])) for c in json.loads(node["clusters"])]
        else:
            assert entity.communities == []
    isolated = index.entity_by_name['"MARIGOLD CAFÉ"']
    assert isolated.communities == [] and index.graph.degree(isolated.name) == 0


def test_graph_rebuilt_from_tables_has_networkx_adjacency_order(index):
    """nano queries a graph loaded by networkx.read_graphml; our rebuilt graph must iterate the same."""
    reference = nx.read_graphml(EN / nano.GRAPHML)
    for name in reference.nodes:
        assert list(index.graph.edges(name)) == list(reference.edges(name))
        assert index.graph.degree(name) == reference.degree(name)
    for rel in index.relations:
        data = reference.edges[rel.source, rel.target]
        assert rel.weight == data["weight"] and rel.description == data["description"]
        assert rel.extra["order"] == data["order"]


def test_communities_from_reports(index):
    reports = json.loads((EN / nano.REPORTS).read_text(encoding="utf-8"))
    assert [c.id for c in index.communities] == list(reports)
    for com in index.communities:
        raw = reports[com.id]
        assert com.report == raw["report_string"]
        assert com.rating == raw["report_json"]["rating"]
        assert com.level == raw["level"] and com.members == raw["nodes"]
        assert com.title == raw["report_json"]["title"]
        assert com.extra["schema_title"] == f"Cluster {com.id}"
        assert com.extra["report_json"] == raw["report_json"]
        assert com.extra["occurrence"] == raw["occurrence"]
        assert com.extra["sub_communities"] == raw["sub_communities"]
        assert com.extra["chunk_ids"] == raw["chunk_ids"] and com.extra["edges"] == raw["edges"]
        for sub in raw["sub_communities"]:
            assert index.community_by_id[sub].parent == com.id
    assert any(c.level == 1 for c in index.communities) and any(c.level == 0 for c in index.communities)


def test_chunks_and_documents(index):
    stored = json.loads((EN / nano.CHUNKS).read_text(encoding="utf-8"))
    assert [c.id for c in index.chunks] == list(stored)
    for chunk in index.chunks:
        assert chunk.text == stored[chunk.id]["content"]
        assert chunk.tokens == stored[chunk.id]["tokens"] and chunk.order == stored[chunk.id]["chunk_order_index"]
        assert chunk.doc_id == stored[chunk.id]["full_doc_id"] and chunk.doc_id in index.document_by_id


def test_vectors_keep_row_order_ids_and_nano_normalisation(index):
    raw = json.loads((EN / nano.VDB_ENTITIES).read_text(encoding="utf-8"))
    table = index.vectors["entities"]
    assert table.ids == [row["__id__"] for row in raw["data"]]
    assert all(i in index.entity_by_id for i in table.ids)
    stored = np.frombuffer(base64.b64decode(raw["matrix"]), np.float32).reshape(-1, raw["embedding_dim"])
    expected = stored / np.linalg.norm(stored, axis=-1, keepdims=True)  # nano-vectordb's load step
    assert table.matrix.dtype == np.float32 and np.array_equal(table.matrix, expected)
    chunks = index.vectors["chunks"]
    assert chunks.ids == [row["__id__"] for row in json.loads((EN / nano.VDB_CHUNKS).read_text())["data"]]
    m = index.manifest
    assert (m.source, m.embedder, m.dimension, m.tokenizer) == ("nano-graphrag", "hash", 256, "o200k_base")
    assert set(m.vector_sources) == {"entities", "chunks"} and m.language == "en"


def test_embedder_unknown_without_flag():
    assert nano.import_dir(EN).manifest.embedder == "unknown"


def test_zh_working_dir():
    zh = nano.import_dir(GOLDEN / "zh", embedder="hash")
    assert '"台风“海燕”"' in zh.entity_by_name and '"《云港日报》"' in zh.entity_by_name
    assert zh.manifest.language == "zh"


# ---------------------------------------------------------------- corrupt and partial sources
def _fails(path: Path, *needles: str, embedder: str | None = None) -> str:
    with pytest.raises(IndexFormatError) as err:
        nano.import_dir(path, embedder=embedder)
    message = str(err.value)
    for needle in needles:
        assert needle in message
    return message


def test_missing_graphml(workdir):
    (workdir / nano.GRAPHML).unlink()
    _fails(workdir, nano.GRAPHML, "missing")


def test_missing_chunk_store(workdir):
    (workdir / nano.CHUNKS).unlink()
    _fails(workdir, nano.CHUNKS, "missing")


def test_truncated_json(workdir):
    path = workdir / nano.REPORTS
    path.write_text(path.read_text(encoding="utf-8")[:500], encoding="utf-8")
    _fails(workdir, nano.REPORTS, "truncated")


def test_truncated_vdb(workdir):
    path = workdir / nano.VDB_ENTITIES
    path.write_text(path.read_text(encoding="utf-8")[:-100], encoding="utf-8")
    _fails(workdir, nano.VDB_ENTITIES, "not valid JSON")


def test_graphml_that_is_not_a_graph(workdir):
    (workdir / nano.GRAPHML).write_text("<html><body>not a graph</body></html>", encoding="utf-8")
    _fails(workdir, nano.GRAPHML, "not a GraphML graph")
    (workdir / nano.GRAPHML).write_text("<graphml><graph", encoding="utf-8")
    _fails(workdir, nano.GRAPHML, "not valid GraphML")


def test_vectors_of_the_wrong_dimension(workdir):
    path = workdir / nano.VDB_ENTITIES
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["embedding_dim"] = 100  # 34 x 256 floats are not rows of 100
    path.write_text(json.dumps(raw), encoding="utf-8")
    _fails(workdir, nano.VDB_ENTITIES, "dimension 100")


def test_vectors_truncated_matrix(workdir):
    path = workdir / nano.VDB_ENTITIES
    raw = json.loads(path.read_text(encoding="utf-8"))
    matrix = np.frombuffer(base64.b64decode(raw["matrix"]), np.float32)[:-256]
    raw["matrix"] = base64.b64encode(matrix.tobytes()).decode()
    path.write_text(json.dumps(raw), encoding="utf-8")
    _fails(workdir, nano.VDB_ENTITIES, "rows of dimension 256")


def test_embedder_dimension_mismatch(workdir):
    _fails(workdir, "256-dimensional", "'use-m3'", embedder="use-m3")


def test_bad_clusters_attribute(workdir):
    path = workdir / nano.GRAPHML
    tree = ET.parse(path)
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    key = next(k.get("id") for k in tree.getroot().findall("g:key", ns) if k.get("attr.name") == "clusters")
    cell = next(d for d in tree.getroot().iter("{http://graphml.graphdrawing.org/xmlns}data") if d.get("key") == key)
    cell.text = "[{level: broken"
    tree.write(path)
    _fails(workdir, "clusters", nano.GRAPHML)


def test_non_numeric_weight(workdir):
    path = workdir / nano.GRAPHML
    text = path.read_text(encoding="utf-8")
    weight_key = next(line for line in text.splitlines() if 'attr.name="weight"' in line).split('id="')[1].split('"')[0]
    tag = f'<data key="{weight_key}">'
    start = text.index(tag) + len(tag)
    path.write_text(text[:start] + "heavy" + text[text.index("</data>", start) :], encoding="utf-8")
    _fails(workdir, "weight", "not a number")


def test_empty_directory(tmp_path):
    _fails(tmp_path, "empty")


def test_not_a_directory(tmp_path):
    _fails(tmp_path / "nope", "not a directory")


def test_lightrag_directory_is_refused(workdir):
    (workdir / "vdb_relationships.json").write_text("{}", encoding="utf-8")
    assert not nano.detect(workdir)
    _fails(workdir, "LightRAG")


def test_graphrag_output_is_refused(tmp_path):
    (tmp_path / "entities.parquet").write_bytes(b"PAR1")
    assert not nano.detect(tmp_path)
    _fails(tmp_path, "GraphRAG")


def test_cli_import_writes_nothing_on_error(workdir, tmp_path):
    from graphrag_ui.index.importers.command import import_source

    (workdir / nano.REPORTS).write_text("{", encoding="utf-8")
    out = tmp_path / "out"
    with pytest.raises(IndexFormatError):
        import_source("nano", workdir, out, embedder="hash")
    assert not out.exists()


def test_cli_import_roundtrip(tmp_path):
    from graphrag_ui.index import store
    from graphrag_ui.index.importers.command import import_source

    kind, imported = import_source("auto", EN, tmp_path / "ix", embedder="hash")
    assert kind == "nano"
    loaded = store.load(tmp_path / "ix")
    assert [e.name for e in loaded.entities] == [e.name for e in imported.entities]
    assert [e.communities for e in loaded.entities] == [e.communities for e in imported.entities]
    assert np.array_equal(loaded.vectors["entities"].matrix, imported.vectors["entities"].matrix)
    assert loaded.manifest.embedder == "hash" and loaded.manifest.source == "nano-graphrag"


def test_import_writes_chroma_only_when_asked(tmp_path, monkeypatch):
    """Imports skip chroma (retrieval reads the .npy mirror); ``--chroma`` writes the collections."""
    from graphrag_ui.cli import main
    from graphrag_ui.index import store

    monkeypatch.delenv("CHROMA_HOST", raising=False)
    assert main(["import", "nano", str(EN), "--out", str(tmp_path / "plain"), "--embedder", "hash"]) == 0
    assert not (tmp_path / "plain" / "chroma").exists()
    assert main(["import", "nano", str(EN), "--out", str(tmp_path / "full"), "--embedder", "hash", "--chroma"]) == 0
    assert (tmp_path / "full" / "chroma" / "chroma.sqlite3").is_file()
    plain, full = store.load(tmp_path / "plain"), store.load(tmp_path / "full")
    assert all(plain.vectors[k].matrix.tobytes() == full.vectors[k].matrix.tobytes() for k in full.vectors)


def test_missing_optional_files_warn_not_fail(workdir):
    (workdir / nano.VDB_CHUNKS).unlink()
    (workdir / nano.DOCS).unlink()
    (workdir / nano.VDB_ENTITIES).unlink()
    index = nano.import_dir(workdir)
    assert "entities" not in index.vectors and index.documents == []
    assert any(nano.VDB_ENTITIES in w for w in index.manifest.settings["import_warnings"])


def test_missing_report_and_chunk_are_reported(workdir):
    path = workdir / nano.REPORTS
    reports = json.loads(path.read_text(encoding="utf-8"))
    reports.pop(next(iter(reports)))
    path.write_text(json.dumps(reports, ensure_ascii=False), encoding="utf-8")
    chunks_path = workdir / nano.CHUNKS
    chunks = json.loads(chunks_path.read_text(encoding="utf-8"))
    chunks.pop(next(iter(chunks)))
    chunks_path.write_text(json.dumps(chunks, ensure_ascii=False), encoding="utf-8")
    warnings = nano.import_dir(workdir).manifest.settings["import_warnings"]
    assert any("no community report" in w for w in warnings)
    assert any("missing from" in w for w in warnings)
