"""The map-reduce runner through the real OpenAI-compatible test server, with test-local hooks.

The hooks (tests/support/staged_mode.py) read and reduce points the way a global-search reference does (JSON
points, score 0 dropped, best first within a budget) so the runner's own duties can be checked apart from any mode:
bounded concurrent map calls, the cache (re-running costs nothing), progress, every call recorded,
failures loud and never cached, and nothing invented without a model.
"""

from __future__ import annotations

import json
import threading
import time

import pytest

from graphrag_ui.model_calls import map_reduce as mr
from graphrag_ui.model_client.cache import LLMCache
from graphrag_ui.model_client.settings import LLMSettings
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import DONE, FAILED, NEEDS_MODEL, Batch, Stages
from tests.support.llm_server import Reply, default_reply, is_map_prompt
from tests.support.staged_mode import MAP_SYSTEM, Hooks

pytestmark = pytest.mark.usefixtures("fast_backoff")

QUERY = "What are the main themes?"


def staged(n: int = 3) -> Retrieval:
    batches = []
    for i in range(n):
        context = f"id|title|content\n{i}|Report {i}|Community {i} is about topic {i * 7}.\n"
        messages = [{"role": "system", "content": MAP_SYSTEM + context}, {"role": "user", "content": QUERY}]
        batches.append(Batch(i, [str(i), str(i + 10)], context, 12, 8000, messages))
    return Retrieval(mode="ms.global", query=QUERY, params={}, stages=Stages(batches=batches))


@pytest.fixture()
def cache(tmp_path):
    return LLMCache(tmp_path / "llm_cache.sqlite")


def settings(url: str, **kw) -> LLMSettings:
    return LLMSettings(model="openai/gpt-4o-mini", api_base=url, timeout=kw.pop("timeout", 5), **kw)


def chat_requests(script) -> list[dict]:
    return [r["body"] for r in script.requests if r["path"].endswith("/chat/completions")]


def test_map_reduce_answer_records_every_call_in_batch_order(serve, cache):
    url, script = serve()
    progress: list[tuple[int, int, str]] = []
    source = staged(3)
    out, reply = mr.run_map_reduce(
        source,
        settings(url),
        hooks=Hooks(),
        cache=cache,
        on_progress=lambda done, total, call: progress.append((done, total, call.label)),
    )
    stages = out.stages
    assert stages.status == DONE and reply.error is None and reply.text
    assert [d for d, _, _ in progress] == [1, 2, 3] and {t for _, t, _ in progress} == {3}
    assert sorted(label for *_, label in progress) == ["batch 0", "batch 1", "batch 2"]
    assert [c.stage for c in stages.calls] == ["map", "map", "map", "reduce"]
    assert [c.label for c in stages.calls[:3]] == ["batch 0", "batch 1", "batch 2"]
    assert all(c.ok and not c.cached and c.prompt_tokens > 0 and c.answer_tokens > 0 for c in stages.calls)
    assert all(c.ms > 0 and c.cost_usd is not None for c in stages.calls)
    # points follow batch order, carry their batch's reports, and each says why it was kept or dropped
    assert [p.batch for p in stages.points] == [0, 0, 1, 1, 2, 2]
    assert stages.points[2].community_ids == ["1", "11"]
    assert all((p.in_context and p.why) or (not p.in_context and p.dropped == "score 0") for p in stages.points)
    kept = sorted((p for p in stages.points if p.in_context), key=lambda p: -p.score)
    assert stages.reduce_context.index(kept[0].description) < stages.reduce_context.index(kept[-1].description)
    # the map prompts went out exactly as built, with the reference's extra arguments
    bodies = chat_requests(script)
    map_bodies = [b for b in bodies if is_map_prompt(b["messages"][0]["content"])]
    assert sorted(json.dumps(b["messages"]) for b in map_bodies) == sorted(
        json.dumps(b.messages) for b in source.stages.batches
    )
    assert all(b["response_format"] == {"type": "json_object"} for b in map_bodies)
    assert bodies[-1]["messages"] == stages.reduce_messages
    # the input is untouched, and the filled-in stages survive a JSON round trip
    assert source.stages.status == NEEDS_MODEL and not source.stages.calls
    assert Retrieval.from_dict(json.loads(out.to_json())).stages == stages
    assert "3 map call(s) gave 6 point(s); 3 reached the reduce context" in stages.note


def test_running_the_question_again_costs_nothing(serve, cache):
    url, script = serve()
    first, reply1 = mr.run_map_reduce(staged(3), settings(url), hooks=Hooks(), cache=cache)
    sent = len(chat_requests(script))
    again, reply2 = mr.run_map_reduce(staged(3), settings(url), hooks=Hooks(), cache=cache)
    assert len(chat_requests(script)) == sent == 4
    assert all(c.cached for c in again.stages.calls) and reply2.cached
    assert reply2.text == reply1.text and again.stages.reduce_context == first.stages.reduce_context
    assert [c.prompt_tokens for c in again.stages.calls] == [c.prompt_tokens for c in first.stages.calls]
    # the cache is keyed by the model too: another model asks again
    mr.run_map_reduce(staged(3), settings(url).with_(model="openai/other"), hooks=Hooks(), cache=cache)
    assert len(chat_requests(script)) == 8


def test_without_a_model_every_batch_stays_and_nothing_is_invented(serve, cache):
    url, script = serve()
    source = staged(2)
    out, reply = mr.run_map_reduce(source, LLMSettings(model=""), hooks=Hooks(), cache=cache)
    assert out.stages.status == NEEDS_MODEL and reply.error_kind == "config" and reply.text == ""
    assert out.stages.batches == source.stages.batches and all(b.messages for b in out.stages.batches)
    assert out.stages.points == [] and out.stages.calls == [] and out.stages.reduce_context == ""
    assert "need a language model" in out.stages.note and "2 map batch(es)" in out.stages.note
    assert chat_requests(script) == []


def test_map_calls_are_bounded(serve, cache):
    lock, state = threading.Lock(), {"now": 0, "max": 0}

    def slow(body):
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(0.15)
        with lock:
            state["now"] -= 1
        return default_reply(body)

    url, _ = serve(slow)
    out, _ = mr.run_map_reduce(staged(6), settings(url), hooks=Hooks(), cache=cache, concurrency=2)
    assert out.stages.status == DONE and state["max"] == 2


def _replies(map_text_for_batch_1: str | Reply):
    def respond(body):
        system = body["messages"][0]["content"]
        if "Report 1|" in system:
            return map_text_for_batch_1 if isinstance(map_text_for_batch_1, Reply) else Reply(map_text_for_batch_1)
        return default_reply(body)

    return respond


def test_a_malformed_map_answer_takes_the_reference_fallback_and_is_never_cached(serve, cache):
    url, script = serve(_replies("Sure! Here are the points: none."))
    out, reply = mr.run_map_reduce(staged(3), settings(url), hooks=Hooks(), cache=cache)
    stages = out.stages
    bad = stages.calls[1]
    assert stages.status == DONE and reply.error is None
    assert not bad.ok and "could not be read" in bad.error and "Sure! Here are the points" in bad.error
    fallback = [p for p in stages.points if p.batch == 1]
    assert [(p.description, p.score, p.dropped) for p in fallback] == [("", 0.0, "score 0")]
    assert "batch 1's map answer could not be read" in stages.note
    sent = len(chat_requests(script))
    mr.run_map_reduce(staged(3), settings(url), hooks=Hooks(), cache=cache)
    assert len(chat_requests(script)) == sent + 1  # only the malformed batch is asked again


def test_a_map_answer_the_reference_fails_on_stops_before_reduce(serve, cache):
    url, script = serve(_replies("not json"))
    out, reply = mr.run_map_reduce(staged(3), settings(url), hooks=Hooks(strict=True), cache=cache)
    assert out.stages.status == FAILED and reply.error and reply.text == ""
    assert "1 of 3 map call(s) failed (first: batch 1" in out.stages.note and "did not run" in out.stages.note
    assert [c.stage for c in out.stages.calls] == ["map"] * 3 and out.stages.points == []
    assert out.stages.reduce_context == "" and len(chat_requests(script)) == 3


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (Reply(text="boom", status=500), "status 500"),
        (Reply(text=""), "empty answer"),
        (Reply(text='{"points": [{"description": "half', finish="length"), "cut off"),
    ],
)
def test_provider_faults_empty_and_cut_answers_fail_loudly_and_are_not_cached(serve, cache, reply, said):
    url, script = serve(_replies(reply))
    out, answer = mr.run_map_reduce(staged(3), settings(url, max_retries=0), hooks=Hooks(), cache=cache)
    assert out.stages.status == FAILED and said in out.stages.calls[1].error and said in answer.error
    sent = len(chat_requests(script))
    mr.run_map_reduce(staged(3), settings(url, max_retries=0), hooks=Hooks(), cache=cache)
    assert len(chat_requests(script)) == sent + 1


def test_a_failed_map_call_reads_in_chinese_by_its_own_templates(serve, cache, monkeypatch):
    """The note and the answer carry the call's error as a message (``exc.message``, never ``str(exc)``):
    in zh only the where and the provider's own words stay English."""
    from graphrag_ui.base import i18n

    url, _ = serve(_replies(Reply(text="boom", status=500)))
    out, answer = mr.run_map_reduce(staged(3), settings(url, max_retries=0), hooks=Hooks(), cache=cache)
    note = i18n.translate(out.stages.note, "zh")
    assert note.startswith(
        f"3 次映射调用中有 1 次失败（第一个：批次 1：model openai/gpt-4o-mini at {url}: 服务商的服务器出错"
    )
    assert "服务器出了问题" in note and "请再运行一次" in note and "the server" not in note
    assert i18n.translate(answer.error, "zh") == note
    assert i18n.translate(out.stages.calls[1].error, "zh") in note


def test_no_surviving_point_gives_the_reference_fail_response_without_a_reduce_call(serve, cache):
    url, script = serve(lambda body: Reply(json.dumps({"points": [{"description": "nothing", "score": 0}]})))
    out, reply = mr.run_map_reduce(staged(2), settings(url), hooks=Hooks(), cache=cache)
    assert reply.text == Hooks.fail_response and out.stages.reduce_context == ""
    assert [c.stage for c in out.stages.calls] == ["map", "map"] and len(chat_requests(script)) == 2


def test_streamed_reduce_answer_and_cached_single_call(serve, cache):
    url, script = serve()
    pieces: list[str] = []
    out, reply = mr.run_map_reduce(
        staged(2), settings(url), hooks=Hooks(), cache=cache, stream=True, on_token=pieces.append
    )
    assert "".join(pieces) == reply.text and chat_requests(script)[-1]["stream"] is True
    request = mr.CallRequest("rate", "community 4", [{"role": "user", "content": "rate"}], lambda raw: [{"raw": raw}])
    first = mr.call_model(request, settings(url), cache=cache)
    again = mr.call_model(request, settings(url), cache=cache)
    assert first.ok and not first.cached and again.cached and again.parsed == first.parsed


def test_a_stage_that_failed_before_the_map_is_not_run_over(serve, cache):
    url, script = serve()
    source = staged(2)
    source.stages.status, source.stages.note = FAILED, "dynamic community selection stopped: rating call failed"
    out, reply = mr.run_map_reduce(source, settings(url), hooks=Hooks(), cache=cache)
    assert out.stages.status == FAILED and reply.error == source.stages.note and chat_requests(script) == []


def test_scores_reach_reduce_as_the_parser_gave_them(serve, cache):
    class KeepsNumbers(Hooks):
        def parse_map(self, answer):
            return [(p["description"], p["score"]) for p in json.loads(answer)["points"]]

    url, _ = serve()
    out, _ = mr.run_map_reduce(staged(2), settings(url), hooks=KeepsNumbers(), cache=cache, final_answer=False)
    assert all(type(p.score) is int for p in out.stages.points)  # the test server sends integers
    assert out.stages.reduce_context and ".0\n" not in out.stages.reduce_context
