"""``ms.global`` end to end on both samples through the real OpenAI-compatible test server: the mode
builds its batches and map prompts, every map prompt goes out verbatim, each answer is read by the
mode's own ``parse_map``, its ``reduce`` picks the points, the reduce prompt is the one answered — and
asking again makes no model call at all; with dynamic community selection the rating calls come first
and are cached too. (``nano.global`` has the same walk in test_nano_global_e2e.py.)"""

from __future__ import annotations

import json

import pytest

from graphrag_ui.index import store
from graphrag_ui.model_calls import map_reduce as mr
from graphrag_ui.model_client.cache import LLMCache
from graphrag_ui.model_client.settings import LLMSettings
from graphrag_ui.retrieval.core.stages import DONE, NEEDS_MODEL
from graphrag_ui.services.query import run_query
from tests.conftest import SAMPLES
from tests.support.llm_server import default_reply, is_map_prompt, map_points

pytestmark = pytest.mark.usefixtures("fast_backoff")

QUESTIONS = {"en": "What are the main themes of these documents?", "zh": "这些文档的主要主题是什么？"}
SMALL_BATCHES = {"max_context_tokens": 3000}  # each sample then needs several map batches


@pytest.fixture(scope="module")
def indexes():
    return {lang: store.load(SAMPLES / lang / "index") for lang in QUESTIONS}


def chat_bodies(script, since: int = 0) -> list[dict]:
    return [r["body"] for r in script.requests[since:] if r["path"].endswith("/chat/completions")]


def map_text(messages: list[dict[str, str]]) -> str:
    """What the test server derives its points from (the system prompt, else the last message)."""
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    return system or messages[-1]["content"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_map_reduce_answer_end_to_end(lang, indexes, serve, tmp_path):
    url, script = serve()
    settings = LLMSettings(model="openai/gpt-4o-mini", api_base=url, timeout=30)
    cache = LLMCache(tmp_path / "llm_cache.sqlite")
    retrieval = run_query(indexes[lang], "ms.global", QUESTIONS[lang], SMALL_BATCHES)
    stages = retrieval.stages
    assert stages is not None and stages.status == NEEDS_MODEL and len(stages.batches) >= 2
    assert all(b.messages and b.tokens <= b.limit for b in stages.batches)

    progress: list[int] = []
    out, reply = mr.run_map_reduce(
        retrieval, settings, cache=cache, on_progress=lambda done, total, call: progress.append(done)
    )
    done = out.stages
    assert done.status == DONE and reply is not None and reply.error is None, done.note
    assert progress == list(range(1, len(stages.batches) + 1))

    # map: every batch's exact prompt went out once, and its answer was read by the mode's parser
    bodies = chat_bodies(script)
    sent = [b["messages"] for b in bodies if is_map_prompt(map_text(b["messages"]))]
    assert sorted(json.dumps(m, ensure_ascii=False) for m in sent) == sorted(
        json.dumps(b.messages, ensure_ascii=False) for b in stages.batches
    )
    maps = [c for c in done.calls if c.stage == "map"]
    assert [c.label for c in maps] == [f"batch {b.index}" for b in stages.batches] and all(c.ok for c in maps)
    for batch in stages.batches:
        expected = [(p["description"], p["score"]) for p in map_points(map_text(batch.messages))["points"]]
        got = [(p.description, p.score) for p in done.points if p.batch == batch.index]
        assert got == expected and all(
            p.community_ids == batch.community_ids for p in done.points if p.batch == batch.index
        )

    # reduce: score-0 points dropped with a reason, the others in the reduce context, which was answered
    kept = [p for p in done.points if p.in_context]
    assert kept and all(p.why for p in kept) and all(p.description in done.reduce_context for p in kept)
    assert all(p.dropped for p in done.points if not p.in_context)
    assert {p.score for p in done.points if not p.in_context} <= {0}
    assert bodies[-1]["messages"] == done.reduce_messages
    assert reply.text == default_reply({"messages": done.reduce_messages}).text
    assert [c.stage for c in done.calls].count("reduce") == 1

    # asking again: nothing is sent, every call is a cache hit, the same points and answer come back
    before = len(script.requests)
    again, reply2 = mr.run_map_reduce(retrieval, settings, cache=cache)
    assert len(script.requests) == before and all(c.cached for c in again.stages.calls if c.stage != "rate")
    assert again.stages.points == done.points and reply2.text == reply.text and reply2.cached


def test_without_a_model_the_batches_stand_and_nothing_is_invented(indexes):
    retrieval = run_query(indexes["en"], "ms.global", QUESTIONS["en"], SMALL_BATCHES)
    out, reply = mr.run_map_reduce(retrieval, LLMSettings(model=""))
    assert out.stages.batches == retrieval.stages.batches and out.stages.status == NEEDS_MODEL
    assert out.stages.points == [] and out.stages.reduce_context == "" and reply.text == ""
    assert "need a language model" in out.stages.note


def test_ms_global_with_dynamic_selection_rates_then_maps_and_reruns_free(indexes, serve, tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))  # the rating calls use the default cache
    url, script = serve()
    settings = LLMSettings(model="openai/gpt-4o-mini", api_base=url, timeout=30)
    params = {**SMALL_BATCHES, "dynamic_community_selection": True}
    question = QUESTIONS["en"]
    retrieval = run_query(indexes["en"], "ms.global", question, params, llm_settings=settings)
    stages = retrieval.stages
    rates = [c for c in stages.calls if c.stage == "rate"]
    assert rates and all(c.ok for c in rates) and stages.ratings, stages.note
    assert len(stages.ratings) == len(rates) and all(r.why for r in stages.ratings)
    kept = {r.community_id for r in stages.ratings if r.kept}
    assert {cid for b in stages.batches for cid in b.community_ids} <= kept

    out, reply = mr.run_map_reduce(retrieval, settings)
    assert out.stages.status == DONE and reply.error is None, out.stages.note
    assert [c.stage for c in out.stages.calls] == ["rate"] * len(rates) + ["map"] * len(stages.batches) + ["reduce"]

    before = len(script.requests)
    again = run_query(indexes["en"], "ms.global", question, params, llm_settings=settings)
    rerun, _ = mr.run_map_reduce(again, settings)
    assert len(script.requests) == before and all(c.cached for c in rerun.stages.calls)
    assert rerun.stages.ratings == stages.ratings
