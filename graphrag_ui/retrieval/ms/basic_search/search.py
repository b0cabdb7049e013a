"""``ms.basic``: Microsoft GraphRAG basic search (``BasicSearchContext.build_context``), 2.x and 3.x.

LanceDB k-NN (``k`` nearest text units over ``text_unit_text``, no threshold) → a ``|`` table of the
hits, header counted, then one row at a time until ``max_context_tokens`` would be crossed (that row
and all after it are left out) → pandas ``to_csv(sep="|", escapechar="\\\\")``. The two versions
differ: 3.x lists the hits in text_units.parquet order under ``id|text``; 2.x lists them in
similarity order under ``source_id|text``. An empty query gives just the header.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from graphrag_ui.base.i18n import Reason, lmsg, msg
from graphrag_ui.base.timing import elapsed_ms as _ms
from graphrag_ui.base.timing import now
from graphrag_ui.index import cache as index_cache
from graphrag_ui.index.model import Chunk, Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import Candidates, ColumnTail
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import SECTIONS, Budget, Candidate, Retrieval, TraceStep
from graphrag_ui.retrieval.ms.indexer_adapters import index_view
from graphrag_ui.retrieval.ms.prompts import BASIC
from graphrag_ui.retrieval.ms.text import count, csv_line
from graphrag_ui.retrieval.ms.vector_search import lance_knn, negative_scores
from graphrag_ui.retrieval.spec.needs import Needs
from graphrag_ui.retrieval.spec.reference_params import GRAPHRAG_BASIC
from graphrag_ui.retrieval.spec.schema import ANSWER_PROMPT, ModeSpec, Params

MODE = "ms.basic"


def _unit_line(lines: dict, short: str, unit: Chunk) -> str:
    """A text unit's table row, written once per unit (``lines``, kept with the index: a sweep's steps meet
    it again)."""
    found = lines.get(unit.id)
    if found is None or found[0] is not unit.text or found[1] != short:  # another unit under the same id
        found = lines[unit.id] = (unit.text, short, csv_line([short, unit.text]))
    return found[2]


def layout(index: Index) -> str:
    """``"2"`` for GraphRAG 2.x indexes, else ``"3"`` (3.3.0 behaviour for built and other indexes)."""
    return "2" if index.manifest.source in ("graphrag-1", "graphrag-2") else "3"


def _in_file_order(index: Index, found: dict[str, Any]) -> list[Chunk]:
    """The text units ``found`` names, in text_units.parquet's order (3.x): a scan of every unit, or in a
    sweep each unit's position, made once for all its steps (unique ids: a sort by position is that scan)."""
    if not reuse.active():
        return [c for c in index.chunks if c.id in found]
    position = reuse.once(("ms.basic unit order", id(index)), lambda: {c.id: i for i, c in enumerate(index.chunks)})
    if len(position) != len(index.chunks):  # an id twice: only the scan keeps both
        return [c for c in index.chunks if c.id in found]
    return [index.chunks[i] for i in sorted(position[cid] for cid in found if cid in position)]


def run(index: Index, query: str, params: Mapping[str, Any] | Params, deps: Deps) -> Retrieval:
    start = now()
    params = SPECS[0].typed(params)
    out = Retrieval(mode=MODE, query=query, params=params.as_dict())
    k, limit = params.k, params.max_context_tokens
    version = layout(index)
    id_col = "source_id" if version == "2" else "id"
    view = index_view(index)
    t = now()
    hits = []
    table_ = index.vectors.get("chunks")
    if query == "":
        out.warnings.append(msg("empty query: GraphRAG searches nothing and the table has only its header"))
    elif table_ is None or not len(table_):
        out.warnings.append(msg("the index has no text-unit vectors: basic search found nothing"))
    else:
        kernel = index.manifest.settings.get("lance_kernel", "flat")
        hits = [h for h in lance_knn(table_, deps.vector(query), k, kernel)]
        out.warnings += negative_scores(hits)
    found = {h.id: (pos, h) for pos, h in enumerate(hits, start=1)}
    if version == "2":
        units = [view.chunks[h.id] for h in hits if h.id in view.chunks]
    else:
        units = _in_file_order(index, found)
    for h in hits:
        if h.id not in view.chunks:
            out.warnings.append(msg("vector id {id} names no text unit: skipped", id=h.id))
    out.trace.append(TraceStep("text unit search", msg("LanceDB k-NN, k = {k}", k=k), len(hits), len(units), _ms(t)))
    t = now()
    header = [id_col, "text"]
    used = count(f"{id_col}|text\n")
    rows: list[str] = []  # the table's lines
    lines = index_cache.kept(index, "ms.basic lines", dict)

    # a sweep's steps meet the same (unit, hit) again: each candidate made once and copied per step
    made: dict[tuple, tuple[Chunk, Candidate]] | None = None
    if reuse.active():
        made = reuse.once(("ms.basic candidates", id(index)), dict)

    def unit_candidate(order: int) -> Candidate:
        unit = units[order]
        pos, hit = found[unit.id]
        if made is None:
            return new_candidate(unit, pos, hit, order)
        key = (unit.id, pos, hit.distance, hit.score)
        kept = made.get(key)
        if kept is None or kept[0] is not unit:
            kept = made[key] = (unit, new_candidate(unit, pos, hit, order))
        cand = reuse.copied(kept[1])
        cand.order = order
        return cand

    def new_candidate(unit: Chunk, pos: int, hit: Any, order: int) -> Candidate:
        short = view.unit_short_id[unit.id]
        return Candidate(
            id=unit.id,
            label=unit.text[:80],
            data={"text": unit.text, "doc_id": unit.doc_id, "short_id": short},
            order=order,
            why=lmsg(
                "text unit #{n} by vector (LanceDB L2 {distance}), score {score}",
                n=pos,
                distance=f"{hit.distance:.4f}",
                score=f"{hit.score:.3f}",
            ),
            score=hit.score,
            tokens=view.unit_row(unit)[1],
        )

    for order in range(len(units)):
        cand = unit_candidate(order)
        if used + cand.tokens > limit:  # it and every unit after it are left out, made when read
            out.chunks = Candidates(out.chunks, _over_budget(unit_candidate, order, len(units), used, limit, units))
            break
        out.chunks.append(cand)
        used += cand.tokens
        rows.append(_unit_line(lines, cand.data["short_id"], units[order]))
    # an index without text units has nothing to show: no header-only table pretending a search ran
    out.context = csv_line(header) + "".join(rows) if index.chunks else ""
    out.budgets = [Budget(SECTIONS["text units"], used, limit if used <= limit else None)]
    if used > limit:
        out.warnings.append(
            msg("max_context_tokens {limit} is smaller than the table header ({used} tokens)", limit=limit, used=used)
        )
    order_words = msg("similarity order (2.x)") if version == "2" else msg("text_units.parquet order (3.x)")
    out.trace.append(
        TraceStep(
            "context table",
            msg("{n} rows in {order}, {used}/{limit} tokens", n=len(rows), order=order_words, used=used, limit=limit),
            len(units),
            len(rows),
            _ms(t),
        )
    )
    out.messages = BASIC.messages(out.context, query, response_type=params.response_type)
    out.timings_ms["context"] = _ms(start)
    return out


def _over(used: int, tokens: int, limit: int) -> Reason:
    return lmsg("over budget (Sources: {used}+{tokens} > {limit} tokens)", used=used, tokens=tokens, limit=limit)


_OVER = _over(0, 0, 0).template  # the tail's one reason (``binding`` counts by template)


def _over_budget(
    make: Callable[[int], Candidate], start: int, end: int, used: int, limit: int, units: list[Chunk]
) -> ColumnTail:
    """Units ``start``..``end`` once one did not fit: each dropped over the budget, made when read."""

    def row(i: int) -> Candidate:
        cand = make(start + i)
        cand.in_context = False
        cand.dropped = _over(used, cand.tokens, limit)
        return cand

    return ColumnTail(end - start, lambda: [u.id for u in units[start:end]], row, [(_OVER, end - start)])


PARAMS = (
    GRAPHRAG_BASIC.param("k", msg("Text units to fetch by vector search (no threshold)."), 1, 500, 1),
    GRAPHRAG_BASIC.param("max_context_tokens", msg("Context budget (cl100k_base tokens)."), 0, 200000, 100),
    GRAPHRAG_BASIC.param("response_type", ANSWER_PROMPT),
)

SPECS = [
    ModeSpec(
        name=MODE,
        family="ms",
        func=run,
        params=PARAMS,
        needs=Needs(("chunks",)),
        citation_style="graphrag",
        answer_prompt=BASIC,
        summary=msg(
            "Microsoft GraphRAG basic search: the k text units nearest the question, as one table within "
            "the token budget."
        ),
        reference="graphrag.basic:basic",
    )
]
