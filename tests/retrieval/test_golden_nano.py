"""Golden tests: our importer + ``nano.local`` against contexts printed by the real nano-graphrag 0.0.8.2.

The fixtures (tests/goldens/nano/, made by scripts/goldens/nano_graphrag.py) hold two working
directories built by the real library and, per case, its exact ``only_need_context`` string and the
ids its ``_find_most_related_*`` helpers selected. Every case must match byte for byte, with two
named, deliberate exceptions (docs/differences/nano.md):

* ``insertion_order`` — nano orders tied relations by a ``set``; we keep insertion order. For these
  cases the harness also ran nano with only that step changed, and we must equal THAT output.
* ``no_entity_above_threshold`` — nano returns ``None``; we return ``""`` and a warning.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from graphrag_ui.embedding.embed import HashEmbedder
from graphrag_ui.index.importers import nano_graphrag
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.nano.local_query import SPECS

GOLDENS = Path(__file__).parents[1] / "goldens" / "nano"
CASES = [json.loads(line) for line in (GOLDENS / "cases.jsonl").read_text(encoding="utf-8").splitlines() if line]
MANIFEST = json.loads((GOLDENS / "manifest.json").read_text(encoding="utf-8"))
SPEC = SPECS[0]
# the cases where nano's set-ordered relation ties print a different order than insertion order
# (PYTHONHASHSEED=0); kept explicit so a fixture change that adds or removes one is noticed
SET_ORDER_CASES = {
    "en/defaults",
    "en/top_k_5",
    "en/level_0",
    "en/level_1_single_one",
    "en/tiny_budgets",
    "en/top_k_above_entity_count",
    "en/level_5_all_levels",
    "en/zero_report_budget",
    "zh/defaults",
    "zh/top_k_5",
    "zh/level_0",
    "zh/top_k_above_entity_count",
    "zh/level_5_all_levels",
    "zh/zero_report_budget",
}


@cache
def golden_index(lang: str) -> Index:
    return nano_graphrag.import_dir(GOLDENS / lang, embedder="hash")


def deps() -> Deps:
    return Deps(embed=lambda texts: np.stack([HashEmbedder.vector(t) for t in texts]))


def run(case: dict):
    params = SPEC.resolve(case["params"])
    return SPEC.func(golden_index(case["corpus"]), case["query"], params, deps())


def case_id(case: dict) -> str:
    return f"{case['corpus']}/{case['name']}"


def expected(case: dict) -> tuple[str, dict]:
    """What our port must print: nano's output, or nano's with the documented fix applied."""
    if "insertion_order" in case:
        return case["insertion_order"]["context"], case["insertion_order"]["selected"]
    if case["context"] is None:
        return "", {"entities": [], "relations": [], "communities": [], "chunks": []}
    return case["context"], case["selected"]


def test_fixture_set_is_the_documented_one():
    assert len(CASES) >= 16 and {c["corpus"] for c in CASES} == {"en", "zh"}
    assert set(MANIFEST["cases_where_insertion_order_differs"]) == SET_ORDER_CASES
    assert {case_id(c) for c in CASES if "insertion_order" in c} == SET_ORDER_CASES


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_context_matches_reference_byte_for_byte(case):
    result = run(case)
    context, selected = expected(case)
    assert result.context == context
    index = golden_index(case["corpus"])
    assert [index.entity_by_id[i].name for i in result.selected_ids("entities")] == selected["entities"]
    ours_rel = [
        sorted((index.relation_by_id[i].source, index.relation_by_id[i].target))
        for i in result.selected_ids("relations")
    ]
    assert ours_rel == selected["relations"]
    assert result.selected_ids("communities") == selected["communities"]
    assert result.selected_ids("chunks") == selected["chunks"]


@pytest.mark.parametrize("case", [c for c in CASES if "insertion_order" in c], ids=case_id)
def test_set_order_cases_differ_only_in_tied_relations(case):
    """Named difference 1: same reports, entities and sources; relations reordered only inside ties."""
    ours = run(case)
    assert ours.context != case["context"]
    ref_sections = case["context"].split("-----Relationships-----")
    our_sections = ours.context.split("-----Relationships-----")
    assert our_sections[0] == ref_sections[0]  # Reports and Entities identical
    assert our_sections[1].split("-----Sources-----")[1] == ref_sections[1].split("-----Sources-----")[1]
    index = golden_index(case["corpus"])

    def key(pair):
        a, b = pair
        return (index.graph.degree(a) + index.graph.degree(b), index.relation_between(a, b).weight)

    ref_pairs = case["selected"]["relations"]
    our_pairs = [
        sorted((index.relation_by_id[i].source, index.relation_by_id[i].target)) for i in ours.selected_ids("relations")
    ]
    assert [key(p) for p in our_pairs] == [key(p) for p in ref_pairs]  # same (rank, weight) sequence


@pytest.mark.parametrize("case", [c for c in CASES if c["context"] is None], ids=case_id)
def test_no_entity_case_gives_empty_context_and_warning(case):
    """Named difference 2: nano returns None; we return "" and say why."""
    ours = run(case)
    assert ours.context == "" and ours.messages == []
    assert any("query_better_than_threshold" in w for w in ours.warnings)
    assert all(not c.in_context for c in ours.entities)


def test_every_golden_case_uses_the_reference_parameter_names():
    names = {p.name for p in SPEC.params}
    for case in CASES:
        assert set(case["params"]) <= names


def _harness():
    import importlib.util

    path = Path(__file__).parents[2] / "scripts" / "goldens" / "nano_graphrag.py"
    spec = importlib.util.spec_from_file_location("nano_golden_harness", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_harness_records_follow_nanos_record_grammar():
    """The scripted LLM's records parse under nano's rules (## / <|COMPLETE|> / <|>, unquoted strength)."""
    import re

    harness = _harness()
    corpus = json.loads((harness.CORPUS / "en" / "extraction.json").read_text(encoding="utf-8"))
    for entry in corpus.values():
        text = harness.extraction_records(entry)
        assert text.endswith("<|COMPLETE|>")
        records = [r.strip() for r in re.split(r"##|<\|COMPLETE\|>", text) if r.strip()]
        fields = [re.search(r"\((.*)\)", r).group(1).split("<|>") for r in records]
        entities = [f for f in fields if f[0] == '"entity"']
        relations = [f for f in fields if f[0] == '"relationship"']
        assert len(entities) == len(entry["entities"]) and len(relations) == len(entry["relations"])
        assert all(re.fullmatch(r"[0-9]+", f[-1]) for f in relations)


def test_harness_report_is_deterministic_json_from_the_prompt_members():
    harness = _harness()
    prompt = (
        "intro\nText:\n```\n-----Reports-----\n```csv\n\n```\n-----Entities-----\n```csv\n"
        '"id",\t"entity",\t"type",\t"description",\t"degree"\n'
        '0,\t"ALICE CHEN",\t"PERSON",\t"Alice leads.",\t3\n1,\t"KELP BAY",\t"GEO",\t"A bay.",\t2\n'
        "```\n-----Relationships-----\n```csv\n"
        '"id",\t"source",\t"target",\t"description",\t"rank"\n0,\t"ALICE CHEN",\t"KELP BAY",\t"Surveys it.",\t5\n```\n```'
    )
    report = json.loads(harness.community_report(prompt))
    assert report == json.loads(harness.community_report(prompt))
    assert report["title"] == "Community around ALICE CHEN and KELP BAY"
    assert 1.0 <= report["rating"] <= 9.1 and len(report["findings"]) == 3


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_goldens_hold_after_saving_and_loading_the_index(lang, tmp_path):
    """The app queries a saved index (parquet + chroma); the contexts must survive the round trip."""
    from graphrag_ui.index import store

    store.save(golden_index(lang), tmp_path / "ix")
    loaded = store.load(tmp_path / "ix")
    for case in (c for c in CASES if c["corpus"] == lang):
        result = SPEC.func(loaded, case["query"], SPEC.resolve(case["params"]), deps())
        assert result.context == expected(case)[0], case_id(case)
