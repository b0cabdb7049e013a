"""``nano.naive``'s ranked chunks as columns, gathered once per sweep and cut per step.

A naive retrieval is one vector search's first ``top_k + EXPLAIN_BEYOND`` rows, cut at the first score
below the threshold, then cut by a running token sum. Every row's chunk, similarity, cost and reason
("chunk #n by vector", "vector candidate #n") depends on its place in the ranking only, never on
``top_k`` or the budget: so the rows are gathered once (``Ranked``) and a step is where the cuts fall,
worked out by bisecting the running totals (``Cut``). Inside ``reuse.shared()`` a sweep's
steps share one ``Ranked`` made at its widest ``top_k``: the first ``n`` rows of a wider exact search are
the search at ``n`` (``recall.top_rows``); a chroma server's search is approximate, so there each ``n``
gathers its own. Kept rows are made at every step; the dropped ones —
over the budget, past the threshold, beyond ``top_k`` — are a ``core.candidates.Tail``, made on read.
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphrag_ui.base.i18n import Reason, lmsg
from graphrag_ui.index.model import Index
from graphrag_ui.index.servers import vector_server
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.recall import top_rows
from graphrag_ui.retrieval.core.result import Candidate


def over(running: int, limit: int) -> Reason:
    return lmsg("over budget (naive_max_token_for_text_unit: {running}/{limit} tokens)", running=running, limit=limit)


def beyond(rank: int, top_k: int) -> Reason:
    return lmsg("beyond top_k ({rank} > {top_k})", rank=rank, top_k=top_k)


def below(sim: float, threshold: float) -> Reason:
    return lmsg("below threshold (sim {sim} < {threshold})", sim=f"{sim:.3f}", threshold=f"{threshold:g}")


def after() -> Reason:
    return lmsg("after the first score below threshold (nano-vectordb stops there)")


# the reasons' templates: the tail groups its rows by them without making one (``binding``)
OVER, BEYOND, BELOW, AFTER = over(0, 0).template, beyond(0, 0).template, below(0, 0).template, after().template


@dataclass
class Ranked:
    """The search's first ``len(rows)`` rows, best first, with what each row needs to be shown."""

    ids: list[str]  # the vector table's id of each row
    chunks: list[Any]  # the stored chunk of each row (None: missing)
    sim_list: list[float]  # each row's similarity, as the search gave it
    present: list[int]  # positions whose chunk is stored, in order
    running: list[int]  # running token total over the present positions
    costs: list[int]  # tokens of each present position's chunk
    complete: bool  # the table has no more rows than these
    shown: dict = field(default_factory=dict)  # chunk id -> (label, row data), as ``_chunk_candidate``
    contexts: dict = field(default_factory=dict)  # kept count -> context text, and its prompt (steps with the same cut)
    heads: list = field(default_factory=list)  # the in-context candidate of each hit, once made
    # threshold -> the first position whose score is below it; ("runs", threshold) -> its near misses' runs
    below: dict = field(default_factory=dict)


def ranked(index: Index, table: Any, qvec: np.ndarray, n: int, costs_of: Any) -> Ranked:
    """The first ``n`` rows of the search; inside a sweep one gather serves every ``n`` it covers."""
    exact = not vector_server.is_server(table)
    holder = reuse.kept("nano.naive ranked", table, qvec, dict, *(() if exact else (n,)))
    found = holder.get("rows")
    if found is None or (len(found.ids) < n and not found.complete):
        found = holder["rows"] = _gather(index, table, qvec, n, costs_of)
    return found


def nothing() -> Ranked:
    """No table to search."""
    return Ranked([], [], [], [], [], [], True)


def _gather(index: Index, table: Any, qvec: np.ndarray, n: int, costs_of: Any) -> Ranked:
    scored = top_rows(table, qvec, n)
    ids = [table.ids[row] for row, _ in scored]
    chunks = [index.chunk_by_id.get(cid) for cid in ids]
    sim_list = [sim for _, sim in scored]
    present = [p for p, chunk in enumerate(chunks) if chunk is not None]
    costs = [costs_of(chunks[p]) for p in present]
    return Ranked(
        ids,
        chunks,
        sim_list,
        present,
        list(itertools.accumulate(costs)),
        costs,
        len(scored) < n,
    )


@dataclass
class Cut:
    """One step's cuts of a ``Ranked``: its first ``width`` rows, the stop, the hits and the kept ones."""

    rows: Ranked
    top_k: int
    threshold: float
    limit: int
    width: int  # rows the search returned: top_k + EXPLAIN_BEYOND, or fewer
    stop: int  # positions before it are hits when their chunk is stored (top_k, or the first below threshold)
    hits: int  # present positions before ``stop``
    kept: int  # hits within the budget (a prefix)
    beyond: list[int]  # present positions from ``stop`` to ``width``: near misses, in order


def cut(rows: Ranked, top_k: int, threshold: float, limit: int, beyond: int) -> Cut:
    width = max(0, min(len(rows.ids), top_k + beyond))  # ``vector_topk`` of a count <= 0 is empty
    head = max(0, min(top_k, width))
    first = rows.below.get(threshold)
    if first is None:  # the first score below it among all the rows: each step stops there or at its top_k
        sims = rows.sim_list
        first = rows.below[threshold] = next((p for p in range(len(sims)) if sims[p] < threshold), len(sims))
    stop = min(first, head)
    hits = bisect.bisect_left(rows.present, stop)
    kept = bisect.bisect_right(rows.running, limit, 0, hits) if limit > 0 else 0  # ``csv_context.prefix_cut``
    near = rows.present[hits : bisect.bisect_left(rows.present, width)]
    return Cut(rows, top_k, threshold, limit, width, stop, hits, kept, near)


def candidate(rows: Ranked, pos: int, order: int, why: Reason, tokens: int, dropped: Reason | str = "") -> Candidate:
    """Row ``pos`` as a candidate (its label and row data made once per chunk and shared, read only)."""
    chunk = rows.chunks[pos]
    found = rows.shown.get(chunk.id)
    if found is None:
        data = {"doc_id": chunk.doc_id, "order": chunk.order, "text": chunk.text}
        found = rows.shown[chunk.id] = (chunk.text[:80].replace("\n", " "), data)
    return Candidate(chunk.id, *found, order, why, rows.sim_list[pos], None, not dropped, dropped, tokens)


def hit_why(rows: Ranked, pos: int) -> Reason:
    return lmsg("chunk #{n} by vector, sim {sim}", n=pos + 1, sim=f"{rows.sim_list[pos]:.3f}")


def kept_rows(c: Cut, summary: bool = False) -> list[Candidate]:
    """The hits in the context: the same at every step that keeps them (made once, each step a copy; a sweep's
    summary step, which changes no row, reads the ones made: ``reuse.summaries``)."""
    rows = c.rows
    heads = rows.heads
    for j in range(len(heads), c.kept):
        pos = rows.present[j]
        heads.append(candidate(rows, pos, j, hit_why(rows, pos), rows.costs[j]))
    return heads[: c.kept] if summary else [reuse.copied(heads[j]) for j in range(c.kept)]


def near_reason(c: Cut, pos: int) -> Reason:
    """Why a near miss at ``pos`` is left out (``nano_naive``'s loop, in its order of tests)."""
    if pos >= c.top_k:
        return beyond(pos + 1, c.top_k)
    sim = c.rows.sim_list[pos]
    return below(sim, c.threshold) if sim < c.threshold else after()


class DroppedTail:
    """The hits over the budget, then the near misses: every row dropped (``core.candidates.Tail``)."""

    def __init__(self, c: Cut) -> None:
        self.c = c
        self.over = c.hits - c.kept

    def __len__(self) -> int:
        return self.over + len(self.c.beyond)

    def row(self, i: int) -> Candidate:
        c, rows = self.c, self.c.rows
        if i < self.over:
            j = c.kept + i
            pos = rows.present[j]
            dropped = over(rows.running[j], c.limit)
            return candidate(rows, pos, j, hit_why(rows, pos), rows.costs[j], dropped)
        pos = c.beyond[i - self.over]
        why = lmsg("vector candidate #{rank}, sim {sim}", rank=pos + 1, sim=f"{rows.sim_list[pos]:.3f}")
        tokens = rows.costs[bisect.bisect_left(rows.present, pos)]
        return candidate(rows, pos, c.hits + i - self.over, why, tokens, near_reason(self.c, pos))

    def ids(self) -> list[str]:
        rows = self.c.rows
        return [rows.ids[p] for p in rows.present[self.c.kept : self.c.hits]] + [rows.ids[p] for p in self.c.beyond]

    def reasons(self) -> list[tuple[Any, Any, int]]:
        """The drops as runs: over budget, then the near misses in order — a run of rows below the threshold or
        after the stop as one (a threshold cut: ``binding`` reads no score there; a step past the stop lists up
        to ``top_k`` of them), a row beyond ``top_k`` with its score (below the threshold too, the threshold cut it).
        The runs before ``top_k`` are cut from the ranking's runs at the threshold (``_runs``), not walked per row."""
        c, rows = self.c, self.c.rows
        out: list[tuple[Any, Any, int]] = [(OVER, None, self.over)] if self.over else []
        present, sims = rows.present, rows.sim_list
        lo, hi = c.hits, c.hits + len(c.beyond)  # the near misses: present positions ``lo`` to ``hi``
        before = min(hi, max(lo, bisect.bisect_left(present, c.top_k)))  # those before top_k
        starts, templates = _runs(rows, c.threshold)
        r = bisect.bisect_right(starts, lo) - 1
        while lo < before:
            end = min(starts[r + 1] if r + 1 < len(starts) else len(present), before)
            out.append((templates[r], None, end - lo))
            lo, r = end, r + 1
        out += [(BEYOND, sims[present[j]], 1) for j in range(before, hi)]
        return out


def _runs(rows: Ranked, threshold: float) -> tuple[list[int], list[str]]:
    """Over the present positions: where each run of one near-miss reason starts (below the threshold, or
    after the stop) and its template; once per ranking and threshold (a sweep's steps cut them)."""
    key = ("runs", threshold)
    found = rows.below.get(key)
    if found is None:
        starts: list[int] = []
        templates: list[str] = []
        for j, pos in enumerate(rows.present):
            template = BELOW if rows.sim_list[pos] < threshold else AFTER
            if not templates or templates[-1] is not template:
                starts.append(j)
                templates.append(template)
        found = rows.below[key] = (starts, templates)
    return found
