"""The Index page's view of server jobs (``graphrag_ui.services.jobs``): progress while they run, then done or failed.

Whoever opens the page — the tab that started a job, another one, or the same analyst after closing it —
sees the jobs: a re-embed on the open index; the imports and builds running on any folder and the last
one that ended. While one runs a small fragment polls it, so the rest of the page stays usable. A job's
thread has no session (no language, no picker), so an import or a build registers its index and keeps
what it made raw (``Made``); the analyst's own page, seeing the job done, opens the new index once, as
the page did when it ran the work itself; any other session is offered a button that opens it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.redact import redact
from graphrag_ui.services import jobs
from graphrag_ui.ui.shell import state
from graphrag_ui.ui.shell.escape import md_escape, shown_error
from graphrag_ui.ui.shell.language import t, translate

MINE, OPENED = "_jobs_mine", "_jobs_opened"  # session keys: ids of the jobs this session started / opened
POLL_S = 0.5


@dataclass(frozen=True)
class Made:
    """What an import or a build made, raw: each page says it in its own language."""

    key: str  # the sidebar picker's key the job registered the new index under
    counts: dict[str, int]
    warnings: tuple[object, ...] = ()
    found: str = ""  # the source kind an import detected


def start_job(kind: str, target: str, work: Callable[[jobs.Progress], object], detail: str) -> None:
    """Start the job, or say by name why not (a job already writing this folder)."""
    try:
        job = jobs.start(kind, target, work, detail)
    except UserError as exc:
        st.error(shown_error(exc))
        return
    st.session_state.setdefault(MINE, set()).add(job.id)


def open_now(key: str, detail: str = "") -> None:
    """Open the index ``key`` on the next run, with a line saying it is open (and what it holds)."""
    message = t(
        "Ready: {label} is open now (and listed in the sidebar picker).", label=md_escape(state.choice_label(key))
    )
    state.open_index_next_run(key, message + (f" {detail}" if detail else ""))
    st.rerun()


def _bars(job: jobs.Job, where=st) -> None:
    for stage, (done, total) in dict(job.stages).items():  # a copy: the job's thread adds stages meanwhile
        rate, eta = job.pace.get(stage, ("?/s", "?"))
        text = t(
            "{stage}: {done}/{total} · {rate} · {eta} left",
            stage=translate(stage),
            done=done,
            total=total,
            rate=rate,
            eta=eta,
        )
        where.progress(min(done / total, 1.0) if total else 1.0, text=text)


def _follow(live: list[jobs.Job], draw: Callable[[jobs.Job], None]) -> None:
    """The running jobs, redrawn by a polling fragment; once one has ended the whole page reruns to show it."""
    if not live:
        return

    def poll() -> None:
        if any(job.state != jobs.RUNNING for job in live):
            st.rerun()
        for job in live:
            draw(job)

    st.fragment(poll, run_every=POLL_S)()


def _error(job: jobs.Job) -> str:
    """The job's failure for Markdown: our message as said, anything else one escaped line (never a traceback)."""
    error = job.error
    if isinstance(error, UserError):
        return shown_error(error)
    return md_escape(redact(f"{type(error).__name__}: {error}"))


def job_status(kind: str, target: str) -> None:
    """The newest ``kind`` job on ``target``: bars per stage while it runs; its end once it ended."""
    found = jobs.jobs_for(target, kind)
    if not found:
        return
    job, what = found[0], translate(jobs.KINDS.get(kind, kind))

    def running(job: jobs.Job) -> None:
        st.caption(
            t(
                "{job} of this index is running on the server ({detail}); closing the tab does not stop it.",
                job=what,
                detail=md_escape(job.detail),
            )
        )
        _bars(job)

    if job.state == jobs.RUNNING:
        _follow([job], running)
    elif job.state == jobs.DONE:
        st.success(t("The last {job} of this index finished ({detail}).", job=what, detail=md_escape(job.detail)))
    else:
        st.error(t("The last {job} of this index failed: {error}", job=what, error=_error(job)))


def _running_made(job: jobs.Job) -> None:
    name = md_escape(Path(job.target).name)
    title = t("Importing {name}…", name=name) if job.kind == "import" else t("Building {name}…", name=name)
    box = st.status(title, state="running", expanded=True)  # not ``with``: leaving it would mark it complete
    box.caption(
        t(
            "From {detail}. It runs on the server: closing the tab does not stop it, and this page shows it "
            "to whoever opens it.",
            detail=md_escape(job.detail),
        )
    )
    _bars(job, box)


def _ended_made(job: jobs.Job, describe: Callable[[Made], str]) -> None:
    if job.state == jobs.FAILED:
        name = md_escape(Path(job.target).name)
        if job.kind == "import":
            st.error(t("Import into {name} failed: {error}", name=name, error=_error(job)))
        else:
            st.error(t("Building {name} failed: {error}", name=name, error=_error(job)))
        return
    made: Made = job.result
    label = md_escape(state.choice_label(made.key))
    if job.kind == "import":
        said = t("{name} was imported on the server: {detail}.", name=label, detail=describe(made))
    else:
        said = t("{name} was built on the server: {detail}.", name=label, detail=describe(made))
    st.success(said + " " + t("It is listed in the sidebar picker."))
    if st.button(t("Open {name}", name=label), key=f"open_job_{job.id}"):
        st.session_state.setdefault(OPENED, set()).add(job.id)
        open_now(made.key, describe(made))


def made_status(kind: str, describe: Callable[[Made], str]) -> None:
    """The ``kind`` jobs (import or build) on any folder: the running ones with their bars, then the last one
    that ended. This session's own job, once done, opens its new index (once); anyone else's offers a button.

    ``describe`` says what a job made (counts, warnings) in this page's language."""
    opened = st.session_state.setdefault(OPENED, set())
    seen = [(job, job.state) for job in jobs.recent(kind) if job.id not in opened]  # one look: threads move on
    for job, now in seen:
        if now == jobs.DONE and job.id in st.session_state.get(MINE, ()):
            opened.add(job.id)
            open_now(job.result.key, describe(job.result))  # reruns: the sidebar picks it, the line says so
    _follow([job for job, now in seen if now == jobs.RUNNING], _running_made)
    for job, now in seen:
        if now != jobs.RUNNING:
            _ended_made(job, describe)
