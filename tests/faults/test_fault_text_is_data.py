"""Fault matrix, text is data (issue 21, deliver 2), headless: no Markdown element gets a live payload.

The pixel index (``pixel_fixtures``) puts a Markdown image, a reference image, an ``<img>``, a link, a
colour directive and an icon directive into every text field; a model server answers with the same
payloads (answers, keywords, map points, errors); links carry them in ``q``, ``ll``, ``hl``, ``index``
and parameter names. Every page and view is rendered with AppTest, and every element that Streamlit
renders as Markdown (markdown, captions, alerts, headings, labels, tooltips) is checked: each payload
character that would start an image, link, tag or directive must be escaped. Widget values, code
blocks and tables are data already. ``tests/browser/test_browser_pixels.py`` checks the same in chromium by
counting requests to a pixel server. Every such text is also read by CommonMark + GFM autolinks
(``test_escape_parser``): no link, image, tag or autolink literal (``www.…``, ``a@b.example``) may come out.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from graphrag_ui.ui.shell.state import register_index
from tests.support.llm_server import Reply, default_reply, serve_fixture
from tests.support.pixel_fixtures import LIVE, payload, save_pixel_index
from tests.ui.test_app import open_view
from tests.ui.test_escape_parser import GFM_LITERAL, tokens

PORT = 9  # nothing is fetched headless: the address only has to look real
FIELDS = ("body", "label", "help", "placeholder")
PLAIN = ("Text", "Code", "Json")  # elements that show their text as typed
VIEWS = ("entities", "relations", "chunks", "communities", "graph", "budget", "context")


@pytest.fixture()
def pixels(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    return register_index("pixels " + payload(PORT, "label"), save_pixel_index(tmp_path, PORT))


def hostile(body: dict[str, Any]) -> Reply:
    """The default script's replies with the payload in every string (JSON stays JSON)."""
    reply = default_reply(body)
    try:
        data = json.loads(reply.text)
    except ValueError:
        return Reply(text=reply.text + "\n\n" + payload(PORT, "answer"))

    def spiked(value: Any) -> Any:
        if isinstance(value, str):
            return value + " " + payload(PORT, "model")
        if isinstance(value, list):
            return [spiked(v) for v in value]
        if isinstance(value, dict):
            return {k: v if k in ("score", "rating") else spiked(v) for k, v in value.items()}
        return value

    return Reply(text=json.dumps(spiked(data)))


@pytest.fixture()
def model(monkeypatch, no_network):
    gen = serve_fixture()
    start = next(gen)

    def make(replies=hostile):
        url, script = start(replies)
        monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
        monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
        return script

    yield make
    gen.close()


def parsed_live(value: str) -> bool:
    """A payload's image, link, tag or autolink literal as CommonMark + GFM read ``value``."""
    for token in tokens(value):
        said = f"{token.attrs.get('href', '')} {token.attrs.get('src', '')} {token.content}"
        if token.type in ("link_open", "image", "html_inline", "html_block") and ("pixel" in said or ":9" in said):
            return True
        if token.type == "text" and any("pixel" in m for m in GFM_LITERAL.findall(token.content)):
            return True
    return False


def live(at) -> list[tuple[str, str, str]]:
    """(element, field, text) of every Markdown-rendered text holding an unescaped payload."""
    found: list[tuple[str, str, str]] = []

    def visit(node: Any) -> None:
        proto = getattr(node, "proto", None) if type(node).__name__ not in PLAIN else None
        for name in FIELDS:
            value = getattr(proto, name, None) if proto is not None else None
            # a payload character unescaped, or (read by CommonMark + GFM autolinks) a link, image or tag
            parsed = type(node).__name__ != "Html" and isinstance(value, str) and parsed_live(value)  # our own st.html
            if isinstance(value, str) and (LIVE.search(value) or parsed):
                found.append((type(node).__name__, name, value[:200]))
        children = getattr(node, "children", None)
        for child in children.values() if isinstance(children, dict) else []:
            visit(child)

    visit(at._tree)
    return found


def checked(at) -> int:
    assert not at.exception, [e.value for e in at.exception]
    assert live(at) == [], live(at)[:3]
    return 1


QUESTION = "MARA QUAY " + payload(PORT, "q")
MODES = ("nano.local", "nano.global", "lightrag.hybrid", "lightrag.local", "ms.local", "ms.global", "ms.basic")


@pytest.mark.parametrize("mode", MODES)
def test_explore_views_without_a_model(app, pixels, mode):
    at = app(index=pixels, mode=mode, q=QUESTION, ll=payload(PORT, "ll"), hl=payload(PORT, "hl"))
    checked(at)
    said = " ".join(w.value for w in at.warning)
    assert "duplicate id" in said and "not a finite number" in said, said  # index text inside warnings
    for view in VIEWS:
        open_view(at, view)
        checked(at)


@pytest.mark.parametrize("mode", ("nano.local", "lightrag.hybrid", "ms.local", "ms.global", "nano.global"))
def test_model_answers_and_notes(app, pixels, model, mode):
    script = model()
    at = app(index=pixels, mode=mode, q=QUESTION)
    checked(at)
    at.button(key="main_ask").click().run()
    checked(at)
    assert any(r["path"].endswith("/chat/completions") for r in script.requests)
    for view in ("batches", "points") if mode.endswith("global") else ("context",):
        open_view(at, view)
        checked(at)


@pytest.mark.parametrize("status", [400, 500])
def test_model_errors(app, pixels, model, status):
    model([Reply(status=status, text="bad " + payload(PORT, "error"))])
    at = app(index=pixels, mode="nano.local", q=QUESTION)
    at.button(key="main_ask").click().run()
    checked(at)
    assert at.error, "the model error is shown"


def test_other_pages(app, pixels):
    checked(app("pages/graph.py", index=pixels))
    at = app("pages/graph.py", index=pixels)
    names = at.selectbox(key="g_node").options
    for name in names:
        at.selectbox(key="g_node").set_value(name).run()
        checked(at)
    checked(app("pages/recall.py", index=pixels, rq=QUESTION))
    checked(app("pages/index.py", index=pixels))
    checked(app("pages/compare.py", index=pixels, cq=QUESTION))
    checked(app("pages/settings.py", index=pixels))


def test_links_naming_hostile_values(app, pixels):
    checked(app(index="![x](http://127.0.0.1:9/i.png)", mode="![m](http://127.0.0.1:9/m.png)"))
    checked(app(index=pixels, mode="nano.local", q=QUESTION, **{"nano_top_k": payload(PORT, "param")}))


def test_drift_questions_answers_and_failure_note(app, pixels, model):
    """issue 27: DRIFT's failure note quotes the model (a score float() rejects); the questions and answers
    of its tree are the model's too."""

    def replies(body: dict[str, Any]) -> Reply:
        reply = hostile(body)
        data = json.loads(reply.text) if reply.text.startswith("{") else None
        if isinstance(data, dict) and "response" in data:  # a local answer: its score is the payload
            data["score"] = payload(PORT, "score")
            return Reply(text=json.dumps(data))
        return reply

    script = model(replies)
    at = app(index=pixels, mode="ms.drift", q=QUESTION)
    checked(at)
    at.button(key="main_drift").click().run(timeout=120)
    checked(at)
    assert any(r["path"].endswith("/chat/completions") for r in script.requests)
    assert any("float() rejects" in e.value for e in at.error), [e.value for e in at.error]


def test_link_values_that_gfm_would_autolink_stay_text(app, pixels):
    """issue 27: ``www.…`` and ``a@b.example`` in a link's values rendered as live links in its notices."""
    at = app(index="www.pixel-index.example", mode="mail@pixel.example", q="see https://pixel.example/q")
    checked(at)
    said = " ".join(w.value for w in at.warning)
    assert "`index=www.pixel-index.example`" in said and "`mode=mail@pixel.example`" in said, said
    checked(app(index=pixels, mode="nano.local", q=QUESTION, nano_top_k="www.pixel-k.example"))
