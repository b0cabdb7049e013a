"""Fault matrix, map-reduce part (issue 21, deliver 3): model answers that are valid but awkward.

Each case runs the CLI on the English sample against the local model server, then a second run with a
healthy server that must ask the model again (nothing of the first run was kept):

- every map point scores 0: the reference's own no-data answer, exit 0, never a traceback;
- an answer or reduce cut at the model's length limit (finish reason "length"): the text is shown,
  ``warning: incomplete answer`` and exit 3, nothing cached;
- a rating answer for dynamic community selection that GraphRAG cannot read (5 kinds): one error
  line, the rating is never cached;
- a map answer of 4,000 points: every printed line stays short.
"""

from __future__ import annotations

import json

import pytest

from graphrag_ui.cli import main as cli_main
from graphrag_ui.model_calls.prompts import FAIL_RESPONSE
from graphrag_ui.model_client import client
from graphrag_ui.model_client.cache import LLMCache, app_home
from graphrag_ui.retrieval.ms.prompts import NO_DATA_ANSWER
from tests.conftest import ROOT, SAMPLES
from tests.support.llm_server import Reply, Script, default_reply, is_map_prompt, is_rating_prompt
from tests.support.ui_fixtures import plain

EN = SAMPLES / "en" / "index"
QUESTION = "What are the main themes of the corpus?"
LOCAL_QUESTION = "Who founded the Guild of Tidewrights, and what did he build?"  # has a context in every mode
GLOBAL_MODES = {"ms.global": NO_DATA_ANSWER, "nano.global": FAIL_RESPONSE}
LINE_LIMIT = 2_000  # no printed line of a run may be longer


@pytest.fixture(autouse=True)
def quick(monkeypatch, tmp_path):
    monkeypatch.setattr(client, "BACKOFF_BASE", 0.01)
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_TIMEOUT", "5")


def use(monkeypatch, serve, replies) -> Script:
    url, script = serve(replies)
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/test-model")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
    return script


def run(capsys, mode: str, *extra: str) -> tuple[int, str, str]:
    question = QUESTION if mode in GLOBAL_MODES else LOCAL_QUESTION
    code = cli_main(["query", "--index", str(EN), "--mode", mode, *extra, question])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out, err
    return code, out, err


def chats(script: Script, kind=None) -> int:
    bodies = [r["body"] for r in script.requests if r["path"].endswith("/chat/completions")]
    if kind is None:
        return len(bodies)
    return sum(1 for b in bodies if any(kind(str(m.get("content", ""))) for m in b["messages"]))


def on_map(answer: str):
    """Map prompts get ``answer``; everything else the healthy default."""

    def reply(body):
        if any(is_map_prompt(str(m.get("content", ""))) for m in body["messages"]):
            return Reply(text=answer)
        return default_reply(body)

    return reply


def second_run_asks_again(monkeypatch, serve, capsys, mode: str, *extra: str, kind=None) -> str:
    healthy = use(monkeypatch, serve, None)
    code, out, err = run(capsys, mode, *extra)
    assert code == 0 and "(cached)" not in out, err
    assert chats(healthy, kind) >= 1, "the second run must ask the model again"
    return out


# --- every point scores 0 -------------------------------------------------------------------------

ZERO = json.dumps({"points": [{"description": "Nothing here is relevant.", "score": 0}]})


@pytest.mark.parametrize("mode", GLOBAL_MODES)
def test_all_zero_points_give_the_references_no_answer(serve, capsys, monkeypatch, mode):
    script = use(monkeypatch, serve, on_map(ZERO))
    code, out, err = run(capsys, mode)
    assert code == 0 and GLOBAL_MODES[mode] in out, err
    assert chats(script) == chats(script, is_map_prompt), "no reduce call: the reference answers without one"
    code, out, _ = run(capsys, mode, "--context-only")  # the map stage alone: no crash either
    assert code == 0 and "=== map batch" in out
    out = second_run_asks_again(monkeypatch, serve, capsys, mode, kind=is_map_prompt)
    assert GLOBAL_MODES[mode] not in out


def test_all_zero_points_on_the_page(serve, monkeypatch):
    from streamlit.testing.v1 import AppTest

    use(monkeypatch, serve, on_map(ZERO))
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update({"mode": "ms.global", "q": QUESTION})
    at.run()
    at.button(key="main_ask").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(NO_DATA_ANSWER[:40] in plain(m.value) for m in at.markdown)
    assert not at.error, [e.value for e in at.error]


# --- cut at the length limit ----------------------------------------------------------------------

CUT = "The answer starts well and then stops in the middle of"


def cut_answers(body):
    """Map and rating prompts answered whole; the answer (or reduce) cut at the length limit."""
    text = " ".join(str(m.get("content", "")) for m in body["messages"])
    if is_map_prompt(text) or is_rating_prompt(text) or '"high_level_keywords"' in text:
        return default_reply(body)
    return Reply(text=CUT, finish="length")


@pytest.mark.parametrize("mode", ["nano.local", "lightrag.hybrid", "ms.local", *GLOBAL_MODES])
def test_an_answer_cut_at_the_length_limit_is_incomplete_and_not_cached(serve, capsys, monkeypatch, mode):
    use(monkeypatch, serve, cut_answers)
    code, out, err = run(capsys, mode)
    assert code == 3 and CUT in out, (out, err)
    said = [line for line in err.splitlines() if not line.startswith("map calls:")]  # map progress aside
    assert len(said) == 1 and said[0].startswith("warning: incomplete answer") and "length limit" in said[0], err
    kinds = LLMCache(app_home() / "llm_cache.sqlite").stats()
    assert "answer" not in kinds and "reduce" not in kinds, kinds
    second_run_asks_again(monkeypatch, serve, capsys, mode)


def test_a_cut_answer_on_the_page_says_so_and_retry_asks_again(serve, monkeypatch):
    from streamlit.testing.v1 import AppTest

    script = use(monkeypatch, serve, cut_answers)
    monkeypatch.chdir(ROOT)
    for mode in ("nano.local", "ms.global"):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
        at.query_params.update({"mode": mode, "q": QUESTION if mode in GLOBAL_MODES else LOCAL_QUESTION})
        at.run()
        at.button(key="main_ask").click().run()
        assert not at.exception, [e.value for e in at.exception]
        warnings = " ".join(w.value for w in at.warning)
        assert "Incomplete answer" in warnings and "length limit" in warnings, (mode, warnings)
        before = chats(script)
        at.button(key="main_retry_pending_button").click().run()
        assert not at.exception and chats(script) > before, mode  # asked again, not served from a cache


# --- dynamic selection: a rating GraphRAG cannot read ---------------------------------------------

BAD_RATINGS = {
    "broken JSON": '{"reason": "relevant", "rating": 3',
    "JSON list": "[3, 4]",
    "rating is text": '{"reason": "x", "rating": "high"}',
    "rating is null": '{"reason": "x", "rating": null}',
    "rating is a list": '{"reason": "x", "rating": [3]}',
}


@pytest.mark.parametrize("kind", BAD_RATINGS)
def test_a_bad_rating_fails_in_one_line_and_is_never_cached(serve, capsys, monkeypatch, kind):
    def replies(body):
        if any(is_rating_prompt(str(m.get("content", ""))) for m in body["messages"]):
            return Reply(text=BAD_RATINGS[kind])
        return default_reply(body)

    use(monkeypatch, serve, replies)
    dynamic = ("--param", "dynamic_community_selection=true")
    code, out, err = run(capsys, "ms.global", *dynamic)
    said = [line for line in err.splitlines() if not line.startswith("map calls:")]
    assert code == 2 and len(said) == 1 and "dynamic community selection stopped" in said[0], err
    assert said[0].startswith("error: ") and "rating call" in said[0], err
    assert "rate" not in LLMCache(app_home() / "llm_cache.sqlite").stats()
    second_run_asks_again(monkeypatch, serve, capsys, "ms.global", *dynamic, kind=is_rating_prompt)


# --- an oversized map answer ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", GLOBAL_MODES)
def test_a_4000_point_map_answer_prints_short_lines(serve, capsys, monkeypatch, mode):
    points = [
        {"description": f"Point {i}: the guilds and the flood, seen once more.", "score": 1 + i % 90}
        for i in range(4000)
    ]
    # 300k characters: within the reply limit only when the calls ask for that many tokens (client.replies)
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MAX_TOKENS", "100000")
    use(monkeypatch, serve, on_map(json.dumps({"points": points})))
    for _ in range(2):  # the second run reads the (valid) map answer from the cache: printed the same way
        code, out, err = run(capsys, mode)
        assert code == 0, err
        longest = max(len(line) for line in (out + err).splitlines())
        assert longest <= LINE_LIMIT, longest
        assert "points: " in out and " other reason(s)" not in out or len(out) < 50_000
