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

from graphrag_ui.base.i18n import Reason, lmsg, msg
from graphrag_ui.index.model import Index
from graphrag_ui.index.servers import vector_server
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
        below = [(rank, row, sim) for rank, (row, sim) in enumerate(vector_topk(table, vec, top), 1) if sim < threshold]
        _add(index, r, kind, below, threshold)


def _add(index: Index, r: Retrieval, kind: str, below: list[tuple[int, int, float]], threshold: float) -> None:
    if not below:
        return
    table = index.vectors[kind]
    listed = set(candidate_ids(r.candidates(kind)))  # a lazy tail's ids without making its rows
    out = r.candidates(kind)
    rows = graph_cache(index).relation_rows if kind == "relations" else {}
    preview = previews(index)
    for rank, row, sim in below:
        vid = table.ids[row]
        if kind == "entities":
            item = index.entity_by_id.get(vid) or index.entity_by_name.get(vid)
            if item is None or item.id in listed:
                continue
            data = {"name": item.name, "type": item.type, "description": item.description, "path": "local"}
            cid, label, what = item.id, item.name, msg("entity")
        elif kind == "relations":
            found = rows.get(vid)
            if found is None or found[0].id in listed:
                continue
            rel, src, tgt = found
            data = {"entity1": src, "entity2": tgt, "description": rel.description, "weight": rel.weight}
            cid, label, what = rel.id, f"{src} — {tgt}", msg("relation")
        else:
            chunk = index.chunk_by_id.get(vid)
            if chunk is None or chunk.id in listed:
                continue
            data = {"source": "vector", "text": chunk.text}
            cid, label, what = chunk.id, preview(chunk.text), msg("chunk")
        listed.add(cid)
        why = _why(what, rank, sim, threshold)
        out.append(Candidate(cid, label, data, len(out), why, sim, None, False, _dropped(sim, threshold), 0))
