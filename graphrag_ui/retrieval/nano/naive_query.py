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

from graphrag_ui.base.i18n import msg
from graphrag_ui.base.timing import elapsed_ms as _ms
from graphrag_ui.base.timing import now
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import Candidates
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import SECTIONS, Budget, Retrieval, TraceStep
from graphrag_ui.retrieval.nano import naive_rows
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
        rows = naive_rows.nothing()
    else:
        rows = naive_rows.ranked(index, table, deps.vector(query), top_k + EXPLAIN_BEYOND, prep.chunk_tokens)
    got = naive_rows.cut(rows, top_k, threshold, limit, EXPLAIN_BEYOND)
    for pos in range(got.stop):  # a hit's vector without its chunk: said, skipped
        if rows.chunks[pos] is None:
            out.warnings.append(
                msg("chunk vector {row} has no stored chunk: skipped (nano would crash)", row=rows.ids[pos])
            )
    out.trace.append(
        TraceStep(
            "search",
            msg("chunk vectors, top_k {top_k}", top_k=top_k),
            len(table) if table else 0,
            got.hits,
            _ms(start),
        )
    )

    step = now()
    kept = got.kept
    summary = reuse.summary_only()  # a sweep's summary step: no context, the rows as made
    out.chunks = Candidates(naive_rows.kept_rows(got, summary), naive_rows.DroppedTail(got))
    out.budgets.append(Budget(SECTIONS["chunks"], rows.running[kept - 1] if kept else 0, limit))
    out.trace.append(TraceStep("cut", msg("chunk tokens within {limit}", limit=limit), got.hits, kept, _ms(step)))

    if not got.hits:
        out.warnings.append(FAIL_RESPONSE_NOTE)
    elif not summary:
        context = rows.contexts.get(kept)
        if context is None:  # steps that keep as many hits share the text
            context = rows.contexts[kept] = SEPARATOR.join(rows.chunks[p].text for p in rows.present[:kept])
        out.context = context
        key = ("messages", kept, query, params.response_type)  # steps that keep as many hits share the prompt
        messages = rows.contexts.get(key)
        if messages is None:
            messages = rows.contexts[key] = NAIVE.messages(context, query, response_type=params.response_type)
        out.messages = [dict(m) for m in messages]
    if got.hits and not kept:
        out.warnings.append(
            msg(
                "the best chunk alone is {costs} tokens > naive_max_token_for_text_unit {limit}: the context is empty "
                "(nano sends the model an empty excerpt section)",
                costs=rows.costs[0],
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
