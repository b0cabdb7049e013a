"""The one escaping function for text that is data (model answers, index text, uploads, URL values).

Streamlit renders Markdown in errors, warnings, notes, captions, tooltips, labels and headers, and a
Markdown image is a request the browser makes (a tracking pixel that can carry context data out), a
link or a ``:red[…]``/``:material/…:`` directive is formatting nobody wrote. So every such text goes
through ``md_escape`` before it reaches an element that renders Markdown. Tables, code blocks, text
areas and the graph component take text as data already (nothing to escape there).
"""

from __future__ import annotations

import re

from graphrag_ui.i18n import Msg, template_in

# characters that start Markdown, HTML, an entity, a :directive:/:color[...] or LaTeX
_MARKUP = re.compile(r"([\\`*_\[\]<>#!|~$:&])")
# a model's answer keeps its emphasis, headings, lists and code; links, images, tags, directives and LaTeX go
_ACTIVE = re.compile(r"([\\\[\]<>$:!&])")
# code as CommonMark reads it, where nothing is interpreted: a fence at a line's start (to its closing fence
# or the end), or an inline span on one line; anything this misses is escaped, the safe direction
_CODE = re.compile(r"(^ {0,3}```.*?(?:^ {0,3}```[^\n]*$|\Z)|`[^`\n]*`)", re.S | re.M)


def md_escape(text: object, *, formatting: bool = False) -> str:
    """``text`` for an element that renders Markdown, never as a link, image, tag, directive or style.

    By default everything is literal and line breaks are flattened (a value in a notice, a name in a
    caption or a label). ``formatting=True`` is for a model's answer: its Markdown emphasis, headings,
    lists and code stay, while ``[``/``]`` (links and images, inline or by reference), ``<`` (HTML),
    ``:`` (directives, bare-URL links), ``$`` (LaTeX), ``!`` and ``&`` (entities) are escaped outside
    code, where Markdown shows them as typed."""
    text = "" if text is None else str(text)
    if not formatting:
        return _MARKUP.sub(r"\\\1", " ".join(text.split()))
    parts = _CODE.split(text)
    return "".join(part if i % 2 else _ACTIVE.sub(r"\\\1", part) for i, part in enumerate(parts))


def shown(text: object, lang: str = "en") -> str:
    """A message (``msg``) for a Markdown element in ``lang``: its template as written (ours, trusted),
    every value in it escaped (``md_escape``; a value that is itself a message is shown the same way).
    Anything that is not a message is data and is escaped whole."""
    if not isinstance(text, Msg):
        return md_escape(text)
    template = template_in(text, lang)
    if not text.values:
        return template
    return template.format(**{k: shown(v, lang) for k, v in text.values.items()})


def shown_error(exc: BaseException, lang: str = "en") -> str:
    """``i18n.error_text`` for a Markdown element: what and fix as ``shown``, the where (a path, a name,
    a URL) escaped; another exception's text is escaped whole."""
    what = getattr(exc, "what", None)
    if what is None:
        return md_escape(exc)
    where, fix = getattr(exc, "where", ""), getattr(exc, "fix", "")
    head = shown(what, lang) if not where else f"{md_escape(where)}: {shown(what, lang)}"
    return f"{head} — {shown(fix, lang)}" if fix else head
