"""Text that must read as itself in Streamlit's Markdown (notices naming a link's values, headers)."""

from __future__ import annotations

import re

_MARKUP = re.compile(r"([\\`*_\[\]<>#!|~$:&])")


def md_escape(text: str) -> str:
    """``text`` shown literally by st.markdown/st.warning: the characters that start Markdown, HTML, an
    entity, a ``:icon:``/``:color[...]`` directive or LaTeX are backslash-escaped, line breaks flattened
    (a link's value can then never become a link, an image request or formatting)."""
    return _MARKUP.sub(r"\\\1", " ".join(str(text).split()))
