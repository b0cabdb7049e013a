"""answer(): streamed and not, cache hit/miss, failures as AnswerResult.error, and no key ever leaking."""

from __future__ import annotations

import logging
import sqlite3

import pytest

from graphrag_ui.model_calls import answer as answering
from graphrag_ui.model_calls import keywords as kw
from graphrag_ui.model_calls import prompts
from graphrag_ui.model_client import client
from graphrag_ui.model_client.cache import LLMCache
from graphrag_ui.model_client.settings import LLMSettings
from graphrag_ui.retrieval.core.result import Keywords, Retrieval
from tests.support.llm_server import Reply

pytestmark = pytest.mark.usefixtures("fast_backoff")

SECRET = "sk-test-SECRET123"
CONTEXT = (
    '-----Entities-----\n```csv\nid,entity,type,description,rank\n0,"AMABEL QUELL",PERSON,"relief organiser",4\n```'
)


@pytest.fixture()
def cache(tmp_path):
    return LLMCache(tmp_path / "llm_cache.sqlite")


def retrieval(mode: str = "nano.local", context: str = CONTEXT, **params) -> Retrieval:
    family, _, name = mode.partition(".")
    params.setdefault("top_k", 20)
    messages = prompts.build_messages(family, name, context, "Who organised the flood relief?") if context else []
    return Retrieval(
        mode=mode,
        query="Who organised the flood relief?",
        params=params,
        keywords=Keywords(["relief"], ["Amabel"], "user") if family == "lightrag" else Keywords(),
        context=context,
        messages=messages,
    )


def settings(url: str, **kw) -> LLMSettings:
    return LLMSettings(model="openai/gpt-4o-mini", api_base=url, timeout=kw.pop("timeout", 5), **kw)


@pytest.mark.parametrize("stream", [True, False])
def test_answer_uses_the_retrieval_messages(serve, cache, stream):
    url, script = serve()  # default script: names the first entity of the context
    pieces: list[str] = []
    r = retrieval()
    reply = answering.answer(r, settings(url), stream=stream, on_token=pieces.append, cache=cache)
    assert reply.error is None and not reply.cached
    assert "AMABEL QUELL" in reply.text
    assert ("".join(pieces) == reply.text) if stream else pieces == []
    assert script.requests[0]["body"]["messages"] == r.messages
    assert reply.prompt_tokens > 0 and reply.answer_tokens > 0
    assert reply.cost_usd is not None and reply.cost_usd > 0 and reply.model == "openai/gpt-4o-mini"


def test_messages_built_from_context_when_the_mode_left_none(serve, cache):
    url, script = serve()
    r = retrieval("lightrag.naive", response_type="Bullet Points", user_prompt="Answer in French.")
    r.messages = []
    answering.answer(r, settings(url), stream=False, cache=cache)
    system = script.requests[0]["body"]["messages"][0]["content"]
    assert CONTEXT in system and "Bullet Points" in system and "Answer in French." in system


def test_cache_hit_then_miss_on_any_change(serve, cache):
    url, script = serve([Reply(text="first answer"), Reply(text="second answer")])
    s = settings(url)
    first = answering.answer(retrieval(), s, stream=True, on_token=None, cache=cache)
    pieces: list[str] = []
    again = answering.answer(retrieval(), s, stream=True, on_token=pieces.append, cache=cache)
    assert (first.cached, again.cached) == (False, True)
    assert again.text == "first answer" == "".join(pieces)
    assert again.prompt_tokens == first.prompt_tokens and again.cost_usd == first.cost_usd
    assert len(script.requests) == 1
    # a different parameter, model or context is a different key
    changed = answering.answer(retrieval(top_k=5), s, stream=False, cache=cache)
    assert not changed.cached and changed.text == "second answer"
    other_model = answering.answer(retrieval(), s.with_(model="openai/gpt-4o"), stream=False, cache=cache)
    assert not other_model.cached
    assert cache.stats() == {"answer": 3}


def test_cache_switch_off_always_calls(serve, cache):
    url, script = serve([Reply(text="a")])
    for _ in range(2):
        assert not answering.answer(retrieval(), settings(url), stream=False, use_cache=False, cache=cache).cached
    assert len(script.requests) == 2 and cache.stats() == {}


def test_default_cache_lives_in_graphrag_ui_home(serve, tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    url, _ = serve([Reply(text="stored")])
    answering.answer(retrieval(), settings(url), stream=False)
    assert (tmp_path / "home" / "llm_cache.sqlite").is_file()
    assert answering.answer(retrieval(), settings(url), stream=False).cached


def test_empty_context_gives_the_fail_response_without_a_call(serve, cache):
    url, script = serve()
    pieces: list[str] = []
    reply = answering.answer(retrieval(context=""), settings(url), stream=True, on_token=pieces.append, cache=cache)
    assert reply.text == prompts.FAIL_RESPONSE == "".join(pieces) and reply.error is None
    assert script.requests == []


def test_unconfigured_returns_prompt_tokens_and_help(cache):
    reply = answering.answer(retrieval(), LLMSettings(), stream=True, on_token=None, cache=cache)
    assert reply.error and "GRAPHRAG_UI_LLM_MODEL" in reply.error and reply.error_kind == "config"
    assert reply.prompt_tokens > 0 and reply.messages[0]["role"] == "system"
    text = answering.describe_unconfigured()
    assert "GRAPHRAG_UI_LLM_MODEL" in text and "GRAPHRAG_UI_LLM_API_BASE" in text and "secrets.toml" in text


@pytest.mark.parametrize(
    "replies,kind",
    [
        ([Reply(status=500, text="boom")], "server"),
        ([Reply(status=429)], "rate_limit"),
        ([Reply(delay=30)], "timeout"),
    ],
)
def test_provider_failures_come_back_as_error(serve, cache, replies, kind):
    url, _ = serve(replies)
    reply = answering.answer(
        retrieval(), settings(url, timeout=2, max_retries=1), stream=True, on_token=None, cache=cache
    )
    assert reply.error and reply.error_kind == kind and reply.text == ""
    assert "Traceback" not in reply.error
    assert cache.stats() == {}


def test_errors_notices_and_the_connection_test_read_in_chinese_by_their_own_templates(serve, cache, monkeypatch):
    """An answer's error, the keyword notices and the Settings page's connection test are messages (``msg``,
    errors carried as ``exc.message``): in zh only the where and
    the provider's own words stay English."""
    from graphrag_ui.base import i18n

    def zh(text: str) -> str:
        return i18n.translate(text, "zh")

    url, _ = serve([Reply(status=500, text="boom"), Reply(status=500, text="down"), Reply(text="ok")])
    s = settings(url, max_retries=0)
    failed = answering.answer(retrieval(), s, stream=True, on_token=None, cache=cache)
    assert zh(failed.error).startswith(f"model openai/gpt-4o-mini at {url}: 服务商的服务器出错，状态 500")
    assert "服务器出了问题" in zh(failed.error)
    unconfigured = answering.answer(retrieval(), LLMSettings(), stream=False, on_token=None, cache=cache)
    assert zh(unconfigured.error).startswith("未配置语言模型 —— 请设置 GRAPHRAG_UI_LLM_MODEL")
    notes: list[str] = []
    kw.extract_keywords("Who organised the flood relief?", settings=s, use_cache=False, warnings=notes)
    kw.extract_keywords("Who organised the flood relief?", settings=LLMSettings(), warnings=notes)
    assert zh(notes[0]).startswith(f"模型抽取关键词失败（model openai/gpt-4o-mini at {url}: 服务商的服务器出错")
    assert zh(notes[0]).endswith("已改用离线关键词。") and zh(notes[1]).startswith("未配置大模型")
    ok, said = client.test_connection(s)
    assert ok and zh(said).startswith("openai/gpt-4o-mini 在 ") and "毫秒内作答" in zh(said)
    ok, said = client.test_connection(LLMSettings())
    assert not ok and zh(said).startswith("未配置模型：请设置 GRAPHRAG_UI_LLM_MODEL")


def test_stream_cut_returns_partial_text_and_error_and_is_not_cached(serve, cache):
    url, _ = serve([Reply(text="The relief was organised by Amabel Quell.", chunk_size=6, cut_after=2)])
    pieces: list[str] = []
    reply = answering.answer(retrieval(), settings(url), stream=True, on_token=pieces.append, cache=cache)
    assert reply.error_kind == "stream_cut" and reply.text == "The relief w" == "".join(pieces)
    assert cache.stats() == {}


def test_html_in_the_answer_stays_plain_text(serve, cache):
    payload = "<script>document.title='x'</script><b onclick=alert(1)>hi</b>"
    url, _ = serve([Reply(text=payload)])
    reply = answering.answer(retrieval(), settings(url), stream=True, on_token=None, cache=cache)
    assert reply.text == payload  # returned verbatim; the UI escapes it when rendering


def test_no_key_leaks_anywhere(serve, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    caplog.set_level(logging.DEBUG)
    url, script = serve(
        [
            Reply(text="good answer"),
            Reply(text='{"high_level_keywords": ["relief"], "low_level_keywords": ["Amabel"]}'),
            Reply(status=401, text=f"Incorrect API key provided: {SECRET}."),
        ]
    )
    s = settings(url, max_retries=0)
    assert s.key() == SECRET and s.masked_key() == "sk-…123" and SECRET not in repr(s) and SECRET not in str(s.public())
    r = retrieval("lightrag.local")
    ok = answering.answer(r, s, stream=True, on_token=None)
    notes: list[str] = []
    words = kw.extract_keywords(r.query, settings=s, warnings=notes)
    failed = answering.answer(retrieval("lightrag.hybrid"), s, stream=False, on_token=None, use_cache=False)
    ok_conn, conn_message = client.test_connection(s)
    with pytest.raises(client.LLMError) as info:
        client.complete(r.messages, settings=s)
    # the key really was used (it went to the server as the bearer token) ...
    assert script.requests[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    assert ok.error is None and words.source == "llm"
    assert failed.error_kind == "auth" and "sk-…123" in failed.error and not ok_conn
    # ... and appears nowhere else
    db = (tmp_path / "home" / "llm_cache.sqlite").read_bytes()
    dump = "\n".join(sqlite3.connect(tmp_path / "home" / "llm_cache.sqlite").iterdump())
    outputs = [
        str(ok.to_dict()),
        str(failed.to_dict()),
        str(words),
        " ".join(notes),
        conn_message,
        str(info.value),
        repr(info.value),
        caplog.text,
        r.to_json(),
        dump,
    ]
    for text in outputs:
        assert SECRET not in text
    assert SECRET.encode() not in db


def test_history_goes_between_system_and_question_and_changes_the_key(serve, cache):
    url, script = serve([Reply(text="one"), Reply(text="two")])
    history = [{"role": "user", "content": "Who is Amabel?"}, {"role": "assistant", "content": "An organiser."}]
    first = answering.answer(retrieval(), settings(url), stream=False, cache=cache, history=history)
    sent = script.requests[0]["body"]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"] and sent[1:3] == history
    assert sent[-1]["content"] == "Who organised the flood relief?"
    plain = answering.answer(retrieval(), settings(url), stream=False, cache=cache)
    assert (first.text, plain.text, plain.cached) == ("one", "two", False)
