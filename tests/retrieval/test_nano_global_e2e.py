"""``nano.global`` end to end through the real OpenAI-compatible test server: map → reduce → answer.

Both bundled samples, through the runner (``graphrag_ui.model_calls.map_reduce``) and through the CLI. The
server answers each map prompt with points derived from the batch text (integer, fractional and 0
scores) and the reduce prompt with a fixed answer; the test checks that what went over the wire is
exactly what the retrieval built, that the reduce context is nano's (scores printed as the JSON gave
them), that a non-JSON map answer stops the run before the reduce call as nano's query fails, and
that a second run costs no model call.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from graphrag_ui.cli import main
from graphrag_ui.index import store
from graphrag_ui.model_calls import map_reduce as mr
from graphrag_ui.model_client.cache import LLMCache
from graphrag_ui.model_client.settings import LLMSettings
from graphrag_ui.retrieval.core.stages import DONE, FAILED
from graphrag_ui.retrieval.nano.map_reduce import reduce_context
from graphrag_ui.services.query import run_query
from tests.conftest import ROOT, SAMPLES
from tests.support.llm_server import Reply, Script

QUESTIONS = {"en": "What are the main conflicts in Marrowick?", "zh": "这些社区的主要主题是什么？"}
PARAMS = {"global_max_token_for_community_report": 2500}
ANSWER = "The analysts agree on three main themes."
LLM_VARS = ("GRAPHRAG_UI_LLM_MODEL", "GRAPHRAG_UI_LLM_API_BASE", "GRAPHRAG_UI_LLM_API_KEY")


def map_answer(context: str) -> str:
    """Three points per batch: an integer score, a fractional one and a zero, all from the batch text."""
    digest = int(hashlib.sha256(context.encode()).hexdigest(), 16)
    first = context.split("\n", 2)[1][:60]
    points = [
        {"description": f"Batch point on {first}", "score": 10 + digest % 90},
        {"description": "A second, weaker point.", "score": (digest % 40) + 0.5},
        {"description": "Nothing else is relevant.", "score": 0},
    ]
    return json.dumps({"points": points}, ensure_ascii=False)


def responder(broken_batch: int | None = None):
    def reply(body: dict) -> Reply:
        system = body["messages"][0]["content"]
        if "## Community reports\n" in system:
            context = system.split("## Community reports\n", 1)[1]
            if broken_batch == reply.seen:
                reply.seen += 1
                return Reply(text="Sorry, I can only answer in prose.")
            reply.seen += 1
            return Reply(text=map_answer(context.removesuffix("\n")))
        return Reply(text=ANSWER)

    reply.seen = 0
    return reply


def settings(url: str) -> LLMSettings:
    return LLMSettings(model="openai/gpt-4o-mini", api_base=url, timeout=10)


def chats(script: Script) -> list[dict]:
    return [r["body"] for r in script.requests if r["path"].endswith("/chat/completions")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_map_reduce_answer_on_the_sample(lang, serve, tmp_path):
    index = store.load(SAMPLES / lang / "index")
    retrieval = run_query(index, "nano.global", QUESTIONS[lang], PARAMS)
    batches = retrieval.stages.batches
    assert len(batches) >= 2
    url, script = serve(responder())
    cache = LLMCache(tmp_path / "cache.sqlite")
    out, reply = mr.run_map_reduce(retrieval, settings(url), cache=cache)
    stages = out.stages
    assert stages.status == DONE and reply.error is None and reply.text == ANSWER
    assert [c.stage for c in stages.calls] == ["map"] * len(batches) + ["reduce"]
    bodies = chats(script)
    map_bodies = [b for b in bodies if "## Community reports\n" in b["messages"][0]["content"]]
    assert sorted(json.dumps(b["messages"]) for b in map_bodies) == sorted(json.dumps(b.messages) for b in batches)
    assert all(b["response_format"] == {"type": "json_object"} for b in map_bodies)
    # the reduce context is nano's: points above 0, best first, scores as the map answers gave them
    kept = [p for p in stages.points if p.in_context]
    assert len(stages.points) == 3 * len(batches) and len(kept) == 2 * len(batches)
    ordered = sorted(kept, key=lambda p: p.score, reverse=True)
    assert stages.reduce_context == reduce_context(ordered)
    assert any(isinstance(p.score, int) for p in kept) and any(isinstance(p.score, float) for p in kept)
    assert "Importance Score: 0\n" not in stages.reduce_context
    for p in kept:
        assert f"----Analyst {p.batch}----\nImportance Score: {p.score}\n" in stages.reduce_context
    assert bodies[-1]["messages"] == stages.reduce_messages
    assert stages.reduce_context in stages.reduce_messages[0]["content"]
    # again: every call comes from the cache
    sent = len(chats(script))
    again, reply2 = mr.run_map_reduce(retrieval, settings(url), cache=cache)
    assert len(chats(script)) == sent and reply2.text == ANSWER
    assert all(c.cached for c in again.stages.calls) and again.stages.reduce_context == stages.reduce_context


def test_a_non_json_map_answer_stops_before_reduce_as_nano_fails(serve, tmp_path):
    retrieval = run_query(store.load(SAMPLES / "en" / "index"), "nano.global", QUESTIONS["en"], PARAMS)
    url, script = serve(responder(broken_batch=1))
    out, reply = mr.run_map_reduce(retrieval, settings(url), cache=LLMCache(tmp_path / "c.sqlite"), concurrency=1)
    assert out.stages.status == FAILED and reply.error
    assert "fails the whole global query" in out.stages.note and "\n" not in out.stages.note
    assert not out.stages.reduce_context and all(c.stage == "map" for c in out.stages.calls)
    assert not any("## Analyst points" in b["messages"][0]["content"] for b in chats(script))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_answers_and_prints_the_stages(lang, capsys, monkeypatch, serve, tmp_path):
    for var in LLM_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(ROOT)
    url, _ = serve(responder())
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
    argv = ["query", "--index", str(SAMPLES / lang / "index"), "--mode", "nano.global"]
    argv += ["--param", "global_max_token_for_community_report=2500"]
    assert main([*argv, QUESTIONS[lang]]) == 0
    out = capsys.readouterr().out
    assert ANSWER in out and "stages: done" in out and out.count("  reduce answer ") == 1
    assert main([*argv, "--context-only", QUESTIONS[lang]]) == 0
    out = capsys.readouterr().out
    assert out.count("=== map batch ") >= 2 and "=== reduce context · " in out and "----Analyst 0----" in out
