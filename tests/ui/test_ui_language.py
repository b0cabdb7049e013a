"""The UI's language is read in one place (the session's ``lang``): texts, pickers' labels and long loops."""

from __future__ import annotations

from graphrag_ui.base import i18n
from graphrag_ui.ui.shell.language import in_this_language, language, language_read_once, t, translate

CHINESE_INDEX = i18n.t("Index", "zh")


def test_the_ui_speaks_the_sessions_language(ui_language):
    assert language() == "en" and t("Index") == "Index"
    ui_language("zh")
    assert CHINESE_INDEX != "Index" and t("Index") == CHINESE_INDEX
    assert translate(i18n.msg("Index")) == CHINESE_INDEX
    assert translate("an entity name") == "an entity name"  # data stays as it is


def test_a_language_the_app_lacks_shows_english(ui_language):
    for odd in ("fr", "", None, "../../etc"):
        ui_language(odd)
        assert t("Index") == "Index", odd


def test_a_pickers_labels_keep_the_language_of_the_run_that_drew_it(ui_language):
    ui_language("zh")
    label = in_this_language(lambda: t("Index"))
    ui_language("en")  # called again after the run, where the session says otherwise (AppTest)
    assert label() == CHINESE_INDEX
    assert t("Index") == "Index"  # only inside the call


def test_a_long_loop_reads_the_language_once_per_call(ui_language):
    @language_read_once
    def rows() -> list[str]:
        first = t("Index")
        ui_language("en")  # the session changes mid-call: the call keeps the language it started with
        return [first, t("Index")]

    ui_language("zh")
    assert rows() == [CHINESE_INDEX, CHINESE_INDEX]
    assert rows() == ["Index", "Index"]  # the next call reads the session again
