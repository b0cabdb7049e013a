"""The Index page's view of a server job (``graphrag_ui.services.jobs``): progress while it runs, then done or failed.

Whoever opens the page — the tab that started the job, another one, or the same analyst after closing
it — sees the newest job on the open index; while it runs a small fragment polls it, so the rest of
the page stays usable.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.redact import redact
from graphrag_ui.services import jobs
from graphrag_ui.ui.shell.escape import md_escape, shown_error
from graphrag_ui.ui.shell.language import error_text, t, translate


def start_job(kind: str, target: str, work: Callable[[jobs.Progress], object], detail: str) -> None:
    """Start the job, or say by name why not (the same job already running on this index)."""
    try:
        jobs.start(kind, target, work, detail)
    except UserError as exc:
        st.error(shown_error(exc))


def job_status(kind: str, target: str) -> None:
    """The newest ``kind`` job on ``target``: bars per stage while it runs; its end once it ended."""
    found = jobs.jobs_for(target, kind)
    if not found:
        return
    job = found[0]
    polling = job.state == jobs.RUNNING

    def poll() -> None:
        what = translate(jobs.KINDS.get(kind, kind))
        if job.state == jobs.RUNNING:
            st.caption(
                t(
                    "{job} of this index is running on the server ({detail}); closing the tab does not stop it.",
                    job=what,
                    detail=md_escape(job.detail),
                )
            )
            for stage, (done, total) in job.stages.items():
                text = t("{stage}: {done}/{total}", stage=translate(stage), done=done, total=total)
                st.progress(min(done / total, 1.0) if total else 1.0, text=text)
        elif polling:
            st.rerun()  # it ended while this view polled: the whole page shows the result
        elif job.state == jobs.DONE:
            st.success(t("The last {job} of this index finished ({detail}).", job=what, detail=md_escape(job.detail)))
        else:
            error = job.error
            text = error_text(error) if isinstance(error, UserError) else redact(f"{type(error).__name__}: {error}")
            st.error(t("The last {job} of this index failed: {error}", job=what, error=md_escape(text)))

    st.fragment(poll, run_every=0.5 if polling else None)()
