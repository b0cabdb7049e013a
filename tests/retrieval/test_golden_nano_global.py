"""Golden tests: ``nano.global`` and ``nano.naive`` against the real nano-graphrag 0.0.8.2.

Fixtures (tests/goldens/nano/global.jsonl, naive.jsonl, made by scripts/goldens/nano_graphrag.py)
hold, per global case, the groups nano formed, every map call (the exact CSV context it put into
its map prompt, the question, the call's extra arguments and the scripted answer), the points its
reduce step kept and the exact reduce context — or the error nano raised on a malformed map answer,
or the hang its grouping loop runs into. Naive cases hold the exact ``only_need_context`` string.

Our side runs the pure context builder, then the map answers through ``HOOKS.parse_map`` and
``HOOKS.reduce`` exactly as the runner does (Points in batch order, scores as parsed), so every byte
nano would send is compared without a model. Deliberate differences (docs/differences/nano.md):
a report too big for any batch is left out instead of hanging; no chunk above the threshold gives
``""`` and a warning instead of nano's fail-response string.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import NEEDS_MODEL, MalformedAnswer, Point
from graphrag_ui.retrieval.nano.global_query import SPECS as GLOBAL_SPECS
from graphrag_ui.retrieval.nano.map_reduce import HOOKS, MAP_LLM_KWARGS
from graphrag_ui.retrieval.nano.naive_query import SPECS as NAIVE_SPECS
from graphrag_ui.retrieval.nano.prompts import map_messages, reduce_messages
from tests.retrieval.test_golden_nano import deps, golden_index

GOLDENS = Path(__file__).parents[1] / "goldens" / "nano"


def _load(name: str) -> list[dict]:
    return [json.loads(line) for line in (GOLDENS / name).read_text(encoding="utf-8").splitlines() if line]


GLOBAL = _load("global.jsonl")
NAIVE = _load("naive.jsonl")
GLOBAL_SPEC, NAIVE_SPEC = GLOBAL_SPECS[0], NAIVE_SPECS[0]
HANGS = [c for c in GLOBAL if (c["error"] or "").startswith("hang")]
FAILS = [c for c in GLOBAL if c["error"] and not c["error"].startswith("hang")]
RUNS = [c for c in GLOBAL if not c["error"]]


def case_id(case: dict) -> str:
    return f"{case['corpus']}/{case['name']}"


def run_global(case: dict, index=None) -> Retrieval:
    params = GLOBAL_SPEC.resolve(case["params"])
    return GLOBAL_SPEC.func(index or golden_index(case["corpus"]), case["query"], params, deps())


def map_and_reduce(result: Retrieval, answers: list[str]) -> tuple[list[Point], str, list[dict]]:
    """What the runner does with the map answers: parse each, collect Points in batch order, reduce."""
    points = []
    for batch, answer in zip(result.stages.batches, answers, strict=True):
        for description, score in HOOKS.parse_map(answer):
            points.append(Point(batch.index, description, score, list(batch.community_ids)))
    context, messages = HOOKS.reduce(points, result.query, result.params)
    return points, context, messages


def test_fixture_set_covers_what_the_issue_asks():
    assert {c["corpus"] for c in GLOBAL} == {"en", "zh"} == {c["corpus"] for c in NAIVE}
    assert {c["params"]["level"] for c in GLOBAL} >= {0, 1, 2}
    assert any(len(c["groups"]) > 2 for c in RUNS)  # tight budgets make several batches
    assert HANGS and FAILS and any(c["result"] == c["fail_response"] for c in RUNS)
    assert any(k["answer"].startswith("I am sorry") for c in FAILS for k in c["map_calls"])  # a non-JSON answer
    assert any(c["kept_points"] and len(c["kept_points"]) < sum(1 for _ in c["map_calls"]) for c in RUNS)
    assert len(GLOBAL) >= 24 and len(NAIVE) >= 12


@pytest.mark.parametrize("case", RUNS + FAILS, ids=case_id)
def test_batches_and_map_prompts_match_byte_for_byte(case):
    result = run_global(case)
    stages = result.stages
    assert stages.status == NEEDS_MODEL
    assert [b.community_ids for b in stages.batches] == case["groups"]
    assert [b.context for b in stages.batches] == [c["context"] for c in case["map_calls"]]
    for batch, call in zip(stages.batches, case["map_calls"], strict=True):
        assert batch.messages == map_messages(call["context"], call["query"])
        assert batch.tokens <= batch.limit == case["params"]["global_max_token_for_community_report"]
        assert call["llm_kwargs"] == MAP_LLM_KWARGS
    kept = [c.id for c in result.communities if c.in_context]
    assert kept == [cid for group in case["groups"] for cid in group]


@pytest.mark.parametrize("case", RUNS, ids=case_id)
def test_points_and_reduce_context_match_byte_for_byte(case):
    result = run_global(case)
    points, context, messages = map_and_reduce(result, [c["answer"] for c in case["map_calls"]])
    if case["result"] == case["fail_response"]:
        assert (context, messages) == ("", [])
        assert points and not any(p.in_context for p in points)
        return
    assert context == case["reduce"]["context"]
    kept = [{"analyst": p.batch, "answer": p.description, "score": p.score} for p in points if p.in_context]
    kept.sort(key=lambda p: -p["score"])  # in_context points, in the order they appear in the context
    assert context.count("----Analyst ") == len(case["kept_points"])
    assert [(p["analyst"], p["answer"], p["score"]) for p in case["kept_points"]] == [
        (p["analyst"], p["answer"], p["score"]) for p in kept
    ]
    assert messages == reduce_messages(context, case["reduce"]["query"], case["params"]["response_type"])
    for p in points:
        assert p.in_context == (p.dropped == "") and (p.why != "") == p.in_context


def _raised(answer: str) -> Exception | None:
    try:
        HOOKS.parse_map(answer)
    except ValueError as exc:
        return exc
    return None


@pytest.mark.parametrize("case", FAILS, ids=case_id)
def test_a_map_answer_nano_cannot_read_fails_the_query_as_in_nano(case):
    """nano raises (AssertionError / JSONDecodeError out of asyncio.gather); parse_map says so in one line."""
    raised = [exc for exc in (_raised(call["answer"]) for call in case["map_calls"]) if exc is not None]
    assert raised, case["error"]
    assert all("\n" not in str(exc) and "fails the whole global query" in str(exc) for exc in raised)
    assert not any(isinstance(exc, MalformedAnswer) for exc in raised)  # no fallback: the run stops


@pytest.mark.parametrize("case", HANGS, ids=case_id)
def test_a_report_too_big_for_any_batch_is_left_out_instead_of_hanging(case):
    """Named difference: nano's grouping loop never ends; we keep the groups it made and drop the report."""
    result = run_global(case)
    ours = [b.community_ids for b in result.stages.batches]
    assert ours[: len(case["groups"])] == case["groups"]
    limit = case["params"]["global_max_token_for_community_report"]
    oversize = [c for c in result.communities if "loops forever" in c.dropped]
    assert oversize and all(c.tokens > limit for c in oversize)
    assert any("loops forever" in w for w in result.warnings)
    assert all(b.tokens <= limit for b in result.stages.batches)


@pytest.mark.parametrize("case", NAIVE, ids=case_id)
def test_naive_context_matches_byte_for_byte(case):
    params = NAIVE_SPEC.resolve(case["params"])
    result = NAIVE_SPEC.func(golden_index(case["corpus"]), case["query"], params, deps())
    if case["is_fail_response"]:
        assert result.context == "" and result.messages == []
        assert any("query_better_than_threshold" in w for w in result.warnings)
        return
    assert result.context == case["context"]
    assert result.selected_ids("chunks") == case["selected_chunks"]
    found = [(c.id, c.score) for c in result.chunks if c.in_context or c.dropped.startswith("over budget")]
    ref_scores = dict(case["chunk_scores"])  # [chunk id, cosine] per vector hit, best first
    for cid, score in found:
        assert score == pytest.approx(ref_scores[cid], abs=1e-5)
    assert [cid for cid, _ in found] == list(ref_scores)


def test_golden_params_use_nano_names():
    for case in GLOBAL:
        assert set(case["params"]) <= {p.name for p in GLOBAL_SPEC.params}
    for case in NAIVE:
        assert set(case["params"]) <= {p.name for p in NAIVE_SPEC.params}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_goldens_hold_after_saving_and_loading_the_index(lang, tmp_path):
    from graphrag_ui.index import store

    store.save(golden_index(lang), tmp_path / "ix")
    loaded = store.load(tmp_path / "ix")
    for case in (c for c in RUNS if c["corpus"] == lang):
        result = run_global(case, loaded)
        assert [b.context for b in result.stages.batches] == [c["context"] for c in case["map_calls"]], case_id(case)
    for case in (c for c in NAIVE if c["corpus"] == lang and not c["is_fail_response"]):
        result = NAIVE_SPEC.func(loaded, case["query"], NAIVE_SPEC.resolve(case["params"]), deps())
        assert result.context == case["context"], case_id(case)
