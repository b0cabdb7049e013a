"""Run an evaluation's jobs on a Dask distributed cluster (``eval --cluster tcp://HOST:PORT``).

Dask distributed rather than Ray: it is pure Python wheels (dask + distributed, ~6 MB with their
dependencies, against Ray's ~70 MB binary wheel with a bundled Redis-like store and dashboard), a local
cluster starts in seconds in a test with ``distributed.LocalCluster``, and its ``Client.submit`` /
``as_completed`` fit the runner's executor shape (jobs in, results back as they finish) one to one.

The index is never pickled to the workers (hundreds of MB at 100k entities, sent again to every worker on
every run): a job carries the index's path, and each worker opens the index from that shared path once
(``store_load.load``) and keeps it for the next jobs. The cluster therefore needs the index on a path every
worker reads (a shared volume), as the team's catalog server and Chroma server are shared by address.
Keywords are the question's own or the offline extractor's on a worker, as with ``processes``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.redact import redact

CONNECT_SECONDS = 20  # how long to wait for the scheduler before saying it cannot be reached
MAX_ADDRESS = 400
_ADDRESS = re.compile(r"^(tcp|tls|inproc|ucx)://[A-Za-z0-9._\-\[\]:%/]+$|^[A-Za-z0-9._\-]+:\d{1,5}$")
_INDEXES: dict[str, Any] = {}  # on a worker: index path -> the index it opened (one per worker process)


def check_address(address: str) -> str:
    """``tcp://host:port`` (or ``host:port``), bounded and without spaces, quotes or markup."""
    text = address.strip() if isinstance(address, str) else ""
    if not text or len(text) > MAX_ADDRESS or not _ADDRESS.match(text):
        shown = repr(address[:80]) if isinstance(address, str) else type(address).__name__
        raise UserError(
            msg("--cluster expects a Dask scheduler address, got {address}", address=shown),
            fix=msg("give the scheduler's address, e.g. tcp://10.0.0.5:8786 (dask scheduler prints it)"),
        )
    return text


def run_job_at(index_path: str, job: Any) -> Any:
    """On a worker: open the index at ``index_path`` once per process, then run one job (``runner.run_job``)."""
    from graphrag_ui.evaluation.runner import run_job
    from graphrag_ui.index.store_load import load

    index = _INDEXES.get(index_path)
    if index is None:
        index = _INDEXES[index_path] = load(index_path)
    return run_job(index, job)


def dask_executor(address: str, index_path: str) -> Any:
    """An executor (``runner.Executor``) that runs each job on the cluster at ``address``, results as they finish."""
    address = check_address(address)
    try:
        from distributed import Client, as_completed
    except ModuleNotFoundError:  # pinned in requirements.txt; said plainly if a trimmed install lacks it
        raise UserError(
            msg("--cluster needs the Dask distributed package, which is not installed"),
            fix=msg("pip install -r requirements.txt"),
        ) from None

    def run(jobs: list) -> Iterator[Any]:
        try:
            client = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise UserError(
                msg("cannot reach the Dask scheduler at {address}: {error}", address=address, error=redact(str(exc))),
                fix=msg("start it (dask scheduler; dask worker {address}) or check the address", address=address),
            ) from None
        futures = [client.submit(run_job_at, index_path, job, pure=False) for job in jobs]
        try:
            for future in as_completed(futures, loop=client.loop):
                try:
                    yield future.result()
                except Exception as exc:  # a worker that cannot open the index or run a job: said, not a traceback
                    raise UserError(
                        msg("a cluster worker failed: {error}", error=redact(str(exc))[:500]),
                        fix=msg("check that every worker reads the index at {path}", path=index_path),
                    ) from None
        finally:
            client.cancel([f for f in futures if not f.done()])
            client.close()

    return run
