"""The bundled Chinese sample (data/sample/zh): corpus, curated answers, shipped index, questions.

The sample exists to show seed 003 on real Chinese text: a question about 跑步数据 matches no
entity name or alias by ILIKE, yet vector recall over the entity vectors finds 跑步记录.
The replay test proves the shipped index is exactly what the builder makes from the shipped
documents and LLM cache, offline.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from graphrag_ui.cli import main as cli_main
from graphrag_ui.index.builder.chunking import split_text
from graphrag_ui.index.builder.records import parse_records
from graphrag_ui.index.servers.catalog import find_entities_by_name_or_alias
from graphrag_ui.index.store import load
from graphrag_ui.retrieval.core.recall import recall_entities
from graphrag_ui.retrieval.registry import MODE_MODULES

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample" / "zh"
TYPES = {"person", "organization", "geo", "event", "artifact", "concept", "metric"}
COUNTS = {"documents": 15, "chunks": 15, "entities": 58, "relations": 212, "communities": 16}
SHOWCASE = ("跑步数据", "我之前完成的跑步数据")


@pytest.fixture(scope="module")
def index():
    return load(SAMPLE / "index")


@pytest.fixture(scope="module")
def use_m3():
    from graphrag_ui.embedding.embed import get_embedder

    return get_embedder("use-m3")


def _curation_module():
    path = SAMPLE.parent.parent.parent / "scripts" / "curate_sample.py"
    spec = importlib.util.spec_from_file_location("curate_sample_for_zh_tests", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


# --- corpus and curated answers ---------------------------------------------------------------


def test_corpus_is_fifteen_single_chunk_documents_with_records():
    docs = sorted((SAMPLE / "docs").glob("*.md"))
    assert len(docs) == 15
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        assert 400 <= len(text) <= 900, (doc.name, len(text))
        assert len(split_text(text, 1200, 100)) == 1, doc.name
        assert (SAMPLE / "records" / f"{doc.stem}.txt").is_file(), doc.name


def test_records_parse_without_warnings_and_use_known_types():
    cur = _curation_module().Curation(SAMPLE)
    cur.load()  # parses every records file, checks relation ends and the <|COMPLETE|> marker
    assert cur.problems == []
    names: dict[str, set[str]] = {}
    for path in sorted((SAMPLE / "records").glob("*.txt")):
        found = parse_records(path.read_text(encoding="utf-8"), path.name, pytest.fail)
        for entity in found.entities:
            names.setdefault(entity.name, set()).add(entity.type)
    assert set().union(*names.values()) <= TYPES
    assert all(len(types) == 1 for types in names.values()), "an entity changes type between documents"
    assert len(names) == COUNTS["entities"]


def test_showcase_is_honest_no_entity_text_contains_the_query_words(index):
    """跑步记录 must be found by meaning, not because 跑步数据 sits in its name, aliases or description."""
    for entity in index.entities:
        for text in (entity.name, entity.description, *entity.aliases):
            assert "跑步数据" not in text, entity.name


# --- the shipped index ---------------------------------------------------------------------------


def test_shipped_index_loads_with_expected_counts(index):
    counts = index.counts()
    for kind, n in COUNTS.items():
        assert counts[kind] == n
        if kind != "documents":
            assert counts[f"vectors.{kind}"] == n
    assert index.manifest.embedder == "use-m3"
    assert index.manifest.dimension == 512
    assert index.manifest.language == "zh"
    assert index.manifest.source == "build"
    assert index.manifest.settings["llm"] == "curated-sample"
    record = index.entity_by_name["跑步记录"]
    assert record.type == "artifact"
    assert {"跑步日志", "训练记录"} <= set(record.aliases)
    assert index.entity_by_name["心率变异性"].aliases == ["HRV"]


def test_every_community_has_its_curated_chinese_report(index):
    curated = {
        tuple(sorted(item["members"])): item["report"] for item in json.loads((SAMPLE / "reports.json").read_text())
    }
    assert len(curated) == len(index.communities)
    levels = {c.level for c in index.communities}
    assert levels == {0, 1}
    for community in index.communities:
        report = curated[tuple(sorted(community.members))]
        assert community.title == report["title"]
        assert "UNCURATED" not in community.title + community.report
        assert 3 <= len(report["findings"]) <= 8
        assert 0 <= report["rating"] <= 10
    for entity in index.entities:
        assert "UNCURATED" not in entity.description


def test_llm_cache_holds_exactly_the_answers_the_build_needs():
    entries = json.loads((SAMPLE / "llm_cache.json").read_text(encoding="utf-8")).values()
    kinds = Counter(entry["kind"] for entry in entries)
    assert kinds == {"extract": 15, "glean": 15, "summary": 2, "report": 16}
    assert {entry["model"] for entry in entries} == {"curated-sample"}


def test_replay_rebuild_reproduces_tables_and_vectors(index, tmp_path, no_network):
    out = tmp_path / "zh"
    code = cli_main(["build", str(SAMPLE / "docs"), "--out", str(out), "--llm", f"replay:{SAMPLE / 'llm_cache.json'}"])
    assert code == 0
    rebuilt = load(out)
    assert rebuilt.documents == index.documents
    assert rebuilt.chunks == index.chunks
    assert rebuilt.entities == index.entities
    assert rebuilt.relations == index.relations
    assert rebuilt.communities == index.communities
    assert rebuilt.manifest.counts == index.manifest.counts
    assert rebuilt.manifest.settings == index.manifest.settings
    assert set(rebuilt.vectors) == set(index.vectors) == {"entities", "relations", "chunks", "communities"}
    for kind, table in index.vectors.items():
        assert rebuilt.vectors[kind].ids == table.ids
        assert np.array_equal(rebuilt.vectors[kind].matrix, table.matrix), kind


# --- questions -----------------------------------------------------------------------------------


def test_questions_are_valid():
    questions = json.loads((SAMPLE / "questions.json").read_text(encoding="utf-8"))
    assert 8 <= len(questions) <= 15
    kinds = {q["kind"] for q in questions}
    assert kinds == {"local", "global"}
    for q in questions:
        assert set(q) == {"question", "kind", "good_modes", "why"}
        assert q["question"].strip() and q["why"].strip()
        assert q["good_modes"] and set(q["good_modes"]) <= set(MODE_MODULES), q["good_modes"]
    assert len({q["question"] for q in questions}) == len(questions)
    assert any("跑步数据" in q["question"] for q in questions)


# --- seed 003: 跑步数据 vs 跑步记录 --------------------------------------------------------------


def test_ilike_misses_running_record_for_running_data_but_finds_it_by_alias(index):
    for query in SHOWCASE:
        assert "跑步记录" not in [hit["name"] for hit in find_entities_by_name_or_alias(index, query, 10)]
    by_alias = find_entities_by_name_or_alias(index, "跑步日志", 10)
    assert [(h["name"], h["matched"]) for h in by_alias] == [("跑步记录", "alias")]


def _cosine_rank(index, vector: np.ndarray, name: str) -> int:
    table = index.vectors["entities"]
    matrix = table.matrix / np.linalg.norm(table.matrix, axis=1, keepdims=True)
    scores = matrix @ (vector / np.linalg.norm(vector))
    order = [table.ids[i] for i in np.argsort(-scores, kind="stable")]
    return order.index(index.entity_by_name[name].id) + 1


@pytest.mark.parametrize("query", SHOWCASE)
def test_use_m3_vector_search_ranks_running_record_in_top3(index, use_m3, query):
    rank = _cosine_rank(index, use_m3.embed([query])[0], "跑步记录")
    assert rank <= 3, f"跑步记录 ranked {rank} for {query!r}"


def test_hybrid_recall_keeps_running_record_where_ilike_has_nothing(index, use_m3):
    query = SHOWCASE[1]
    vec = use_m3.embed([query])[0]
    assert recall_entities(index, query, vec, strategy="ilike", top_k=10) == []
    hybrid = recall_entities(index, query, vec, strategy="hybrid", top_k=10)
    names = [hit.entity.name for hit in hybrid]
    assert "跑步记录" in names[:3]
    hit = hybrid[names.index("跑步记录")]
    assert hit.ilike == "" and hit.sim is not None
    expected = 0.7 * hit.sim + 0.2 * math.log(index.entity_by_name["跑步记录"].occurrence + 1)
    assert hit.score == pytest.approx(expected)
