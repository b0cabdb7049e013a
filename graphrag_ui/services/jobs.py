"""Long index jobs (re-embed, import, build) run on the server, not in the analyst's tab.

A Streamlit script run ends with its tab: a re-embed started in the page and the tab closed was
abandoned silently, and the index stayed "unknown". Here a job runs in a thread of the server process,
reports its stages (done / total) into a record every session can read, and ends done or failed with
its message; the Index page shows that record to whoever opens it, from any tab, while it runs and
after. One job per target folder: a second start on a folder a job is writing (the same job twice, or an
import and a build of one name, or a re-embed of the index an import replaces) is refused by name while
the first runs, since two jobs on one folder would race on its files.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.progress import StageClock

RUNNING, DONE, FAILED = "running", "done", "failed"
KEPT = 20  # finished jobs remembered (the newest), so a returning analyst sees how the last one ended
MAX_DETAIL = 300  # characters of a job's detail kept (a source path typed in the browser may be anything)
KINDS = {"reembed": msg("re-embed"), "import": msg("import"), "build": msg("build")}
Progress = Callable[[str, int, int], None]


@dataclass(eq=False)  # a job is itself, not its fields
class Job:
    kind: str  # a key of KINDS
    target: str  # the index folder it writes (its real path)
    detail: str = ""  # e.g. the new embedder, or the source of an import
    state: str = RUNNING
    stages: dict[str, tuple[int, int]] = field(default_factory=dict)  # stage -> (done, total), in order
    pace: dict[str, tuple[str, str]] = field(default_factory=dict)  # stage -> (rate, time left)
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    error: BaseException | None = None
    result: Any = None
    started: float = field(default_factory=time.time)
    finished: float | None = None
    _clock: StageClock = field(default_factory=StageClock, repr=False)

    def progress(self, stage: str, done: int, total: int) -> None:
        self.pace[stage] = self._clock.tick(stage, done, total)
        self.stages[stage] = (done, total)


_JOBS: list[Job] = []
_LOCK = threading.Lock()


def start(kind: str, target: str, work: Callable[[Progress], Any], detail: str = "") -> Job:
    """Run ``work(progress)`` in a server thread; refused while any job runs on the folder ``target``."""
    target = os.path.realpath(target)  # one folder, however it was spelled
    with _LOCK:
        busy = next((j for j in _JOBS if j.target == target and j.state == RUNNING), None)
        if busy is not None:
            raise UserError(
                msg(
                    "a job is already writing {target}: {kind}, started {ago} s ago{detail}",
                    kind=KINDS.get(busy.kind, busy.kind),
                    target=target,
                    ago=round(time.time() - busy.started),
                    detail=f", {busy.detail}" if busy.detail else "",
                ),
                fix=msg("wait for it to finish: the Index page shows its progress"),
            )
        job = Job(kind, target, detail[:MAX_DETAIL])
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
    target = os.path.realpath(target)
    with _LOCK:
        found = [j for j in _JOBS if j.target == target and (kind is None or j.kind == kind)]
    return found[::-1]


def recent(kind: str) -> list[Job]:
    """The ``kind`` jobs on any folder that are running, and the newest one that ended: newest first (what a
    returning analyst wants to see of the imports or builds, whichever tab started them)."""
    with _LOCK:
        found = [j for j in _JOBS if j.kind == kind]
    ended = [j for j in found if j.state != RUNNING][-1:]
    return [j for j in found if j.state == RUNNING or j in ended][::-1]
