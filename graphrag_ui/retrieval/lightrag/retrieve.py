"""Entry of every ``lightrag.*`` mode: keywords, the seed's fallbacks, then the release's pipeline.

Both releases start the same way (``kg_query``'s keyword checks; seed 001's fall back to naive when
both keyword lists are empty and the query is short; ``bypass`` retrieves nothing), then hand over to
``v1_4_7.pipeline`` or ``v1_5_7.pipeline`` by the ``version`` parameter, and finish with the answer
messages.
"""

from __future__ import annotations

from graphrag_ui.base.i18n import msg
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import KEYWORD_SOURCES, Keywords, Retrieval
from graphrag_ui.retrieval.lightrag.explain import Clock
from graphrag_ui.retrieval.lightrag.near_misses import add_near_misses
from graphrag_ui.retrieval.lightrag.prompts import ANSWER
from graphrag_ui.retrieval.lightrag.v1_4_7 import pipeline as v147
from graphrag_ui.retrieval.lightrag.v1_5_7 import pipeline as v157
from graphrag_ui.retrieval.spec.answer_prompt import DEFAULT_RESPONSE_TYPE
from graphrag_ui.retrieval.spec.schema import Params

NAIVE_SHORT_QUERY = 50  # seed 001: both keyword lists empty and a query shorter than this -> naive
VERSION_147, VERSION_157 = "1.4.7", "1.5.7"


def _bypass(r: Retrieval, query: str, version: str, clock: Clock) -> Retrieval:
    """``bypass``: no keywords, no retrieval; the model gets the bare question (no system prompt)."""
    r.keywords = Keywords(source="")
    r.warnings.append(
        msg(
            "bypass: LightRAG {version} retrieves nothing in this mode; the question goes to the model as it is, "
            "with no context and no system prompt",
            version=version,
        )
    )
    clock.lap("keywords", msg("bypass uses no keywords and retrieves nothing"), 0, 0)
    r.messages = [{"role": "user", "content": query.strip()}]
    r.trace = clock.trace()
    return r


def retrieve(index: Index, query: str, mode: str, params: Params, deps: Deps) -> Retrieval:
    """Entry of every lightrag.* mode; ``params.version`` picks 1.4.7's or 1.5.7's pipelines."""
    clock = Clock()
    kw = deps.keywords or Keywords()
    r = Retrieval(
        mode=f"lightrag.{mode}",
        query=query,
        params=params.as_dict(),
        keywords=Keywords(list(kw.hl), list(kw.ll), kw.source),
    )
    p = params
    version = p.version
    if mode == "bypass":
        return _bypass(r, query, version, clock)
    kg, naive = (v157.run_kg, v157.run_naive) if version == VERSION_157 else (v147.run_kg, v147.run_naive)
    effective = mode
    if mode == "naive":
        r.keywords = Keywords(source="")
        clock.lap("keywords", msg("naive mode uses no keywords"), 0, 0)
    else:
        if not kw.ll and mode in ("local", "hybrid", "mix"):
            r.warnings.append(msg("low-level keywords are empty: the local (entity) path finds nothing"))
        if not kw.hl and mode in ("global", "hybrid", "mix"):
            r.warnings.append(msg("high-level keywords are empty: the global (relation) path finds nothing"))
        if not kw.hl and not kw.ll:
            if len(query) < NAIVE_SHORT_QUERY:
                effective = "naive"
                r.warnings.append(
                    msg(
                        "both keyword lists are empty and the query is shorter than {n} characters: fell back to "
                        "naive mode (seed 001; LightRAG {version} would search with the query as the only "
                        "low-level keyword)",
                        n=NAIVE_SHORT_QUERY,
                        version=version,
                    )
                )
            else:
                r.warnings.append(
                    msg(
                        "both keyword lists are empty and the query has {n}+ characters: no context "
                        "(LightRAG answers with its fail response)",
                        n=NAIVE_SHORT_QUERY,
                    )
                )
                clock.lap("keywords", msg("hl and ll empty"), 0, 0)
                r.trace = clock.trace()
                return r
        source = KEYWORD_SOURCES.get(kw.source) or kw.source or msg("given")
        clock.lap(
            "keywords",
            msg("hl={hl} ll={ll} ({source})", hl=list(kw.hl), ll=list(kw.ll), source=source),
            0,
            len(kw.hl) + len(kw.ll),
        )

    def run() -> None:
        if effective == "naive":
            naive(index, query, p, deps, r, clock)
        else:
            kg(index, query, mode, p, deps, r, clock)
        r.trace = clock.trace()
        add_near_misses(index, query, p, deps, r)  # explanation only: the context is the release's
        if r.context and not reuse.summary_only():  # a sweep's summary step reads no message
            r.messages = ANSWER[effective].messages(
                r.context,
                query,
                response_type=p.response_type or DEFAULT_RESPONSE_TYPE,
                user_prompt=p.user_prompt,
            )

    if mode != "naive":
        run()
        return r
    # naive reads top_k only when chunk_top_k is 0 (its search and near misses take ``chunk_top_k or top_k``):
    # a sweep's top_k steps under a chunk_top_k are the same run, made once (``reuse.whole``) from the second
    # step that meets it; the first runs alone (a budget sweep meets each run once: nothing to copy)
    read = tuple((k, v) for k, v in r.params.items() if not (k == "top_k" and p.chunk_top_k))
    read += (reuse.summary_only(),)  # a summary's run has no messages: never the copy a whole run gets
    met: list[bool] = reuse.once(("lightrag.naive met", id(index), query, read), list)
    if not met:
        met.append(True)
        run()
        return r
    return reuse.whole(("lightrag.naive run", id(index), query, read), r, run)
