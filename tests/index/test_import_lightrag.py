"""The LightRAG importer: both layouts, order kept, ids consistent, clear errors on bad sources."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.index.importers import detect as detect_kind
from graphrag_ui.index.importers import lightrag as importer
from graphrag_ui.index.importers.workdir_files import normalise_rows
from tests.conftest import GOLDENS

LAYOUTS = {"lightrag-1.4": GOLDENS / "lightrag-1.4.7", "lightrag-1.5": GOLDENS / "lightrag-1.5.7"}
SOURCES = [
    pytest.param(src, root / corpus, id=f"{src}-{corpus}") for src, root in LAYOUTS.items() for corpus in ("en", "zh")
]


def vdb_rows(path: Path) -> tuple[list[dict], np.ndarray]:
    data = json.loads(path.read_text(encoding="utf-8"))
    matrix = np.frombuffer(base64.b64decode(data["matrix"]), np.float32).reshape(-1, data["embedding_dim"])
    return data["data"], matrix


@pytest.mark.parametrize("source,folder", SOURCES)
def test_imports_layout_and_keeps_order(source, folder):
    index = importer.import_dir(folder, embedder="hash")
    assert index.manifest.source == source
    assert index.manifest.embedder == "hash" and index.manifest.dimension == 256
    graph = nx.read_graphml(folder / importer.GRAPHML)
    # node order and every stored text exactly as in the graphml
    assert [e.name for e in index.entities] == list(graph.nodes)
    for entity in index.entities:
        node = graph.nodes[entity.name]
        assert entity.description == node["description"] and entity.type == node["entity_type"]
        assert "<SEP>".join(entity.source_chunk_ids) == node["source_id"]
        assert entity.id == "ent-" + hashlib.md5(entity.name.encode()).hexdigest()
    # relations in the file's edge order, so the rebuilt graph has LightRAG's adjacency order
    text = (folder / importer.GRAPHML).read_text(encoding="utf-8")
    file_edges = re.findall(r'<edge source="([^"]*)" target="([^"]*)"', text)

    def unescape(value: str) -> str:
        for escaped, plain in (("&quot;", '"'), ("&lt;", "<"), ("&gt;", ">"), ("&apos;", "'"), ("&amp;", "&")):
            value = value.replace(escaped, plain)
        return value

    assert [(r.source, r.target) for r in index.relations] == [(unescape(a), unescape(b)) for a, b in file_edges]
    for name in graph.nodes:
        assert list(index.graph.adj[name]) == list(graph.adj[name])
    for rel in index.relations:
        assert rel.description == graph.edges[rel.source, rel.target]["description"]
    # vectors: vdb row order, ids consistent with Entity.id / Relation.id / chunk ids, rows as nano-vectordb
    # holds them once loaded (re-normalised: ≤ 1 ulp from the file's values, and bit-equal to its matrix)
    rows, matrix = vdb_rows(folder / "vdb_entities.json")
    assert index.vectors["entities"].ids == [index.entity_by_name[r["entity_name"]].id for r in rows]
    assert np.array_equal(index.vectors["entities"].matrix, normalise_rows(matrix))
    np.testing.assert_allclose(index.vectors["entities"].matrix, matrix, rtol=0, atol=1e-6)
    rows, matrix = vdb_rows(folder / "vdb_relationships.json")
    assert all(
        index.relation_between(r["src_id"], r["tgt_id"]).id == i
        for r, i in zip(rows, index.vectors["relations"].ids, strict=True)
    )
    assert np.array_equal(index.vectors["relations"].matrix, normalise_rows(matrix))
    np.testing.assert_allclose(index.vectors["relations"].matrix, matrix, rtol=0, atol=1e-6)
    rows, matrix = vdb_rows(folder / "vdb_chunks.json")
    assert index.vectors["chunks"].ids == [r["__id__"] for r in rows]
    assert set(index.vectors["chunks"].ids) <= set(index.chunk_by_id)
    assert all(index.chunk_by_id[r["__id__"]].extra["vector_f16"] == r["vector"] for r in rows)
    # documents and chunks from the kv stores
    docs = json.loads((folder / "kv_store_full_docs.json").read_text(encoding="utf-8"))
    assert [d.id for d in index.documents] == list(docs)
    assert all(d.extra.get("status") == "processed" and d.extra.get("entity_names") for d in index.documents)
    chunks = json.loads((folder / "kv_store_text_chunks.json").read_text(encoding="utf-8"))
    assert [c.id for c in index.chunks] == list(chunks)
    assert all(c.text == chunks[c.id]["content"] and c.doc_id == chunks[c.id]["full_doc_id"] for c in index.chunks)


def test_detects_lightrag_not_other_kinds(tmp_path):
    assert importer.detect(LAYOUTS["lightrag-1.4"] / "en") and importer.detect(LAYOUTS["lightrag-1.5"] / "zh")
    nano_like = tmp_path / "nano"
    nano_like.mkdir()
    for name in (importer.GRAPHML, "vdb_entities.json", "kv_store_text_chunks.json"):
        shutil.copy(LAYOUTS["lightrag-1.4"] / "en" / name, nano_like / name)
    assert not importer.detect(nano_like)
    assert detect_kind(LAYOUTS["lightrag-1.5"] / "en") == "lightrag"


@pytest.fixture()
def broken(tmp_path):
    folder = tmp_path / "wd"
    shutil.copytree(LAYOUTS["lightrag-1.4"] / "en", folder)
    return folder


def _expect(folder: Path, pattern: str, file_name: str) -> None:
    with pytest.raises(IndexFormatError) as info:
        importer.import_dir(folder)
    assert re.search(pattern, str(info.value)), str(info.value)
    assert file_name in str(info.value)


def test_missing_file(broken):
    (broken / "kv_store_text_chunks.json").unlink()
    _expect(broken, "missing", "kv_store_text_chunks.json")


def test_truncated_json(broken):
    path = broken / "vdb_entities.json"
    path.write_text(path.read_text(encoding="utf-8")[:5000], encoding="utf-8")
    _expect(broken, "truncated or corrupt", "vdb_entities.json")


def test_graphml_not_a_graph(broken):
    (broken / importer.GRAPHML).write_text("<notes><note>hello</note></notes>", encoding="utf-8")
    _expect(broken, "not a GraphML graph", importer.GRAPHML)
    (broken / importer.GRAPHML).write_text("this is not xml at all", encoding="utf-8")
    _expect(broken, "not valid GraphML", importer.GRAPHML)


def test_vectors_of_wrong_dimension(broken):
    path = broken / "vdb_chunks.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["embedding_dim"] = 384
    path.write_text(json.dumps(data), encoding="utf-8")
    _expect(broken, "dimension", "vdb_chunks.json")


def test_vector_files_disagree(broken):
    path = broken / "vdb_chunks.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    matrix = np.frombuffer(base64.b64decode(data["matrix"]), np.float32).reshape(-1, 256)[:, :128].copy()
    data["embedding_dim"], data["matrix"] = 128, base64.b64encode(matrix.tobytes()).decode()
    path.write_text(json.dumps(data), encoding="utf-8")
    _expect(broken, "disagree on the dimension", "vdb_chunks.json: 128")


def test_empty_and_other_kind(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    _expect(empty, "empty", str(empty))
    other = tmp_path / "graphrag_output"
    other.mkdir()
    (other / "entities.parquet").write_bytes(b"PAR1")
    _expect(other, "not a LightRAG working_dir", str(other))


def test_failed_import_writes_nothing(broken, tmp_path):
    from graphrag_ui.index.importers.command import import_source

    (broken / "vdb_relationships.json").write_text("{", encoding="utf-8")
    out = tmp_path / "out"
    with pytest.raises(IndexFormatError):
        import_source("lightrag", broken, out, embedder="hash")
    assert not out.exists()


def test_store_round_trip_keeps_what_retrieval_needs(tmp_path):
    from graphrag_ui.index import store

    index = importer.import_dir(LAYOUTS["lightrag-1.4"] / "zh", embedder="hash")
    store.save(index, tmp_path / "ix")
    loaded = store.load(tmp_path / "ix")
    assert loaded.manifest.source == "lightrag-1.4"
    assert [e.name for e in loaded.entities] == [e.name for e in index.entities]
    assert [(r.source, r.target) for r in loaded.relations] == [(r.source, r.target) for r in index.relations]
    assert loaded.relations[0].extra["vdb_rows"] == index.relations[0].extra["vdb_rows"]
    assert loaded.chunks[0].extra == index.chunks[0].extra
    for kind in ("entities", "relations", "chunks"):
        assert loaded.vectors[kind].ids == index.vectors[kind].ids
        assert np.array_equal(loaded.vectors[kind].matrix, index.vectors[kind].matrix)
    # and the stored index still gives 1.4.7's exact contexts
    from tests.retrieval.test_golden_lightrag147 import CASES, TIE_CASES, expected_context, run_case

    checked = 0
    for case_id, case in CASES:
        if case["corpus"] == "zh" and case_id not in TIE_CASES and case["note"] != "both_empty_short":
            assert run_case(case, index=loaded).context == expected_context(case["context"]), case_id
            checked += 1
    assert checked >= 60


def test_relation_rows_keep_their_own_endpoint_order(broken):
    """The global path prints a relation as its vector row names it (src_id, tgt_id), as 1.4.7 does."""
    from graphrag_ui.embedding.embed import HashEmbedder
    from graphrag_ui.retrieval.core.deps import Deps
    from graphrag_ui.retrieval.core.result import Keywords
    from graphrag_ui.retrieval.registry import get_mode

    path = broken / "vdb_relationships.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    for row in data["data"]:
        row["src_id"], row["tgt_id"] = row["tgt_id"], row["src_id"]  # legacy rows: reverse order
    path.write_text(json.dumps(data), encoding="utf-8")
    index = importer.import_dir(broken, embedder="hash")
    spec = get_mode("lightrag.global")
    deps = Deps(embed=HashEmbedder().embed, keywords=Keywords(["location"], [], "user"))
    result = spec.func(index, "Where is the institute?", spec.resolve({"top_k": 5}), deps)
    rows = {frozenset((r["src_id"], r["tgt_id"])): (r["src_id"], r["tgt_id"]) for r in data["data"]}
    pairs = [(c.data["entity1"], c.data["entity2"]) for c in result.relations if c.in_context]
    assert pairs and all(rows[frozenset(p)] == p for p in pairs)
    assert any(a > b for a, b in pairs)  # not re-sorted
    first = result.relations[0].data
    assert [c.label for c in result.entities][:2] == [first["entity1"], first["entity2"]]


def test_graphml_reader_matches_networkx_on_odd_files(tmp_path):
    """Typed attributes and an edge to an undeclared node: same as nx.read_graphml; a repeated edge
    (LightRAG never writes one; networkx would return a MultiGraph) collapses into the first."""
    from graphrag_ui.index.importers.workdir_files import read_graphml

    path = tmp_path / "g.graphml"
    path.write_text(
        """<?xml version='1.0' encoding='utf-8'?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d0" for="node" attr.name="description" attr.type="string"/>
  <key id="d1" for="edge" attr.name="weight" attr.type="double"/>
  <key id="d2" for="edge" attr.name="created_at" attr.type="long"/>
  <key id="d3" for="edge" attr.name="description" attr.type="string"/>
  <graph edgedefault="undirected">
    <node id="B"><data key="d0">b &amp; &lt;SEP&gt; "q"</data></node>
    <node id="A"/>
    <node id="C"/>
    <edge source="B" target="C"><data key="d1">2.5</data><data key="d3">first</data></edge>
    <edge source="A" target="B"><data key="d1">1</data><data key="d2">17</data></edge>
    <edge source="A" target="Z"><data key="d1">3</data></edge>
  </graph>
</graphml>""",
        encoding="utf-8",
    )
    nodes, edges = read_graphml(path)
    graph = nx.read_graphml(path)
    assert not graph.is_multigraph()
    assert [n for n, _ in nodes] == list(graph.nodes)
    assert dict(nodes)["B"] == graph.nodes["B"] == {"description": 'b & <SEP> "q"'}
    assert [(a, b) for a, b, _ in edges] == [("B", "C"), ("A", "B"), ("A", "Z")]
    rebuilt = nx.Graph()
    rebuilt.add_nodes_from(n for n, _ in nodes)
    for a, b, data in edges:
        rebuilt.add_edge(a, b, **data)
    for name in graph.nodes:
        assert list(rebuilt.adj[name]) == list(graph.adj[name])
        for nbr in graph.adj[name]:
            assert rebuilt.edges[name, nbr] == graph.edges[name, nbr]
    assert isinstance(graph.edges["A", "B"]["created_at"], int)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("</graph>", '<edge source="C" target="B"><data key="d3">second</data></edge></graph>'))
    _, edges = read_graphml(path)
    assert [(a, b) for a, b, _ in edges] == [("B", "C"), ("A", "B"), ("A", "Z")]
    assert edges[0][2] == {"weight": 2.5, "description": "second"}
