"""LightRAG's near misses: what its vector searches found within top_k but cut by cosine_better_than_threshold.

LightRAG's vector stores return the top_k rows and drop those whose cosine is below
``cosine_better_than_threshold`` before anything else sees them, so the pipeline never lists them.
An analyst tuning the threshold needs them ("sim 0.198 < 0.2"), as nano.local lists its own. This adds
them to the ``Retrieval`` as dropped rows after the pipeline ran: the context, the budgets and every
kept row stay exactly as the release made them (explanation only). The question's vectors are the ones
the searches used (``Deps.cache``; a sweep step whose search was shared with an earlier step asks ``Deps``
again, the same text's vector); a server-searched table is left out.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from graphrag_ui.base.i18n import Reason, lmsg, msg
from graphrag_ui.index.model import Index
from graphrag_ui.index.servers import vector_server
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import ids as candidate_ids
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.recall import vector_topk
from graphrag_ui.retrieval.core.result import Candidate, Retrieval
from graphrag_ui.retrieval.lightrag.explain import previews
from graphrag_ui.retrieval.lightrag.search import graph_cache
from graphrag_ui.retrieval.lightrag.stages import recall_of
from graphrag_ui.retrieval.spec.schema import Params

# trace step -> (vector table, the keyword text it searched with, how many rows it asked for)
_SEARCHES = {
    "local path": ("entities", "ll", "top_k"),
    "global path": ("relations", "hl", "top_k"),
    "vector chunks": ("chunks", "query", "chunk_top_k"),
}


def _why(what: str, rank: int, sim: float, threshold: float) -> Reason:
    return lmsg(
        "{what} #{rank} by vector, sim {sim}, cut by cosine_better_than_threshold {threshold}",
        what=what,
        rank=rank,
        sim=f"{sim:.3f}",
        threshold=f"{threshold:g}",
    )


def _dropped(sim: float, threshold: float) -> Reason:
    return lmsg(
        "below cosine_better_than_threshold (sim {sim} < {threshold})", sim=f"{sim:.3f}", threshold=f"{threshold:g}"
    )


def add_near_misses(index: Index, query: str, p: Params, deps: Deps, r: Retrieval) -> None:
    """For each vector search the run made (its trace says which), the rows within its top_k that the
    threshold cut, as dropped candidates after the existing ones."""
    threshold = p.cosine_better_than_threshold
    ran = {step.name for step in r.trace}
    texts = {"ll": ", ".join(r.keywords.ll), "hl": ", ".join(r.keywords.hl), "query": query}
    for step, (kind, text_of, count) in _SEARCHES.items():
        if step not in ran or (kind == "entities" and recall_of(p)[0] != "vector"):
            continue
        table = index.vectors.get(kind)
        # the search's own vector (in a sweep a shared search may have run in an earlier step: then from here)
        vec = deps.cache.get(texts[text_of])
        if vec is None and table is not None and not vector_server.is_server(table):
            vec = deps.optional_vector(texts[text_of])
        top = getattr(p, count) or p.top_k
        if table is None or vec is None or vector_server.is_server(table) or top <= 0:
            continue
        _add(r, kind, _shared_rows(index, kind, texts[text_of], table, vec, top, threshold))


Row = tuple[str, str, dict, Reason, float, Reason]  # id, label, data, why, sim, dropped


def _shared_rows(index: Index, kind: str, text: str, table: Any, vec: Any, top: int, threshold: float) -> list[Row]:
    """``_rows``, in a sweep once per search and threshold at the widest top asked (``reuse.once``; the rows
    are a pure function of the key, their data read only, as in ``replayed``): a narrower top's are those
    ranked within it, as a sweep's vector search at ``top`` is the first ``top`` rows of its widest
    (``core.reuse``)."""
    wider: list[tuple[int, list[int], list[Row]]] = reuse.once(
        ("lightrag.near misses", id(index), kind, text, threshold), list
    )
    for their_top, ranks, rows in wider:
        if their_top >= top:
            return rows if their_top == top else rows[: bisect_right(ranks, top)]
    ranks, rows = _rows(index, kind, table, vec, top, threshold)
    wider.append((top, ranks, rows))
    return rows


def _add(r: Retrieval, kind: str, made: list[Row]) -> None:
    if not made:
        return
    listed = set(candidate_ids(r.candidates(kind)))  # a lazy tail's ids without making its rows
    out = r.candidates(kind)
    for cid, label, data, why, sim, dropped in made:
        if cid in listed:
            continue
        listed.add(cid)
        out.append(Candidate(cid, label, data, len(out), why, sim, None, False, dropped, 0))


def _rows(index: Index, kind: str, table: Any, vec: Any, top: int, threshold: float) -> tuple[list[int], list[Row]]:
    """The rows within the search's top that the threshold cut, each as a dropped candidate's parts (a row
    whose item is not in the index is left out: LightRAG finds none), and each one's rank."""
    below = [(rank, row, sim) for rank, (row, sim) in enumerate(vector_topk(table, vec, top), 1) if sim < threshold]
    if not below:
        return [], []
    rows = graph_cache(index).relation_rows if kind == "relations" else {}
    preview = previews(index)
    made: list[Row] = []
    ranks: list[int] = []
    for rank, row, sim in below:
        vid = table.ids[row]
        if kind == "entities":
            item = index.entity_by_id.get(vid) or index.entity_by_name.get(vid)
            if item is None:
                continue
            data = {"name": item.name, "type": item.type, "description": item.description, "path": "local"}
            cid, label, what = item.id, item.name, msg("entity")
        elif kind == "relations":
            found = rows.get(vid)
            if found is None:
                continue
            rel, src, tgt = found
            data = {"entity1": src, "entity2": tgt, "description": rel.description, "weight": rel.weight}
            cid, label, what = rel.id, f"{src} — {tgt}", msg("relation")
        else:
            chunk = index.chunk_by_id.get(vid)
            if chunk is None:
                continue
            data = {"source": "vector", "text": chunk.text}
            cid, label, what = chunk.id, preview(chunk.text), msg("chunk")
        made.append((cid, label, data, _why(what, rank, sim, threshold), sim, _dropped(sim, threshold)))
        ranks.append(rank)
    return ranks, made
