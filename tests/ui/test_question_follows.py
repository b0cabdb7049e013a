"""The question follows the analyst: Explore's ``q`` and Compare's ``cq`` are one question, cleared (with a
notice, and the new sample's first suggested question offered) when the index changes language."""

from __future__ import annotations

import re
from types import SimpleNamespace

from graphrag_ui.index import store
from graphrag_ui.ui.shell.state import SAMPLES, register_index, suggested_questions
from graphrag_ui.ui.widgets import question

ESCAPE = re.compile(r"\\(.)")
EN, ZH = suggested_questions("sample:en"), suggested_questions("sample:zh")


def shown(at) -> list[str]:
    return [ESCAPE.sub(r"\1", w.value) for w in at.warning]


def test_typed_in_explore_shows_in_compare_and_back(app):
    at = app(index="sample:en")
    at.text_area(key="q").set_value("Who keeps the lighthouse?").run()
    at.switch_page("pages/compare.py").run()
    assert at.text_area(key="cq").value == "Who keeps the lighthouse?"
    at.text_area(key="cq").set_value("What happened in the great flood?").run()
    at.switch_page("pages/explore.py").run()
    assert at.text_area(key="q").value == "What happened in the great flood?"
    assert not at.exception and not shown(at)


def test_a_linked_compare_question_reaches_explore(app):
    at = app("pages/compare.py", index="sample:en", cq="Who runs the Guild?")
    at.switch_page("pages/explore.py").run()
    assert at.text_area(key="q").value == "Who runs the Guild?"


def test_another_language_clears_the_question_and_offers_the_sample(app):
    at = app(index="sample:en", q="Who keeps the lighthouse?")
    at.selectbox(key="index").set_value("sample:zh").run()
    assert at.text_area(key="q").value == ZH[0]
    (text,) = [t for t in shown(at) if "was cleared" in t]
    assert text == (
        "The question “Who keeps the lighthouse?” was cleared: it was asked of Sample · English (English), "
        "and Sample · 中文（跑步与睡眠） is in Chinese; its first suggested question is in the box instead."
    )
    at.switch_page("pages/compare.py").run()
    assert at.text_area(key="cq").value == ZH[0]  # the same question on the other page
    at.text_area(key="cq").set_value("我的睡眠怎么样？").run()
    assert not [t for t in shown(at) if "was cleared" in t]  # typed since: the notice has done its job


def test_the_same_language_keeps_the_question(app, tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    key = register_index("copy-en", SAMPLES["sample:en"] / "index")
    at = app(index="sample:en", q="Who keeps the lighthouse?")
    at.selectbox(key="index").set_value(key).run()
    assert at.text_area(key="q").value == "Who keeps the lighthouse?"
    assert not [t for t in shown(at) if "was cleared" in t]


def test_the_notice_in_chinese(app):
    at = app(index="sample:zh", lang="zh", q="我的睡眠怎么样？")
    at.selectbox(key="index").set_value("sample:en").run()
    assert at.text_area(key="q").value == EN[0]
    (text,) = [t for t in shown(at) if "已清除" in t]
    assert "我的睡眠怎么样？" in text and "英文" in text


def test_an_index_language_from_its_manifest_or_its_names():
    en = store.load(SAMPLES["sample:en"] / "index")
    zh = store.load(SAMPLES["sample:zh"] / "index")
    assert question.index_language(en) == ("en", "LATIN") and question.index_language(zh)[0] == "zh"
    unnamed = SimpleNamespace(manifest=SimpleNamespace(language=""), entities=zh.entities)
    assert question.index_language(unnamed) == ("", "CJK")
    assert question.differ(question.index_language(unnamed), question.index_language(en))
    assert not question.differ(("", ""), ("en", "LATIN"))  # nothing known: the question stays
    british = SimpleNamespace(manifest=SimpleNamespace(language="en-GB"), entities=en.entities)
    assert question.index_language(british) == ("en", "LATIN")
    assert question.differ(("fr", "LATIN"), ("en", "LATIN")) and not question.differ(("", "LATIN"), ("fr", "LATIN"))
