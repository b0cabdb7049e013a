"""Long index jobs (re-embed, import, build) run on the server, not in the analyst's tab.

A Streamlit script run ends with its tab: a re-embed started in the page and the tab closed was
abandoned silently, and the index stayed "unknown". Here a job runs in a thread of the server process,
reports its stages (done / total) into a record every session can read, and ends done or failed with
its message; the Index page shows that record to whoever opens it, from any tab, while it runs and
after. One job of a kind per target: a second start of the same job on the same index is refused by
name while the first runs (two re-embeds of one folder would race on its files).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg

RUNNING, DONE, FAILED = "running", "done", "failed"
KEPT = 20  # finished jobs remembered (the newest), so a returning analyst sees how the last one ended
KINDS = {"reembed": msg("re-embed"), "import": msg("import"), "build": msg("build")}
Progress = Callable[[str, int, int], None]


@dataclass
class Job:
    kind: str  # a key of KINDS
    target: str  # the index folder it writes
    detail: str = ""  # e.g. the new embedder
    state: str = RUNNING
    stages: dict[str, tuple[int, int]] = field(default_factory=dict)  # stage -> (done, total), in order
    error: BaseException | None = None
    result: Any = None
    started: float = field(default_factory=time.time)
    finished: float | None = None

    def progress(self, stage: str, done: int, total: int) -> None:
        self.stages[stage] = (done, total)


_JOBS: list[Job] = []
_LOCK = threading.Lock()


def start(kind: str, target: str, work: Callable[[Progress], Any], detail: str = "") -> Job:
    """Run ``work(progress)`` in a server thread; refused while the same kind of job runs on ``target``."""
    with _LOCK:
        busy = next((j for j in _JOBS if j.kind == kind and j.target == target and j.state == RUNNING), None)
        if busy is not None:
            raise UserError(
                msg(
                    "a {kind} of {target} is already running (started {ago} s ago{detail})",
                    kind=KINDS.get(kind, kind),
                    target=target,
                    ago=round(time.time() - busy.started),
                    detail=f", {busy.detail}" if busy.detail else "",
                ),
                fix=msg("wait for it to finish: the Index page shows its progress"),
            )
        job = Job(kind, target, detail)
        _JOBS.append(job)
        finished = [j for j in _JOBS if j.state != RUNNING]
        for old in finished[:-KEPT]:
            _JOBS.remove(old)

    def run() -> None:
        try:
            job.result = work(job.progress)
            job.state = DONE
        except BaseException as exc:  # noqa: BLE001 - kept on the record and shown; the thread ends here
            job.error = exc
            job.state = FAILED
        finally:
            job.finished = time.time()

    threading.Thread(target=run, name=f"job-{kind}", daemon=True).start()
    return job


def jobs_for(target: str, kind: str | None = None) -> list[Job]:
    """The jobs on ``target`` (of ``kind``), newest first."""
    with _LOCK:
        found = [j for j in _JOBS if j.target == target and (kind is None or j.kind == kind)]
    return found[::-1]
