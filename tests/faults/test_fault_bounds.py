"""Fault matrix, bounded (issue 27, deliver 5): nothing a model, a range or a file name says can grow without end.

Model replies come from ``tests/support/llm_server.py``: every call (plain, streamed, async) sends
``max_tokens``; a reply past its limit (10 MB, streamed or not) is refused, never cached; DRIFT keeps at
most ``MAX_FOLLOW_UPS`` follow-ups per answer and ``MAX_NODES`` questions per run, and a run whose
every local call failed ends loudly (exit 2). Sweep ranges are refused before any list is built
(huge, infinite, underflowing steps, out of the parameter's bounds), ``--csv``/``--json`` targets are
checked before the sweep runs, and CSV cells a spreadsheet would run as formulas are neutralised.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from graphrag_ui.base import csv_cells
from graphrag_ui.base.errors import UserError
from graphrag_ui.cli import main
from graphrag_ui.model_client import client
from graphrag_ui.model_client.errors import LLMError
from graphrag_ui.model_client.settings import LLMSettings
from graphrag_ui.retrieval.ms.drift_search import loop
from graphrag_ui.services.sweep import MAX_STEPS, parse_values
from tests.support.llm_server import Reply, Script, default_reply, drift_reply, start_server

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample" / "en" / "index"
QUESTION = "Who directs the research station?"
TIGHT = ["--param", "drift_k_followups=4", "--param", "primer_folds=2", "--param", "n_depth=2"]
HUGE = "x" * 10_000_000  # the 10 MB expansion answer of the issue


@pytest.fixture()
def server(monkeypatch, tmp_path, no_network):
    stops = []

    def start(replies=None) -> Script:
        script = replies if isinstance(replies, Script) else Script(replies)
        url, stop = start_server(script)
        stops.append(stop)
        monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")
        monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-bounds")
        monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path))
        monkeypatch.setenv("GRAPHRAG_UI_LLM_MAX_RETRIES", "0")
        return script

    yield start
    for stop in stops:
        stop()


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def one_error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("error")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# --- every model call is bounded ---------------------------------------------------------------------

MESSAGES = [{"role": "user", "content": "Say ok"}]


def test_every_call_shape_sends_max_tokens(server):
    script = server([Reply(text="ok")])
    settings = LLMSettings.from_env_and_secrets()
    client.call(MESSAGES, settings)
    client.stream(MESSAGES, settings)
    asyncio.run(client.acall(MESSAGES, settings))

    async def drain() -> str:
        return "".join([p async for p in client.astream(MESSAGES, settings)])

    asyncio.run(drain())
    client.call(MESSAGES, settings, max_tokens=7)  # a caller may ask for fewer
    bodies = [r["body"] for r in script.requests if r["path"].endswith("/chat/completions")]
    assert len(bodies) == 5 and all(b.get("max_tokens") for b in bodies), bodies
    assert bodies[-1]["max_tokens"] == 7


@pytest.mark.parametrize("shape", ["call", "stream", "acall", "astream"])
def test_a_reply_past_its_limit_is_refused(server, shape, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MAX_TOKENS", "256")  # 4,096 characters
    server([Reply(text="word " * 200_000, chunk_size=4096)])  # 1 MB
    settings = LLMSettings.from_env_and_secrets()

    async def astream() -> str:
        return "".join([p async for p in client.astream(MESSAGES, settings)])

    calls = {
        "call": lambda: client.call(MESSAGES, settings),
        "stream": lambda: client.stream(MESSAGES, settings),
        "acall": lambda: asyncio.run(client.acall(MESSAGES, settings)),
        "astream": lambda: asyncio.run(astream()),
    }
    with pytest.raises(LLMError) as caught:
        calls[shape]()
    assert caught.value.kind == "too_long" and "max_tokens" in str(caught.value)
    if shape in ("stream", "astream"):
        assert len(getattr(caught.value, "partial", "")) <= 256 * 16 + 4096  # stopped reading at the limit


# --- DRIFT: capped, and loud when every local step failed ---------------------------------------------


def drift(*extra: str) -> tuple[int, dict | None, str]:
    code, out, err = run("query", "--index", str(SAMPLE), "--mode", "ms.drift", *TIGHT, "--json", *extra, QUESTION)
    try:
        return code, json.loads(out), err
    except ValueError:
        return code, None, err


def scripted(local=None, primer=None, expansion=None):
    """The default DRIFT script with the expansion, primer or local answers replaced."""

    def reply(body: dict) -> Reply:
        messages = body.get("messages") or []
        last = str(messages[-1].get("content", "")) if messages else ""
        system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
        if last.startswith("## Task\nWrite a hypothetical answer") and expansion is not None:
            return expansion
        if '"intermediate_answer"' in last and primer is not None:
            return primer
        if '"follow_up_queries"' in system and '"response"' in system and local is not None:
            return local(last) if callable(local) else local
        text = drift_reply(system, last)
        return Reply(text=text) if text is not None else default_reply(body)

    return reply


def test_a_10_mb_expansion_answer_fails_the_run_loudly(server):
    server(scripted(expansion=Reply(text=HUGE, chunk_size=1_000_000)))
    code, data, err = drift()
    assert code == 2 and data is not None and data["tree"]["status"] == "failed"
    assert "expansion call failed" in data["tree"]["note"]
    assert any("max_tokens" in c.get("error", "") for c in data["tree"]["calls"]), data["tree"]["calls"]


def test_follow_ups_are_capped_per_answer_and_nodes_per_run(server, monkeypatch):
    monkeypatch.setattr(loop, "MAX_NODES", 120)
    many = [f"Follow-up question number {i}?" for i in range(1500)]  # ~45k characters: within the limit
    primer = Reply(text=json.dumps({"intermediate_answer": "Primer.", "score": 60, "follow_up_queries": many}))

    def local(question: str) -> Reply:  # each answer's own follow-ups: the tree grows by 50 per step
        follow = [f"{question[-30:]} · {i}?" for i in range(1000)]
        return Reply(text=json.dumps({"response": "Local answer.", "score": 50, "follow_up_queries": follow}))

    server(scripted(local=local, primer=primer))
    code, data, err = drift()
    assert code == 0 and data is not None, err[-500:]
    nodes = data["tree"]["nodes"]
    assert len(nodes) <= 120
    children = {}
    for edge in data["tree"]["edges"]:
        children[edge["source"]] = children.get(edge["source"], 0) + 1
    assert max(children.values()) <= loop.MAX_FOLLOW_UPS
    said = " ".join(data["warnings"])
    assert "#0 listed 3000 follow-up questions: only the first 50 were kept" in said  # two primer folds
    assert "listed 1000 follow-up questions: only the first 50 were kept" in said
    assert "the question tree reached 120 questions" in said


def test_a_follow_up_string_is_not_one_question_per_character(server):
    text = "abcdefghij" * 2_000  # GraphRAG iterates a string: 20,000 one-letter questions
    local = Reply(text=json.dumps({"response": "Local answer.", "score": 50, "follow_up_queries": text}))
    server(scripted(local=local))
    code, data, _ = drift()
    assert code == 0 and data is not None
    assert len(data["tree"]["nodes"]) <= loop.MAX_NODES


@pytest.mark.parametrize("fault", ["500", "hang"])
def test_every_local_call_failing_ends_loudly(server, monkeypatch, fault):
    monkeypatch.setenv("GRAPHRAG_UI_LLM_TIMEOUT", "2")
    failing = Reply(status=500, text="down") if fault == "500" else Reply(delay=6)
    server(scripted(local=failing))
    code, data, err = drift()
    assert code == 2 and data is not None and data["tree"]["status"] == "failed", err[-400:]
    assert "every local search call failed" in data["tree"]["note"]
    code, out, err = run("query", "--index", str(SAMPLE), "--mode", "ms.drift", *TIGHT, QUESTION)
    assert code == 2 and "every local search call failed" in one_error(err)


# --- sweep ranges and outputs -------------------------------------------------------------------------

BAD_RANGES = {
    "1:100000000:1": "100,000,000 steps",
    "0:inf:0.1": "not a finite number",
    "0:1e300:1e-300": "∞ steps",
    "0:1:1e-9": "steps, more than",
    "nan:1:0.1": "not a finite number",
    "1,2,inf": "not a finite number",
    ",".join(["1"] * 100_000): "steps, more than",
    "1:" + "9" * 5000 + ":1": "cannot read",
    "0:1:0": "STEP above 0",
    "5:1:1": "START ≤ STOP",
    "1:2": "cannot read",
}


@pytest.mark.parametrize("text", list(BAD_RANGES), ids=lambda t: t[:24])
def test_a_sweep_range_is_refused_before_any_list_is_built(text):
    kind = "int" if text.startswith(("1:1", "1:9", "5:")) else "float"
    with pytest.raises(UserError) as caught:
        parse_values(kind, text)
    assert BAD_RANGES[text] in str(caught.value) and len(str(caught.value)) < 400


@pytest.mark.parametrize(
    "param", ["top_k=1:100000000:1", "top_k=0:1e300:1e-300", "top_k=-5:10:5", "max_token_for_text_unit=0:inf:1"]
)
def test_sweep_cli_says_one_line(param):
    code, _, err = run("sweep", "--index", str(SAMPLE), "--mode", "nano.local", "--param", param, QUESTION)
    assert code != 0 and "sweep top_k" not in err
    one_error(err)


@pytest.mark.parametrize("flag", ["--csv", "--json"])
@pytest.mark.parametrize("target", ["folder", "missing/sweep.csv"])
def test_sweep_outputs_are_checked_before_the_sweep_runs(tmp_path, flag, target):
    where = tmp_path if target == "folder" else tmp_path / target
    code, _, err = run(
        "sweep", "--index", str(SAMPLE), "--mode", "nano.local", "--param", "top_k=5:10:5", flag, str(where), QUESTION
    )
    assert code != 0 and "sweep top_k:" not in err  # no step ran
    assert flag in one_error(err)


def test_sweep_range_in_the_view_is_one_line(app):
    at = app(index="sample:en", mode="nano.local", q=QUESTION)
    from tests.ui.test_app import open_view

    open_view(at, "sweep")
    at.number_input(key="main_sweep_top_k_from").set_value(0).run()
    at.number_input(key="main_sweep_top_k_to").set_value(10**9).run()
    at.number_input(key="main_sweep_top_k_step").set_value(1).run()
    at.button(key="main_sweep_run").click().run()
    assert not at.exception
    assert any("steps, more than" in e.value for e in at.error), [e.value for e in at.error]
    assert len(at.error) == 1 and str(MAX_STEPS) in at.error[0].value


# --- CSV cells -----------------------------------------------------------------------------------------

FORMULAS = ['=HYPERLINK("http://127.0.0.1:9/x","click")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "a\r=1"]


def test_csv_cells_that_start_a_formula_are_text():
    import pandas as pd

    rows = pd.DataFrame({"name": [*FORMULAS, "plain"], "score": [-1.5] * 7})
    text = csv_cells.text(rows)
    read = list(csv.reader(io.StringIO(text, newline="")))
    assert all(r[0].startswith("'") for r in read[1:6]) and read[6][0] == "a\r=1" and read[7][0] == "plain"
    assert all(r[1] == "-1.5" for r in read[1:])  # numbers stay numbers
