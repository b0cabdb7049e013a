"""The optional judge end to end against the local OpenAI-compatible test server: answers and verdicts,
the cost said first, every read call cached (a second run asks only for what could not be read), an
unreadable reply counted as unreadable and never as a score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag_ui import cli
from graphrag_ui.evaluation.judge import OK, UNREADABLE, read_verdict
from graphrag_ui.evaluation.judge_prompts import judge_messages
from tests.support.llm_server import Reply, Script, start_server  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample" / "en"
QUESTIONS = [
    {"id": "a", "question": "Who is the Lock Queen?", "answer": "Ysolde Varrick", "evidence_entities": ["Lock Queen"]},
    {"id": "b", "question": "Who founded Marrowick?", "answer": "Maud Tamsin", "evidence_entities": ["Maud Tamsin"]},
    {"id": "c", "question": "Who won the Heron Cup in 412 AC?", "evidence_entities": ["Grey Lady"]},
]


def _reply(body: dict) -> Reply:
    system = body["messages"][0]["content"]
    user = body["messages"][-1]["content"]
    if system.startswith("You grade"):
        good = "Ysolde" in user.split("Answer to grade:")[-1]
        verdict = "correct" if good else "incorrect"
        return Reply(text=json.dumps({"verdict": verdict, "reason": "compared with the reference"}))
    if system.startswith("You check whether"):
        if "Who won the Heron Cup" in user:
            return Reply(text="Looks fine to me, mostly supported I would say.")  # no JSON: unreadable
        return Reply(text='```json\n{"verdict": "faithful", "reason": "every claim is in the context"}\n```')
    return Reply(text="The Lock Queen is Ysolde Varrick." if "Lock Queen" in user else "Someone else.")


@pytest.fixture()
def judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_network):
    script = Script(_reply)
    url, stop = start_server(script)
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/judge-test")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", url)
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    yield script, questions, tmp_path
    stop()


def _eval(questions: Path, out: Path, *extra: str) -> list[str]:
    return ["eval", "--index", str(SAMPLE / "index"), "--questions", str(questions), "--mode", "nano.local"]


def test_judge_end_to_end_with_cache_and_an_unreadable_reply(judged, capsys: pytest.CaptureFixture) -> None:
    script, questions, tmp = judged
    out = tmp / "rows.json"
    argv = _eval(questions, out) + ["--json", str(out), "--judge"]
    assert cli.main(argv) == 0
    err = capsys.readouterr().err
    assert "judge (judge-1, openai/judge-test): 3 row(s), at most 8 call(s) (0 answer(s) cached)" in err
    assert "cost unknown (no price for this model)" in err
    assert "correctness: mean 0.500 (read 2, unreadable 0, failed 0, skipped 1)" in err
    assert "faithfulness: mean 1.000 (read 2, unreadable 1, failed 0, skipped 0)" in err
    rows = {r["id"]: r["judge"] for r in json.loads(out.read_text())["rows"]}
    assert rows["a"]["answer"] == "The Lock Queen is Ysolde Varrick."
    assert (rows["a"]["correctness"]["status"], rows["a"]["correctness"]["score"]) == (OK, 1.0)
    assert (rows["b"]["correctness"]["status"], rows["b"]["correctness"]["score"]) == (OK, 0.0)
    unreadable = rows["c"]["faithfulness"]
    assert (unreadable["status"], unreadable["score"]) == (UNREADABLE, None)
    assert unreadable["raw"].startswith("Looks fine")
    first = len(script.requests)
    assert first == 8  # 3 answers, 2 correctness, 3 faithfulness

    assert cli.main(argv) == 0
    err = capsys.readouterr().err
    assert "(3 answer(s) cached)" in err
    assert "faithfulness: mean 1.000 (read 2, unreadable 1, failed 0, skipped 0)" in err
    assert len(script.requests) - first == 1  # only the unreadable judgement is asked again: it was never cached
    rows = {r["id"]: r["judge"] for r in json.loads(out.read_text())["rows"]}
    assert rows["a"]["answer_cached"] and rows["a"]["correctness"]["cached"]


def test_csv_has_the_judge_columns(judged, capsys: pytest.CaptureFixture) -> None:
    _, questions, tmp = judged
    assert cli.main(_eval(questions, tmp) + ["--csv", "-", "--judge"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split(",")
    assert header[-4:] == ["correctness", "correctness_status", "faithfulness", "faithfulness_status"]
    assert lines[3].endswith(",,skipped,,unreadable")


def test_the_budget_refuses_before_any_call(judged, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    script, questions, tmp = judged
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/gpt-4o-mini")  # a priced model
    assert cli.main(_eval(questions, tmp) + ["--judge", "--judge-budget", "0"]) == 2
    err = capsys.readouterr().err
    assert "more than --judge-budget 0" in err and "Traceback" not in err
    assert script.requests == []


def test_no_model_is_one_line_before_anything_runs(tmp_path: Path, monkeypatch, capsys, no_network) -> None:
    monkeypatch.delenv("GRAPHRAG_UI_LLM_MODEL", raising=False)
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps(QUESTIONS[0]) + "\n")
    assert cli.main(_eval(questions, tmp_path) + ["--judge"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: --judge needs a model, and none is configured — set GRAPHRAG_UI_LLM_MODEL (and its key), or run without --judge"
    ]


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ('{"verdict": "correct", "reason": "ok"}', OK),
        ('```json\n{"verdict": "Partially Correct"}\n```', OK),
        ('{"verdict": "probably"}', UNREADABLE),
        ('{"verdict": ["correct"]}', UNREADABLE),
        ("correct", UNREADABLE),
        ("", UNREADABLE),
        ('{"verdict": "correct"' + " " * 5000 + "}", UNREADABLE),
        ("[" * 10_000, UNREADABLE),
    ],
)
def test_read_verdict_is_strict(text: str, status: str) -> None:
    assert read_verdict("correctness", text).status == status


def test_prompt_fields_are_data() -> None:
    messages = judge_messages("correctness", question="{answer}", reference="{context}", answer="A {question}")
    assert (
        messages[1]["content"]
        == "Question:\n{answer}\n\nReference answer:\n{context}\n\nAnswer to grade:\nA {question}"
    )


def test_score_answer_is_the_hook_for_model_free_answer_scores(judged) -> None:
    from graphrag_ui.evaluation.formats import load_questions
    from graphrag_ui.evaluation.judge import judge_run
    from graphrag_ui.evaluation.plan import EvalPlan
    from graphrag_ui.evaluation.runner import run_evaluation
    from graphrag_ui.index.store_load import load
    from graphrag_ui.model_client.settings import LLMSettings

    _, questions, _ = judged
    index, qs = load(SAMPLE / "index"), load_questions(questions)
    run = run_evaluation(index, qs, EvalPlan(["nano.naive"]))
    seen = []

    def citations(text: str, result) -> dict[str, float]:
        seen.append((text, result.mode))
        return {"citation_precision": 0.5}

    judgements = judge_run(index, qs, run, LLMSettings.from_env_and_secrets(), score_answer=citations, concurrency=2)
    assert [j.extra for j in judgements] == [{"citation_precision": 0.5}] * 3
    assert sorted(seen) == sorted(
        [("Someone else.", "nano.naive")] * 2 + [("The Lock Queen is Ysolde Varrick.", "nano.naive")]
    )
