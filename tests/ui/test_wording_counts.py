"""Issue 29's wording, second look: a count of one reads as one ("1 batch", not "1 batches") in the
map-reduce view's label, in both languages; no subcommand's --help shows docstring markup; the language
picker names the languages while the link keeps their codes."""

from __future__ import annotations

import re

import pytest

from tests.ui.test_app import view_labels  # noqa: E402


def _stages_label(at) -> str:
    return next(label for label in view_labels(at) if label.startswith(("Map-reduce", "映射-归约")))


def test_one_map_batch_is_one_batch_in_the_view_label(app):
    at = app(index="sample:en", mode="ms.global")  # its reports fit one batch of 12,000 tokens
    assert _stages_label(at) == "Map-reduce: 1 batch, 0 points"
    at = app(index="sample:en", mode="ms.global", lang="zh")
    assert _stages_label(at) == "映射-归约：1 个批次，0 个要点"
    at = app(index="sample:en", mode="ms.global", ms_max_context_tokens="500")  # a batch per report or two
    label = _stages_label(at)
    assert label.startswith("Map-reduce: ") and label.endswith(" batches, 0 points") and "1 batch," not in label


@pytest.mark.parametrize("command", ["build", "import", "reembed", "query", "sweep", "eval"])
def test_no_subcommand_help_shows_literal_backticks(command, capsys):
    from graphrag_ui.cli import main

    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage:") and "`" not in out, out


def test_the_language_picker_shows_names_and_the_link_keeps_the_code(app):
    """The picker lists English / 简体中文; the link says lang=zh (a shared link keeps working), English
    leaves it out, and a link's language wins over the one the picker last wrote."""
    at = app(index="sample:en", lang="zh")
    picker = at.selectbox(key="lang")
    assert picker.value == "zh" and list(picker.options) == ["English", "简体中文"]
    assert at.title[0].value == "检索探索" and at.query_params["lang"] == "zh"
    picker.set_value("en").run()
    assert at.title[0].value == "Explore" and "lang" not in at.query_params
    at.selectbox(key="lang").set_value("zh").run()
    assert at.title[0].value == "检索探索" and at.query_params["lang"] == "zh"
    at.switch_page("pages/compare.py").run()  # another page: the same language, still in the link
    assert at.selectbox(key="lang").value == "zh" and at.query_params["lang"] == "zh"
    at.query_params["lang"] = "en"  # a link (or the address bar) asks for English
    at.run()
    assert at.selectbox(key="lang").value == "en" and "lang" not in at.query_params


@pytest.mark.parametrize("raw", ["<img src=x onerror=alert(1)>", "zh" * 2_000, "简体中文", "ZH", " zh"])
def test_a_language_the_app_lacks_is_named_dropped_from_the_link_and_english_shown(app, raw):
    at = app(index="sample:en", lang=raw)
    assert at.selectbox(key="lang").value == "en" and at.title[0].value == "Explore"
    assert "lang" not in at.query_params
    (notice,) = [w.value for w in at.warning if "is not a language of this app" in w.value]
    assert not re.search(r"(?<!\\)<img", notice), notice[:300]  # markup stays text
