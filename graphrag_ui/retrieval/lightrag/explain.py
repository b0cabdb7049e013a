"""Explaining a LightRAG retrieval: trace steps in the seed's order and candidate rows with reasons.

Every candidate the pipeline considered becomes a ``Candidate``: kept items in context order first,
then what truncation, chunk_top_k, the round-robin merges or the chunk picks left out, each with
the reason ("over max_entity_tokens 6000 (6012)", "round-robin: duplicate of local #3", ...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from graphrag_ui.base.i18n import joined
from graphrag_ui.base.timing import elapsed_ms, now
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import Candidates
from graphrag_ui.retrieval.core.result import Candidate, Retrieval, TraceStep
from graphrag_ui.retrieval.lightrag.chunk_tail import ChunkTail
from graphrag_ui.retrieval.lightrag.chunks import ChunkPick, source_word
from graphrag_ui.retrieval.lightrag.graph_tail import GraphTail
from graphrag_ui.retrieval.spec.schema import Params

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
        self._t = now()
        self.recorded: list[tuple[str, str, int, int]] | None = None  # laps kept for a replay (``stages``)

    def lap(self, name: str, detail: str, n_in: int, n_out: int) -> None:
        if self.recorded is not None:
            self.recorded.append((name, detail, n_in, n_out))
        ms = elapsed_ms(self._t)
        self._t = now()
        if name in self.steps:  # a step done in two parts (token control) adds up
            old = self.steps[name]
            self.steps[name] = TraceStep(
                name, joined(old.detail, detail), old.n_in + n_in, old.n_out + n_out, old.ms + ms
            )
        else:
            self.steps[name] = TraceStep(name, detail, n_in, n_out, ms)

    def trace(self) -> list[TraceStep]:
        return [self.steps[n] for n in SEED_ORDER if n in self.steps]


def preview(text: str) -> str:
    text = " ".join(text[:200].split())
    return text if len(text) <= 80 else text[:77] + "..."


def previews(index: Index) -> Callable[[str], str]:
    """``preview``, kept by text across a sweep's steps (the same chunks come back at every step)."""
    kept: dict[str, str] = reuse.once(("lightrag previews", id(index)), dict)

    def shown(text: str) -> str:
        found = kept.get(text)
        if found is None:
            found = kept[text] = preview(text)
        return found

    return shown


def finish_chunks(
    r: Retrieval,
    index: Index,
    merged: list[tuple[str, str]],
    rows: list[dict[str, Any]],
    picks: dict[str, ChunkPick],
    dropped_dupes: list[tuple[str, str, str]],
    p: Params,
    available: int,
    fit: Callable[[list[dict[str, Any]], int], tuple[int, list[int]]],
) -> list[dict[str, Any]]:
    """chunk_top_k, then the chunk budget; fills r.chunks and returns the kept rows.

    ``fit(rows, budget)`` gives how many rows the release keeps and their token costs. The kept rows are
    made now; every other candidate (cut, duplicate, not picked) when read (``chunk_tail.ChunkTail``).
    """
    top = p.chunk_top_k
    capped = rows[:top] if top and top > 0 else rows
    keep, costs = fit(capped, available)
    preview = previews(index)
    head = list(r.chunks)
    for i in range(keep):
        cid, source = merged[i]
        row, pick = rows[i], picks[source]
        data = {"source": source, "file_path": row["file_path"], "text": row["content"]}
        why = pick.why[cid] if cid in pick.why else source_word(source)
        cost = costs[i] if i < len(costs) else index.chunk_by_id[cid].tokens
        head.append(Candidate(cid, preview(row["content"]), data, i, why, pick.sims.get(cid), None, True, "", cost))
    listed = {cid for cid, _ in merged}
    unpicked = []
    for pick in picks.values():
        among = set(pick.candidates)
        for cid in pick.candidates + [c for c in pick.why if c not in among]:
            if cid in listed or cid in pick.picked or cid not in index.chunk_by_id:
                continue
            listed.add(cid)
            unpicked.append((cid, pick))
    shape = (keep, len(capped), top, available, len(r.chunks) + len(merged))
    tail = ChunkTail(index, preview, merged, rows, picks, costs, shape, dropped_dupes, unpicked)
    r.chunks = Candidates(head, tail)
    return capped[:keep]


def graph_rows(
    hits: list, dupes: list, costs: Sequence[int], keep: int, limit: int, kind: str
) -> tuple[list, GraphTail]:
    """The hits cut at ``keep`` by the token budget, then the merge's duplicates: the kept rows made now, the
    rest when read (``graph_tail``: a hub question at 100k entities drops ~10⁵ relations).

    A sweep's top_k steps keep mostly the same hits (shared objects: ``search``), many at the same position
    and cost: such a row is a copy of the one an earlier step made (``reuse.copied``, from a copy kept apart
    from that step's; its data read only)."""
    made: dict[tuple[int, int, int], tuple[Any, Candidate]] = reuse.once(("lightrag.kept rows", kind), dict)
    head = []
    for i, (hit, cost) in enumerate(zip(hits[:keep], costs[:keep], strict=True)):
        found = made.get((id(hit), i, cost))
        if found is not None and found[0] is hit:  # held with its hit: the id names no other
            head.append(reuse.copied(found[1]))
        else:
            head.append(candidate(hit, kind, i, hit.why, "", cost))
            made[id(hit), i, cost] = (hit, reuse.copied(head[-1]))  # its own: a step's reader may change its rows
    return head, GraphTail(candidate, kind, hits, dupes, costs, min(keep, len(hits)), limit)


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
