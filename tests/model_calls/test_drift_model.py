"""ms.drift through the local OpenAI-compatible test server: the whole run on both samples, every call
through the answer cache (a second run makes no request), the question tree in --json, every local
context and the reduce context in --context-only, and a primer answer GraphRAG cannot read failing the run."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from graphrag_ui.cli import main
from tests.support.llm_server import Reply, Script, default_reply, start_server

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = {"en": ROOT / "data" / "sample" / "en", "zh": ROOT / "data" / "sample" / "zh"}
QUESTION = {"en": "Who directs the research station?", "zh": "研究站由谁负责？"}
TIGHT = ["--param", "drift_k_followups=4", "--param", "primer_folds=2", "--param", "n_depth=2"]


@pytest.fixture()
def server(monkeypatch, tmp_path):
    script = Script()
    url, stop = start_server(script)
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-drift")
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path))
    yield script
    stop()


def _run(sample: str, *extra: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(
            ["query", "--index", str(SAMPLES[sample] / "index"), "--mode", "ms.drift", *TIGHT, *extra, QUESTION[sample]]
        )
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("sample", ["en", "zh"])
def test_whole_run_then_a_free_second_run(server, sample):
    code, text, _ = _run(sample, "--json")
    assert code == 0, text[-400:]
    data = json.loads(text)
    tree = data["tree"]
    assert tree["status"] == "done" and tree["rounds"], tree["note"]
    # what the local steps put in their contexts, each once, in the order the rounds reached it (with
    # DRIFT's default shares, 0.9 text units + 0.1 reports, GraphRAG leaves 0 tokens for entity rows)
    assert data["chunks"] and all("reached by the local search of question #" in c["why"] for c in data["chunks"])
    assert len({c["id"] for c in data["chunks"]}) == len(data["chunks"])
    assert not [e for e in data["entities"] if e["in_context"]]
    stages = [c["stage"] for c in tree["calls"]]
    assert stages[:3] == ["expand", "primer", "primer"] and "local" in stages
    assert all(not c["cached"] for c in tree["calls"])
    nodes = tree["nodes"]
    assert nodes[0]["depth"] == 0 and nodes[0]["round"] == 0 and nodes[0]["answer"]
    run = [n for n in nodes if n["round"] and n["round"] > 0]
    assert run and all(n["local"]["mode"] == "ms.local" and n["local"]["context"] for n in run)
    assert {(e["source"], e["target"]) for e in tree["edges"]} >= {(0, n["id"]) for n in nodes if n["depth"] == 1}
    before = len(server.requests)
    code, again, _ = _run(sample, "--json")
    assert code == 0 and len(server.requests) == before  # every call came from the cache
    assert all(c["cached"] for c in json.loads(again)["tree"]["calls"])


def test_context_only_prints_every_local_context_and_the_reduce_context(server):
    code, text, _ = _run("en", "--context-only")
    assert code == 0
    headers = [line for line in text.splitlines() if line.startswith("=== DRIFT ")]
    assert headers[0].startswith("=== DRIFT expansion (HyDE) prompt")
    assert any(h.startswith("=== DRIFT round 1 · question ") for h in headers)
    assert headers[-1].startswith("=== DRIFT reduce context · ")
    assert "ranking by cosine of the expansion" in text


def test_answer_is_the_reduce_streamed(server):
    code, text, _ = _run("en")
    assert code == 0, text[-400:]
    assert "questions: done" in text and "--- answer ---" in text
    reduce_calls = [r for r in server.requests if r.get("body", {}).get("stream")]
    assert reduce_calls and "Gathered answers" in reduce_calls[-1]["body"]["messages"][0]["content"]


def test_a_primer_answer_graphrag_cannot_read_fails_the_run_and_is_not_cached(server):
    def fenced(body):
        reply = default_reply(body)
        if '"intermediate_answer"' in str(body["messages"][-1]["content"]):
            return Reply(text=f"```json\n{reply.text}\n```")
        return reply

    server._replies = fenced
    code, _, err = _run("en", "--context-only")
    assert code == 2 and "GraphRAG 3.x fails the query" in err
    before = len(server.requests)
    _run("en", "--context-only")
    assert len(server.requests) > before  # the unreadable primer answers were asked again


def test_explore_page_runs_drift_with_the_model_and_shows_its_questions(server, monkeypatch):
    """The app: without the button only the first prompt; the button runs the tree (one row per
    question) and the usual answer panel follows."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update({"index": "sample:en", "mode": "ms.drift", "q": QUESTION["en"]})
    at.query_params.update({"drift_k_followups": "3", "primer_folds": "1", "n_depth": "1"})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    before = len(server.requests)
    run = [b for b in at.button if b.label == "Run DRIFT with the model"]
    assert run
    assert not any("depth" in list(d.value.columns) for d in at.dataframe)  # no tree before the button
    run[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(server.requests) > before
    trees = [d.value for d in at.dataframe if "depth" in list(d.value.columns)]
    assert trees and len(trees[0]) >= 4  # the question and its primer follow-ups
    tree = trees[0]
    assert tree["depth"].tolist()[0] == 0 and tree["question"].tolist()[0] == QUESTION["en"]
    assert all(q.startswith("\u3000↳ ") for q in tree[tree["depth"] == 1]["question"])
    assert any(b.label == "Generate answer" for b in at.button)
    picker = at.selectbox(key="main_drift_node")
    assert picker.options  # every question a round ran can be opened
    picker.select_index(len(picker.options) - 1).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("In the context" in c.value for c in at.caption)  # its local retrieval in the usual tables
