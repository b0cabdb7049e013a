"""The file uploader's own words in the UI language.

Streamlit draws the uploader's button ("Upload") and its limit line ("5MB per file • TXT, MD") in
English and has no option to change them. In another language a page-level style draws the
catalogue's words in their place: the English stays in the DOM (screen readers, tests) at size 0
and the translation is a ``::after`` of the same element. Only our catalogue's strings go into the
style, quoted for CSS, never text from an index or an upload.
"""

from __future__ import annotations

import streamlit as st

from graphrag_ui.ui.shell.language import language, t

ZONE = '[data-testid="stFileUploaderDropzone"]'
BUTTON_LABEL = f'{ZONE} button [data-testid="stMarkdownContainer"] p'
LIMIT_LINE = '[data-testid="stFileUploaderDropzoneInstructions"] span'


def _css_string(text: str) -> str:
    """``text`` as a CSS string literal: quotes, backslashes and line ends escaped."""
    return '"' + "".join(c if c.isalnum() or c in " •.,()·/-" or ord(c) > 127 else f"\\{ord(c):x} " for c in text) + '"'


def uploader_style(max_mb: int, types: list[str]) -> str:
    """The ``<style>`` that relabels every uploader on the page; empty in English (Streamlit's own)."""
    if language() == "en":
        return ""
    button = _css_string(t("Upload"))
    limit = _css_string(t("{size} per file • {types}", size=f"{max_mb} MB", types=", ".join(x.upper() for x in types)))
    return (
        "<style>"
        f"{BUTTON_LABEL}, {LIMIT_LINE} {{font-size: 0}}"
        f"{BUTTON_LABEL}::after {{content: {button}; font-size: 1rem}}"
        f"{LIMIT_LINE}::after {{content: {limit}; font-size: 0.875rem}}"
        "</style>"
    )


def relabel_uploaders(max_mb: int, types: list[str]) -> None:
    """Put the style on the page (takes no space); call once per page that has an uploader."""
    style = uploader_style(max_mb, types)
    if style:
        st.html(style)
