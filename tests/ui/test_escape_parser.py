"""Text is data, proven by a parser (issue 27, deliver 3): ``md_escape``'s output read by markdown-it-py.

The parser is CommonMark with GFM's tables, strikethrough and autolinks (linkify-it for ``http://``,
``//`` and e-mails; GFM's autolink-literal rules, which remark applies again to the parsed text, for
``www.``, ``http(s)://`` and e-mails). A fuzzed corpus of fences, info strings, code spans, reference
definitions, autolinks, e-mails, HTML, images and nested emphasis goes through both escaping modes:
no link, image, autolink or HTML token may come out; the plain mode reads back as the text it was
given, and a model answer keeps its emphasis, lists and code.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from graphrag_ui.ui.shell.escape import md_escape

PARSER = MarkdownIt("commonmark", {"linkify": True}).enable(["linkify", "table", "strikethrough"])
PARSER.linkify.set({"fuzzy_link": False})  # GFM links no bare domain; www., schemes and e-mails it does
# GFM's autolink literals as remark finds them in parsed text (escapes already removed)
GFM_LITERAL = re.compile(r"(?i)(?:https?://|www\.)[-.\w]+|[-.\w+]+@[-\w]+(?:\.[-\w]+)+")
ACTIVE = {"link_open", "image", "html_inline", "html_block"}

FRAGMENTS = [
    "```",
    "````",
    "~~~",
    "```a`b",
    "```js",
    "``` `",
    "`",
    "``",
    "` `",
    "`a`",
    "``a`b``",
    "\\`",
    "\\",
    "[r]: http://127.0.0.1:9/ref.png",
    "[r]:",
    "![i](http://127.0.0.1:9/i.png)",
    "![i][r]",
    "[l](http://127.0.0.1:9/l)",
    "[l][r]",
    "[r]",
    "<http://127.0.0.1:9/a>",
    "<a@b.example>",
    "a@b.example",
    "mailto:a@b.com",
    "www.example.com",
    "WWW.x.org/p?q=1",
    "https://x.example/p_(q)",
    "//host.example/x",
    "http\\://x.example",
    '<img src="http://127.0.0.1:9/t.png">',
    "<div>",
    "</div>",
    "<!-- c -->",
    "&lt;",
    "&#x3C;img&#x3E;",
    "***a**b*",
    "_a_",
    "**",
    "~~s~~",
    "- ",
    "1. ",
    "> ",
    "# ",
    "    ",
    "  ",
    "|a|b|\n|-|-|",
    "---",
    "(",
    ")",
    "]",
    "[",
    "!",
    ":red[x]",
    ":material/bolt:",
    "$x^2$",
    "word",
    "中文",
]
SEPARATORS = ["", " ", "\n", "\n\n", "\t", "\n   "]
corpus = st.lists(st.tuples(st.sampled_from(FRAGMENTS), st.sampled_from(SEPARATORS)), max_size=14).map(
    lambda parts: "".join(f + s for f, s in parts)
)


def tokens(source: str):
    stack = list(PARSER.parse(source))
    while stack:
        token = stack.pop(0)
        yield token
        stack[:0] = token.children or []


def live(source: str) -> list[str]:
    found = []
    for token in tokens(source):
        if token.type in ACTIVE:
            found.append(f"{token.type} {token.markup}")
        elif token.type == "text" and GFM_LITERAL.search(token.content):
            found.append(f"autolink literal {token.content!r}")
    return found


def read_back(source: str) -> str:
    """The text a reader sees: text and code, soft breaks as spaces."""
    seen = []
    for token in tokens(source):
        if token.type in ("text", "code_inline"):
            seen.append(token.content)
        elif token.type == "softbreak":
            seen.append(" ")
    return "".join(seen)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus)
def test_plain_values_are_text_and_read_back_as_given(text):
    out = md_escape(text)
    assert live(out) == [], (text, out)
    assert read_back(out) == " ".join(text.split()), (text, out)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus)
def test_model_answers_have_no_link_image_or_tag(text):
    out = md_escape(text, formatting=True)
    assert live(out) == [], (text, out)


ISSUE_CASES = [
    "```a`b\n![x](http://127.0.0.1:9/x.png)\n```",  # issue 27: an info string with a backtick is no fence
    "`a\nb` ![x](http://127.0.0.1:9/x.png) `c`",  # a span over a line break pairs with the first backtick
    "~~~\n```\n~~~\n![x](http://127.0.0.1:9/x.png)\n```",  # a ``` inside a ~~~ fence
    "- a\n  ```\n\n![x](http://127.0.0.1:9/x.png)\n  ```",  # a list item's fence ends with the item
    "see www.example.com, a@b.example and https://x.example/p",
]


def test_the_issue_payloads_stay_text():
    for text in ISSUE_CASES:
        for formatting in (False, True):
            out = md_escape(text, formatting=formatting)
            assert live(out) == [], (text, out)
    assert "`www.example.com`" in md_escape(ISSUE_CASES[-1]) and "`a@b.example`" in md_escape(ISSUE_CASES[-1])


ANSWER = """## Harbour

Mara Quay keeps **the light** and *the log*, ~~never~~ always.

- one `lamp[0]` oil
- two

1. first
2. second

```python
x = ["![i](http://127.0.0.1:9/in-code.png)"]
```

> quoted, see www.example.com ![i](http://127.0.0.1:9/i.png)
"""


def test_a_model_answer_keeps_its_formatting():
    out = md_escape(ANSWER, formatting=True)
    assert live(out) == []
    kinds = {t.type for t in tokens(out)}
    wanted = {"heading_open", "strong_open", "em_open", "s_open", "bullet_list_open", "ordered_list_open"}
    assert wanted | {"code_inline", "fence", "blockquote_open"} <= kinds, kinds
    fence = next(t for t in tokens(out) if t.type == "fence")
    assert fence.info == "python" and "in-code.png" in fence.content and "\\" not in fence.content
    code = next(t for t in tokens(out) if t.type == "code_inline" and "lamp" in t.content)
    assert code.content == "lamp[0]"
