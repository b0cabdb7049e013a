"""Explaining a LightRAG retrieval: trace steps in the seed's order and candidate rows with reasons.

Every candidate the pipeline considered becomes a ``Candidate``: kept items in context order first,
then what truncation, chunk_top_k, the round-robin merges or the chunk picks left out, each with
the reason ("over max_entity_tokens 6000 (6012)", "round-robin: duplicate of local #3", ...).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.result import Candidate, Retrieval, TraceStep
from graphrag_ui.retrieval.lightrag.chunks import ChunkPick

SEED_ORDER = (
    "keywords",
    "local path",
    "global path",
    "round-robin merge",
    "chunks from entities",
    "chunks from relations",
    "vector chunks",
    "merge",
    "token control",
    "assemble",
)


class Clock:
    """Collects trace steps (any order) and emits them in the seed's order."""

    def __init__(self) -> None:
        self.steps: dict[str, TraceStep] = {}
        self._t = time.perf_counter()

    def lap(self, name: str, detail: str, n_in: int, n_out: int) -> None:
        now = time.perf_counter()
        ms = (now - self._t) * 1000
        self._t = now
        if name in self.steps:  # a step done in two parts (token control) adds up
            old = self.steps[name]
            self.steps[name] = TraceStep(
                name, f"{old.detail}; {detail}", old.n_in + n_in, old.n_out + n_out, old.ms + ms
            )
        else:
            self.steps[name] = TraceStep(name, detail, n_in, n_out, ms)

    def trace(self) -> list[TraceStep]:
        return [self.steps[n] for n in SEED_ORDER if n in self.steps]


def preview(text: str) -> str:
    text = " ".join(text[:200].split())
    return text if len(text) <= 80 else text[:77] + "..."


def finish_chunks(
    r: Retrieval,
    index: Index,
    merged: list[tuple[str, str]],
    rows: list[dict[str, Any]],
    picks: dict[str, ChunkPick],
    dropped_dupes: list[tuple[str, str, str]],
    p: dict[str, Any],
    available: int,
    fit: Callable[[list[dict[str, Any]], int], tuple[int, list[int]]],
) -> list[dict[str, Any]]:
    """chunk_top_k, then the chunk budget; fills r.chunks and returns the kept rows.

    ``fit(rows, budget)`` gives how many rows the release keeps and their token costs.
    """
    top = p["chunk_top_k"]
    capped = rows[:top] if top and top > 0 else rows
    keep, costs = fit(capped, available)
    running = 0
    listed = set()
    for i, ((cid, source), row) in enumerate(zip(merged, rows, strict=True)):
        pick = picks[source]
        cost = costs[i] if i < len(costs) else index.chunk_by_id[cid].tokens  # never measured: stored count
        running += cost
        if i >= len(capped):
            dropped = f"beyond chunk_top_k {top}"
        elif i == keep:
            dropped = f"over chunk budget {available} tokens ({running})"
        elif i > keep:
            dropped = f"over chunk budget {available} tokens (cut before chunk #{keep + 1})"
        else:
            dropped = ""
        data = {"source": source, "file_path": row["file_path"], "text": row["content"]}
        r.chunks.append(
            Candidate(
                cid,
                preview(row["content"]),
                data,
                i,
                pick.why.get(cid, source),
                pick.sims.get(cid),
                None,
                not dropped,
                dropped,
                cost,
            )
        )
        listed.add(cid)
    order = len(r.chunks)
    for cid, source, first in dropped_dupes:
        chunk = index.chunk_by_id[cid]
        why = picks[source].why.get(cid, source)
        r.chunks.append(
            Candidate(
                cid,
                preview(chunk.text),
                {"source": source, "text": chunk.text},
                order,
                why,
                picks[source].sims.get(cid),
                None,
                False,
                f"round-robin: duplicate of {first} chunk",
            )
        )
        order += 1
    for pick in picks.values():
        for cid in pick.candidates + [c for c in pick.why if c not in pick.candidates]:
            if cid in listed or cid in pick.picked or cid not in index.chunk_by_id:
                continue
            listed.add(cid)
            chunk = index.chunk_by_id[cid]
            r.chunks.append(
                Candidate(
                    cid,
                    preview(chunk.text),
                    {"source": pick.source, "text": chunk.text},
                    order,
                    f"candidate of {pick.source} chunks",
                    pick.sims.get(cid),
                    None,
                    False,
                    pick.why.get(cid, "not picked"),
                )
            )
            order += 1
    return capped[:keep]


def fill_graph_candidates(
    r: Retrieval, hits: list, dupes: list, costs: list[int], keep: int, limit: int, kind: str
) -> None:
    target = r.entities if kind == "entity" else r.relations
    budget_name = "max_entity_tokens" if kind == "entity" else "max_relation_tokens"
    running = 0
    for i, (hit, cost) in enumerate(zip(hits, costs, strict=True)):
        running += cost
        dropped = "" if i < keep else f"over {budget_name} {limit} ({running})"
        target.append(candidate(hit, kind, i, hit.why, dropped, cost))
    for j, hit in enumerate(dupes):
        target.append(candidate(hit, kind, len(hits) + j, hit.why, f"round-robin: duplicate of {hit.duplicate_of}", 0))


def candidate(hit, kind: str, order: int, why: str, dropped: str, cost: int) -> Candidate:
    if kind == "entity":
        e = hit.entity
        data = {"name": e.name, "type": e.type, "description": e.description, "path": hit.path, "degree": hit.rank}
        return Candidate(e.id, e.name, data, order, why, hit.sim, hit.rank, not dropped, dropped, cost)
    rel = hit.relation
    data = {
        "entity1": hit.pair[0],
        "entity2": hit.pair[1],
        "description": rel.description,
        "keywords": rel.keywords,
        "weight": rel.weight,
        "path": hit.path,
    }
    return Candidate(
        rel.id, f"{hit.pair[0]} — {hit.pair[1]}", data, order, why, hit.sim, hit.rank, not dropped, dropped, cost
    )
