"""Map-reduce notices say what is true now: with a model configured the batches wait for the answer button
(not for a model); when one ``nano.global`` batch fails, the answered batches show their points and the
page names the failed batch. Through the real OpenAI-compatible test server (tests/support/llm_server.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.services.query import run_query
from tests.support.llm_server import Reply, default_reply, serve_fixture

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_EN = ROOT / "data" / "sample" / "en" / "index"
NONE_CONFIGURED = "none is configured"
QUESTION = "What are the main conflicts in Marrowick?"
BUDGET = "2500"  # nano's report budget per batch: several map batches on the English sample


@pytest.fixture()
def model(monkeypatch, no_network):
    """The test server as the configured model; ``model(responder)`` starts it (default: the default script)."""
    gen = serve_fixture()
    start = next(gen)

    def configure(replies=None):
        url, script = start(replies)
        monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
        monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
        monkeypatch.setenv("GRAPHRAG_UI_LLM_MAX_RETRIES", "0")
        return script

    yield configure
    gen.close()


def texts(at) -> list[str]:
    return [el.value for el in [*at.info, *at.warning, *at.error, *at.caption]]


def open_every_tab(at) -> list[str]:
    from tests.ui.test_app import open_view

    seen = texts(at)
    for view in ("batches", "points", "entities", "relations", "communities", "chunks", "graph", "budget", "trace"):
        open_view(at, view)
        assert not at.exception
        seen += texts(at)
    return seen


@pytest.mark.parametrize("mode", ["nano.global", "ms.global"])
def test_with_a_model_no_tab_says_none_is_configured(app, model, mode):
    model()
    at = app(index="sample:en", mode=mode, q=QUESTION)
    button = next(b for b in at.button if b.label.startswith("Generate answer ("))
    assert re.fullmatch(r"Generate answer \((1 map call|\d+ map calls), then reduce\)", button.label)
    seen = open_every_tab(at)
    assert not [s for s in seen if NONE_CONFIGURED in s], [s for s in seen if NONE_CONFIGURED in s]
    assert any("run when you press Generate answer" in s for s in seen)


def test_without_a_model_the_need_is_said_by_one_function(app):
    at = app(index="sample:en", mode="nano.global", q=QUESTION)
    seen = open_every_tab(at)
    assert any(NONE_CONFIGURED in s for s in seen) and not any("press Generate answer" in s for s in seen)
    source = (ROOT / "graphrag_ui" / "ui" / "answer" / "stages_view.py").read_text(encoding="utf-8")
    assert source.count("none is configured") == 1  # one notice, one place


def failing(prompt: str):
    """The default script, except that the map prompt ``prompt`` is answered in prose (nano fails on it)."""

    def reply(body: dict) -> Reply:
        system = next((m["content"] for m in body.get("messages", []) if m.get("role") == "system"), "")
        return Reply(text="Sorry, I can only answer in prose.") if system == prompt else default_reply(body)

    return reply


def test_one_failed_nano_batch_shows_the_answered_batches_points(app, model):
    batches = run_query(
        store.load(SAMPLE_EN), "nano.global", QUESTION, {"global_max_token_for_community_report": int(BUDGET)}
    ).stages.batches
    assert len(batches) >= 3
    model(failing(batches[1].messages[0]["content"]))
    at = app(index="sample:en", mode="nano.global", q=QUESTION, nano_global_max_token_for_community_report=BUDGET)
    next(b for b in at.button if b.label.startswith("Generate answer (")).click().run()
    assert not at.exception
    frame = next(df.value for df in at.dataframe if "report ids" in df.value.columns)
    answered = frame[frame["batch"] != 1]
    assert (answered["points"].astype(int) > 0).all() and (answered["map"] == "ok").all(), frame
    failed = frame[frame["batch"] == 1].iloc[0]
    assert failed["points"] == "—" and "could not be read" in failed["map"]  # no answer, not "0 points" nor "None"
    notice = next(w.value for w in at.warning if "failed" in w.value)
    others = ", ".join(str(b) for b in frame["batch"] if b != 1)
    assert notice.startswith("Map batch 1 failed (") and f"batch {others} answered" in notice
    assert "the reduce stage did not run" in notice
    from tests.ui.test_app import open_view

    open_view(at, "points")
    dropped = next(df.value for df in at.dataframe if "why dropped" in df.value.columns)
    assert set(dropped["batch"]) == set(answered["batch"]) and len(dropped) == answered["points"].astype(int).sum()
    assert set(dropped["why dropped"]) == {"not reduced: map batch 1 failed, so the reduce stage did not run"}
    assert not any("ask for an answer" in info.value for info in at.info)
