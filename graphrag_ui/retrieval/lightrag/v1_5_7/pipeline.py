"""The two LightRAG 1.5.7 pipelines (``kg_query`` and ``naive_query``) producing an explained ``Retrieval``.

KG: the shared search (lightrag_stages) → entity and relation lines cut by 1.5.7's
``truncate_list_by_token_size`` → chunks of the kept entities, then relations → round-robin merge
→ chunk_top_k, then the chunk budget (max_total_tokens minus the answer template, the KG context,
the query and a 200-token buffer; two-stage cut) → references → JSON-lines context. Unlike 1.4.7,
mix with only vector chunks still has a context, and a context can hold KG data with no chunk.
Naive: vector chunks → the same chunk budget without the KG part → references → context.
Rerank stays off (``enable_rerank=False``): no rerank model is configured offline.
"""

from __future__ import annotations

from functools import lru_cache, partial
from typing import Any

from graphrag_ui.base.i18n import joined, msg
from graphrag_ui.index.lightrag_precount import vector_fields
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import in_context
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import SECTIONS, Budget, Retrieval
from graphrag_ui.retrieval.lightrag.after_cut import after_cut
from graphrag_ui.retrieval.lightrag.explain import Clock, finish_chunks
from graphrag_ui.retrieval.lightrag.lazy_hits import printed
from graphrag_ui.retrieval.lightrag.stages import (
    Found,
    Picked,
    chunk_rows,
    fill_graph,
    lap_token_control,
    pick_chunks,
    search_chunks,
    search_graph,
    total_budget,
)
from graphrag_ui.retrieval.lightrag.v1_5_7 import context as c157
from graphrag_ui.retrieval.spec.schema import Params

LABEL = "LightRAG 1.5.7"
NO_CONTEXT = msg("(LightRAG 1.5.7 answers with its fail response)")


def _rows_key(rows: list[dict[str, Any]]) -> tuple:
    """Rows by what 1.5.7 renders of them (their text objects are the sweep's own: hashed once)."""
    return tuple((row["chunk_id"], row["file_path"], row["content"]) for row in rows)


def _encoded(content: Any) -> str:
    """``c157.dumps(content)``, once per chunk text for the last ones met (a run renders a chunk's content in its
    ``{"content"}`` line and its final line, a sweep's steps and the next questions meet the same chunks again;
    the text objects are the index's own, their hashes kept)."""
    return _encoded_text(content) if type(content) is str else c157.dumps(content)


@lru_cache(maxsize=1024)
def _encoded_text(content: str) -> str:
    return c157.dumps(content)


def _chunk_lines(rows: list[dict[str, Any]]) -> list[str]:
    """``c157.chunk_lines``, once per rows in a sweep (``reuse.once``: a pure function of what they hold), each
    line ``{"reference_id": …, "content": …}`` with the content encoded once (``_encoded``)."""

    def make() -> list[str]:
        _, ref_ids = c157.references([row["file_path"] for row in rows])
        return [
            f'{{"reference_id": {c157.dumps(rid)}, "content": {_encoded(row["content"])}}}'
            for rid, row in zip(ref_ids, rows, strict=True)
        ]

    return reuse.once(("lightrag.1.5.7 chunk lines", _rows_key(rows)), make)


def _content_lines(rows: list[dict[str, Any]]) -> list[str]:
    """``c157.content_lines`` (``{"content": …}`` per row), the contents encoded once (``_encoded``)."""
    return [f'{{"content": {_encoded(row["content"])}}}' for row in rows]


def _contents(rows: list[dict[str, Any]]) -> list[str]:
    """``_content_lines(rows)``, once per rows in a sweep."""
    return reuse.once(("lightrag.1.5.7 content lines", _rows_key(rows)), lambda: _content_lines(rows))


def _chunks_used(rows: list[dict[str, Any]]) -> int:
    """Tokens of the kept chunks' final lines joined (``c157.chunks_joined_tokens``: no line rendered)."""
    return c157.chunks_joined_tokens(_contents(rows), rows)


def _joined(lines: list[str]) -> c157.Joined:
    """``c157.Joined(lines)`` once per lines object in a sweep (the lines a step reads are the sweep's own,
    held by its scope), with the encodings of the cuts made in it: a budget step cuts the same lines again."""
    return reuse.once(("lightrag.1.5.7 joined", id(lines)), lambda: c157.Joined(lines))


def _fit(rows: list[dict[str, Any]], available: int) -> tuple[int, list[int]]:
    """How many chunk rows 1.5.7 keeps, and each row's rendered line cost (line + newline), counted from the
    rows' ``{"content"}`` lines (``c157.chunk_line_tokens``)."""
    contents = _contents(rows)
    keep = c157.fit_chunks(rows, available, contents, _joined)
    return keep, [c[1] for c in c157.chunk_line_tokens(contents, rows)]


def _chunks_and_references(
    r: Retrieval, index: Index, picked: Picked, rows: list[dict[str, Any]], p: Params, available: int
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    kept = finish_chunks(r, index, picked.merged, rows, picked.picks, picked.dupes, p, available, fit=_fit)
    refs, ref_ids = c157.references([row["file_path"] for row in kept])
    if reuse.summary_only():  # a summary step's chunk rows are ids, labels and tokens (``explain.KeptRow``)
        return kept, refs
    for cand, rid in zip(in_context(r.chunks), ref_ids, strict=True):
        cand.data["reference_id"] = rid
        cand.why = joined(
            cand.why, msg("reference [{rid}]", rid=rid) if rid else msg("no reference (unknown file path)")
        )
    return kept, refs


def _lines(index: Index, entities: list, relations: list) -> tuple[list[str], list[str], list[int], list[int]]:
    """The entity and relation lines 1.5.7 prints and each one's cost; a line carries no position, so in a
    sweep each hit's line is made and counted once (``reuse.once``; a hit is its entity, or its relation
    as printed: id and pair)."""
    made: dict = reuse.once(("lightrag.1.5.7 lines", id(index)), dict)
    ent, rel = [], []
    for h in entities:
        found = made.get(h.entity.id)
        if found is None:
            line = c157.entity_line(h.entity.name, h.entity.type, h.entity.description)
            found = made[h.entity.id] = (line, c157.line_tokens(line)[1])
        ent.append(found)
    for relation, pair in printed(relations):  # the relations as printed, no hit made (``lazy_hits``)
        key = (relation.id, pair)
        found = made.get(key)
        if found is None:
            line = c157.relation_line(pair[0], pair[1], relation.description)
            found = made[key] = (line, c157.line_tokens(line)[1])
        rel.append(found)
    return [x[0] for x in ent], [x[0] for x in rel], [x[1] for x in ent], [x[1] for x in rel]


def run_kg(index: Index, query: str, mode: str, p: Params, deps: Deps, r: Retrieval, clock: Clock) -> Retrieval:
    found = search_graph(index, query, mode, p, deps, r, clock, LABEL)
    entities, relations = found.entities, found.relations
    ent_lines, rel_lines, ent_costs, rel_costs = reuse.once(  # one search's lines, shared by its budget steps
        ("lightrag.1.5.7 search lines", id(found)), lambda: _lines(index, entities, relations)
    )
    n_ent = c157.fit_lines(ent_lines, p.max_entity_tokens, _joined)
    n_rel = c157.fit_lines(rel_lines, p.max_relation_tokens, _joined)
    lap_token_control(clock, p, (len(entities), len(relations)), (n_ent, n_rel), json_lines=True)
    fill_graph(r, found, LABEL, (ent_costs, rel_costs), (n_ent, n_rel), p)
    if not entities and not relations and (mode != "mix" or not found.vector.picked):
        r.warnings.append(msg("no entity or relation was found: no context {no_context}", no_context=NO_CONTEXT))
        clock.lap("assemble", msg("nothing to assemble"), 0, 0)
        return r
    kept_ent, kept_rel = entities[:n_ent], relations[:n_rel]  # a lazy list's slice makes its hits: once
    # in a sweep, a step keeping the same hits as an earlier one gets copies of what it made after the cut
    lines = (ent_lines[:n_ent], rel_lines[:n_rel])
    run = partial(_after_cut, index, query, p, deps, r, clock, found, (kept_ent, kept_rel), lines)
    after_cut(LABEL, index, query, mode, r, clock, (kept_ent, kept_rel), run, chunk_top_k=p.chunk_top_k)
    return r


def _after_cut(
    index: Index,
    query: str,
    p: Params,
    deps: Deps,
    r: Retrieval,
    clock: Clock,
    found: Found,
    hits: tuple[list, list],
    lines: tuple[list[str], list[str]],
) -> None:
    """The chunk picks, the chunk budget, the budgets and the context of the kept hits (``after_cut``)."""
    (kept_ent, kept_rel), (ent_lines, rel_lines) = hits, lines
    picked = pick_chunks(index, query, p, deps, r, clock, kept_ent, kept_rel, found.vector)
    if not picked.merged and not ent_lines and not rel_lines:
        r.warnings.append(
            msg("no entity, relation or chunk survived truncation: no context {no_context}", no_context=NO_CONTEXT)
        )
        clock.lap("assemble", msg("nothing to assemble"), 0, 0)
        return

    sys_tokens = c157.system_overhead("kg", p.response_type, p.user_prompt)
    q_tokens = c157.query_tokens(query)
    kg_tokens = c157.kg_tokens_for_budget(ent_lines, rel_lines)
    fixed = kg_tokens + sys_tokens + q_tokens + c157.BUFFER_TOKENS
    available = p.max_total_tokens - fixed
    rows = chunk_rows(index, picked.merged)
    kept, refs = _chunks_and_references(r, index, picked, rows, p, available)
    chunk_used = _chunks_used(kept)
    clock.lap(
        "token control",
        msg("chunk_top_k {k}, chunk budget {available}", k=p.chunk_top_k, available=available),
        len(rows),
        len(kept),
    )
    ent_used, rel_used = c157.joined_tokens(ent_lines), c157.joined_tokens(rel_lines)
    r.budgets = [
        Budget(SECTIONS["entities"], ent_used, p.max_entity_tokens),
        Budget(SECTIONS["relations"], rel_used, p.max_relation_tokens),
        Budget(SECTIONS["chunks"], chunk_used, max(available, 0) if rows else None),
        Budget(SECTIONS["system prompt"], sys_tokens, None),
        Budget(SECTIONS["kg template"], kg_tokens - ent_used - rel_used, None),  # headers, fences, separators
        Budget(SECTIONS["query"], q_tokens, None),
        Budget(SECTIONS["buffer"], c157.BUFFER_TOKENS, None),
        total_budget(r, fixed + chunk_used, p.max_total_tokens, LABEL),
    ]
    if not ent_lines and not rel_lines and not kept:
        r.warnings.append(msg("nothing fits the budgets: no context {no_context}", no_context=NO_CONTEXT))
        clock.lap("assemble", msg("nothing to assemble"), 0, 0)
        return
    if rows and not kept:
        r.warnings.append(
            msg(
                "no chunk fits the chunk budget ({available} tokens): the context has KG data only", available=available
            )
        )
    if not reuse.summary_only():  # a summary step reads no context (``reuse.summaries``)
        tail = reuse.once(  # the chunks' part: a pure function of the kept (chunk id, source) pairs
            ("lightrag.1.5.7 chunks tail", id(index), tuple(picked.merged[: len(kept)])),
            lambda: c157.chunks_tail(_chunk_lines(kept), refs),
        )
        r.context = c157.kg_head(ent_lines, rel_lines) + tail
    clock.lap(
        "assemble",
        msg("Knowledge Graph Data (Entity) / (Relationship) / Document Chunks / Reference Document List"),
        len(ent_lines) + len(rel_lines) + len(kept),
        len(refs),
    )


def _naive_row(index: Index, cid: str) -> dict[str, Any]:
    """The row 1.5.7's naive query renders for a vector hit, once per chunk in a sweep (only read after)."""
    made: dict[str, dict[str, Any]] = reuse.once(("lightrag.1.5.7 naive rows", id(index)), dict)
    row = made.get(cid)
    if row is None:
        content, file_path, _ = vector_fields(index.chunk_by_id[cid])
        row = made[cid] = {"content": content, "file_path": file_path, "chunk_id": cid}
    return row


def run_naive(index: Index, query: str, p: Params, deps: Deps, r: Retrieval, clock: Clock) -> Retrieval:
    pick = search_chunks(index, query, p, deps, r, clock, LABEL)
    if not pick.picked:
        return r
    rows = [_naive_row(index, cid) for cid in pick.picked]
    sys_tokens = c157.system_overhead("naive", p.response_type, p.user_prompt)
    q_tokens = c157.query_tokens(query)
    fixed = sys_tokens + q_tokens + c157.BUFFER_TOKENS
    available = p.max_total_tokens - fixed
    picked = Picked({"vector": pick}, [(cid, "vector") for cid in pick.picked], [])
    kept, refs = _chunks_and_references(r, index, picked, rows, p, available)
    used = _chunks_used(kept)
    clock.lap(
        "token control",
        msg("chunk_top_k {k}, chunk budget {available}", k=p.chunk_top_k, available=available),
        len(rows),
        len(kept),
    )
    if not kept:  # 1.5.7 still sends its (empty) chunk and reference sections
        r.warnings.append(
            msg(
                "naive: no chunk fits the chunk budget ({available} tokens): the context is empty sections",
                available=available,
            )
        )
    if not reuse.summary_only():  # a summary step reads no context (``reuse.summaries``)
        r.context = c157.chunks_tail(_chunk_lines(kept), refs)
    r.budgets = [
        Budget(SECTIONS["chunks"], used, max(available, 0)),
        Budget(SECTIONS["system prompt"], sys_tokens, None),
        Budget(SECTIONS["query"], q_tokens, None),
        Budget(SECTIONS["buffer"], c157.BUFFER_TOKENS, None),
        total_budget(r, fixed + used, p.max_total_tokens, LABEL),
    ]
    clock.lap("assemble", msg("naive context: document chunks and references"), len(kept), len(refs))
    return r
