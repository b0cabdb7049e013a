"""The one escaping function for text that is data (model answers, index text, uploads, URL values).

Streamlit renders Markdown (CommonMark + GFM, with autolink literals) in errors, warnings, notes,
captions, tooltips, labels and headers, and a Markdown image is a request the browser makes (a
tracking pixel that can carry context data out), a link or a ``:red[…]``/``:material/…:`` directive
is formatting nobody wrote. So every such text goes through ``md_escape`` before it reaches an element
that renders Markdown. Tables, code blocks, text areas and the graph component take text as data
already (nothing to escape there).

GFM turns ``www.…``, ``http://…`` and ``a@b.example`` into links even when their characters are
escaped (remark finds them again in the parsed text), so a word that looks like one is shown as inline
code instead, where nothing is a link. A model answer keeps its code only where CommonMark reads code
exactly where we do: the escaped answer is parsed (markdown-it-py, CommonMark) and, if anything in it
is still a link, image or tag, the answer is shown with its code escaped too
(``tests/ui/test_escape_parser.py`` fuzzes both paths through the same parser).
"""

from __future__ import annotations

import re

from graphrag_ui.base.i18n import Msg
from graphrag_ui.ui.shell.language import template_in

# characters that start Markdown, HTML, an entity, a :directive:/:color[...] or LaTeX
_MARKUP = re.compile(r"([\\`*_\[\]<>#!|~$:&])")
# a model's answer keeps its emphasis, headings, lists, quotes and code; links, images, tags, directives, LaTeX go
_ACTIVE = re.compile(r"([\\`\[\]<$:!&])")
# code as CommonMark reads it, where nothing is interpreted: a fence at a line's start (``` without a
# backtick in its info string, or ~~~) to a closing fence at least as long (or the end), or an inline
# span between two backtick runs of one length inside one paragraph; ``_verified`` checks the guess
_CODE = re.compile(
    r"(^ {0,3}(?P<fence>`{3,}(?=[^`\n]*$)|~{3,}).*?(?:^ {0,3}(?P=fence)(?:(?<=`)`*|(?<=~)~*)[ \t]*$|\Z)"
    r"|(?<!`)(?P<tick>`+)(?!`)(?:(?!\n[ \t]*\n).)+?(?<!`)(?P=tick)(?!`))",
    re.S | re.M,
)
# a word GFM makes a link (an autolink literal): www., a scheme's //, an e-mail's @ — up to markup
_LINKISH = re.compile(r"[^\s`*_~|\[\]()<>\"'\\]*(?:www\.|//|@)[^\s`*_~|\[\]()<>\"'\\]*", re.I)
_ACTIVE_TOKENS = ("link_open", "image", "html_inline", "html_block")
# a line that starts like a list item or a thematic break (``- x``, ``+ x``, ``1. x``, ``---``)
_BLOCK_START = re.compile(r"^(\d{1,9}(?=[.)](?:\s|$))|(?=[-+](?:\s|$)|---))")


_TRIGGER = re.compile(r"www\.|//|@", re.I)
# in a plain value emphasis is escaped anyway: only what would make a link or tag ends the word
_PLAIN_LINKISH = re.compile(r"[^\s`\[\]()<>\"'\\|!]*(?:www\.|//|@)[^\s`\[\]()<>\"'\\|!]*", re.I)


def _code_span(word: str, active: re.Pattern[str] = _ACTIVE) -> str:
    """``word`` as inline code (a fence longer than any backtick run in it); trailing punctuation (a
    sentence's comma or full stop) stays text."""
    core = word.rstrip(".,;:!?")
    if not _TRIGGER.search(core):
        core = word
    fence = "`" * (max((len(run) for run in re.findall(r"`+", core)), default=0) + 1)
    pad = " " if core.startswith("`") or core.endswith("`") else ""
    return f"{fence}{pad}{core}{pad}{fence}" + active.sub(r"\\\1", word[len(core) :])


def _prose(text: str, active: re.Pattern[str], linkish: re.Pattern[str] = _LINKISH) -> str:
    """``text`` escaped with ``active``, each link-looking word as inline code."""
    out, end = [], 0
    for m in linkish.finditer(text):
        out += [active.sub(r"\\\1", text[end : m.start()]), _code_span(m.group(), active)]
        end = m.end()
    out.append(active.sub(r"\\\1", text[end:]))
    return "".join(out)


def _parser():
    from markdown_it import MarkdownIt

    if not _PARSER:
        _PARSER.append(MarkdownIt("commonmark").enable(["table", "strikethrough"]))
    return _PARSER[0]


_PARSER: list = []


def live_markup(source: str) -> list[str]:
    """The token types in ``source`` (Markdown) that would make a link, image or tag, or an autolink
    literal GFM finds in its text; empty when it is all data."""
    found: list[str] = []
    stack = list(_parser().parse(source))
    while stack:
        token = stack.pop()
        if token.type in _ACTIVE_TOKENS:
            found.append(token.type)
        elif token.type == "text" and _LINKISH.search(token.content):
            found.append("autolink literal")
        stack.extend(token.children or [])
    return found


def md_escape(text: object, *, formatting: bool = False) -> str:
    """``text`` for an element that renders Markdown, never as a link, image, tag, directive or style.

    By default everything is literal and line breaks are flattened (a value in a notice, a name in a
    caption or a label). ``formatting=True`` is for a model's answer: its Markdown emphasis, headings,
    lists and code stay, while ``[``/``]`` (links and images, inline or by reference), ``<`` (HTML),
    ``:`` (directives), ``$`` (LaTeX), ``!`` and ``&`` (entities) are escaped outside code, where
    Markdown shows them as typed; link-looking words (``www.``, ``//``, ``@``) are inline code."""
    text = "" if text is None else str(text)
    if not formatting:
        return _BLOCK_START.sub(r"\1\\", _prose(" ".join(text.split()), _MARKUP, _PLAIN_LINKISH), count=1)
    parts = _CODE.split(text)
    if len(parts) == 1:
        return _prose(text, _ACTIVE)
    step = 1 + _CODE.groups
    out = "".join(_prose(part, _ACTIVE) if i % step == 0 else part for i, part in enumerate(parts) if i % step < 2)
    return out if not live_markup(out) else _prose(text, _ACTIVE)


def shown(text: object) -> str:
    """A message (``msg``) for a Markdown element in the UI language: its template as written (ours, trusted),
    every value in it escaped (``md_escape``; a value that is itself a message is shown the same way).
    Anything that is not a message is data and is escaped whole."""
    if not isinstance(text, Msg):
        return md_escape(text)
    template = template_in(text)
    if not text.values:
        return template
    return template.format(**{k: shown(v) for k, v in text.values.items()})


def shown_error(exc: BaseException) -> str:
    """``i18n.error_text`` for a Markdown element: what and fix as ``shown``, the where (a path, a name,
    a URL) escaped; another exception's text is escaped whole."""
    what = getattr(exc, "what", None)
    if what is None:
        return md_escape(exc)
    where, fix = getattr(exc, "where", ""), getattr(exc, "fix", "")
    head = shown(what) if not where else f"{md_escape(where)}: {shown(what)}"
    return f"{head} — {shown(fix)}" if fix else head
