"""Nothing silent: every link value the view cannot use gives a notice naming it and what was used instead.

Headless (AppTest) through the real frame and pages: a missing index, an index registered on another
machine, a registered folder that is not on this one, an unknown language, mode or release, and each
malformed parameter (0, -5, abc, 1000000, a fraction for a whole number, an unknown choice) on
Explore and on both sides of Compare; values the schema accepts in another spelling are used, not
dropped; markup in a link stays text; notices are in the UI language and stay until the value changes.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from graphrag_ui.base.i18n import translate
from graphrag_ui.retrieval.registry import get_mode
from graphrag_ui.ui.shell import escape
from graphrag_ui.ui.shell.state import register_index
from graphrag_ui.ui.widgets import url_notices

ROOT = Path(__file__).resolve().parents[2]
ESCAPE = re.compile(r"\\(.)")


def shown(at) -> list[str]:
    """Every warning on the page as the reader sees it (the Markdown escapes removed)."""
    return [ESCAPE.sub(r"\1", w.value) for w in at.warning]


def notice_about(at, what: str) -> str:
    found = [text for text in shown(at) if what in text]
    assert len(found) == 1, (what, shown(at))
    return found[0]


# --- the index and the language (the frame, on every page) ----------------------------------------


def test_a_missing_index_says_so_and_names_what_opened(app):
    at = app(index="team-notes")
    text = notice_about(at, "index=team-notes")
    assert "is not an index of this app (it has: sample:en, sample:zh)" in text
    assert "Sample · English was opened instead" in text
    assert at.selectbox(key="index").value == "sample:en" and not at.error


def test_an_index_of_another_machine_says_exactly_that(app):
    at = app(index="path:alice-project")
    text = notice_about(at, "index=path:alice-project")
    assert "registered on the machine the link was made on" in text and "not registered on this machine" in text
    assert "Sample · English was opened instead" in text and "Index page (Open folder)" in text


def test_a_registered_folder_missing_on_this_machine_is_one_error(app, tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    key = register_index("shared", tmp_path / "mnt" / "shared-index")
    at = app(index=key)
    (error,) = at.error
    text = ESCAPE.sub(r"\1", error.value)
    assert "registered at" in text and "does not exist on this machine" in text and "shared-index" in text
    assert not at.exception


def test_an_unknown_language_says_so(app):
    at = app(lang="fr")
    assert "lang=fr is not a language of this app (en, zh), so English is shown instead" in notice_about(at, "lang=")


def test_the_notice_is_in_the_ui_language(app):
    at = app(index="nope", lang="zh")
    text = notice_about(at, "index=nope")
    assert "不是本应用的索引" in text and "nope" in text


def test_the_notice_shows_on_every_page(app):
    at = app("pages/graph.py", index="nope")
    assert notice_about(at, "index=nope")


def test_markup_in_a_link_stays_text(app):
    at = app(index="![x](http://198.51.100.7/pixel.png) <img src=x onerror=alert(1)> **bold** :red[x]")
    (warning,) = at.warning
    raw = warning.value
    assert "\\!\\[x\\]" in raw and "\\<img" in raw and "\\*\\*bold\\*\\*" in raw and "\\:red\\[x\\]" in raw
    assert not re.search(r"(?<!\\)!\[", raw) and not re.search(r"(?<!\\)<img", raw)


def test_md_escape_leaves_no_markup():
    text = escape.md_escape("a_b *c* `d` [e](f) ![g](h) <i> $j$ :k: ~l~ #m |n| &amp;\nnext")
    assert "\n" not in text
    assert re.sub(r"\\.", "", text).translate(str.maketrans("", "", "_*`[]!<>$:~#|&\\")) == re.sub(r"\\.", "", text)


# --- mode, release and parameters (Explore) -------------------------------------------------------


def test_an_unknown_mode_says_which_mode_was_used(app):
    at = app(index="sample:en", mode="nano.locl")
    text = notice_about(at, "mode=nano.locl")
    assert "is not a retrieval mode (did you mean nano.local?), so nano.local was used instead" in text
    assert at.selectbox(key="mode").value == "nano.local"


def test_an_unknown_release_says_which_was_used(app):
    at = app(index="sample:en", mode="lightrag.local", lightrag_version="9.9")
    text = notice_about(at, "lightrag_version=9.9")
    assert "not a release lightrag.local follows (1.4.7, 1.5.7), so 1.4.7 was used instead" in text


@pytest.mark.parametrize(
    ("raw", "why", "used"),
    [
        ("0", "parameter top_k=0 is below its minimum 1", "the default 20"),
        ("-5", "parameter top_k=-5 is below its minimum 1", "the default 20"),
        ("abc", "parameter top_k expects a whole number, got 'abc'", "the default 20"),
        ("1000000", "parameter top_k=1000000 is above its maximum 200", "the default 20"),
        ("2.5", "parameter top_k expects a whole number, got '2.5' — give 2 or 3", "2"),  # the slider cuts it
    ],
)
def test_each_bad_parameter_says_why_and_what_was_used(app, raw, why, used):
    at = app(index="sample:en", mode="nano.local", nano_top_k=raw)
    text = notice_about(at, f"nano_top_k={raw}")
    assert text == f"The link's nano_top_k={raw} cannot be used: {why}; {used} was used instead."
    assert at.slider(key="nano_top_k").value == (2 if raw == "2.5" else 20)


def test_a_bad_choice_and_a_bad_number_on_a_log_scale(app):
    at = app(index="sample:en", mode="lightrag.local", lightrag_kg_chunk_pick_method="RANDOM", lightrag_top_k="0")
    text = notice_about(at, "kg_chunk_pick_method=RANDOM")
    assert "must be one of VECTOR, WEIGHT, got 'RANDOM'; the default VECTOR was used instead" in text
    assert "below its minimum 1; the default 40 was used instead" in notice_about(at, "lightrag_top_k=0")


def test_values_the_schema_accepts_are_used_in_any_spelling(app):
    """The CLI reads yes/1 as true and 4321.0 as 4321; a widget alone would drop them without a word."""
    at = app(index="sample:en", mode="ms.global", ms_dynamic_community_selection="yes", ms_max_context_tokens="4321.0")
    assert not any("cannot" in text or "could not" in text for text in shown(at)), shown(at)
    assert at.toggle(key="ms_dynamic_community_selection").value is True
    assert at.select_slider(key="ms_max_context_tokens").value == 4321


def test_a_notice_stays_until_the_value_changes(app):
    at = app(index="sample:en", mode="nano.local", nano_top_k="0")
    from tests.ui.test_app import open_view

    open_view(at, "trace")  # another run (a view opened): the link's value is gone from the URL, the notice is not
    assert notice_about(at, "nano_top_k=0")
    at.slider(key="nano_top_k").set_value(5).run()
    at.query_params["nano_top_k"] = "5"  # the browser's URL after the slider moved
    at.run()
    assert not any("nano_top_k" in text for text in shown(at))


def test_a_notice_about_a_parameter_of_another_mode_goes_with_it(app):
    at = app(index="sample:en", mode="nano.local", nano_top_k="abc")
    assert notice_about(at, "nano_top_k=abc")
    at.selectbox(key="mode").set_value("ms.local").run()
    assert not any("nano_top_k" in text for text in shown(at))


def test_vectors_server_on_an_index_without_server_collections(app):
    at = app(index="sample:en", vectors="server")
    assert "has no server collections, so its vectors were searched locally" in notice_about(at, "vectors=server")
    at = app(index="sample:en", vectors="gpu")
    assert "not a vector search of this app (local or server)" in notice_about(at, "vectors=gpu")


# --- Compare: both sides --------------------------------------------------------------------------


def test_compare_names_each_sides_bad_values(app):
    at = app("pages/compare.py", index="sample:en", a_mode="bogus", b_mode="nano.local", b_nano_top_k="-5")
    assert "a_mode=bogus is not a retrieval mode" in notice_about(at, "a_mode=bogus")
    assert "so nano.local was used instead" in notice_about(at, "a_mode=bogus")
    assert "below its minimum 1; the default 20 was used instead" in notice_about(at, "b_nano_top_k=-5")


def test_compare_in_chinese(app):
    at = app("pages/compare.py", index="sample:en", lang="zh", a_mode="bogus")
    text = notice_about(at, "a_mode=bogus")
    assert "不是检索模式" in text and "nano.local" in text


# --- the pure checks ------------------------------------------------------------------------------


def test_param_notices_name_each_refusal_and_each_value_the_control_did_not_take():
    spec = get_mode("nano.local")
    raw = {"nano_top_k": "0", "nano_level": "3", "nano_recall": "hybrid", "nano_w_sim": "0.5"}
    used = {"nano_top_k": 20, "nano_level": 3, "nano_recall": "vector", "nano_w_sim": 0.5}
    notices = {n.key: translate(n.text, "en") for n in url_notices.param_notices(spec, "", raw, used)}
    assert set(notices) == {"nano_top_k", "nano_recall"}
    assert "could not be set on its control; the default vector was used instead" in notices["nano_recall"]


def test_make_run_has_no_file_watcher():
    dry = subprocess.run(["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    line = next(line for line in dry.splitlines() if "streamlit run" in line or "fileWatcher" in line)
    assert "--server.fileWatcherType none" in dry, line


@pytest.mark.parametrize(
    ("key", "page"), [("lang", "pages/explore.py"), ("index", "pages/explore.py"), ("nano_top_k", "pages/explore.py")]
)
def test_an_enormous_link_value_is_quoted_cut_and_says_how_long_it_was(app, key, page):
    """A 20,000-character value is no way to make every check of the page read it, nor a wall of text."""
    value = "<b>x</b>" * 2500
    at = app(page, index="sample:en", mode="nano.local", **{key: value}) if key != "index" else app(page, index=value)
    (text,) = [t for t in shown(at) if f"{key}=" in t]
    assert len(text) < 600 and f"(more than {url_notices.LINK_VALUE_CHARS} characters)" in text
    assert value[: url_notices.SHOWN_VALUE_CHARS] in text
    assert not at.exception


def test_a_long_value_is_quoted_by_its_start_and_length():
    notice = url_notices.language_notice("y" * 5000, "en")
    assert "y" * url_notices.SHOWN_VALUE_CHARS + "… (5000 characters)" in translate(notice.text, "en")


def test_a_value_of_a_usable_length_is_quoted_whole():
    notice = url_notices.language_notice("x" * url_notices.SHOWN_VALUE_CHARS, "en")
    assert "x" * url_notices.SHOWN_VALUE_CHARS in translate(notice.text, "en") and "characters)" not in notice.text
