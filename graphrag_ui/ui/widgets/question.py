"""One question across Explore (``q``) and Compare (``cq``), cleared when the index's language changes.

Both boxes are URL-bound widgets of different pages, so each keeps its own value. The frame runs before
every page: it takes the box the analyst last typed in (the one whose value changed since the last
run) as the question and writes it into both, so opening Compare shows what was typed in Explore, and
back. When the analyst opens an index in another language than the one the question was asked of
(the manifest's ``language``, else the script of its entity names), the question is cleared, the
new sample's first suggested question is put in its place, and the page says so.
"""

from __future__ import annotations

import contextlib
import unicodedata
from collections import Counter
from itertools import islice
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

from graphrag_ui.base.i18n import msg

QUESTION_KEYS = ("q", "cq")  # Explore's and Compare's question boxes
SHARED = "_question"  # the analyst's question, whichever page it was typed on
SEEN = "_question_seen"  # each box's value as the frame last wrote or read it
WHERE = "_question_index"  # (index key, its language) the question was last used with
NOTICE = "_question_notice"  # (notice, the question it put in the box)
NAME_SAMPLE = 500  # entity names read to guess an index's script
SHORT = 80  # a cleared question is quoted up to this many characters

LANGUAGE_NAMES = {"en": msg("English"), "zh": msg("Chinese")}
SCRIPT_NAMES = {"LATIN": msg("Latin script"), "CJK": msg("Chinese characters")}


def _script(ch: str) -> str:
    if ch.isascii():
        return "LATIN"
    name = unicodedata.name(ch, "")
    return name.split(" ", 1)[0] if name else ""


def index_language(index: Any) -> tuple[str, str]:
    """(the manifest's language, e.g. ``zh``; the script most entity-name letters are written in)."""
    declared = str(getattr(getattr(index, "manifest", None), "language", "") or "").lower()
    names = (str(entity.name or "") for entity in islice(getattr(index, "entities", None) or [], NAME_SAMPLE))
    letters = Counter(_script(ch) for name in names for ch in name if ch.isalpha())
    letters.pop("", None)
    script = letters.most_common(1)[0][0] if letters else ""
    return declared.split("-", 1)[0].split("_", 1)[0], script


def differ(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Whether two indexes are in different languages: by their manifests when both say, else by script."""
    if a[0] and b[0]:
        return a[0] != b[0]
    return bool(a[1] and b[1] and a[1] != b[1])


def language_name(language: tuple[str, str]) -> str:
    declared, script = language
    if declared:
        return LANGUAGE_NAMES.get(declared, declared)
    return SCRIPT_NAMES.get(script, script.title())


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SHORT else flat[: SHORT - 1] + "…"


def cleared_notice(question: str, before: str, before_lang: str, after: str, after_lang: str, offered: bool) -> str:
    offer = (
        msg("its first suggested question is in the box instead")
        if offered
        else msg("type a question in the language of the new index")
    )
    return msg(
        "The question “{question}” was cleared: it was asked of {before} ({before_lang}), and {after} is in "
        "{after_lang}; {offer}.",
        question=_quote(question),
        before=before,
        before_lang=before_lang,
        after=after,
        after_lang=after_lang,
        offer=offer,
    )


def follow(index_key: str, index: Any, label: str, suggested: list[str]) -> None:
    """The frame's step before any page: carry the question across the pages; clear it when the index's
    language changes (``label``: the index's name as the picker shows it; ``suggested``: its questions)."""
    state = st.session_state
    seen = state.setdefault(SEEN, {})
    if SHARED not in state:  # a fresh session: the link's question, whichever page's key it uses
        linked = next((st.query_params[k] for k in QUESTION_KEYS if k in st.query_params), None)
        if linked is not None:
            state[SHARED] = linked
            seen.update({k: linked for k in QUESTION_KEYS})
    for key in QUESTION_KEYS:
        value = state.get(key)
        if isinstance(value, str) and value != seen.get(key):
            state[SHARED] = value  # typed or picked on that key's page in the last run
    before = state.get(WHERE)
    if index is not None and (not before or before[0] != index_key):  # read once per index opened
        here = index_language(index)
        question = state.get(SHARED) or ""
        if before and differ(before[2], here) and question.strip():
            state[SHARED] = suggested[0] if suggested else ""
            text = cleared_notice(
                question, before[1], language_name(before[2]), label, language_name(here), bool(suggested)
            )
            state[NOTICE] = (text, state[SHARED])
        state[WHERE] = (index_key, label, here)
    if SHARED in state:
        for key in QUESTION_KEYS:
            if state.get(key) != state[SHARED]:
                state[key] = state[SHARED]
            seen[key] = state[SHARED]


def notices() -> list[str]:
    """The cleared-question notice while the box still holds what was put in its place."""
    saved = st.session_state.get(NOTICE)
    if not saved:
        return []
    text, put = saved
    if st.session_state.get(SHARED) != put:
        st.session_state.pop(NOTICE, None)
        return []
    return [text]


def in_url(key: str) -> None:
    """Call before the page's question box draws: the question goes into its link under the page's key
    (``q`` or ``cq``) and the other page's key is dropped — a carried-over question was not in the URL and
    the other page's stale one stayed there."""
    for other in QUESTION_KEYS:
        if other != key and other in st.query_params:
            with contextlib.suppress(StreamlitAPIException):  # bound to a widget of this page: it stays
                del st.query_params[other]
    value = st.session_state.get(key)
    if not isinstance(value, str) or not value or st.query_params.get(key) == value:
        return
    try:
        st.query_params[key] = value  # the box is not bound yet in this session: the URL seeds it
    except StreamlitAPIException:
        st.session_state[key] = value  # bound: a programmatic set, which the widget writes into the URL
