"""The Evaluate page's run: started in the background (``background.Job``), its progress polled with a
**Stop**, then its results behind one switch — the settings (table and chart), two settings paired, and
one question item by item.

The run is ``evaluation.runner.run_evaluation`` over the loaded set and the plan, context only. A stopped
run keeps the questions it finished, and says how many of how many; a setting that failed on a question
is listed with its reason (never a lost row).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from graphrag_ui.base.i18n import msg
from graphrag_ui.evaluation.plan import EvalPlan
from graphrag_ui.evaluation.runner import EvalRun, run_evaluation
from graphrag_ui.evaluation.stats import aggregate
from graphrag_ui.index.model import Index
from graphrag_ui.ui.evaluate import eval_drill, eval_results
from graphrag_ui.ui.evaluate.eval_set import Loaded
from graphrag_ui.ui.shell import background
from graphrag_ui.ui.shell.language import in_this_language, t, translate
from graphrag_ui.ui.widgets import url_choice

JOB = "_ev_job"
VIEWS = {"settings": msg("Settings"), "paired": msg("Paired"), "question": msg("Per question")}


def run_view(index: Index, index_key: str, current: Loaded | None, plan: EvalPlan | None, signature: str) -> None:
    job: background.Job | None = st.session_state.get(JOB)
    wanted = repr((index_key, current.origin if current else None, signature))
    ready = current is not None and plan is not None
    busy = bool(job and job.running)
    if st.button(t("Evaluate"), key="ev_run", type="primary", disabled=not ready or busy, icon=":material/play_arrow:"):
        if not (job and job.running):  # a click that reached the server before the page redrew
            _start(index, current, plan, wanted)
        st.rerun()  # draw the page with the button disabled and the progress polled
    if job is None:
        return
    background.progress_view(job, "ev", lambda j: _progress_text(j))
    if job.running:
        return
    if job.error is not None:
        st.error(t("The evaluation failed: {error}", error=background.error_line(job.error)))
        return
    run: EvalRun = job.result
    if job.signature != wanted:
        st.caption(t("These are the results of the last evaluation; run it again for the choices above."))
    _said(run)
    if not run.rows:
        st.info(t("The evaluation was stopped before its first question."))
        return
    questions = job.kept["questions"]
    url_choice.seed("ev_view", list(VIEWS), "settings")
    view = st.segmented_control(
        t("Results"),
        list(VIEWS),
        key="ev_view",
        required=True,
        format_func=in_this_language(lambda v: translate(VIEWS[v])),
        label_visibility="collapsed",
    )
    url_choice.sync("ev_view", view)
    if view == "paired":
        eval_results.paired_view(run, {q.id: q.question for q in questions})
    elif view == "question":
        eval_drill.drill_down(run, questions)
    else:
        summaries = _summaries(job)
        eval_results.recall_chart(summaries)
        eval_results.summary_table(summaries)


def _start(index: Index, current: Loaded, plan: EvalPlan, signature: str) -> background.Job:
    total = len(current.questions.questions) * len(plan.configs())
    job = background.Job(signature, total)
    st.session_state[JOB] = job
    questions = current.questions
    job.kept["questions"] = list(questions.questions)  # the set may change on the page while this one runs
    return job.start(
        lambda progress, cancelled: run_evaluation(index, questions, plan, progress=progress, cancelled=cancelled),
        name="evaluate",
    )


def _progress_text(job: background.Job) -> str:
    return t("Evaluating: {done} of {total} runs (question × setting)", done=job.done, total=job.total)


def _summaries(job: background.Job) -> list:
    """``aggregate`` once per finished run (its bootstrap is the slow part of a redraw)."""
    if "summaries" not in job.kept:
        job.kept["summaries"] = aggregate(job.result)
    return job.kept["summaries"]


def _said(run: EvalRun) -> None:
    """How much ran and how long it took; a stopped run and every failed setting said."""
    line = t(
        "{questions} questions × {configs} settings in {seconds} s",
        questions=run.questions,
        configs=len(run.configs),
        seconds=f"{run.seconds:.1f}",
    )
    st.caption(line)
    if run.cancelled:
        st.warning(
            t("Stopped: the results hold the first {n} questions only.", n=run.questions),
            icon=":material/stop_circle:",
        )
    if run.errors:
        st.warning(t("{n} runs failed; each is listed below.", n=len(run.errors)), icon="⚠️")
        st.dataframe(
            pd.DataFrame(run.errors, columns=["id", "setting", "error"]),
            hide_index=True,
            width="stretch",
            key="ev_errors",
            column_config={"id": t("id"), "setting": t("setting"), "error": t("error")},
        )
