"""ms.global / ms.basic beyond the goldens: budgets, order, reduce rules, odd answers, dynamic selection."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from graphrag_ui.embedding.embed import HashEmbedder
from graphrag_ui.index.importers import ms_graphrag
from graphrag_ui.model_calls.model_rounds import retrieve_with_model
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.stages import FAILED, NEEDS_MODEL, MalformedAnswer, ModelCall, Point
from graphrag_ui.retrieval.ms.basic_search import search as ms_basic
from graphrag_ui.retrieval.ms.global_search import search as ms_global
from graphrag_ui.retrieval.ms.global_search.hooks import HOOKS
from tests.conftest import GOLDENS


@pytest.fixture(scope="module")
def index():
    return ms_graphrag.import_dir(GOLDENS / "graphrag-3" / "en", embedder="hash")


def _deps() -> Deps:
    return Deps(embed=HashEmbedder().embed)


def _run(index, query="What happens in Riverton?", selection=None, **params):
    spec = ms_global.SPECS[0]
    return ms_global.run(index, query, spec.resolve(params), _deps(), selection=selection)


@pytest.mark.parametrize("budget", [0, 150, 300, 500, 800, 12000])
def test_batches_hold_their_budget_and_every_report_once(index, budget):
    result = _run(index, max_context_tokens=budget)
    batches = result.stages.batches
    assert result.stages.status == NEEDS_MODEL and "need" in result.stages.note
    seen = [c for b in batches for c in b.community_ids]
    assert len(seen) == len(set(seen)) == len([c for c in result.communities if c.in_context])
    for b in batches:
        assert b.limit == budget
        assert b.tokens <= budget or len(b.community_ids) == 1, "only a lone oversize report may exceed"
        assert b.messages[-1] == {"role": "user", "content": result.query} and b.context in b.messages[0]["content"]
    if any(b.tokens > budget for b in batches):
        assert any("over budget" in w for w in result.warnings)


def test_batches_are_deterministic_and_rank_filter_says_why(index):
    assert [b.context for b in _run(index).stages.batches] == [b.context for b in _run(index).stages.batches]
    other = _run(index, random_state=7, max_context_tokens=400)
    assert [b.community_ids for b in other.stages.batches] != [
        b.community_ids for b in _run(index, max_context_tokens=400).stages.batches
    ]
    strict = _run(index, min_community_rank=7)
    dropped = [c for c in strict.communities if not c.in_context]
    assert dropped and all("min_community_rank" in c.dropped for c in dropped)


def test_no_weight_or_rank_columns_when_switched_off(index):
    ctx = _run(index, include_community_rank=False, include_community_weight=False).stages.batches[0].context
    assert ctx.splitlines()[0] == "id|title|content"


def test_reduce_sorts_drops_zero_and_stops_at_the_first_point_over_budget():
    points = [Point(0, "a", 40, ["1"]), Point(0, "b", 0, ["1"]), Point(1, "c", 90, ["2"]), Point(2, "d", 40, ["3"])]
    context, messages = HOOKS.reduce(points, "q?", {"data_max_tokens": 12000, "reduce_max_length": 2000})
    assert context.split("\n\n")[0] == "----Analyst 2----\nImportance Score: 90\nc"
    assert [b.splitlines()[0] for b in context.split("\n\n")] == [
        "----Analyst 2----",
        "----Analyst 1----",
        "----Analyst 3----",
    ]
    assert points[1].dropped.startswith("score 0") and not points[1].in_context
    assert messages[-1] == {"role": "user", "content": "q?"} and context in messages[0]["content"]
    tight = [Point(0, "x " * 30, 90, []), Point(1, "y", 80, [])]
    context, _ = HOOKS.reduce(tight, "q", {"data_max_tokens": 20, "reduce_max_length": 10})
    assert context == "" and all("reduce budget" in p.dropped for p in tight), "the first misfit ends the list"
    assert HOOKS.reduce([Point(0, "", 0, [])], "q", {"data_max_tokens": 10, "reduce_max_length": 1}) == ("", [])


@pytest.mark.parametrize(
    ("answer", "fallback"),
    [
        ("Sorry, nothing here.", [("", 0)]),
        ('{"points": [{"description": "x", "score": "7.5"}]}', []),
        ('{"points": [{"description": "x", "score": 5}', [("", 0)]),
        ("[1, 2]", [("", 0)]),
    ],
)
def test_a_map_answer_that_is_not_usable_gets_graphrags_fallback(answer, fallback):
    with pytest.raises(MalformedAnswer) as err:
        HOOKS.parse_map(answer)
    assert err.value.fallback == fallback and str(err.value)


def test_dynamic_selection_without_a_model_says_so_and_shows_the_static_batches(index):
    plain = _run(index)
    dyn = _run(index, dynamic_community_selection=True)
    assert [b.context for b in dyn.stages.batches] == [b.context for b in plain.stages.batches]
    assert any("needs a language model" in w for w in dyn.warnings)
    offline = retrieve_with_model(
        ms_global.SPECS[0],
        index,
        "q",
        ms_global.SPECS[0].resolve({"dynamic_community_selection": True}),
        _deps(),
        SimpleNamespace(configured=False),
    )
    assert any("needs a language model" in w for w in offline.warnings)


def _fake_calls(answer_for):
    def call_many(requests, settings, **_):
        return [
            ModelCall(stage=r.stage, label=r.label, raw=answer_for(r), ok=answer_for(r) is not None) for r in requests
        ]

    return call_many


def test_dynamic_selection_with_a_model_records_every_rating(index):
    params = ms_global.SPECS[0].resolve({"dynamic_community_selection": True})
    ratings = {"0": 3, "1": 0, "2": 1, "3": 0, "4": 0, "5": 2, "6": 0, "7": 0}

    def answer(request):
        cid = request.label.split()[1]
        return json.dumps({"reason": "r", "rating": ratings[cid]})

    out = retrieve_with_model(
        ms_global.SPECS[0], index, "q", params, _deps(), SimpleNamespace(configured=True), call_many=_fake_calls(answer)
    )
    rated = {r.community_id: r for r in out.stages.ratings}
    assert all(c.stage == "rate" for c in out.stages.calls) and len(out.stages.calls) == len(rated)
    assert not rated["1"].kept and "pruned" in rated["1"].why
    kept = {c for b in out.stages.batches for c in b.community_ids}
    assert kept == {cid for cid, r in rated.items() if r.kept}
    parents = {c.id: c.parent for c in index.communities}
    for cid in kept:  # keep_parent off: a kept child drops its parent
        assert parents.get(cid) not in kept


def test_a_failed_or_unusable_rating_stops_the_selection_loudly(index):
    params = ms_global.SPECS[0].resolve({"dynamic_community_selection": True})
    settings = SimpleNamespace(configured=True)
    for answer in (lambda r: None, lambda r: "[1, 2]"):
        out = retrieve_with_model(
            ms_global.SPECS[0], index, "q", params, _deps(), settings, call_many=_fake_calls(answer)
        )
        assert out.stages.status == FAILED and out.stages.batches == [] and "stopped" in out.stages.note
        assert out.context == "" and not any("needs a language model" in w for w in out.warnings)


def test_basic_budget_k_and_layout(index):
    spec = ms_basic.SPECS[0]
    full = ms_basic.run(index, "storm harbor", spec.resolve({"k": 4}), _deps())
    assert len(full.chunks) == 4 and full.context.startswith("id|text\n")
    tight = ms_basic.run(index, "storm harbor", spec.resolve({"k": 4, "max_context_tokens": 300}), _deps())
    kept = [c for c in tight.chunks if c.in_context]
    assert len(kept) < 4 and all("over budget" in c.dropped for c in tight.chunks if not c.in_context)
    assert tight.budgets[0].used <= 300
    v2 = ms_graphrag.import_dir(GOLDENS / "graphrag-2" / "en", embedder="hash")
    ranked = ms_basic.run(v2, "storm harbor", spec.resolve({"k": 4}), _deps())
    assert ranked.context.startswith("source_id|text\n")
    scores = [c.score for c in ranked.chunks]
    assert scores == sorted(scores, reverse=True), "2.x lists hits in similarity order"


@pytest.mark.parametrize("sample", ["en", "zh"])
def test_dynamic_selection_end_to_end_through_the_test_server(sample, monkeypatch, tmp_path):
    """CLI --json: rating rounds, then map calls and the reduce context, all against a real HTTP model."""
    import io
    from contextlib import redirect_stdout

    from graphrag_ui.cli import main
    from graphrag_ui.retrieval.core.result import Retrieval
    from tests.conftest import ROOT
    from tests.support.llm_server import Script, start_server

    url, stop = start_server(Script())
    try:
        monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
        monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path))
        out = io.StringIO()
        index = ROOT / "data" / "sample" / sample / "index"
        args = ["query", "--index", str(index), "--mode", "ms.global", "--json", "--no-cache"]
        with redirect_stdout(out):
            code = main([*args, "--param", "dynamic_community_selection=true", "What are the main themes?"])
    finally:
        stop()
    result = Retrieval.from_dict(json.loads(out.getvalue()))
    stages = result.stages
    assert code == 0, stages.note
    rates = [c for c in stages.calls if c.stage == "rate"]
    assert rates and len(rates) == len(stages.ratings) and all(c.ok for c in rates)
    kept = {r.community_id for r in stages.ratings if r.kept}
    assert {c for b in stages.batches for c in b.community_ids} == kept
    assert [c for c in stages.calls if c.stage == "map"] and stages.reduce_context
