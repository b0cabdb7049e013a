"""Issue 5 done-when: with the local test server as the model, the CLI streams an answer for every mode
on both bundled samples, and the Retrieval shows the keyword source, prompt tokens and cost."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from graphrag_ui.cli import main
from graphrag_ui.retrieval.registry import mode_names
from tests.support.llm_server import Script, start_server

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = {"en": ROOT / "data" / "sample" / "en", "zh": ROOT / "data" / "sample" / "zh"}


@pytest.fixture(scope="module")
def server():
    script = Script()
    url, stop = start_server(script)
    yield url, script
    stop()


@pytest.fixture()
def model_env(server, monkeypatch, tmp_path):
    url, _ = server
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-all-modes")
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path))


def _question(sample: str) -> str:
    questions = json.loads((SAMPLES[sample] / "questions.json").read_text(encoding="utf-8"))
    items = questions if isinstance(questions, list) else questions["questions"]
    return items[0]["question"]


@pytest.mark.parametrize("sample", ["en", "zh"])
def test_cli_streams_an_answer_for_every_mode(sample, model_env, server):
    _, script = server
    for mode in mode_names():
        before = len(script.requests)
        out = io.StringIO()
        with redirect_stdout(out):
            code = main(
                ["query", "--index", str(SAMPLES[sample] / "index"), "--mode", mode, "--no-cache", _question(sample)]
            )
        text = out.getvalue()
        assert code == 0, (mode, text[-500:])
        assert "--- answer ---" in text, mode
        tail = text.split("--- answer ---", 1)[1]
        assert "prompt +" in tail and "answer tokens" in tail and "cost" in tail, (mode, tail[-300:])
        streamed = [r for r in script.requests[before:] if r.get("body", {}).get("stream")]
        assert streamed, f"{mode}: the answer was not requested as a stream"
        assert "sk-test-SECRET-all-modes" not in text
        if mode.startswith("lightrag.") and mode not in ("lightrag.naive", "lightrag.bypass"):
            assert "keywords (llm" in text or "keywords (cache" in text, (mode, text[:400])
