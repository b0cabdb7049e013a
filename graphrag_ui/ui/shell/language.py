"""The page's language, read from one place: the sidebar's language switch (``st.session_state["lang"]``).

UI code marks its texts with ``t`` / ``pt`` and shows the package's messages with ``translate`` and
``error_text`` from here: the same functions as ``graphrag_ui.base.i18n`` (the base layer, which knows no
Streamlit) without their language argument, since a page, a fragment rerun and a widget callback all
read the language the analyst picked from the session. Babel extracts ``t`` and ``pt`` by name.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar

import streamlit as st

from graphrag_ui.base import i18n

P = ParamSpec("P")
R = TypeVar("R")
_KEPT: ContextVar[str | None] = ContextVar("graphrag_ui_language", default=None)  # set by ``in_this_language``


def language() -> str:
    """The UI language: the switch's value ("en" until it first draws; the frame draws it before any page)."""
    return _KEPT.get() or st.session_state.get("lang") or "en"


def in_this_language(func: Callable[P, R]) -> Callable[P, R]:
    """``func`` speaking this run's language whenever it is called: a picker's ``format_func`` is called
    again outside the run (AppTest reads a picker's labels after it), where no session says the language."""
    lang = language()

    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        token = _KEPT.set(lang)
        try:
            return func(*args, **kwargs)
        finally:
            _KEPT.reset(token)

    return call


def language_read_once(func: Callable[P, R]) -> Callable[P, R]:
    """Decorator: ``func`` and everything it calls read the session's language once per call, for a loop
    that translates thousands of rows or nodes (one session read costs microseconds)."""

    @functools.wraps(func)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        return in_this_language(func)(*args, **kwargs)

    return call


def t(template: str, /, **values: Any) -> str:
    """A UI text in the UI language (``i18n.t``)."""
    return i18n.t(template, language(), **values)


def pt(context: str, template: str, /, **values: Any) -> str:
    """``t`` for an English text with two meanings (``msgctxt``)."""
    return i18n.pt(context, template, language(), **values)


def translate(text: Any) -> Any:
    """A package message (``Msg``) in the UI language; anything else as it is."""
    return i18n.translate(text, language())


def template_in(text: i18n.Msg) -> str:
    """The template of ``text`` in the UI language, values not filled in."""
    return i18n.template_in(text, language())


def error_text(exc: Exception) -> str:
    """An error in the UI language (``i18n.error_text``)."""
    return i18n.error_text(exc, language())
