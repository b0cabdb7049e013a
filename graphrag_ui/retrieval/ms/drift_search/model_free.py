"""What ``ms.drift`` builds without a model, exactly as graphrag 3.3.0's ``get_drift_search_engine`` does.

Steps in trace order: the HyDE template report (seeded; GraphRAG draws it with ``secrets.choice``)
and the expansion prompt → the ranking of every loaded report by cosine to its ``full_content``
vector, top ``drift_k_followups`` kept → the ``primer_folds`` folds and the report text of each
primer call.

GraphRAG embeds the model's hypothetical answer to rank; with no expansion to embed (no model), we
rank by the question itself, which is what GraphRAG does when the expansion comes back empty, and say
so. With a model, ``loop.run_loop`` starts here again with the expansion and runs the rest.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.base.timing import elapsed_ms as _ms
from graphrag_ui.base.timing import now
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import Candidate, Retrieval, TraceStep
from graphrag_ui.retrieval.ms.drift_search import primer
from graphrag_ui.retrieval.ms.drift_search.params import MODE, TYPING
from graphrag_ui.retrieval.ms.global_search.community_context import level_reports
from graphrag_ui.retrieval.ms.prompts import hyde_messages, primer_messages
from graphrag_ui.retrieval.ms.text import count_text
from graphrag_ui.retrieval.spec.schema import Params


def hyde_header(template_id: str, title: str, pos: int, n: int, seed: int) -> str:
    return (
        f"=== DRIFT expansion (HyDE) prompt · template report {template_id} ({title}), "
        f"#{pos + 1} of {n} loaded reports, seed {seed} ===\n"
    )


def ranking_header(ranked_by: str, kept: int, n: int) -> str:
    return f"=== DRIFT primer ranking by cosine of the {ranked_by} · top {kept} of {n} report(s) ===\n"


def fold_header(i: int, folds: int, ids: list[str]) -> str:
    return f"=== DRIFT primer fold {i + 1} of {folds} · {len(ids)} report(s): {', '.join(ids) or '-'} ===\n"


def ranking_table(ranked: list[primer.RankedReport]) -> str:
    lines = ["rank|community|similarity|title"]
    lines += [f"{n}|{r.community.id}|{r.similarity:.6f}|{r.community.title}" for n, r in enumerate(ranked, start=1)]
    return "\n".join(lines) + "\n"


# the parameters the primer stage reads (with the index, the question and its vector): a sweep's steps over
# another one (the local searches' and the reduce's, which only a model runs) are one primer (``search.run``)
PRIMER_READS = ("community_level", "seed", "drift_k_followups", "primer_folds")


def primer_stage(
    index: Index,
    query: str,
    params: Mapping[str, Any] | Params,
    deps: Deps,
    expansion: str | None = None,
    out: Retrieval | None = None,
) -> Retrieval:
    """The model-free part of DRIFT for ``query``, into ``out`` (None: a new one); ``expansion`` is the
    model's hypothetical answer (None: no model ran; GraphRAG's empty expansion, "" , also ranks by the question)."""
    start = now()
    params = TYPING.typed(params)
    out = Retrieval(mode=MODE, query=query, params=params.as_dict()) if out is None else out
    if query == "":
        out.warnings.append(msg("the question is empty: GraphRAG's DRIFT search refuses it (ValueError)"))
        return out
    level, seed = params.community_level, params.seed
    t = now()
    reports = level_reports(index, level)
    if not reports:
        out.warnings.append(
            msg(
                "no community report at community_level ≤ {level}: GraphRAG's DRIFT cannot pick a template "
                "report (secrets.choice of an empty list) and stops",
                level=level,
            )
        )
        return out
    pos = primer.pick_template(reports, seed)
    template = reports[pos]
    out.messages = hyde_messages(query, primer.full_content(template))
    parts = [hyde_header(template.id, template.title, pos, len(reports), seed) + out.messages[0]["content"]]
    out.trace.append(
        TraceStep(
            "template choice",
            msg("random.Random({seed}).choice over the loaded reports", seed=seed),
            len(reports),
            1,
            _ms(t),
        )
    )
    t = now()
    matrix, missing = primer.report_vectors(index, reports)
    if matrix is None:
        out.warnings.append(
            msg(
                "{missing} of {total} report(s) have no full_content vector: GraphRAG's DRIFT stops here "
                "(ValueError: Some reports are missing full content embeddings)",
                missing=len(missing),
                total=len(reports),
            )
        )
        out.context = "".join(parts)
        return out
    text = expansion if expansion else query
    ranked_by = "expansion" if expansion else "question"
    qvec = deps.vector(text)
    if qvec.shape[0] != matrix.shape[1]:
        out.warnings.append(
            msg(
                "the question's vector has {q} dimensions, the report vectors {d}: GraphRAG's DRIFT stops "
                "(ValueError: Query and document embeddings are not compatible)",
                q=qvec.shape[0],
                d=matrix.shape[1],
            )
        )
        out.context = "".join(parts)
        return out
    ranked = primer.rank_reports(reports, primer.similarities(matrix, qvec))
    k = params.drift_k_followups
    top = ranked[:k]
    out.trace.append(
        TraceStep(
            "report ranking", msg("cosine to full_content vectors, nlargest({k})", k=k), len(reports), len(top), _ms(t)
        )
    )
    t = now()
    folds = primer.split_folds([r.community for r in top], params.primer_folds)
    fold_of = {c.id: i for i, fold in enumerate(folds) for c in fold}
    parts.append(ranking_header(ranked_by, len(top), len(reports)) + ranking_table(top))
    for i, fold in enumerate(folds):
        parts.append(fold_header(i, len(folds), [c.id for c in fold]) + primer.fold_text(fold) + "\n")
    out.trace.append(
        TraceStep("primer folds", msg("np.array_split of the ranked reports"), len(top), len(folds), _ms(t))
    )
    _candidates(out, ranked, k, fold_of, template.id, ranked_by)
    out.context = "".join(parts)
    if expansion is None:  # no model ran: say what needs one
        out.warnings.append(_needs_model())
    out.timings_ms["context"] = _ms(start)
    return out


def _needs_model() -> str:
    return msg(
        "DRIFT needs a model from here on: GraphRAG ranks by the model's hypothetical answer (here by the "
        "question, as GraphRAG does when that answer comes back empty); the primer answers, the local-search "
        "rounds and the reduce run only with a model"
    )


def _why(n: int, ranked_by: str, sim: float) -> str:
    if math.isnan(sim):
        return msg("report #{n}: no similarity (a zero vector), ranked last as GraphRAG's nlargest places it", n=n)
    if ranked_by == "expansion":
        return msg(
            "report #{n} by cosine of the expansion to its full_content vector, sim {sim}", n=n, sim=f"{sim:.4f}"
        )
    return msg("report #{n} by cosine of the question to its full_content vector, sim {sim}", n=n, sim=f"{sim:.4f}")


def _tokens(text: str) -> int:
    """A kept report's tokens, once per report text in a sweep (``reuse.once``: every step keeps the same)."""
    return reuse.once(("ms.count", text), lambda: count_text(text))


def _candidates(out, ranked, k: int, fold_of: dict, template_id: str, ranked_by: str) -> None:
    for n, r in enumerate(ranked, start=1):
        c = r.community
        kept = n <= k
        out.communities.append(
            Candidate(
                id=c.id,
                label=c.title,
                data={
                    "title": c.title,
                    "level": c.level,
                    "rating": c.rating,
                    "similarity": r.similarity,
                    "fold": fold_of[c.id] + 1 if kept else None,
                    "hyde_template": c.id == template_id,
                },
                order=n - 1,
                why=_why(n, ranked_by, r.similarity),
                score=None if math.isnan(r.similarity) else r.similarity,
                rank=c.rating,
                in_context=kept,
                dropped="" if kept else msg("rank {n}: below the top drift_k_followups={k}", n=n, k=k),
                tokens=_tokens(primer.full_content(c)) if kept else 0,
            )
        )


def primer_prompts(index: Index, result: Retrieval) -> list[list[dict[str, str]]]:
    """The primer call of each fold (empty folds too), as DRIFT sends them after this ranking."""
    top = [index.community_by_id[c.id] for c in result.communities if c.in_context]
    folds = primer.split_folds(top, TYPING.typed(result.params).primer_folds)
    return [primer_messages(result.query, primer.fold_text(fold)) for fold in folds]
