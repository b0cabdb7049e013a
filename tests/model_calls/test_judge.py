"""Issue 28's optional judge pass: priced before any call, one cached verdict per sentence, a malformed or
hostile reply said and never cached — through the local OpenAI-compatible test server."""

from __future__ import annotations

import json

import pytest

from graphrag_ui.citations import trace_answer
from graphrag_ui.index import store
from graphrag_ui.model_calls import judge
from graphrag_ui.model_client.cache import LLMCache
from graphrag_ui.model_client.settings import LLMSettings
from graphrag_ui.services.query import run_query
from tests.citations.test_citations_e2e import INDEX, QUESTION
from tests.support.llm_server import Reply, Script, start_server


def verdicts(body):
    user = body["messages"][-1]["content"]
    verdict = "supported" if "Anselm" in user.split("## Rows")[0] else "unsupported"
    return Reply(text=json.dumps({"verdict": verdict, "reason": "x" * 5000}))


@pytest.fixture(scope="module")
def result():
    return run_query(store.load(INDEX), "ms.local", QUESTION)


def _settings(url: str) -> LLMSettings:
    return LLMSettings(model="openai/gpt-4o-mini", api_base=url, api_key="sk-test-judge")


def _trace(result):
    first = next(c for c in result.entities if c.in_context)
    return trace_answer(
        f"Anselm Varrick founded the Guild of Tidewrights [Data: Entities ({first.data['short_id']})]. "
        "The sluice had forty gates. Nobody knows the weather.",
        result,
    )


def test_the_judge_is_priced_before_any_call_and_its_verdicts_are_cached(result, tmp_path):
    script = Script(verdicts)
    url, stop = start_server(script)
    try:
        settings, cache = _settings(url), LLMCache(tmp_path / "cache.sqlite")
        trace = _trace(result)
        planned = judge.plan(trace, result, settings)
        assert script.requests == []  # the price comes first
        assert len(planned.requests) == 2 and planned.skipped == 1  # the weather sentence has no rows
        assert planned.prompt_tokens > 0 and planned.cost_usd is not None and planned.cost_usd > 0
        got = judge.run(planned, settings, cache=cache)
        assert [(v.basis, v.verdict) for v in got] == [("cited", "supported"), ("estimated", "unsupported")]
        assert all(len(v.reason) == judge.REASON_CHARS for v in got)  # a huge reason is cut
        asked = len(script.requests)
        again = judge.run(judge.plan(trace, result, settings), settings, cache=cache)
        assert len(script.requests) == asked and all(v.cached for v in again)
    finally:
        stop()


@pytest.mark.parametrize("reply", ["I think it is supported.", '{"verdict": "maybe"}', "[1, 2]", "{" * 5000])
def test_a_malformed_verdict_is_said_and_never_cached(result, tmp_path, reply):
    script = Script([Reply(text=reply)])
    url, stop = start_server(script)
    try:
        settings, cache = _settings(url), LLMCache(tmp_path / "cache.sqlite")
        planned = judge.plan(_trace(result), result, settings)
        got = judge.run(planned, settings, cache=cache)
        assert all(not v.ok and v.verdict == "" and "could not be read" in v.error for v in got)
        asked = len(script.requests)
        judge.run(judge.plan(_trace(result), result, settings), settings, cache=cache)
        assert len(script.requests) == 2 * asked  # nothing was cached: asked again
    finally:
        stop()
