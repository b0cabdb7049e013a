"""Entity recall for ``nano.local``: the hits, plus the near misses as dropped candidates.

``recall=vector`` is nano-graphrag's entity search (nano-vectordb: top_k by cosine, stop at the
first score below ``query_better_than_threshold``); ``ilike`` and ``hybrid`` are seed 003's
strategies from ``graphrag_ui.retrieval.core.recall``.
"""

from __future__ import annotations

from graphrag_ui.base.i18n import joined, lmsg, msg
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.recall import RecallHit, entity_label, recall_entities, tie_note, tied_rows, vector_topk
from graphrag_ui.retrieval.core.result import Candidate, Retrieval
from graphrag_ui.retrieval.spec.schema import Params

EXPLAIN_BEYOND = 5  # how many entities past top_k to show as dropped candidates


def recall(index: Index, query: str, params: Params, deps: Deps, out: Retrieval) -> list[RecallHit]:
    strategy = params.recall
    top_k, threshold = params.top_k, params.query_better_than_threshold
    table = index.vectors.get("entities")
    qvec = deps.vector(query) if strategy != "ilike" and table is not None and len(table) else None
    if strategy != "ilike" and qvec is None:
        out.warnings.append(msg("the index has no entity vectors: vector recall found nothing"))
    if strategy == "vector":
        return _vector_recall(index, qvec, top_k, threshold, out) if qvec is not None else []
    weights = (params.w_ilike, params.w_sim, params.w_occ)
    return recall_entities(index, query, qvec, strategy=strategy, top_k=top_k, threshold=threshold, weights=weights)


def _vector_recall(index: Index, qvec, top_k: int, threshold: float, out: Retrieval) -> list[RecallHit]:
    """recall_entities(strategy="vector") plus the near misses, from ONE scoring pass.

    ``vector_topk`` with ``top_k + EXPLAIN_BEYOND`` and no threshold returns the same argsort
    suffix, so its first ``top_k`` rows, cut at the first score below the threshold, are exactly
    nano-vectordb's hits; the rest are listed as dropped candidates with the reason.
    """
    table = index.vectors["entities"]
    hits: list[RecallHit] = []
    stopped = False
    scored = vector_topk(table, qvec, top_k + EXPLAIN_BEYOND, None)
    ties = tied_rows(scored)
    for pos, (row, sim) in enumerate(scored):
        entity = index.entity_by_id.get(table.ids[row]) or index.entity_by_name.get(table.ids[row])
        stopped = stopped or (pos < top_k and sim < threshold)
        if entity is None:
            if pos < top_k and not stopped:
                out.warnings.append(
                    msg("vector row {row} ({id}) names no entity in the graph: skipped", row=row, id=table.ids[row])
                )
            continue
        note = tie_note([entity_label(index, table, r) for r in ties.get(row, [])])
        if pos < top_k and not stopped:
            why = joined(msg("entity #{rank} by vector, sim {sim}", rank=len(hits) + 1, sim=f"{sim:.3f}"), note)
            hits.append(RecallHit(entity, sim, sim, "", why))
            continue
        if pos >= top_k:
            reason = lmsg("beyond top_k ({rank} > {top_k})", rank=pos + 1, top_k=top_k)
        elif sim < threshold:
            reason = lmsg("below threshold (sim {sim} < {threshold})", sim=f"{sim:.3f}", threshold=f"{threshold:g}")
        else:
            reason = lmsg("after the first score below threshold (nano-vectordb stops there)")
        out.entities.append(
            Candidate(
                id=entity.id,
                label=entity.name,
                data={"name": entity.name, "type": entity.type, "description": entity.description},
                order=len(out.entities),
                why=joined(lmsg("vector candidate #{rank}, sim {sim}", rank=pos + 1, sim=f"{sim:.3f}"), note),
                score=sim,
                rank=float(index.graph.degree(entity.name)) if entity.name in index.graph else 0.0,
                in_context=False,
                dropped=reason,
            )
        )
    return hits
