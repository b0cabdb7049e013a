"""Showing untrusted text (index content, LLM answers) safely as Markdown.

Streamlit already refuses raw HTML in ``st.markdown``; on top of that, Markdown images are
neutralised (a remote image would be a network request and a tracking pixel) and HTML-looking
text is escaped so it reads as text.
"""

from __future__ import annotations

import html
import re

_IMAGE = re.compile(r"!\[")
_TAG = re.compile(r"<(/?[a-zA-Z!][^>]*)>")


def safe_markdown(text: str) -> str:
    """Markdown that renders the model's formatting but never markup, script or remote images."""
    text = _TAG.sub(lambda m: html.escape(m.group(0)), text or "")
    return _IMAGE.sub(r"!\\[", text)
