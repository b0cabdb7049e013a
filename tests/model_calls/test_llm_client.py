"""The model client against a real OpenAI-compatible HTTP server on 127.0.0.1 (litellm over HTTP)."""

from __future__ import annotations

import asyncio
import time

import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.model_client import client
from graphrag_ui.model_client.errors import LLMError
from graphrag_ui.model_client.settings import LLMSettings
from tests.support.llm_server import Reply

pytestmark = pytest.mark.usefixtures("fast_backoff")

MSGS = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


def settings(url: str, **kw) -> LLMSettings:
    return LLMSettings(model="openai/gpt-4o-mini", api_base=url, timeout=kw.pop("timeout", 5), **kw)


def test_non_streamed_call_returns_text_usage_and_cost(serve):
    url, script = serve([Reply(text="Marrowick lies in a lagoon.")])
    result = client.call(MSGS, settings(url))
    assert result.text == "Marrowick lies in a lagoon."
    assert result.finish_reason == "stop" and result.attempts == 1
    assert result.prompt_tokens > 0 and result.completion_tokens > 0 and not result.tokens_estimated
    assert result.cost_usd is not None and result.cost_usd > 0  # gpt-4o-mini is in litellm's local price map
    sent = script.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["body"]["messages"] == MSGS
    assert sent["body"]["model"] == "gpt-4o-mini"


def test_streamed_call_delivers_pieces_in_order(serve):
    text = "The Guild of Tidewrights keeps the sluices."
    url, script = serve([Reply(text=text, chunk_size=5)])
    pieces: list[str] = []
    result = client.stream(MSGS, settings(url), on_token=pieces.append)
    assert len(pieces) > 3 and "".join(pieces) == text == result.text
    assert result.finish_reason == "stop"
    assert script.requests[0]["body"]["stream"] is True
    assert result.prompt_tokens > 0 and not result.tokens_estimated  # usage chunk requested and received


def test_reply_without_usage_is_counted_locally(serve):
    url, _ = serve([Reply(text="plain answer", usage=False)])
    result = client.call(MSGS, settings(url))
    assert result.tokens_estimated and result.prompt_tokens > 0 and result.completion_tokens == 2
    streamed = client.stream(MSGS, settings(url))  # litellm counts a usage-less stream itself
    assert streamed.prompt_tokens > 0 and streamed.completion_tokens > 0


def test_429_then_success_is_retried(serve):
    url, script = serve([Reply(status=429, text="Rate limit reached"), Reply(text="second time lucky")])
    result = client.call(MSGS, settings(url, max_retries=2))
    assert result.text == "second time lucky" and result.attempts == 2
    assert len(script.requests) == 2


def test_429_then_success_when_streaming(serve):
    url, script = serve([Reply(status=429), Reply(text="streamed after retry")])
    pieces: list[str] = []
    result = client.stream(MSGS, settings(url), on_token=pieces.append)
    assert result.text == "streamed after retry" == "".join(pieces)
    assert len(script.requests) == 2


def test_500_every_time_gives_up_after_bounded_retries(serve):
    url, script = serve([Reply(status=500, text="upstream exploded")])
    with pytest.raises(LLMError) as info:
        client.call(MSGS, settings(url, max_retries=2))
    assert len(script.requests) == 3
    message = str(info.value)
    assert info.value.kind == "server" and "500" in message and "after 3 attempts" in message
    assert "Traceback" not in message and "\n" not in message
    assert isinstance(info.value, UserError)


def test_retry_after_header_is_honoured(serve):
    url, script = serve([Reply(status=429, headers={"Retry-After": "0.3"}), Reply(text="ok")])
    start = time.perf_counter()
    client.call(MSGS, settings(url))
    assert time.perf_counter() - start >= 0.3
    assert len(script.requests) == 2


def test_reply_that_never_comes_times_out_quickly(serve):
    url, script = serve([Reply(delay=30)])
    start = time.perf_counter()
    with pytest.raises(LLMError) as info:
        client.call(MSGS, settings(url, timeout=2))
    elapsed = time.perf_counter() - start
    assert info.value.kind == "timeout" and "2 s" in str(info.value)
    assert 1.8 <= elapsed < 4.5  # one timeout, no retries of a timeout
    assert len(script.requests) == 1


def test_stream_cut_midway_keeps_partial_text(serve):
    url, _ = serve([Reply(text="abcdefghijklmnopqrstuvwxyz", chunk_size=4, cut_after=3)])
    pieces: list[str] = []
    with pytest.raises(LLMError) as info:
        client.stream(MSGS, settings(url), on_token=pieces.append)
    assert info.value.kind == "stream_cut"
    assert info.value.partial == "abcdefghijkl" == "".join(pieces)


def test_connection_refused_is_one_sentence(serve):
    url, _ = serve([Reply()])
    dead = url.replace(url.split(":")[2].split("/")[0], "9")  # port 9 (discard): nothing listens
    with pytest.raises(LLMError) as info:
        client.call(MSGS, settings(dead, max_retries=0))
    assert info.value.kind == "connection"
    assert "could not connect" in str(info.value) and "API base" in str(info.value)


def test_html_answer_is_returned_verbatim(serve):
    payload = '<script>alert("x")</script><img src=x onerror=alert(1)> **bold**'
    url, _ = serve([Reply(text=payload)])
    assert client.call(MSGS, settings(url)).text == payload
    assert client.stream(MSGS, settings(url)).text == payload


def test_complete_for_the_builder_and_its_errors(serve):
    url, script = serve([Reply(text="extraction output"), Reply(status=500)])
    assert (
        client.complete(MSGS, model="openai/gpt-4o-mini", api_base=url, timeout=5, temperature=0) == "extraction output"
    )
    assert script.requests[0]["body"]["temperature"] == 0
    with pytest.raises(LLMError):
        client.complete(
            MSGS, model="openai/gpt-4o-mini", api_base=url, timeout=5, settings=settings(url, max_retries=0)
        )


def test_complete_without_a_model_is_a_config_error(monkeypatch, tmp_path):
    monkeypatch.delenv("GRAPHRAG_UI_LLM_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(LLMError) as info:
        client.complete(MSGS)
    assert info.value.kind == "config" and "GRAPHRAG_UI_LLM_MODEL" in str(info.value)


def test_async_call_and_stream(serve):
    url, _ = serve([Reply(text="async one"), Reply(text="async streamed", chunk_size=3)])

    async def run():
        text = await client.acomplete(MSGS, settings=settings(url))
        pieces = [p async for p in client.astream(MSGS, settings(url))]
        return text, pieces

    text, pieces = asyncio.run(run())
    assert text == "async one" and "".join(pieces) == "async streamed" and len(pieces) > 1


def test_async_stream_cut_raises_with_partial(serve):
    url, _ = serve([Reply(text="0123456789", chunk_size=2, cut_after=2)])

    async def run():
        got = []
        async for piece in client.astream(MSGS, settings(url)):
            got.append(piece)
        return got

    with pytest.raises(LLMError) as info:
        asyncio.run(run())
    assert info.value.kind == "stream_cut" and info.value.partial == "0123"


def test_test_connection_ok_and_failing(serve):
    url, _ = serve([Reply(text="ok")])
    ok, message = client.test_connection(settings(url))
    assert ok and "openai/gpt-4o-mini answered" in message
    url2, _ = serve([Reply(status=500)])
    ok, message = client.test_connection(settings(url2))
    assert not ok and "500" in message
    ok, message = client.test_connection(LLMSettings())
    assert not ok and "GRAPHRAG_UI_LLM_MODEL" in message


def test_async_stream_retries_before_the_first_piece(serve):
    url, script = serve([Reply(status=503), Reply(text="after a 503", chunk_size=4)])

    async def run():
        return [p async for p in client.astream(MSGS, settings(url))]

    assert "".join(asyncio.run(run())) == "after a 503" and len(script.requests) == 2


def test_explicit_model_does_not_inherit_another_models_api_base(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/local")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_TIMEOUT", "9")
    same = client._resolve(None, "openai/local", None, None)
    other = client._resolve(None, "ollama/llama3", None, None)
    assert (same.api_base, same.timeout) == ("http://127.0.0.1:1/v1", 9.0)
    assert (other.model, other.api_base, other.timeout) == ("ollama/llama3", "", 9.0)


def test_preload_imports_litellm_in_the_background():
    client.preload()
    deadline = time.time() + 60
    while client._litellm_module is None and time.time() < deadline:
        time.sleep(0.05)
    assert client._litellm_module is not None and client._litellm_module.suppress_debug_info is True


def test_stream_retry_budget_is_bounded(serve):
    url, script = serve([Reply(status=500)])
    with pytest.raises(LLMError) as info:
        client.stream(MSGS, settings(url, max_retries=2))
    assert info.value.kind == "server" and len(script.requests) == 3


def test_errors_raised_by_on_token_are_the_callers_own(serve):
    url, script = serve([Reply(text="abcdefgh", chunk_size=2)])

    def boom(piece: str) -> None:
        raise KeyError("ui bug")

    with pytest.raises(KeyError, match="ui bug"):
        client.stream(MSGS, settings(url), on_token=boom)
    assert len(script.requests) == 1


def test_unknown_provider_and_missing_key_are_config_sentences(no_network, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMError) as info:
        client.call(MSGS, LLMSettings(model="notamodel", timeout=3, max_retries=2))
    assert info.value.kind == "no_provider" and "openai/gpt-4o-mini" in str(info.value)
    with pytest.raises(LLMError) as info:
        client.call(MSGS, LLMSettings(model="gpt-4o-mini", timeout=3, max_retries=2))
    assert info.value.kind == "no_key" and "OPENAI_API_KEY (currently not set)" in str(info.value)
