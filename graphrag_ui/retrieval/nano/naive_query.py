"""``nano.naive``: nano-graphrag 0.0.8.2's naive query (``naive_query`` in _op.py), explained.

1. search — the chunk vectors (nano-vectordb semantics: top_k by cosine, stop at the first score below
   ``query_better_than_threshold``), best first;
2. chunks — their stored texts in that order (a missing chunk is skipped with a warning; nano would crash);
3. cut — running sum of chunk tokens within ``naive_max_token_for_text_unit`` (prefix cut);
4. assemble — the chunk texts joined by ``--New Chunk--\\n``.

As for ``nano.local``, no chunk above the threshold gives an empty context and a warning (nano
returns its fail response string instead of a context).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphrag_ui.base.i18n import Reason, lmsg, msg
from graphrag_ui.base.timing import elapsed_ms as _ms
from graphrag_ui.base.timing import now
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.recall import vector_topk
from graphrag_ui.retrieval.core.result import SECTIONS, Budget, Candidate, Retrieval, TraceStep
from graphrag_ui.retrieval.nano import csv_context
from graphrag_ui.retrieval.nano import params as nano_params
from graphrag_ui.retrieval.nano.prep import prepared
from graphrag_ui.retrieval.nano.prompts import NAIVE
from graphrag_ui.retrieval.nano.recall import EXPLAIN_BEYOND
from graphrag_ui.retrieval.spec.needs import Needs
from graphrag_ui.retrieval.spec.reference_params import NANO
from graphrag_ui.retrieval.spec.schema import ANSWER_PROMPT, ModeSpec, Params

MODE = "nano.naive"
SEPARATOR = "--New Chunk--\n"
FAIL_RESPONSE_NOTE = msg(
    "no chunk scored above query_better_than_threshold: nano-graphrag answers "
    '"Sorry, I\'m not able to provide an answer to that question." without calling the LLM'
)


def _chunk_candidate(
    shown: dict[str, tuple[str, dict]],
    chunk,
    pos: int,
    why: Reason,
    sim: float,
    tokens: int,
    dropped: Reason | str = "",
) -> Candidate:
    found = shown.get(chunk.id)  # (label, row data): a function of the chunk, kept across a sweep's steps
    if found is None:
        data = {"doc_id": chunk.doc_id, "order": chunk.order, "text": chunk.text}
        found = shown[chunk.id] = (chunk.text[:80].replace("\n", " "), data)
    return Candidate(chunk.id, *found, pos, why, sim, None, not dropped, dropped, tokens)


def nano_naive(index: Index, query: str, params: Mapping[str, Any] | Params, deps: Deps) -> Retrieval:
    params = SPECS[0].typed(params)
    out = Retrieval(mode=MODE, query=query, params=params.as_dict())
    prep = prepared(index)
    top_k, threshold = params.top_k, params.query_better_than_threshold
    limit = params.naive_max_token_for_text_unit
    start = now()
    table = index.vectors.get("chunks")
    if table is None or not len(table):
        out.warnings.append(msg("the index has no chunk vectors: naive search has nothing to search"))
        scored: list[tuple[int, float]] = []
    else:
        scored = vector_topk(table, deps.vector(query), top_k + EXPLAIN_BEYOND, None)
    hits, beyond = [], []
    stopped = False
    for pos, (row, sim) in enumerate(scored):
        stopped = stopped or (pos < top_k and sim < threshold)
        chunk = index.chunk_by_id.get(table.ids[row])
        if chunk is None:
            if pos < top_k and not stopped:
                out.warnings.append(
                    msg("chunk vector {row} has no stored chunk: skipped (nano would crash)", row=table.ids[row])
                )
            continue
        if pos < top_k and not stopped:
            hits.append((chunk, sim, pos))
        elif pos >= top_k:
            beyond.append((chunk, sim, pos, lmsg("beyond top_k ({rank} > {top_k})", rank=pos + 1, top_k=top_k)))
        elif sim < threshold:
            below = lmsg("below threshold (sim {sim} < {threshold})", sim=f"{sim:.3f}", threshold=f"{threshold:g}")
            beyond.append((chunk, sim, pos, below))
        else:
            beyond.append((chunk, sim, pos, lmsg("after the first score below threshold (nano-vectordb stops there)")))
    out.trace.append(
        TraceStep(
            "search",
            msg("chunk vectors, top_k {top_k}", top_k=top_k),
            len(table) if table else 0,
            len(hits),
            _ms(start),
        )
    )

    step = now()
    costs = [prep.chunk_tokens(c) for c, _, _ in hits]
    shown = reuse.once(("nano.naive shown", id(index)), dict)
    kept, running = csv_context.prefix_cut(costs, limit)
    for pos, ((chunk, sim, found), cost) in enumerate(zip(hits, costs, strict=True)):
        why = lmsg("chunk #{n} by vector, sim {sim}", n=found + 1, sim=f"{sim:.3f}")
        dropped = (
            ""
            if pos < kept
            else lmsg(
                "over budget (naive_max_token_for_text_unit: {running}/{limit} tokens)",
                running=running[pos],
                limit=limit,
            )
        )
        out.chunks.append(_chunk_candidate(shown, chunk, pos, why, sim, cost, dropped))
    for chunk, sim, found, reason in beyond:
        why = lmsg("vector candidate #{rank}, sim {sim}", rank=found + 1, sim=f"{sim:.3f}")
        out.chunks.append(_chunk_candidate(shown, chunk, len(out.chunks), why, sim, prep.chunk_tokens(chunk), reason))
    out.budgets.append(Budget(SECTIONS["chunks"], running[kept - 1] if kept else 0, limit))
    out.trace.append(TraceStep("cut", msg("chunk tokens within {limit}", limit=limit), len(hits), kept, _ms(step)))

    if not hits:
        out.warnings.append(FAIL_RESPONSE_NOTE)
    else:
        out.context = SEPARATOR.join(chunk.text for chunk, _, _ in hits[:kept])
        out.messages = NAIVE.messages(out.context, query, response_type=params.response_type)
    if hits and not kept:
        out.warnings.append(
            msg(
                "the best chunk alone is {costs} tokens > naive_max_token_for_text_unit {limit}: the context is empty "
                "(nano sends the model an empty excerpt section)",
                costs=costs[0],
                limit=limit,
            )
        )
    out.timings_ms["context"] = _ms(start)
    return out


PARAMS = (
    nano_params.top_k(msg("How many chunks the vector search returns (nano QueryParam.top_k).")),
    NANO.param(
        "naive_max_token_for_text_unit",
        msg("Token budget of the chunk texts (a prefix cut: the chunk that crosses it and all after are left out)."),
        0,
        128000,
        100,
    ),
    nano_params.threshold(msg("Cosine similarity a chunk must reach; the search stops at the first one below.")),
    NANO.param("response_type", ANSWER_PROMPT),
)

SPECS = [
    ModeSpec(
        name=MODE,
        family="nano",
        func=nano_naive,
        params=PARAMS,
        needs=Needs(("chunks",)),
        answer_prompt=NAIVE,
        summary=msg("nano-graphrag 0.0.8.2 naive: chunks by vector search within a token budget, joined as excerpts."),
        reference="nano:naive",
    )
]
