"""LightRAG's chunk candidates past the chunk budget, made on read (``core.candidates``).

A step keeps ~20 chunks of the ~200 its picks considered: the rows chunk_top_k or the chunk budget cut,
the round-robin merge's duplicates and the picks' unpicked candidates are all dropped. The tail keeps
what ``explain.finish_chunks`` would have put in those rows and makes each exactly as it would have,
when a reader asks for it; the budget's running totals are summed then too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphrag_ui.base.i18n import Reason, lmsg, msg
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.result import Candidate
from graphrag_ui.retrieval.lightrag.chunks import ChunkPick, source_word


def beyond_top(top: int) -> Reason:
    return lmsg("beyond chunk_top_k {top}", top=top)


def over_budget(available: int, running: int) -> Reason:
    return lmsg("over chunk budget {limit} tokens ({running})", limit=available, running=running)


def cut_before(available: int, keep: int) -> Reason:
    return lmsg("over chunk budget {limit} tokens (cut before chunk #{n})", limit=available, n=keep + 1)


def duplicate_chunk(first: str) -> str:
    """The reason of a chunk the round-robin merge skipped because ``first`` (a source) brought it already."""
    if first == "entity":
        return msg("round-robin: duplicate of entity chunk")
    if first == "relation":
        return msg("round-robin: duplicate of relation chunk")
    return msg("round-robin: duplicate of vector chunk")


def candidate_of(source: str) -> str:
    if source == "entity":
        return msg("candidate of entity chunks")
    if source == "relation":
        return msg("candidate of relation chunks")
    return msg("candidate of vector chunks")


class ChunkTail:
    """The merged rows from ``keep`` on (cut by chunk_top_k or the budget), the merge's duplicates, then
    the picks' candidates not picked (``unpicked``: (chunk id, its pick)), as ``finish_chunks`` lists them."""

    def __init__(
        self,
        index: Index,
        preview: Callable[[str], str],
        merged: list[tuple[str, str]],
        rows: list[dict[str, Any]],
        picks: dict[str, ChunkPick],
        costs: list[int],
        shape: tuple[int, int, int, int, int],  # keep, rows chunk_top_k let through, chunk_top_k, budget, first order
        dupes: list[tuple[str, str, str]],
        unpicked: list[tuple[str, ChunkPick]],
    ) -> None:
        self.index, self.preview, self.merged, self.rows, self.picks = index, preview, merged, rows, picks
        self.costs, self.dupes, self.unpicked = costs, dupes, unpicked
        self.keep, self.capped, self.top, self.available, self.order = shape
        self._running: list[int] | None = None

    def __len__(self) -> int:
        return len(self.merged) - self.keep + len(self.dupes) + len(self.unpicked)

    def cost(self, i: int) -> int:
        """Merged row ``i``'s tokens: as the fit measured it, else the chunk's stored count (never measured)."""
        return self.costs[i] if i < len(self.costs) else self.index.chunk_by_id[self.merged[i][0]].tokens

    def _dropped(self, i: int) -> Reason:
        if i >= self.capped:
            return beyond_top(self.top)
        if i == self.keep:
            if self._running is None:
                self._running = [sum(self.cost(j) for j in range(i + 1))]
            return over_budget(self.available, self._running[0])
        return cut_before(self.available, self.keep)

    def row(self, i: int) -> Candidate:
        pos = self.keep + i
        if pos < len(self.merged):
            (cid, source), row, pick = self.merged[pos], self.rows[pos], self.picks[self.merged[pos][1]]
            data = {"source": source, "file_path": row["file_path"], "text": row["content"]}
            why = pick.why[cid] if cid in pick.why else source_word(source)
            return Candidate(
                cid,
                self.preview(row["content"]),
                data,
                pos,
                why,
                pick.sims.get(cid),
                None,
                False,
                self._dropped(pos),
                self.cost(pos),
            )
        j = pos - len(self.merged)
        order = self.order + j
        if j < len(self.dupes):
            cid, source, first = self.dupes[j]
            chunk, pick = self.index.chunk_by_id[cid], self.picks[source]
            why = pick.why[cid] if cid in pick.why else source_word(source)
            data = {"source": source, "text": chunk.text}
            return Candidate(
                cid, self.preview(chunk.text), data, order, why, pick.sims.get(cid), None, False, duplicate_chunk(first)
            )
        cid, pick = self.unpicked[j - len(self.dupes)]
        chunk = self.index.chunk_by_id[cid]
        dropped = pick.why[cid] if cid in pick.why else lmsg("not picked")
        data = {"source": pick.source, "text": chunk.text}
        return Candidate(
            cid,
            self.preview(chunk.text),
            data,
            order,
            candidate_of(pick.source),
            pick.sims.get(cid),
            None,
            False,
            dropped,
        )

    def ids(self) -> list[str]:
        return [c for c, _ in self.merged[self.keep :]] + [d[0] for d in self.dupes] + [c for c, _ in self.unpicked]

    def reasons(self) -> list[tuple[Any, Any, int]]:
        cut = len(self.merged) - self.keep
        beyond = max(len(self.merged) - max(self.capped, self.keep), 0)
        budget = cut - beyond
        out: list[tuple[Any, Any, int]] = []
        if budget > 0:
            out.append((over_budget(0, 0).template, None, 1))
        if budget > 1:
            out.append((cut_before(0, 0).template, None, budget - 1))
        if beyond > 0:
            out.append((beyond_top(0).template, None, beyond))
        for cid, source, first in self.dupes:
            out.append((duplicate_chunk(first), self.picks[source].sims.get(cid), 1))
        return out + reuse.once(("lightrag.unpicked reasons", id(self.unpicked)), lambda: _runs(self.unpicked))[1]


_NOTES = "{first}; {then}"  # a reason with notes (``i18n.joined``): classified by its first part, kept whole


def _runs(unpicked: list[tuple[str, ChunkPick]]) -> tuple[list, list[tuple[Any, Any, int]]]:
    """The unpicked chunks' reasons for ``binding`` (which classifies a reason by its template), a run of one
    template as (template, None, how many): ~10² per step, mostly one or two templates; no score (a LightRAG
    chunk's is never read by its limits). In a sweep once per unpicked list (held with it)."""
    out: list[list[Any]] = []
    for cid, pick in unpicked:
        reason = pick.why[cid] if cid in pick.why else lmsg("not picked")
        if type(reason) is Reason and reason.template != _NOTES:
            if out and out[-1][0] == reason.template and out[-1][1] is None:
                out[-1][2] += 1
            else:
                out.append([reason.template, None, 1])
        else:
            out.append([reason, pick.sims.get(cid), 1])
    return unpicked, [(r, s, n) for r, s, n in out]
