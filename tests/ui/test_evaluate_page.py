"""The Evaluate page headless (AppTest): a set loaded, bundled or uploaded (bad lines skipped or refused, a
huge or binary file refused), two modes over a range run in the background, the table, chart and paired
view, the drill-down's one-click fix into Explore with the item's row marked, and every link value the page
cannot use said. Hostile text in a question or its evidence stays data."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from graphrag_ui.base.errors import UserError
from graphrag_ui.evaluation.formats import load_questions
from graphrag_ui.evaluation.plan import EvalPlan
from graphrag_ui.evaluation.runner import run_evaluation
from graphrag_ui.evaluation.stats import smallest_fix
from graphrag_ui.index import store
from graphrag_ui.services.query import run_query
from graphrag_ui.ui.evaluate.eval_run_view import JOB
from graphrag_ui.ui.evaluate.eval_set import MAX_UPLOAD_MB, read_upload
from graphrag_ui.ui.shell import background
from tests.support.ui_fixtures import SCRIPT_NAME, SVG_NAME, plain  # noqa: E402
from tests.ui.test_app import tab_counts  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RAW_TAG = re.compile(r"(?<!\\)<(script|img|svg)", re.I)
EN_SET = ROOT / "data" / "sample" / "en" / "questions.jsonl"


def evaluate_page(app, **params: str) -> AppTest:
    return app("pages/evaluate.py", index="sample:en", **params)


def finish(at: AppTest, timeout_s: float = 120) -> AppTest:
    """Rerun until the background job is over (the page polls it; AppTest runs the page by hand)."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        job = at.session_state[JOB] if JOB in at.session_state else None
        if job is None or not job.running:
            break
        time.sleep(0.2)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.segmented_control(key="ev_source").set_value("upload").run()
    at.file_uploader(key="ev_file").set_value((name, data, "application/json")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def grid(at: AppTest, column: str):
    """The first data grid with ``column`` (AppTest's data frames carry no key)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def texts(at: AppTest) -> list[str]:
    return [e.value for kind in ("caption", "markdown", "warning", "error", "info") for e in at.get(kind)]


def test_the_bundled_set_over_two_modes_and_a_range(app):
    at = evaluate_page(app)
    assert any("14 questions" in c.value for c in at.caption), [c.value for c in at.caption]
    at.multiselect(key="ev_modes").set_value(["nano.local", "nano.naive"]).run()
    at.number_input(key="ev_from").set_value(5).run()
    at.number_input(key="ev_to").set_value(15).run()
    at.number_input(key="ev_step").set_value(5).run()
    at.button(key="ev_run").click().run()
    finish(at)
    table = grid(at, "frontier")
    assert list(table["setting"]) == ["top_k=5", "top_k=10", "top_k=15"] * 2
    # the page's numbers are the evaluation's own: recompute one setting here
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    questions = load_questions(EN_SET)
    direct = run_evaluation(index, questions, EvalPlan(["nano.local"], "top_k", [10]))
    mean = sum(r.evidence_recall for r in direct.rows) / len(direct.rows)
    shown = table[(table["mode"] == "nano.local") & (table["setting"] == "top_k=10")]["evidence_recall"].iloc[0]
    assert shown == pytest.approx(mean, abs=1e-3)
    assert (table["frontier"] == "★").any()

    at.segmented_control(key="ev_view").set_value("paired").run()
    assert not at.exception
    labels = [m.label for m in at.metric]
    assert labels[:4] == ["A wins", "B wins", "ties", "p-value"]
    wins, losses, ties = (int(m.value) for m in at.metric[:3])
    assert wins + losses + ties == 14


def test_the_one_click_fix_opens_explore_with_the_item_in_the_context(app):
    at = evaluate_page(app, ev_modes="nano.local", ev_param="top_k", ev_from="2", ev_to="20", ev_step="6")
    at.button(key="ev_run").click().run()
    finish(at)
    at.segmented_control(key="ev_view").set_value("question").run()
    run = at.session_state[JOB].result
    row, n, fix = next(
        (row, n, fix)
        for row in run.rows
        for n, item in enumerate(row.items)
        if not item.found and (fix := smallest_fix(run, row.question_id, item.item, row.config)) is not None
    )
    at.selectbox(key="ev_q").set_value(row.question_id).run()
    at.selectbox(key="ev_cfg").set_value(row.config.key).run()
    items = grid(at, "found")
    assert items.iloc[n]["found"] == "✗" and items.iloc[n]["why"] and items.iloc[n]["fix"].endswith(f"→ {fix.to.value}")
    at.button(key=f"ev_fix_{n}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    # Explore: that question, that mode and value, the item's row marked and the recall said
    assert at.selectbox(key="mode").value == "nano.local"
    assert at.slider(key="nano_top_k").value == fix.to.value
    question = next(q for q in load_questions(EN_SET).questions if q.id == row.question_id)
    assert at.text_area(key="q").value == question.question
    assert any(c.value.startswith(f"gold ({row.question_id}): ") for c in at.caption)
    marked = [f for f in (d.value for d in at.dataframe) if "gold" in f.columns]
    followed = [lab for f in marked for lab, m in zip(f["label"], f["gold"], strict=True) if m == "★ gold, followed"]
    assert followed, "the followed item's row is marked"
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    result = run_query(index, "nano.local", question.question, {"top_k": fix.to.value})
    assert sum(tab_counts(at).values()) == sum(
        len(result.selected_ids(k)) for k in ("entities", "relations", "communities", "chunks")
    )


BROKEN = b'{"id": "a", "question": "Who founded the Guild of Tidewrights?", "evidence_entities": ["Anselm Varrick"]}\n{oops\n[1, 2]\n'


def test_a_broken_line_is_named_and_skipped_or_the_file_refused(app):
    at = upload(evaluate_page(app), "mine.jsonl", BROKEN)
    assert any("mine.jsonl: 1 questions" in c.value for c in at.caption)
    skipped = grid(at, "what")
    assert list(skipped["line"]) == [2, 3]
    assert "not JSON" in skipped["what"].iloc[0] and "JSON object" in skipped["what"].iloc[1]
    at.radio(key="ev_bad").set_value("refuse").run()
    assert any("2 bad record(s): line 2" in e.value for e in at.error), [e.value for e in at.error]
    assert at.button(key="ev_run").disabled  # nothing loaded: nothing to run


def test_a_huge_or_binary_file_is_refused_with_what_to_do(app):
    with pytest.raises(UserError, match=f"more than {MAX_UPLOAD_MB} MB"):
        read_upload("big.jsonl", b"x" * (MAX_UPLOAD_MB * 1024 * 1024 + 1))
    with pytest.raises(UserError, match="binary"):
        read_upload("img.jsonl", b"\x89PNG\x00\x00")
    with pytest.raises(UserError, match="not UTF-8"):
        read_upload("latin.jsonl", '{"id": "a", "question": "café"}'.encode("latin-1"))
    at = upload(evaluate_page(app), "big.jsonl", b" " * (MAX_UPLOAD_MB * 1024 * 1024 + 1))
    assert any("more than 16 MB" in e.value and "smaller file" in e.value for e in at.error)
    assert at.button(key="ev_run").disabled


def test_hostile_text_in_a_question_and_its_evidence_stays_data(app):
    lines = [
        {"id": SVG_NAME, "question": f"Who keeps {SCRIPT_NAME} the harbour?", "evidence": [SCRIPT_NAME, "Mara Quay"]},
        {"id": "q2", "question": "Who founded the Guild of Tidewrights?", "evidence_entities": [SVG_NAME]},
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    at = upload(
        evaluate_page(app, ev_modes="nano.local", ev_param="top_k", ev_from="5", ev_to="10", ev_step="5"),
        "<b>evil</b>.jsonl",
        data,
    )
    at.button(key="ev_run").click().run()
    finish(at)
    at.segmented_control(key="ev_view").set_value("question").run()
    for qid, asked in ((SVG_NAME, lines[0]["question"]), ("q2", lines[1]["question"])):
        at.selectbox(key="ev_q").set_value(qid).run()
        assert not at.exception
        assert asked in [t.value for t in at.text]  # the question as plain text, whole
        for text in texts(at):
            assert not RAW_TAG.search(text), text
    at.switch_page("pages/explore.py").run()  # Explore with the hostile set loaded: its gold column
    at.text_area(key="q").set_value(lines[0]["question"]).run()
    assert not at.exception, [e.value for e in at.exception]
    gold = [d for d in at.dataframe if "gold" in d.value.columns]
    assert gold, "the hostile question is the set's: its gold column is drawn"
    for d in gold:
        help_text = json.loads(d.proto.columns)["gold"]["help"]
        assert "svg onload" in help_text and not RAW_TAG.search(help_text), help_text  # named, as data
    for text in texts(at):
        assert not RAW_TAG.search(text), text


@pytest.mark.parametrize(
    ("link", "notice"),
    [
        ({"ev_modes": "nano.locl"}, "The link's ev_modes=nano.locl is not a retrieval mode (did you mean nano.local?)"),
        (
            {"ev_param": "top_kk"},
            "The link's ev_param=top_kk is not a parameter of the chosen modes (did you mean top_k?)",
        ),
        ({"ev_to": "abc"}, "The link's ev_to=abc cannot be used here"),
    ],
)
def test_a_link_value_the_page_cannot_use_is_said(app, link, notice):
    at = evaluate_page(app, **link)
    warnings = [w.value for w in at.warning]
    assert any(notice in re.sub(r"\\(.)", r"\1", w) for w in warnings), warnings


@pytest.mark.parametrize(
    ("link", "error"),
    [
        ({"ev_from": "1", "ev_to": "100000", "ev_step": "1"}, "more than 200"),
        ({"ev_from": "0", "ev_to": "10", "ev_step": "5"}, "top_k=0 is below its minimum 1"),
        ({"ev_from": "10", "ev_to": "5", "ev_step": "1"}, "needs START ≤ STOP"),
        ({"ev_from": "1", "ev_to": "10", "ev_step": "0"}, "a STEP above 0"),
        ({"ev_from": "1", "ev_to": "1e308", "ev_step": "1"}, "more than 200"),
    ],
)
def test_a_range_that_cannot_run_is_refused_before_running(app, link, error):
    at = evaluate_page(app, **link)
    assert any(error in plain(e.value) for e in at.error), [e.value for e in at.error]
    assert at.button(key="ev_run").disabled


def test_a_job_stops_when_asked_and_keeps_what_it_did():
    job = background.Job("x", total=100)

    def work(progress, cancelled):
        done = 0
        while not cancelled() and done < 10_000:
            done += 1
            progress(done, 100)
            time.sleep(0.001)
        return done

    job.start(work)
    while job.done < 3:
        time.sleep(0.01)
    job.cancelled = True
    job.thread.join(5)
    assert not job.running and 3 <= job.result < 10_000 and job.error is None


def test_a_failing_job_keeps_its_error_for_one_line():
    def work(progress, cancelled):
        raise RuntimeError("boom at https://user:hunter2@example.com/x\nsecond line")

    job = background.Job("x").start(work)
    job.thread.join(5)
    assert isinstance(job.error, RuntimeError)
    line = plain(background.error_line(job.error))
    assert line.startswith("RuntimeError: boom at ") and "hunter2" not in line and "second line" not in line


def test_explore_with_the_bundled_gold_marks_the_rows_and_says_the_recall(app):
    from graphrag_ui.evaluation.metrics import evaluate

    question = load_questions(EN_SET).questions[0]
    at = app(index="sample:en", mode="nano.local", q=question.question, gold="bundled")
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    metrics = evaluate(index, run_query(index, "nano.local", question.question, {}), question)
    found = sum(r.found for r in metrics.items)
    line = f"gold ({question.id}): {found} of {len(metrics.items)} evidence items in the context"
    assert line in [c.value for c in at.caption]
    marked = grid(at, "gold")
    entities = {p.id for r in metrics.items for p in r.where if p.kind == "entities"}
    assert set(marked[marked["gold"] == "★ gold"]["id"]) == entities and entities


@pytest.mark.parametrize(
    ("link", "notice"),
    [
        ({"gold": "mine"}, "The link's gold=mine is not a question set of this app (bundled)"),
        ({"gold": "bundled", "gold_q": "nope"}, "The link's gold_q=nope is no question of the set questions.jsonl"),
        ({"gold": "bundled", "gold_item": "99"}, "The link's gold_item=99 is no item of en-01"),
        ({"gold": "bundled", "gold_item": "abc"}, "The link's gold_item=abc is no item of en-01"),
    ],
)
def test_a_gold_link_value_explore_cannot_use_is_said(app, link, notice):
    question = load_questions(EN_SET).questions[0]
    at = app(index="sample:en", mode="nano.local", q=question.question, **link)
    warnings = [plain(w.value) for w in at.warning]
    assert any(notice in w for w in warnings), warnings


def test_a_mode_without_the_parameter_sweeps_its_own_when_asked(app):
    at = evaluate_page(app, ev_param="top_k", ev_from="5", ev_to="10", ev_step="5")
    at.multiselect(key="ev_modes").set_value(["nano.local", "ms.local"]).run()
    assert any("ms.local has no numeric parameter top_k: it runs once" in plain(c.value) for c in at.caption)
    assert any(c.value == "3 settings per question" for c in at.caption), [c.value for c in at.caption]
    at.selectbox(key="ev_as_ms.local").set_value("top_k_mapped_entities").run()
    assert any(c.value == "4 settings per question" for c in at.caption), [c.value for c in at.caption]
    at.button(key="ev_run").click().run()
    finish(at)
    table = grid(at, "frontier")
    assert list(table["setting"]) == ["top_k=5", "top_k=10", "top_k_mapped_entities=5", "top_k_mapped_entities=10"]


def test_stop_ends_a_running_evaluation_and_keeps_the_questions_it_finished(app, monkeypatch):
    from graphrag_ui.evaluation import runner

    real = runner.run_job

    def slow(index, job, llm_settings=None):
        time.sleep(0.4)  # a large index's question: long enough to press Stop while it runs
        return real(index, job, llm_settings)

    monkeypatch.setattr(runner, "run_job", slow)
    at = evaluate_page(app, ev_modes="nano.local", ev_param="top_k", ev_from="5", ev_to="10", ev_step="5")
    at.button(key="ev_run").click().run()
    assert at.session_state[JOB].running
    assert at.button(key="ev_run").disabled  # one run at a time
    assert at.get("progress"), "the progress bar is drawn while it runs"
    at.button(key="ev_stop").click().run()
    finish(at)
    job = at.session_state[JOB]
    assert job.result.cancelled and 0 < job.result.questions < 14
    assert any(f"the first {job.result.questions} questions only" in w.value for w in at.warning)
    assert set(grid(at, "frontier")["questions"]) == {job.result.questions}


def test_the_drill_down_and_the_pair_open_from_the_link(app):
    link = {"ev_modes": "nano.local", "ev_param": "top_k", "ev_from": "5", "ev_to": "15", "ev_step": "5"}
    at = evaluate_page(app, **link, ev_view="question", ev_q="en-03", ev_cfg="nano.local top_k=10")
    at.button(key="ev_run").click().run()
    finish(at)
    assert at.selectbox(key="ev_q").value == "en-03" and at.selectbox(key="ev_cfg").value == "nano.local top_k=10"
    at = evaluate_page(app, **link, ev_view="paired", ev_a="nano.local top_k=15", ev_b="nano.local top_k=5")
    at.button(key="ev_run").click().run()
    finish(at)
    assert (
        at.selectbox(key="ev_a").value == "nano.local top_k=15"
        and at.selectbox(key="ev_b").value == "nano.local top_k=5"
    )
