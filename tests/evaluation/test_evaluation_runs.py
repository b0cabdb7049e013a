"""Runs over modes × a range (serial and on processes, the same rows), cancel and progress, keywords once per
question; the statistics on hand-made rows; property tests of recall."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import wilcoxon

from graphrag_ui.evaluation import runner
from graphrag_ui.evaluation.export import records
from graphrag_ui.evaluation.formats import load_questions
from graphrag_ui.evaluation.gold import GoldItem, Question, QuestionSet
from graphrag_ui.evaluation.metrics import ItemResult, RowMetrics, evaluate
from graphrag_ui.evaluation.plan import Config, EvalPlan
from graphrag_ui.evaluation.runner import EvalRun, processes, run_evaluation
from graphrag_ui.evaluation.stats import aggregate, all_fixes, bootstrap, paired, pareto, smallest_fix
from graphrag_ui.index.store_load import load
from graphrag_ui.services.query import run_query

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample" / "en"
INDEX = load(SAMPLE / "index")
QUESTIONS = load_questions(SAMPLE / "questions.jsonl")


def _subset(n: int) -> QuestionSet:
    return QuestionSet("subset", QUESTIONS.questions[:n])


def _plan() -> EvalPlan:
    return EvalPlan(["nano.local", "lightrag.hybrid", "ms.basic"], "top_k", [3, 12], param_names={"ms.basic": "k"})


def _comparable(run: EvalRun) -> list[dict]:
    out = []
    for row in run.rows:
        data = asdict(row)
        data.pop("ms")
        out.append(data)
    return out


def test_processes_give_the_serial_rows() -> None:
    serial = run_evaluation(INDEX, _subset(4), _plan())
    parallel = run_evaluation(INDEX, _subset(4), _plan(), executor=processes(str(SAMPLE / "index"), 2))
    assert len(serial.rows) == 4 * 6 and _comparable(parallel) == _comparable(serial)


OWN_NAMES = {"ms.local": "top_k_mapped_entities", "ms.basic": "k", "nano.global": "global_max_consider_community"}


def _every_mode_plan() -> EvalPlan:
    modes = runner.default_modes(INDEX)
    return EvalPlan(modes, "top_k", [2, 5, 20], param_names={m: n for m, n in OWN_NAMES.items() if m in modes})


def test_every_mode_on_processes_gives_the_serial_rows_and_the_single_runs() -> None:
    """The runner's shortcuts (widest step first, shared rankings and stages, a context normalised once) and
    the workers (one BLAS thread, a frozen heap) change no number: every mode and step, serial, on two
    processes and as one plain ``run_query`` + ``evaluate`` per config, outside any shared scope."""
    plan, questions = _every_mode_plan(), _subset(2)
    serial = run_evaluation(INDEX, questions, plan)
    parallel = run_evaluation(INDEX, questions, plan, executor=processes(str(SAMPLE / "index"), 2))
    assert len(plan.configs()) >= 30 and len(serial.rows) == 2 * len(plan.configs()) and not serial.errors
    assert _comparable(parallel) == _comparable(serial) and parallel.errors == serial.errors
    single = []
    for q in questions.questions:
        for config in plan.configs():
            row = evaluate(INDEX, runner.retrieval_for(INDEX, q, config, plan), q)
            row.config = config
            single.append(row)
    assert _comparable(serial) == _comparable(EvalRun("single", plan, plan.configs(), single))


def test_keywords_once_per_question_and_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = runner.resolve_keywords
    monkeypatch.setattr(runner, "resolve_keywords", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    seen = []
    run = run_evaluation(INDEX, _subset(3), _plan(), progress=lambda done, total: seen.append((done, total)))
    assert calls == [q.question for q in _subset(3).questions]  # lightrag.hybrid at two steps: one extraction
    assert seen == [(6, 18), (12, 18), (18, 18)] and not run.cancelled


def test_cancel_keeps_what_ran() -> None:
    asked = []
    run = run_evaluation(INDEX, _subset(4), _plan(), cancelled=lambda: asked.append(1) or len(asked) >= 2)
    assert run.cancelled and run.questions == 2 and {r.question_id for r in run.rows} == {"en-01", "en-02"}


def test_a_bug_in_one_mode_is_an_error_row_not_a_lost_run(monkeypatch: pytest.MonkeyPatch) -> None:
    real = runner.run_query
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret1234567890abcdef")  # a secret this process knows

    def flaky(index, mode, *args, **kwargs):
        if mode == "nano.local":
            raise KeyError("sk-secret1234567890abcdef")
        return real(index, mode, *args, **kwargs)

    monkeypatch.setattr(runner, "run_query", flaky)
    run = run_evaluation(INDEX, _subset(2), EvalPlan(["nano.local", "nano.naive"]))
    assert [r.mode for r in run.rows] == ["nano.naive", "nano.naive"]
    assert [(q, c) for q, c, _ in run.errors] == [("en-01", "nano.local"), ("en-02", "nano.local")]
    assert (
        run.errors[0][2].startswith("internal error KeyError:") and "sk-secret1234567890abcdef" not in run.errors[0][2]
    )


def test_a_mode_without_the_parameter_runs_once_and_says_so() -> None:
    plan = EvalPlan(["nano.local", "ms.local"], "top_k", [5, 10])
    assert [c.key for c in plan.configs()] == ["nano.local top_k=5", "nano.local top_k=10", "ms.local"]
    assert "ms.local has no numeric parameter top_k" in plan.notes[0]


def _row(qid: str, config: Config, recall: float, tokens: int, found: bool = False) -> RowMetrics:
    item = ItemResult(GoldItem("entity", "X"), found)
    row = RowMetrics(qid, config.mode, {}, recall, None, recall == 1, None, None, None, tokens, None, [item])
    row.config = config
    return row


def test_bootstrap_pareto_paired_and_smallest_fix_on_hand_rows() -> None:
    assert bootstrap([1.0, 1.0, 1.0]) == bootstrap([1.0, 1.0, 1.0]) and bootstrap([1.0] * 3).low == 1.0
    b = bootstrap([0.0, 1.0, 0.5, 0.5])
    assert b.mean == 0.5 and 0.0 <= b.low < 0.5 < b.high <= 1.0 and b == bootstrap([0.0, 1.0, 0.5, 0.5])
    a5, a10, a20 = (Config("m", "", "top_k", v) for v in (5, 10, 20))
    other = Config("n")
    recalls = {a5: [0.0, 0.5, 1.0, 0.0, 0.5], a10: [0.5, 0.5, 1.0, 1.0, 1.0], a20: [0.5, 0.5, 1.0, 1.0, 1.0]}
    tokens = {a5: 100, a10: 200, a20: 400, other: 150}
    rows = [_row(f"q{i}", c, r, tokens[c], found=r == 1.0) for c, rs in recalls.items() for i, r in enumerate(rs)]
    rows += [_row(f"q{i}", other, 0.2, 150) for i in range(5)]
    run = EvalRun("s", EvalPlan(["m", "n"]), [a5, a10, a20, other], rows)
    summaries = aggregate(run)
    assert [s.config for s in pareto(summaries)] == [a5, a10]  # a20: same recall for more; n: less for more
    assert [s.pareto for s in summaries] == [True, True, False, False]
    p = paired(run, a10, a5)
    assert (p.wins, p.losses, p.ties, p.n) == (3, 0, 2, 5)
    assert [q for q, _, _ in p.flips] == ["q0", "q3", "q4"]
    direct = wilcoxon([0.5, 0.5, 1.0, 1.0, 1.0], [0.0, 0.5, 1.0, 0.0, 0.5], zero_method="wilcox")
    assert p.p_value == pytest.approx(direct.pvalue) and p.mean_difference == pytest.approx(0.4)
    assert paired(run, a10, a20).p_value is None  # nothing differs: no test
    fix = smallest_fix(run, "q0", GoldItem("entity", "X"), a5)
    assert fix is None  # q0 is found at no step (recall 0.5 at 10 and 20)
    fix = smallest_fix(run, "q3", GoldItem("entity", "X"), a5)
    assert (fix.to, fix.tokens_at, fix.tokens_to, fix.token_cost) == (a10, 100, 200, 100)


def test_smallest_fix_on_the_sample() -> None:
    plan = EvalPlan(["lightrag.hybrid"], "top_k", [2, 5, 20])
    run = run_evaluation(INDEX, _subset(1), plan)
    at = Config("lightrag.hybrid", "", "top_k", 2)
    (row,) = [r for r in run.rows if r.config == at]
    missed = [r.item for r in row.items if not r.found]
    fixes = [f for f in (smallest_fix(run, "en-01", item, at) for item in missed) if f is not None]
    assert fixes, "top_k 2 misses something a larger top_k brings in"
    for fix in fixes:
        later = next(r for r in run.rows if r.config == fix.to)
        assert any(r.found and r.item == fix.item for r in later.items)
        assert fix.to.value == 5 and fix.token_cost == later.context_tokens - row.context_tokens


def test_all_fixes_equal_smallest_fix_item_by_item() -> None:
    run = run_evaluation(INDEX, _subset(3), EvalPlan(["nano.local", "lightrag.hybrid"], "top_k", [2, 5, 20]))
    fixes = all_fixes(run)
    expected = {
        (row.question_id, row.config, r.item): smallest_fix(run, row.question_id, r.item, row.config)
        for row in run.rows
        for r in row.items
        if not r.found
    }
    assert fixes and fixes == {k: v for k, v in expected.items() if v is not None}
    rows = records(run)
    assert any(" → top_k=" in r["missed"] and " tokens)" in r["missed"] for r in rows)


GOLD_NAMES = [e.name for e in INDEX.entities] + ["Lock Queen", "Nobody at all"]
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(
    st.lists(st.sampled_from(GOLD_NAMES), min_size=1, max_size=6),
    st.lists(st.text(min_size=1, max_size=30), max_size=3),
    st.sampled_from(["nano.local", "nano.naive", "lightrag.hybrid", "ms.local"]),
)
def test_recall_is_a_share(names: list[str], texts: list[str], mode: str) -> None:
    q = Question("q", "Who keeps the Varrick Sluice?", evidence=texts, evidence_entities=names, answer=" ".join(texts))
    row = evaluate(INDEX, run_query(INDEX, mode, q.question), q)
    for value in (row.evidence_recall, row.entity_recall, row.answer_token_recall, row.unused_token_share):
        assert value is None or 0.0 <= value <= 1.0
    assert row.all_evidence == (row.evidence_recall == 1.0)


@SETTINGS
@given(
    st.sampled_from([q.question for q in QUESTIONS.questions]),
    st.integers(min_value=1, max_value=40),
    st.integers(min_value=1, max_value=40),
)
def test_a_larger_top_k_never_loses_a_recalled_entity_in_nano_local(question: str, k1: int, grow: int) -> None:
    gold = Question("q", question, evidence_entities=GOLD_NAMES)
    small = evaluate(INDEX, run_query(INDEX, "nano.local", question, {"top_k": k1}), gold)
    large = evaluate(INDEX, run_query(INDEX, "nano.local", question, {"top_k": k1 + grow}), gold)
    lost = {r.item.value for r in small.items if r.found} - {r.item.value for r in large.items if r.found}
    assert not lost
