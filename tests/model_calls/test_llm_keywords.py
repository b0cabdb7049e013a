"""Keyword extraction: messy model replies, the offline extractor (en + zh), user override, cache."""

from __future__ import annotations

import json

import pytest

from graphrag_ui.index.model import Entity, Index, Manifest
from graphrag_ui.model_calls import keywords as kw
from graphrag_ui.model_client.cache import LLMCache
from graphrag_ui.model_client.settings import LLMSettings
from tests.support.llm_server import Reply

GOOD = {"high_level_keywords": ["flood relief", "city politics"], "low_level_keywords": ["Amabel Quell", "Tide Tax"]}


def make_index(names: list[tuple[str, list[str]]]) -> Index:
    entities = [Entity(id=f"e{i}", name=n, type="T", description="", aliases=a) for i, (n, a) in enumerate(names)]
    return Index(Manifest(source="build", embedder="hash", dimension=8), [], [], entities, [], [])


EN = make_index(
    [
        ('"AMABEL QUELL"', ["Amabel"]),
        ("Guild of Tidewrights", ["Tidewrights"]),
        ("Marrowick", []),
        ("Guild", []),
    ]
)
ZH = make_index([("心率变异性", ["HRV"]), ("马拉松", []), ("深度睡眠", ["深睡"])])


@pytest.mark.parametrize(
    "reply",
    [
        json.dumps(GOOD),
        "```json\n" + json.dumps(GOOD, indent=2) + "\n```",
        "Sure! Here are the keywords:\n" + json.dumps(GOOD) + "\nHope this helps.",
        "<think>the user wants {braces}</think>" + json.dumps(GOOD),
        str(GOOD),  # Python repr: single quotes
        "{'high_level_keywords': ['flood relief', 'city politics',], 'low_level_keywords': ['Amabel Quell', 'Tide Tax',]}",
        '{"high_level_keywords": "flood relief, city politics", "low_level_keywords": "Amabel Quell; Tide Tax"}',
        '{"high_level_keywords": ["flood relief", "", "city politics", "flood relief", 3], "low_level_keywords": [" Amabel Quell ", "Tide Tax"]}',
    ],
)
def test_parse_messy_forms(reply):
    assert kw.parse_keywords(reply) == (GOOD["high_level_keywords"], GOOD["low_level_keywords"])


def test_parse_empty_lists_and_garbage():
    assert kw.parse_keywords('{"high_level_keywords": [], "low_level_keywords": []}') == ([], [])
    assert kw.parse_keywords('{"high_level_keywords": ["x"]}') == (["x"], [])
    assert kw.parse_keywords("I cannot help with that.") is None
    assert kw.parse_keywords('{"answer": 42}') is None
    assert kw.parse_keywords("") is None


def test_offline_english_uses_catalog_names_and_aliases_case_insensitively():
    got = kw.offline_keywords("What did amabel quell ask the guild of tidewrights about the flood relief?", EN)
    assert got.source == "offline"
    assert got.ll == ["AMABEL QUELL", "Guild of Tidewrights"]  # longest match wins over "Guild"
    assert got.hl == ["ask", "flood", "relief"]


def test_offline_english_alias_and_proper_noun_phrases():
    got = kw.offline_keywords("How did the Tidewrights and Captain Orrin Vale shape Marrowick?", EN)
    assert got.ll == ["Guild of Tidewrights", "Marrowick", "Captain Orrin Vale"]
    assert got.hl == ["shape"]


def test_offline_words_that_are_part_of_a_name_are_also_low_level():
    index = make_index([("Great Flood of 409", []), ("Relief Committee", ["the committee"])])
    got = kw.offline_keywords("Who organised the flood relief?", index)
    assert got.ll == ["flood", "relief"] and got.hl == ["organised", "flood", "relief"]


def test_offline_chinese_catalog_and_jieba():
    got = kw.offline_keywords("跑完马拉松以后，hrv和深睡会怎样变化？张伟在北京的训练计划", ZH)
    assert got.ll[:3] == ["马拉松", "心率变异性", "深度睡眠"]
    assert "张伟" in got.ll and "北京" in got.ll and "训练计划" in got.ll  # jieba nouns
    assert "变化" in got.hl
    assert not {"的", "和", "会", "怎样"} & set(got.hl)


def test_offline_chinese_merges_noun_runs_into_phrases():
    got = kw.offline_keywords("长期高强度训练对静息心率有什么影响？", ZH)
    assert got.ll == ["高强度训练", "静息心率"]
    assert got.hl == ["影响"]


def test_offline_without_index_and_empty_question():
    assert kw.offline_keywords("Tell me about Skerrow Landing", None).ll == ["Skerrow Landing"]
    empty = kw.offline_keywords("", EN)
    assert empty.hl == [] and empty.ll == []


def test_catalog_is_built_once_per_index_object():
    assert kw.catalog(EN) is kw.catalog(EN)
    other = make_index([("Marrowick", [])])
    assert kw.catalog(other) is not kw.catalog(EN)


def test_user_keywords_override_everything(serve, tmp_path):
    url, script = serve([Reply(text=json.dumps(GOOD))])
    settings = LLMSettings(model="openai/gpt-4o-mini", api_base=url, timeout=5)
    got = kw.extract_keywords(
        "q", index=EN, settings=settings, user_ll=["Marrowick", " "], cache=LLMCache(tmp_path / "c.db")
    )
    assert (got.hl, got.ll, got.source) == ([], ["Marrowick"], "user")
    assert script.requests == []


def test_no_model_means_offline_with_a_notice():
    notes: list[str] = []
    got = kw.extract_keywords("Who founded Marrowick?", index=EN, settings=LLMSettings(), warnings=notes)
    assert got.source == "offline" and got.ll == ["Marrowick"]
    assert notes == [kw.OFFLINE_NOTICE]


def test_llm_then_cache(serve, tmp_path):
    url, script = serve([Reply(text="```json\n" + json.dumps(GOOD) + "\n```")])
    settings = LLMSettings(model="openai/gpt-4o-mini", api_base=url, timeout=5)
    cache = LLMCache(tmp_path / "cache.sqlite")
    first = kw.extract_keywords("Who paid for the flood relief?", settings=settings, cache=cache)
    assert first.source == "llm" and first.ll == ["Amabel Quell", "Tide Tax"]
    body = script.requests[0]["body"]
    assert body["response_format"] == {"type": "json_object"}
    assert len(body["messages"]) == 1 and "Who paid for the flood relief?" in body["messages"][0]["content"]
    second = kw.extract_keywords("Who paid for the flood relief?", settings=settings, cache=cache)
    assert second.source == "cache" and (second.hl, second.ll) == (first.hl, first.ll)
    assert len(script.requests) == 1
    off = kw.extract_keywords("Who paid for the flood relief?", settings=settings, cache=cache, use_cache=False)
    assert off.source == "llm" and len(script.requests) == 2


def test_empty_lists_are_returned_but_not_cached(serve, tmp_path):
    url, script = serve([Reply(text='{"high_level_keywords": [], "low_level_keywords": []}')])
    settings = LLMSettings(model="openai/gpt-4o-mini", api_base=url, timeout=5)
    cache = LLMCache(tmp_path / "cache.sqlite")
    for _ in range(2):
        got = kw.extract_keywords("hello", settings=settings, cache=cache)
        assert (got.hl, got.ll, got.source) == ([], [], "llm")
    assert len(script.requests) == 2


def test_model_failure_or_prose_falls_back_offline_with_reason(serve, tmp_path, monkeypatch):
    from graphrag_ui.model_client import client

    monkeypatch.setattr(client, "BACKOFF_BASE", 0.01)
    url, _ = serve([Reply(status=500, text="down")])
    settings = LLMSettings(model="openai/gpt-4o-mini", api_base=url, timeout=5, max_retries=1)
    notes: list[str] = []
    got = kw.extract_keywords(
        "Who founded Marrowick?", index=EN, settings=settings, cache=LLMCache(tmp_path / "a"), warnings=notes
    )
    assert got.source == "offline" and got.ll == ["Marrowick"]
    assert "failed" in notes[0] and "500" in notes[0]

    url2, _ = serve([Reply(text="I think the keywords are Marrowick and founding.")])
    notes.clear()
    got = kw.extract_keywords(
        "Who founded Marrowick?",
        index=EN,
        settings=settings.with_(api_base=url2),
        cache=LLMCache(tmp_path / "b"),
        warnings=notes,
    )
    assert got.source == "offline" and "not JSON" in notes[0]


def test_default_test_server_script_returns_keywords(serve, tmp_path):
    url, _ = serve()  # the standalone server's default script
    settings = LLMSettings(model="openai/gpt-4o-mini", api_base=url, timeout=5)
    got = kw.extract_keywords("How did Amabel Quell fund the relief?", settings=settings, use_cache=False)
    assert got.source == "llm" and "Amabel Quell" in got.ll and "relief" in got.hl


def test_import_is_light():
    import subprocess
    import sys

    code = "import sys, graphrag_ui.model_calls.keywords as k; k.offline_keywords('Who is Bob?'); print('litellm' in sys.modules, 'jieba' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=str(__import__("pathlib").Path(__file__).parents[2]),
    )
    assert out.stdout.split() == ["False", "False"]
