"""``query`` for a map-reduce mode: batch contexts, then the reduce context; JSON and batch rows with
their stages; map progress on stderr. Runs the test-local ``test.global`` mode on the English sample,
without a model and through the real OpenAI-compatible test server."""

from __future__ import annotations

import json

import pytest

from graphrag_ui.cli import main
from graphrag_ui.cli.stages import staged_context
from graphrag_ui.index import store
from graphrag_ui.services.query import run_query
from tests.conftest import ROOT, SAMPLES
from tests.support import staged_mode
from tests.support.llm_server import Reply, serve_fixture

EN = SAMPLES / "en" / "index"
LLM_VARS = ("GRAPHRAG_UI_LLM_MODEL", "GRAPHRAG_UI_LLM_API_BASE", "GRAPHRAG_UI_LLM_API_KEY")
QUESTION = "What are the main themes of the corpus?"


@pytest.fixture(autouse=True)
def _mode(monkeypatch, tmp_path):
    for var in LLM_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))  # a fresh answer cache
    monkeypatch.chdir(ROOT)
    staged_mode.register(monkeypatch)


@pytest.fixture()
def model(monkeypatch, no_network):
    """A configured model: the test server; returns its script (every request recorded)."""
    gen = serve_fixture()
    start = next(gen)
    url, script = start()
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
    yield script
    gen.close()


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["query", "--index", str(EN), "--mode", staged_mode.NAME, *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def chats(script) -> int:
    return sum(1 for r in script.requests if r["path"].endswith("/chat/completions"))


def test_context_only_without_a_model_prints_every_batch_and_says_what_needs_a_model(capsys):
    code, out, err = cli(capsys, "--context-only", QUESTION)
    retrieval = run_query(store.load(EN), staged_mode.NAME, QUESTION)
    assert code == 0 and out == staged_context(retrieval.stages)
    assert len(retrieval.stages.batches) >= 2 and "reduce context" not in out
    for batch in retrieval.stages.batches:
        assert batch.context in out
    assert "map and reduce stages need a language model" in err


def test_batches_are_counted_from_one_on_the_terminal(capsys, model):
    n = len(run_query(store.load(EN), staged_mode.NAME, QUESTION).stages.batches)
    code, out, _ = cli(capsys, "--context-only", QUESTION)
    headers = [line for line in out.splitlines() if line.startswith("=== map batch ")]
    assert code == 0 and [h.split(" of ")[0] for h in headers] == [f"=== map batch {i}" for i in range(1, n + 1)]
    from graphrag_ui.cli.stages import stages_summary

    summary = stages_summary(run_query(store.load(EN), staged_mode.NAME, QUESTION).stages)
    assert "map batch 0 " not in summary and f"map batch {n} of {n}" in summary
    _, out, _ = cli(capsys, QUESTION)  # the answer's run: each map call as the batch lines count
    assert "map    batch 1 " in out and " batch 0 " not in out


def test_context_only_with_a_model_adds_the_reduce_context_and_shows_progress(capsys, model):
    code, out, err = cli(capsys, "--context-only", QUESTION)
    n = len(run_query(store.load(EN), staged_mode.NAME, QUESTION).stages.batches)
    assert code == 0 and out.count("=== map batch ") == n
    reduce = out.split("=== reduce context · ", 1)[1]
    assert reduce.startswith(f"{n} of {2 * n} point(s) ===\n----Analyst ")
    assert "map calls" in err and f"{n}/{n}" in err
    assert chats(model) == n  # context only: the map calls, no reduce call


def test_json_carries_the_stages(capsys, model):
    code, out, _ = cli(capsys, "--json", QUESTION)
    data = json.loads(out)
    stages = data["stages"]
    assert code == 0 and stages["status"] == "done" and stages["reduce_context"]
    assert [c["stage"] for c in stages["calls"]] == ["map"] * len(stages["batches"])
    assert all(
        {"score", "batch", "community_ids", "in_context", "why", "dropped"} <= p.keys() for p in stages["points"]
    )


def test_answer_streams_then_lists_every_call_and_a_rerun_is_cached(capsys, model):
    code, out, _ = cli(capsys, QUESTION)
    n = out.count("  map    batch ")
    assert code == 0 and "--- answer ---" in out and "stages: done" in out and n >= 2
    assert out.count("  reduce answer ") == 1 and "points: " in out
    sent = chats(model)
    code, again, _ = cli(capsys, QUESTION)
    assert code == 0 and chats(model) == sent and again.count(" cached") == n + 1


def test_answer_without_a_model_prints_the_map_prompts(capsys):
    code, out, err = cli(capsys, QUESTION)
    assert code == 0 and out.count("--- map prompt that would be sent, map batch ") >= 2
    assert "No language model is configured" in out and "need a language model" in err


def test_batch_rows_include_the_stages(capsys, model, tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"mode": staged_mode.NAME, "query": QUESTION}) + "\n", encoding="utf-8")
    code = main(["query", "--index", str(EN), "--batch", str(cases)])
    row = json.loads(capsys.readouterr().out)
    assert code == 0 and row["stages"]["status"] == "done" and row["stages"]["points"]


def test_a_failed_map_call_exits_2_with_one_line(capsys, monkeypatch, no_network):
    gen = serve_fixture()
    url, _ = next(gen)([Reply(text="down", status=500)])
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MAX_RETRIES", "0")
    code, out, err = cli(capsys, "--context-only", QUESTION)
    gen.close()
    assert code == 2 and "reduce context" not in out and "Traceback" not in err
    assert "map call(s) failed" in err and "status 500" in err
