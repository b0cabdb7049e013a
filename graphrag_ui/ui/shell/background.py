"""A long computation of one session in a background thread, and the small polled view of its progress.

The page that starts a job keeps drawing from what the job has done so far: a fragment polls the job
(only the fragment reruns, so every other widget stays usable), offers **Stop**, and runs the page once
more when the job ends. The job lives in the session, so it keeps running while the analyst visits
another page, and its results are there on return.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.redact import redact
from graphrag_ui.base.timing import elapsed_s, now
from graphrag_ui.ui.shell.escape import md_escape
from graphrag_ui.ui.shell.language import error_text, t

POLL_S = 0.4

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]


@dataclass
class Job:
    """One computation: ``done`` of ``total`` steps, then its ``result`` or its ``error``."""

    signature: str  # what was asked (to tell results of other settings apart)
    total: int = 0
    done: int = 0
    result: Any = None
    error: BaseException | None = None
    cancelled: bool = False
    started: float = field(default_factory=now)
    seconds: float = 0.0
    kept: dict[str, Any] = field(default_factory=dict)  # what the page keeps beside the result (its inputs…)
    thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    def start(self, work: Callable[[Progress, Cancelled], Any], name: str = "job") -> Job:
        """Run ``work(progress, cancelled)`` in a daemon thread; its return value becomes ``result``."""

        def run() -> None:
            try:
                self.result = work(self.progress, lambda: self.cancelled)
            except Exception as exc:  # noqa: BLE001 - said in one line by ``progress_view``
                self.error = exc
            finally:
                self.seconds = elapsed_s(self.started)

        self.thread = threading.Thread(target=run, name=name, daemon=True)
        self.thread.start()
        return self


def error_line(error: BaseException) -> str:
    """A failed job's error for a Markdown element: our message translated, anything else as data."""
    if isinstance(error, UserError):
        return md_escape(error_text(error))
    first = (redact(str(error)).strip().splitlines() or [""])[0][:200]  # one line, no credential
    return md_escape(f"{type(error).__name__}: {first}")


def progress_view(job: Job, key: str, label: Callable[[Job], str]) -> None:
    """While ``job`` runs: a progress bar (``label(job)``) and **Stop**, polled; when it ends, one page rerun."""
    polling = job.running

    def poll() -> None:
        if job.running:
            st.progress(job.done / max(job.total, 1), text=label(job))
            if st.button(t("Stop"), key=f"{key}_stop", icon=":material/stop:"):
                job.cancelled = True
        elif polling:
            st.rerun()  # finished while polling: draw the results with the whole page

    st.fragment(poll, run_every=POLL_S if polling else None)()
