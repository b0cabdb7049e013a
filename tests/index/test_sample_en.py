"""The bundled English sample: the shipped index, its offline replay rebuild, and its questions.

The replay rebuild embeds the sample with use-m3 (about 400 short texts), so this module takes
roughly half a minute on two cores.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from graphrag_ui import cli
from graphrag_ui.index import store
from graphrag_ui.index.builder.cache import load_entries
from graphrag_ui.index.builder.reports import render
from graphrag_ui.retrieval.registry import MODE_MODULES

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample" / "en"
INDEX = SAMPLE / "index"
EXPECTED_COUNTS = {"documents": 25, "chunks": 25, "entities": 70, "relations": 293, "communities": 22}
# every file of the index except chroma's, whose segment folders are named with random UUIDs
BYTE_IDENTICAL = [
    "documents.parquet",
    "chunks.parquet",
    "entities.parquet",
    "relations.parquet",
    "communities.parquet",
    "manifest.json",
    "catalog.sqlite",
    *(
        f"vectors/{kind}.{ext}"
        for kind in ("entities", "relations", "chunks", "communities")
        for ext in ("npy", "ids.json")
    ),
]


def _tree_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def index():
    return store.load(INDEX)


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory) -> Path:
    """The sample rebuilt from its documents with the documented replay command."""
    out = tmp_path_factory.mktemp("en-replay") / "index"
    cache = SAMPLE / "llm_cache.json"
    before = cache.read_bytes()
    code = cli.main(["build", str(SAMPLE / "docs"), "--out", str(out), "--llm", f"replay:{cache}", "--quiet"])
    assert code == 0
    assert cache.read_bytes() == before, "a replay must never write to the shipped cache"
    return out


def test_shipped_index_loads_with_expected_shape(index):
    assert {k: v for k, v in index.counts().items() if not k.startswith("vectors.")} == EXPECTED_COUNTS
    assert all(
        len(index.vectors[kind]) == EXPECTED_COUNTS[kind] for kind in ("entities", "relations", "chunks", "communities")
    )
    assert index.manifest.embedder == "use-m3" and index.manifest.dimension == 512
    assert index.manifest.language == "en"
    assert index.manifest.settings["llm"] == "curated-sample"
    assert nx.is_connected(index.graph), "the sample world must be one connected graph"
    assert {e.type for e in index.entities} == {"person", "organization", "location", "event", "artifact", "concept"}
    # one chunk per document, so each document is extracted whole
    assert sorted(c.doc_id for c in index.chunks) == sorted(d.id for d in index.documents)


def test_every_community_has_its_curated_report(index):
    curated = {tuple(sorted(r["members"])): r["report"] for r in json.loads((SAMPLE / "reports.json").read_text())}
    assert len(curated) == len(index.communities)
    for com in index.communities:
        assert com.extra["report_source"] == "llm", com.id
        want = curated[tuple(sorted(com.members))]
        assert com.title == want["title"]
        assert com.rating == want["rating"]
        assert com.report == render(want)
        assert 3 <= len(want["findings"]) <= 5
    assert {c.level for c in index.communities} == {0, 1}


def test_cache_holds_exactly_the_curated_answers():
    entries = load_entries(SAMPLE / "llm_cache.json")
    assert {e["model"] for e in entries.values()} == {"curated-sample"}
    kinds = [e["kind"] for e in entries.values()]
    assert kinds.count("extract") == 25 and kinds.count("glean") == 25 and kinds.count("report") == 22
    assert "summary" not in kinds
    extracts = {e["return"] for e in entries.values() if e["kind"] == "extract"}
    for path in sorted((SAMPLE / "records").glob("*.txt")):
        if not path.name.endswith(".glean.txt"):
            assert path.read_text(encoding="utf-8").strip() in extracts, path.name
    gleans = [e["return"] for e in entries.values() if e["kind"] == "glean"]
    assert sum(g != "<|COMPLETE|>" for g in gleans) == len(list((SAMPLE / "records").glob("*.glean.txt"))) == 3


def test_replay_rebuild_is_identical(rebuilt):
    for name in BYTE_IDENTICAL:
        assert (rebuilt / name).read_bytes() == (INDEX / name).read_bytes(), name


def test_replay_rebuild_has_the_same_chroma_vectors(rebuilt, tmp_path):
    import chromadb

    def contents(folder: Path, name: str) -> dict[str, tuple[list[str], np.ndarray]]:
        copy = tmp_path / name  # a persistent client rewrites its files: read a copy, never the shipped folder
        shutil.copytree(folder / "chroma", copy)
        client = chromadb.PersistentClient(path=str(copy), settings=chromadb.Settings(anonymized_telemetry=False))
        out = {}
        for col in client.list_collections():
            got = client.get_collection(col.name).get(include=["embeddings"])
            order = np.argsort(got["ids"])
            out[col.name] = ([got["ids"][i] for i in order], np.asarray(got["embeddings"])[order])
        return out

    before = _tree_bytes(INDEX)
    shipped, again = contents(INDEX, "shipped"), contents(rebuilt, "rebuilt")
    assert _tree_bytes(INDEX) == before, "reading the sample must not change its files"
    assert sorted(shipped) == sorted(again) == ["chunks", "communities", "entities", "relations"]
    for kind, (ids, matrix) in shipped.items():
        assert again[kind][0] == ids
        assert np.array_equal(again[kind][1], matrix), kind


def test_questions_are_valid_and_grounded(index):
    questions = json.loads((SAMPLE / "questions.json").read_text(encoding="utf-8"))
    assert 8 <= len(questions) <= 12
    assert {q["kind"] for q in questions} == {"local", "global"}
    names = set(index.entity_by_name)
    for q in questions:
        assert set(q) >= {"question", "kind", "good_modes", "why", "key_entities", "hl_keywords", "ll_keywords"}
        assert q["question"].strip().endswith("?") and q["why"].strip()
        assert q["good_modes"] and set(q["good_modes"]) <= set(MODE_MODULES), q["question"]
        assert q["key_entities"] and set(q["key_entities"]) <= names, set(q["key_entities"]) - names
        assert all(isinstance(k, str) and k for k in q["hl_keywords"] + q["ll_keywords"])
    assert len({q["question"] for q in questions}) == len(questions)
