"""Explaining a LightRAG retrieval: trace steps in the seed's order and candidate rows with reasons.

Every candidate the pipeline considered becomes a ``Candidate``: kept items in context order first,
then what truncation, chunk_top_k, the round-robin merges or the chunk picks left out, each with
the reason ("over max_entity_tokens 6000 (6012)", "round-robin: duplicate of local #3", ...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import MappingProxyType
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
from graphrag_ui.retrieval.lightrag.lazy_hits import printed
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
    summary = reuse.summary_only()  # a summary step reads a kept chunk's id, label and tokens (``KeptRow``)
    for i in range(keep):
        cid, source = merged[i]
        row, pick = rows[i], picks[source]
        cost = costs[i] if i < len(costs) else index.chunk_by_id[cid].tokens
        if summary:
            head.append(KeptRow(cid, preview(row["content"]), cost))
            continue
        data = {"source": source, "file_path": row["file_path"], "text": row["content"]}
        why = pick.why[cid] if cid in pick.why else source_word(source)
        head.append(Candidate(cid, preview(row["content"]), data, i, why, pick.sims.get(cid), None, True, "", cost))
    unpicked = _unpicked(index, merged, picks)
    shape = (keep, len(capped), top, available, len(r.chunks) + len(merged))
    tail = ChunkTail(index, preview, merged, rows, picks, costs, shape, dropped_dupes, unpicked)
    r.chunks = Candidates(head, tail)
    return capped[:keep]


def _unpicked(index: Index, merged: list[tuple[str, str]], picks: dict[str, ChunkPick]) -> list[tuple[str, ChunkPick]]:
    """Each pick's candidates that no pick merged (``_not_picked``), first met first, with their pick: in a sweep
    once per merge and picks (a budget step, or a top_k step keeping the same items, has an earlier one's; held
    with them, so their ids name no other)."""

    def make() -> list[tuple[str, ChunkPick]]:
        listed, out = {cid for cid, _ in merged}, []
        for pick in picks.values():
            for cid in _not_picked(index, pick):
                if cid not in listed:
                    listed.add(cid)
                    out.append((cid, pick))
        return out

    return reuse.of_objects("lightrag.unpicked", (index, merged, *picks.values()), make)


def _not_picked(index: Index, pick: ChunkPick) -> list[str]:
    """The pick's candidates, then the chunks it only gave a reason (excluded, missing), that it did not pick
    and the index holds, in that order: in a sweep once per pick (``reuse.once``, the pick held with them: a
    step whose entities or relations did not change shares its pick, and each step filters only these)."""

    def make() -> tuple[ChunkPick, list[str]]:
        among, picked = set(pick.candidates), set(pick.picked)
        every = pick.candidates + [c for c in pick.why if c not in among]
        return pick, [c for c in every if c not in picked and c in index.chunk_by_id]

    found = reuse.once(("lightrag.not picked", id(index), id(pick)), make)
    return found[1] if found[0] is pick else make()[1]


def graph_rows(
    hits: list, dupes: list, costs: Sequence[int], keep: int, limit: int, kind: str
) -> tuple[list, GraphTail]:
    """The hits cut at ``keep`` by the token budget, then the merge's duplicates: the kept rows made now, the
    rest when read (``graph_tail``: a hub question at 100k entities drops ~10⁵ relations).

    A sweep's top_k steps keep mostly the same hits (shared objects: ``search``), many at the same position
    and cost: such a row is made again from the fields the earlier step's was made of, not built anew; and
    a hit's id, label and data — what no position changes — are made once per entity or printed relation
    (``_fields``; the data read only, as ``reuse`` shares it)."""
    tail = GraphTail(candidate, kind, hits, dupes, costs, min(keep, len(hits)), limit)
    if reuse.summary_only():  # a sweep's summary step reads a kept row's id and label only
        if kind == "entity":
            return [KeptRow(hit.entity.id, hit.entity.name) for hit in hits[:keep]], tail
        return [KeptRow(rel.id, f"{pair[0]} — {pair[1]}") for rel, pair in printed(hits)[:keep]], tail
    if not reuse.active():
        return [
            candidate(hit, kind, i, hit.why, "", cost)
            for i, (hit, cost) in enumerate(zip(hits[:keep], costs[:keep], strict=True))
        ], tail
    made: dict[tuple[int, int, int], tuple[Any, tuple]] = reuse.once(("lightrag.kept rows", kind), dict)
    fields = reuse.once(("lightrag.row fields", kind), dict)
    head = []
    for i, (hit, cost) in enumerate(zip(hits[:keep], costs[:keep], strict=True)):
        found = made.get((id(hit), i, cost))
        if found is not None and found[0] is hit:  # held with its hit: the id names no other
            head.append(Candidate(*found[1]))
        else:
            row = (*_fields(fields, hit, kind), i, hit.why, hit.sim, hit.rank, True, "", cost)
            made[id(hit), i, cost] = (hit, row)
            head.append(Candidate(*row))
    return head, tail


class KeptRow:
    """A kept entity, relation or chunk as a sweep's summary step reads it (``reuse.summaries``: the ``Step``'s
    ids, labels, tokens and limits): its id, label and tokens, in the context (1.4.7 drops a chunk when no
    entity or relation is left: its reason is kept as a ``Candidate`` keeps it). Only that step's run holds
    it; the step's whole run (``Sweep.retrieval``) makes the whole ``Candidate``."""

    why = ""  # a server search's note may be added (``vector_engine.mark``): no summary reads it
    data = MappingProxyType({})  # nothing to read but its id and label

    def __init__(self, id: str, label: str, tokens: int = 0) -> None:  # noqa: A002  (``Candidate``'s names)
        self.id, self.label, self.tokens = id, label, tokens
        self.in_context, self._dropped = True, ""

    @property
    def dropped(self) -> Any:
        return self._dropped

    @dropped.setter
    def dropped(self, reason: Any) -> None:
        self._dropped = reason  # stored as ``Candidate`` stores it (``binding`` reads ``_dropped``)


def _fields(kept: dict, hit: Any, kind: str) -> tuple[str, str, dict[str, Any]]:
    """``candidate``'s id, label and data of ``hit``: once per entity (path, degree) or relation (pair as
    printed, path) in a sweep (outside one ``kept`` is the run's own), held with its entity or relation."""
    subject = hit.entity if kind == "entity" else hit.relation
    key = (id(subject), hit.path, hit.rank) if kind == "entity" else (id(subject), hit.pair, hit.path)
    found = kept.get(key)
    if found is None or found[0] is not subject:
        made = candidate(hit, kind, 0, "", "", 0)
        found = kept[key] = (subject, (made.id, made.label, made.data))
    return found[1]


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
