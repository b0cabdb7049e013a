"""Every fault mode of the test server, through the client, query (each mode family), keywords, build and the app.

A fault is said in one clear line naming what the model returned, never as a traceback or as
"status 500" when the server answered 200, and nothing from a faulty reply is cached: the next
run with a healthy server asks the model again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag_ui.cli import main as cli_main
from graphrag_ui.model_calls import keywords as kw
from graphrag_ui.model_client import client
from graphrag_ui.model_client.cache import LLMCache
from graphrag_ui.model_client.errors import LLMError
from graphrag_ui.model_client.settings import LLMSettings
from graphrag_ui.retrieval.registry import mode_names
from tests.support.llm_server import FAULT_MODES, PROSE, Reply, Script, fault_reply

ROOT = Path(__file__).resolve().parents[2]
EN = ROOT / "data" / "sample" / "en" / "index"
QUESTION = "Who founded the Guild of Tidewrights, and what did he build?"
# one mode per family (nano, lightrag, ms, and any later family), the LightRAG one with keywords
FAMILIES = sorted({m.split(".")[0]: m for m in reversed(mode_names())}.values())
FAMILIES = ["lightrag.hybrid" if m.startswith("lightrag.") else m for m in FAMILIES]
FAILING = {"429": "rate limit", "500": "status 500", "hang": "did not answer within", "invalid_json": "not valid JSON"}
FAILING["empty_choices"] = "no answer"
INCOMPLETE = ("cut", "no_finish")


@pytest.fixture(autouse=True)
def quick(monkeypatch, tmp_path):
    monkeypatch.setattr(client, "BACKOFF_BASE", 0.01)
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_TIMEOUT", "1.5")


def settings(url: str) -> LLMSettings:
    return LLMSettings(model="openai/test-model", api_base=url, timeout=1.5, max_retries=0)


def use_server(monkeypatch, url: str) -> None:
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/test-model")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)


def chats(script: Script) -> int:
    return sum(1 for r in script.requests if r["path"].endswith("/chat/completions"))


# --- the client ---------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["call", "stream"])
@pytest.mark.parametrize("mode", [m for m in FAULT_MODES if m != "prose"])
def test_client_names_each_fault(serve, mode, stream):
    url, _ = serve([fault_reply(mode)])
    messages = [{"role": "user", "content": "hi"}]
    if mode == "no_finish" and not stream:
        pytest.skip("a missing finish reason is a streaming fault (litellm fills it in for a whole reply)")
    if mode == "cut" and not stream:
        pytest.skip("an unstreamed reply cannot be cut midway: it arrives whole or not at all")
    with pytest.raises(LLMError) as caught:
        (client.stream if stream else client.call)(messages, settings(url))
    text = str(caught.value)
    if mode in INCOMPLETE:
        assert caught.value.kind == "stream_cut" and "incomplete" in text and caught.value.partial
    else:
        assert FAILING[mode] in text, text
    if mode in ("invalid_json", "empty_choices", "no_finish"):
        assert "status 500" not in text and "status 200" in text or mode == "no_finish"
    if mode == "empty_choices" and not stream:
        assert '"choices":[]' in text  # what the model returned, quoted


# --- query through the CLI, one mode of every family ----------------------------------------------


def run_cli(capsys, mode: str) -> tuple[int, str, str]:
    code = cli_main(["query", "--index", str(EN), "--mode", mode, QUESTION])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fault", FAULT_MODES)
@pytest.mark.parametrize("mode", FAMILIES)
def test_query_says_the_fault_and_caches_nothing(serve, capsys, monkeypatch, mode, fault):
    url, script = serve([fault_reply(fault)])
    use_server(monkeypatch, url)
    code, out, err = run_cli(capsys, mode)
    assert "Traceback" not in err
    if fault == "prose":
        assert code == 0 and PROSE in out  # prose is a fine answer ...
        if mode.startswith("lightrag."):  # ... but not keyword JSON
            assert "keyword reply was not JSON" in out and PROSE[:40] in out
        return
    if fault in INCOMPLETE:
        assert code == 3 and err.startswith("warning: incomplete answer"), err
    else:
        assert code == 2 and err.startswith("error: ") and FAILING[fault] in err, err
        if fault in ("invalid_json", "empty_choices"):
            assert "status 500" not in err
    assert err.count("\n") == 1
    # a healthy server next: the model is asked again (nothing of the faulty reply was cached)
    url2, healthy = serve(None)
    use_server(monkeypatch, url2)
    code, out, err = run_cli(capsys, mode)
    assert code == 0 and "(cached)" not in out and chats(healthy) >= 1, err


def test_a_complete_answer_is_cached(serve, capsys, monkeypatch):
    url, script = serve(None)
    use_server(monkeypatch, url)
    assert run_cli(capsys, "nano.local")[0] == 0
    code, out, _ = run_cli(capsys, "nano.local")
    assert code == 0 and "(cached)" in out and chats(script) == 1


# --- keyword extraction --------------------------------------------------------------------------


@pytest.mark.parametrize("fault", FAULT_MODES)
def test_keywords_fall_back_with_a_clear_note(serve, fault, tmp_path):
    url, script = serve([fault_reply(fault)])
    notes: list[str] = []
    cache = LLMCache(tmp_path / "kw.sqlite")
    found = kw.extract_keywords(QUESTION, settings=settings(url), cache=cache, warnings=notes)
    assert found.source == "" or found.hl or found.ll  # the offline extractor answered
    assert len(notes) == 1 and "offline keywords were used" in notes[0], notes
    if fault in ("prose", "no_finish", "cut"):
        assert "not JSON" in notes[0] and repr(fault_reply(fault).text[:20])[1:-1] in notes[0]
    assert cache.stats() == {}


def test_keyword_json_without_the_keys_is_named(serve, tmp_path):
    url, _ = serve([Reply(text='{"topics": ["running"]}')])
    notes: list[str] = []
    kw.extract_keywords(QUESTION, settings=settings(url), cache=LLMCache(tmp_path / "k.sqlite"), warnings=notes)
    assert "no high_level_keywords or low_level_keywords" in notes[0] and "topics" in notes[0]


# --- build ---------------------------------------------------------------------------------------


@pytest.fixture()
def docs(tmp_path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("Alice Chen runs the Rivertown clinic with Bob Li.\n" * 3, encoding="utf-8")
    (folder / "b.txt").write_text("Bob Li trains for the Rivertown marathon.\n" * 3, encoding="utf-8")
    return folder


def build_cli(url: str, docs: Path, out: Path, *extra: str) -> int:
    return cli_main(
        ["build", str(docs), "--out", str(out), "--llm", "openai/test-model", "--api-base", url, "--embedder", "hash"]
        + ["--quiet", "--llm-workers", "1", *extra]
    )


@pytest.mark.parametrize("fault", FAULT_MODES)
def test_build_fails_loudly(serve, capsys, docs, tmp_path, fault):
    url, _ = serve([fault_reply(fault)])
    out = tmp_path / "index"
    code = build_cli(url, docs, out)
    _, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err and not out.exists(), err
    if fault in ("prose", "no_finish", "cut"):  # the model answered, but nothing parsable
        assert "2 of 2 chunk(s) gave no entity or relation the builder could parse" in err
        assert "found 0 entities" in err and "--allow-empty" in err
        cache_file = tmp_path / "index.llm_cache.json"
        entries = json.loads(cache_file.read_text(encoding="utf-8")) if cache_file.exists() else {}
        assert all(entry["kind"] != "extract" for entry in entries.values())
    else:
        assert FAILING[fault] in err
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


def test_allow_empty_saves_an_empty_index(serve, capsys, docs, tmp_path):
    url, _ = serve([fault_reply("prose")])
    code = build_cli(url, docs, tmp_path / "index", "--allow-empty")
    _, err = capsys.readouterr()
    assert code == 0 and "gave no entity or relation" in err
    from graphrag_ui.index import store

    assert store.load(tmp_path / "index").entities == []


# --- the app -------------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["cut", "empty_choices", "invalid_json", "500"])
def test_app_shows_the_fault(serve, monkeypatch, fault):
    from streamlit.testing.v1 import AppTest

    url, script = serve([fault_reply(fault)])
    use_server(monkeypatch, url)
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["mode"] = "lightrag.hybrid"
    at.query_params["q"] = QUESTION
    at.run()
    assert not at.exception
    at.button(key="main_ask").click().run()
    assert not at.exception, [e.value for e in at.exception]
    if fault == "cut":
        assert any("Incomplete answer" in w.value for w in at.warning), [w.value for w in at.warning]
        retry = at.button(key="main_retry_pending_button")
        before = chats(script)
        retry.click().run()
        assert not at.exception and chats(script) > before  # asked again, not served from a cache
    else:
        errors = " ".join(e.value for e in at.error)
        assert FAILING[fault] in errors, errors
        if fault != "500":
            assert "status 500" not in errors


@pytest.mark.parametrize("fault", ["invalid_json", "500", "cut"])
def test_app_in_chinese_shows_the_fault_in_chinese(serve, monkeypatch, fault):
    """The same faults with the UI in zh: one Chinese line (the model and URL kept), no traceback."""
    import re

    from streamlit.testing.v1 import AppTest

    url, _script = serve([fault_reply(fault)])
    use_server(monkeypatch, url)
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update({"mode": "lightrag.hybrid", "q": QUESTION, "lang": "zh"})
    at.run()
    at.button(key="main_ask").click().run()
    assert not at.exception, [e.value for e in at.exception]
    shown = " ".join(e.value for e in (at.warning if fault == "cut" else at.error))
    expected = {"invalid_json": "不是有效的 JSON", "500": "服务商的服务器出错，状态 500", "cut": "回答不完整"}[fault]
    assert expected in shown and "openai/test-model" in shown, shown
    english = {
        "invalid_json": "not valid JSON",
        "500": "the provider's server failed",
        "cut": "the answer is incomplete",
    }
    assert english[fault] not in shown and "check " not in shown and "Traceback" not in shown, shown
    assert re.search(r"[\u4e00-\u9fff]", shown)
