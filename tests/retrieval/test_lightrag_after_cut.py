"""A LightRAG top_k sweep's steps that keep the same entities and relations share what comes after the cut
(``lightrag.after_cut``: chunk picks, chunk budget, budgets, context): the second such step keeps copies and
each later one gets them — still the single run at its value, and its own rows. A budget step merges the
chunk picks it shares with an earlier step as that one did, and lists the same unpicked chunks."""

from __future__ import annotations

from functools import cache

import pytest

from graphrag_ui.index import store
from graphrag_ui.retrieval.lightrag import chunks, explain, stages
from graphrag_ui.retrieval.lightrag.v1_4_7 import pipeline as v147
from graphrag_ui.retrieval.lightrag.v1_5_7 import pipeline as v157
from graphrag_ui.services.query import run_query
from graphrag_ui.services.sweep import run_sweep
from tests.conftest import ROOT
from tests.retrieval.test_sweep_parity import comparable

QUESTION = "How did the city respond to the flood?"
PIPELINES = {"1.4.7": v147, "1.5.7": v157}


@cache
def _sample():
    return store.load(ROOT / "data" / "sample" / "en" / "index")


def _swept(mode, version, param, values, counters=()):
    """The steps' runs, each checked against the single run; ``counters`` (lists) as the sweep left them."""
    steps = []
    fixed = {"version": version}
    sweep = run_sweep(_sample(), mode, QUESTION, fixed, param, values, on_step=lambda v, r: steps.append((v, r)))
    counted = [len(c) for c in counters]
    keywords = sweep.keywords if sweep.keywords.source else None
    for value, result in steps:
        alone = run_query(_sample(), mode, QUESTION, {**fixed, param: value}, keywords=keywords)
        assert result.context == alone.context, f"{mode} {version} {param}={value}: the context differs"
        assert comparable(result) == comparable(alone), f"{mode} {version} {param}={value}: the Retrieval differs"
    return [r for _, r in steps], counted


@pytest.mark.parametrize("version", sorted(PIPELINES))
@pytest.mark.parametrize("mode", ["lightrag.local", "lightrag.global", "lightrag.hybrid", "lightrag.mix"])
def test_steps_keeping_the_same_items_pick_their_chunks_twice(mode, version, monkeypatch):
    """On the sample every top_k from 20 on keeps the same items (the budgets bind): of five such steps the
    first runs alone, the second keeps what it made, the other three get copies — no pick of theirs."""
    pipeline = PIPELINES[version]
    picked = []
    real = pipeline.pick_chunks
    monkeypatch.setattr(pipeline, "pick_chunks", lambda *a, **k: picked.append(1) or real(*a, **k))
    results, (n_picked,) = _swept(mode, version, "top_k", [60, 20, 30, 40, 50], [picked])
    assert n_picked == 2
    first, later = results[0], results[-1]
    assert first.chunks and first.context == later.context
    first.chunks[0].in_context = not first.chunks[0].in_context  # a step's rows are its own
    first.budgets[0].used = -1
    assert later.chunks[0].in_context != first.chunks[0].in_context and later.budgets[0].used != -1


@pytest.mark.parametrize("version", sorted(PIPELINES))
def test_a_budget_step_merges_and_lists_the_shared_picks_once(version, monkeypatch):
    """A max_total_tokens sweep keeps the same picks at every step: they are merged once, and their unpicked
    chunks listed once."""
    merged, listed = [], []
    real_merge, real_not_picked = chunks.round_robin_chunks, explain._not_picked
    monkeypatch.setattr(stages, "round_robin_chunks", lambda picks: merged.append(1) or real_merge(picks))
    monkeypatch.setattr(explain, "_not_picked", lambda *a: listed.append(1) or real_not_picked(*a))
    results, (n_merged, n_listed) = _swept(
        "lightrag.hybrid", version, "max_total_tokens", [30000, 2000, 4000, 8000], [merged, listed]
    )
    assert n_merged == 1 and 0 < n_listed <= 3  # one merge; each of the three picks listed once
    assert len({len(r.selected_ids("chunks")) for r in results}) > 1  # the steps differ in what they keep


@pytest.mark.parametrize("version", sorted(PIPELINES))
def test_mix_s_chunk_search_runs_once_in_a_top_k_sweep_under_a_chunk_top_k(version, monkeypatch):
    """mix's chunk search reads ``chunk_top_k`` (``top_k`` only when it is 0): a top_k sweep searches once."""
    searched = []
    real = stages.vector_chunks
    monkeypatch.setattr(stages, "vector_chunks", lambda *a: searched.append(a[2]) or real(*a))
    _, (n,) = _swept("lightrag.mix", version, "top_k", [40, 2, 5, 10], [searched])
    assert n == 1 and searched[0] == 20  # the default chunk_top_k
