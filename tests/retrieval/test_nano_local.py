"""``nano.local`` step by step: explanations, dropped reasons, budgets, trace, fixes and CSV rules."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphrag_ui.base import tokens
from graphrag_ui.embedding.embed import HashEmbedder
from graphrag_ui.index.importers import nano_graphrag
from graphrag_ui.index.model import Index, Manifest
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.nano import csv_context
from graphrag_ui.retrieval.nano.local_query import SPECS
from graphrag_ui.retrieval.registry import get_mode

GOLDENS = Path(__file__).parents[1] / "goldens" / "nano"
SPEC = SPECS[0]
QUERY = "What does Alice Chen do at the Tidewater Institute?"


@cache
def golden(lang: str = "en") -> Index:
    return nano_graphrag.import_dir(GOLDENS / lang, embedder="hash")


def deps() -> Deps:
    return Deps(embed=lambda texts: np.stack([HashEmbedder.vector(t) for t in texts]))


def run(query: str = QUERY, index: Index | None = None, **params):
    return SPEC.func(index or golden(), query, SPEC.resolve(params), deps())


def test_registered_with_reference_defaults():
    spec = get_mode("nano.local")
    assert spec is SPEC and spec.family == "nano"
    d = spec.defaults()
    assert (d["top_k"], d["level"], d["query_better_than_threshold"]) == (20, 2, 0.2)
    assert (
        d["local_max_token_for_text_unit"],
        d["local_max_token_for_local_context"],
        d["local_max_token_for_community_report"],
    ) == (4000, 4800, 3200)
    assert d["local_community_single_one"] is False and d["response_type"] == "Multiple Paragraphs"
    assert (d["recall"], d["w_ilike"], d["w_sim"], d["w_occ"]) == ("vector", 1.0, 0.7, 0.2)


def test_trace_steps_in_seed_order_with_counts():
    r = run()
    assert [t.name for t in r.trace] == ["recall", "node data", "communities", "text units", "relations", "assemble"]
    recall = r.trace[0]
    assert recall.n_in == len(golden().entities) and recall.n_out == len(r.selected_ids("entities"))
    assert all(t.ms >= 0 for t in r.trace) and r.timings_ms["context"] >= 0


def test_entity_explanations():
    r = run(top_k=5)
    chosen = [c for c in r.entities if c.in_context]
    assert len(chosen) == 5
    first = chosen[0]
    assert first.label == '"ALICE CHEN"'
    assert first.why.startswith("entity #1 by vector, sim ") and first.why.endswith(f"degree {int(first.rank)}")
    assert first.rank == golden().graph.degree('"ALICE CHEN"') and 0.2 <= first.score <= 1
    assert [c.score for c in chosen] == sorted((c.score for c in chosen), reverse=True)
    dropped = [c for c in r.entities if not c.in_context]
    assert dropped and all(c.dropped.startswith(("beyond top_k", "below threshold")) for c in dropped)


def test_entities_below_threshold_are_listed_as_dropped():
    r = run("Who is Inês Moura of the Atlantic Monitoring Network?", query_better_than_threshold=0.35)
    assert len(r.selected_ids("entities")) == 2
    below = [c for c in r.entities if c.dropped.startswith("below threshold")]
    assert below and all(c.score < 0.35 for c in below)


def test_community_explanations_and_level_filter():
    r = run(level=0)
    com = [c for c in r.communities if c.in_context]
    assert com and all(c.data["level"] == 0 for c in com)
    assert all(" of the recalled entities are in it, rating " in c.why for c in com)
    deep = [c for c in r.communities if c.dropped.startswith("level ")]
    assert deep and all(c.dropped.endswith("> level 0") for c in deep)
    counts = [int(c.why.split()[0]) for c in com]
    assert counts == sorted(counts, reverse=True)


def test_single_community_switch():
    r = run(local_community_single_one=True)
    kept = [c for c in r.communities if c.in_context]
    assert len(kept) == 1 and kept[0].order == 0
    assert any(c.dropped == "single-community switch kept only the first" for c in r.communities)
    assert r.context.count('\n0,\t"# ') == 1


def test_budgets_cut_each_section_and_say_so():
    r = run(
        "Brigid O'Neill opens the Harbor Festival at the Old Lighthouse",
        local_max_token_for_community_report=400,
        local_max_token_for_local_context=120,
        local_max_token_for_text_unit=600,
    )
    budgets = {b.section: b for b in r.budgets}
    assert budgets["Reports"].limit == 400 and budgets["Relationships"].limit == 120 and budgets["Sources"].limit == 600
    for kind, section in (("communities", "Reports"), ("relations", "Relationships"), ("chunks", "Sources")):
        cands = r.candidates(kind)
        used = sum(c.tokens for c in cands if c.in_context)
        assert used == budgets[section].used <= budgets[section].limit
        over = [c for c in cands if not c.in_context and c.dropped.startswith("over budget")]
        assert over and over[0].dropped.startswith(f"over budget (section {section}: ")
        # a prefix cut: everything after the first dropped item is dropped too
        flags = [c.in_context for c in cands]
        assert flags == sorted(flags, reverse=True)
    assert budgets["Entities"].limit is None


def test_chunk_and_relation_explanations():
    r = run(top_k=3)
    chunk = r.chunks[0]
    assert chunk.why.startswith("source of entity #1 ") and chunk.why.endswith(" supporting relations")
    rel = r.relations[0]
    assert rel.why.startswith("edge degree ") and ", weight " in rel.why
    ranks = [(c.rank, c.data["weight"]) for c in r.relations]
    assert ranks == sorted(ranks, reverse=True)
    for c in r.relations:
        assert c.tokens == tokens.count(c.data["description"], "o200k_base")


def test_messages_use_the_nano_local_prompt():
    r = run(response_type="Single Paragraph")
    assert r.messages[0]["role"] == "system" and r.context in r.messages[0]["content"]
    assert "Single Paragraph" in r.messages[0]["content"]
    assert r.messages[-1] == {"role": "user", "content": QUERY}


def test_missing_report_is_skipped_with_a_warning_not_a_keyerror():
    index = copy.deepcopy(golden())
    top = run(index=index).selected_ids("communities")[0]
    index.communities = [c for c in index.communities if c.id != top]
    index.refresh()
    r = run(index=index)
    assert top not in r.selected_ids("communities") and r.selected_ids("communities")
    assert any(f"cluster {top} has no community report" in w for w in r.warnings)


def test_missing_chunk_is_skipped_with_a_warning():
    index = copy.deepcopy(golden())
    gone = index.chunks[0].id
    index.chunks = index.chunks[1:]
    index.refresh()
    r = run(index=index)
    assert gone not in r.selected_ids("chunks") and r.selected_ids("chunks")
    assert any(gone in w and "not stored" in w for w in r.warnings)


def test_isolated_entity_has_no_community_or_relation():
    r = run("Marigold Café tea room on Chapel Lane", top_k=1)
    assert [c.label for c in r.entities if c.in_context] == ['"MARIGOLD CAFÉ"']
    assert r.selected_ids("communities") == [] and r.selected_ids("relations") == []
    assert len(r.selected_ids("chunks")) == 1


def test_no_entity_gives_empty_context_and_the_none_warning():
    r = run("banjo walrus")
    assert r.context == "" and r.messages == [] and r.selected_ids("entities") == []
    assert any("returns None" in w for w in r.warnings)


def test_empty_index():
    empty = Index(Manifest(source="nano-graphrag", embedder="hash", dimension=256), [], [], [], [], [])
    r = run(index=empty)
    assert r.context == "" and any("no entities" in w for w in r.warnings)


@pytest.mark.parametrize("strategy", ["ilike", "hybrid"])
def test_other_recall_strategies_feed_the_same_pipeline(strategy):
    r = run("Alice Chen", recall=strategy, top_k=5)
    names = [c.label for c in r.entities if c.in_context]
    assert names and '"ALICE CHEN"' in names
    assert r.entities[0].why.startswith(f"entity #1 by {strategy}")
    assert "-----Entities-----" in r.context


def test_zh_golden_index_works():
    r = run("林晓梅在青岚湖研究站做什么？", index=golden("zh"))
    assert r.entities[0].label == '"青岚湖研究站"' and "-----Sources-----" in r.context


# ---------------------------------------------------------------- CSV and cut rules
def test_csv_cell_rules():
    assert csv_context.cell(3) == "3" and csv_context.cell(9.0) == "9.0"
    assert csv_context.cell('"ALICE"') == '"ALICE"'
    assert csv_context.cell("  'quoted'  ") == '"quoted"'
    assert csv_context.cell('"A."<SEP>"B."') == '"A."<SEP>"B."'
    assert csv_context.cell("x\ny") == '"x\ny"'
    assert csv_context.table([["id", "a"], [0, "b"]]) == '"id",\t"a"\n0,\t"b"'


def test_prefix_cut_rule():
    assert csv_context.prefix_cut([3, 4, 5], 7) == (2, [3, 7, 12])  # equal to the budget is kept
    assert csv_context.prefix_cut([8, 1], 7)[0] == 0  # first item over: nothing
    assert csv_context.prefix_cut([1, 1], 0)[0] == 0 and csv_context.prefix_cut([], 5) == (0, [])
    assert csv_context.prefix_cut([5, 9, 1], 10)[0] == 1  # later small items are never tried


@settings(max_examples=40, deadline=None)
@given(
    report=st.integers(min_value=-5, max_value=3000),
    context=st.integers(min_value=-5, max_value=800),
    text=st.integers(min_value=-5, max_value=2000),
    top_k=st.integers(min_value=1, max_value=40),
)
def test_budgets_never_exceeded_and_order_kept(report, context, text, top_k):
    r = run(
        top_k=top_k,
        local_max_token_for_community_report=max(report, 0),
        local_max_token_for_local_context=max(context, 0),
        local_max_token_for_text_unit=max(text, 0),
    )
    for b in r.budgets:
        if b.limit is not None:
            assert b.used <= b.limit
    for kind in ("communities", "relations", "chunks"):
        orders = [c.order for c in r.candidates(kind) if c.in_context]
        assert orders == list(range(len(orders)))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_single_pass_vector_recall_equals_the_shared_recall(lang):
    """Our one-pass recall (hits + near misses) must pick exactly what recall_entities picks."""
    from graphrag_ui.retrieval.core.recall import recall_entities

    index = golden(lang)
    texts = [e.description[:60] for e in index.entities[::3]] + ["Riverton", "云港市", "banjo walrus"]
    for text in texts:
        for top_k, threshold in ((1, 0.2), (5, 0.2), (20, 0.2), (40, 0.0), (3, 0.5)):
            ours = run(text, index=index, top_k=top_k, query_better_than_threshold=threshold)
            shared = recall_entities(
                index, text, HashEmbedder.vector(text), strategy="vector", top_k=top_k, threshold=threshold
            )
            assert ours.selected_ids("entities") == [h.entity.id for h in shared]
