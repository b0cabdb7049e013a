"""nano.naive's dropped tail gives its reasons as runs cut from the ranking's runs at the threshold
(``naive_rows._runs``, made once per ranking and threshold): the runs a walk over its rows gives, for a
ranking whose scores rise again after a drop (a server's approximate search) and miss a chunk, at every
top_k, threshold and budget; a sweep makes them once."""

from __future__ import annotations

import itertools
from pathlib import Path

from graphrag_ui.index import store
from graphrag_ui.retrieval.nano import naive_rows
from graphrag_ui.retrieval.nano.recall import EXPLAIN_BEYOND
from graphrag_ui.services.sweep import run_sweep

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How did the city respond to the flood?"


class _Chunk:
    def __init__(self, i: int) -> None:
        self.id = f"c{i}"


def _ranked() -> naive_rows.Ranked:
    sims = [0.9, 0.8, 0.8, 0.3, 0.5, 0.45, 0.1, 0.6, 0.2, 0.2, 0.05, 0.4]
    chunks = [None if i in (2, 8) else _Chunk(i) for i in range(len(sims))]
    present = [p for p, c in enumerate(chunks) if c is not None]
    costs = [10] * len(present)
    running = list(itertools.accumulate(costs))
    return naive_rows.Ranked([f"c{i}" for i in range(len(sims))], chunks, sims, present, running, costs, True)


def _walked(tail: naive_rows.DroppedTail) -> list[tuple]:
    """The runs as a walk over the rows says them (the code the runs replaced)."""
    c = tail.c
    out: list[list] = [[naive_rows.OVER, None, tail.over]] if tail.over else []
    for pos in c.beyond:
        sim = c.rows.sim_list[pos]
        if pos >= c.top_k:
            out.append([naive_rows.BEYOND, sim, 1])
            continue
        template = naive_rows.BELOW if sim < c.threshold else naive_rows.AFTER
        if out and out[-1][0] is template:
            out[-1][2] += 1
        else:
            out.append([template, None, 1])
    return [tuple(run) for run in out]


def test_the_runs_are_the_rows_walked():
    rows = _ranked()
    seen = set()
    for top_k, threshold, limit in itertools.product(
        range(0, 14), [-1.0, 0.0, 0.25, 0.46, 0.55, 0.85, 1.0], [0, 25, 1000]
    ):
        tail = naive_rows.DroppedTail(naive_rows.cut(rows, top_k, threshold, limit, EXPLAIN_BEYOND))
        got = tail.reasons()
        assert got == _walked(tail), (top_k, threshold, limit)
        seen.update(run[0] for run in got)
    assert seen == {naive_rows.OVER, naive_rows.BEYOND, naive_rows.BELOW, naive_rows.AFTER}  # every reason met


def test_a_sweep_makes_the_runs_once_per_threshold(monkeypatch):
    index = store.load(ROOT / "data" / "sample" / "en" / "index")
    made = []
    real = naive_rows._runs

    def counted(rows, threshold):
        key = ("runs", threshold)
        if key not in rows.below:
            made.append(threshold)
        return real(rows, threshold)

    monkeypatch.setattr(naive_rows, "_runs", counted)
    run_sweep(index, "nano.naive", QUESTION, {"query_better_than_threshold": 0.3}, "top_k", [40, 2, 10, 20, 30])
    assert made == [0.3]
