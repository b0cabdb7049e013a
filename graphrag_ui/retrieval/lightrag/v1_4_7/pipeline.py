"""The two LightRAG 1.4.7 pipelines (KG modes and naive) producing a fully explained ``Retrieval``.

KG (``kg_query`` + ``_build_query_context``): keywords → local path (ll) / global path (hl) →
round-robin merges → entity and relation token truncation → chunks of the surviving entities,
then relations (WEIGHT or VECTOR) and, in mix, vector chunks → round-robin chunk merge →
chunk_top_k and the chunk budget (max_total_tokens minus system prompt, KG context, query and a
100-token buffer) → the context text. Naive: vector chunks → budget → context.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.index.lightrag_precount import entity_item, naive_row, relation_item
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import in_context
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import SECTIONS, Budget, Retrieval
from graphrag_ui.retrieval.lightrag.after_cut import after_cut
from graphrag_ui.retrieval.lightrag.explain import Clock, finish_chunks
from graphrag_ui.retrieval.lightrag.graph_tail import LazyCosts
from graphrag_ui.retrieval.lightrag.lazy_hits import printed
from graphrag_ui.retrieval.lightrag.stages import (
    Found,
    chunk_rows,
    fill_graph,
    lap_token_control,
    pick_chunks,
    search_chunks,
    search_graph,
    total_budget,
)
from graphrag_ui.retrieval.lightrag.v1_4_7 import context as ctx
from graphrag_ui.retrieval.spec.schema import Params

LABEL = "LightRAG 1.4.7"


def _fit(index: Index) -> Callable[[list[dict[str, Any]], int], tuple[int, list[int]]]:
    cache = ctx.cache_for(index)

    def fit(rows: list[dict[str, Any]], available: int) -> tuple[int, list[int]]:
        costs = []  # counted only up to the first row over budget, as far as 1.4.7 looks
        running = 0
        for row in rows:
            costs.append(ctx.chunk_tokens(cache, row, index.chunk_by_id.get(row["chunk_id"])))
            running += costs[-1]
            if running > available:
                break
        return ctx.prefix_fit(costs, available), costs

    return fit


def run_naive(index: Index, query: str, p: Params, deps: Deps, r: Retrieval, clock: Clock) -> Retrieval:
    pick = search_chunks(index, query, p, deps, r, clock, LABEL)
    if not pick.picked:
        return r
    # a sweep's budget steps share the search's pick (held by its key, so its id names no other): its rows
    # and the context of each kept prefix once (``reuse.once``; rows read only)
    rows = reuse.once(
        ("lightrag.1.4.7 naive rows", id(pick)), lambda: [naive_row(index.chunk_by_id[cid]) for cid in pick.picked]
    )
    sys_tokens = ctx.system_overhead("naive", p.response_type, p.user_prompt)
    q_tokens = ctx.query_tokens(query)
    available = p.max_total_tokens - (sys_tokens + q_tokens + ctx.BUFFER_TOKENS)
    kept = finish_chunks(r, index, _as_merged(pick), rows, {"vector": pick}, [], p, available, _fit(index))
    used = sum(c.tokens for c in in_context(r.chunks))
    clock.lap(
        "token control",
        msg("chunk_top_k {k}, chunk budget {available}", k=p.chunk_top_k, available=available),
        len(rows),
        len(kept),
    )
    if not reuse.summary_only():  # a summary step reads no context (``reuse.summaries``)
        r.context = reuse.once(
            ("lightrag.1.4.7 naive context", id(pick), len(kept)),
            lambda: ctx.naive_context_text(_units_array(index, kept)),
        )
    r.budgets = [
        Budget(SECTIONS["chunks"], used, max(available, 0)),
        Budget(SECTIONS["system prompt"], sys_tokens, None),
        Budget(SECTIONS["query"], q_tokens, None),
        Budget(SECTIONS["buffer"], ctx.BUFFER_TOKENS, None),
        total_budget(r, sys_tokens + q_tokens + ctx.BUFFER_TOKENS + used, p.max_total_tokens, LABEL),
    ]
    clock.lap("assemble", msg("naive context: document chunks"), len(kept), len(kept))
    return r


def _as_merged(pick: Any) -> list[tuple[str, str]]:
    """Naive's chunks as a merge lists them, once per search's pick in a sweep (a budget step's are the same:
    its unpicked chunks are then listed once, ``explain._unpicked``; read only)."""
    return reuse.once(("lightrag.naive merged", id(pick)), lambda: (pick, [(c, "vector") for c in pick.picked]))[1]


def _dumped(rows: list[dict[str, Any]]) -> str:
    return ctx.dumps([{"id": i, "content": r["content"], "file_path": r["file_path"]} for i, r in enumerate(rows, 1)])


def _parts(index: Index) -> dict:
    """Each hit's item part (``ctx.ItemPart``) by its entity id, or its relation id and pair as printed: the
    costs read a kept item's count from it and the KG part its text, so one run passes the same dict to both
    (in a sweep, one per index: ``reuse.once``, a top_k step keeps other lists of mostly the same hits)."""
    return reuse.once(("lightrag.1.4.7 item parts", id(index)), dict)


def _entity_part(cache: ctx.TokenCache, parts: dict, e: Any) -> ctx.ItemPart:
    part = parts.get(e.id)
    if part is None:
        part = parts[e.id] = ctx.item_part(cache, entity_item(1, e.name, e.type, e.description), e)
    return part


def _relation_part(cache: ctx.TokenCache, parts: dict, rel: Any, pair: tuple[str, str]) -> ctx.ItemPart:
    key = (rel.id, pair)
    part = parts.get(key)
    if part is None:
        part = parts[key] = ctx.item_part(cache, relation_item(1, pair[0], pair[1], rel.description), rel)
    return part


def _costs(cache: ctx.TokenCache, parts: dict, entities: list, relations: list) -> tuple[LazyCosts, LazyCosts]:
    """What 1.4.7's truncation charges for each entity and relation item: the tokens of ``{"id": N`` (N its
    position) plus those of the rest of its JSON (its part's ``alone``), which no position changes. Each cost
    is counted when first read (``LazyCosts``): past the cut, only for a reader of the dropped rows; a kept
    item's part is the one its KG part prints (``_parts``)."""
    ids: list[int] = reuse.once(("lightrag.1.4.7 ids", id(cache)), list)  # position i -> tokens of {"id": i+1

    def id_cost(i: int) -> int:
        while len(ids) <= i:
            ids.append(ctx.id_tokens(cache, len(ids) + 1))
        return ids[i]

    def entity_cost(i: int) -> int:
        return id_cost(i) + _entity_part(cache, parts, entities[i].entity).alone

    shown = printed(relations)  # the relations as printed, no hit made (``lazy_hits``)

    def relation_cost(i: int) -> int:
        return id_cost(i) + _relation_part(cache, parts, *shown[i]).alone

    return LazyCosts(len(entities), entity_cost), LazyCosts(len(shown), relation_cost)


def _kg_part(cache: ctx.TokenCache, index: Index, parts: dict, entities: list, relations: list) -> tuple[int, str, str]:
    """The kept entities' and relations' part of the context: what it charges the chunk budget and its two
    JSON arrays; a pure function of the kept hits (a sweep's steps that keep the same share it: ``reuse.once``),
    made from each item's part (``_parts``: the costs made the kept ones' parts already)."""

    printed = not reuse.summary_only()  # a summary step prints no context: the tokens alone

    def make() -> tuple[int, str, str]:
        ent_parts = [_entity_part(cache, parts, h.entity) for h in entities]
        rel_parts = [_relation_part(cache, parts, h.relation, h.pair) for h in relations]
        return ctx.kg_part(cache, ent_parts, rel_parts, printed)

    ent_keys = tuple(h.entity.id for h in entities)
    rel_keys = tuple((h.relation.id, h.pair) for h in relations)
    return reuse.once(("lightrag.1.4.7 kg part", id(index), ent_keys, rel_keys, printed), make)


def _units_json(index: Index, kept: list[tuple[str, str]], rows: list[dict[str, Any]]) -> str:
    """The kept chunks' JSON array (a pure function of the kept (chunk id, source) pairs: ``reuse.once``)."""
    return reuse.once(("lightrag.1.4.7 units", id(index), tuple(kept)), partial(_units_array, index, rows))


def _units_array(index: Index, rows: list[dict[str, Any]]) -> str:
    """``json.dumps`` of the rows as ``{"id": N, "content": …, "file_path": …}`` items: the items joined by ", ",
    each item's part after its id encoded once per sweep (a top_k step keeps another list of mostly the same
    chunks, a budget step a prefix of the same); outside a sweep the array is dumped whole (one encoder call)."""
    if not reuse.active():
        return _dumped(rows)
    encoded: dict[tuple[Any, Any], str] = reuse.once(("lightrag.1.4.7 unit parts", id(index)), dict)

    def part(row: dict[str, Any]) -> str:
        key = (row["content"], row["file_path"])
        found = encoded.get(key)
        if found is None:
            found = encoded[key] = f'"content": {ctx.dumps(key[0])}, "file_path": {ctx.dumps(key[1])}}}'
        return found

    try:
        return "[" + ", ".join([f'{{"id": {i}, {part(r)}' for i, r in enumerate(rows, 1)]) + "]"
    except TypeError:  # a field that does not hash (a list): the array dumped whole
        return _dumped(rows)


def run_kg(index: Index, query: str, mode: str, p: Params, deps: Deps, r: Retrieval, clock: Clock) -> Retrieval:
    found = search_graph(index, query, mode, p, deps, r, clock, LABEL)
    entities, relations = found.entities, found.relations

    cache, parts = ctx.cache_for(index), _parts(index)
    ent_costs, rel_costs = reuse.once(  # one search's costs, shared by its budget steps
        ("lightrag.1.4.7 costs", id(found)), lambda: _costs(cache, parts, entities, relations)
    )
    n_ent = ctx.prefix_fit(ent_costs, p.max_entity_tokens)
    n_rel = ctx.prefix_fit(rel_costs, p.max_relation_tokens)
    lap_token_control(clock, p, (len(entities), len(relations)), (n_ent, n_rel))

    fill_graph(r, found, LABEL, (ent_costs, rel_costs), (n_ent, n_rel), p)

    kept_ent, kept_rel = entities[:n_ent], relations[:n_rel]  # a lazy list's slice makes its hits: once
    # in a sweep, a step keeping the same hits as an earlier one gets copies of what it made after the cut
    run = partial(_after_cut, index, query, p, deps, r, clock, found, (kept_ent, kept_rel), (ent_costs, rel_costs))
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
    costs: tuple[LazyCosts, LazyCosts],
) -> None:
    """The chunk picks, the chunk budget, the budgets and the context of the kept hits (``after_cut``)."""
    (kept_ent, kept_rel), (ent_costs, rel_costs) = hits, costs
    n_ent, n_rel = len(kept_ent), len(kept_rel)
    cache, parts = ctx.cache_for(index), _parts(index)
    picked = pick_chunks(index, query, p, deps, r, clock, kept_ent, kept_rel, found.vector)
    merged, dupes, picks = picked.merged, picked.dupes, picked.picks

    sys_tokens = ctx.system_overhead("kg", p.response_type, p.user_prompt)
    q_tokens = ctx.query_tokens(query)
    # 1.4.7 counts the KG part only with chunks
    kg_tokens, ent_json, rel_json = _kg_part(cache, index, parts, kept_ent, kept_rel)
    available = p.max_total_tokens - (kg_tokens + sys_tokens + q_tokens + ctx.BUFFER_TOKENS)
    rows = chunk_rows(index, merged)
    kept = finish_chunks(r, index, merged, rows, picks, dupes, p, available, _fit(index)) if merged else []
    chunk_used = sum(c.tokens for c in in_context(r.chunks))
    clock.lap(
        "token control",
        msg("chunk_top_k {k}, chunk budget {available}", k=p.chunk_top_k, available=available),
        len(merged),
        len(kept),
    )
    ent_used, rel_used = sum(ent_costs[:n_ent]), sum(rel_costs[:n_rel])
    r.budgets = [
        Budget(SECTIONS["entities"], ent_used, p.max_entity_tokens),
        Budget(SECTIONS["relations"], rel_used, p.max_relation_tokens),
        Budget(SECTIONS["chunks"], chunk_used, max(available, 0) if merged else None),
        Budget(SECTIONS["system prompt"], sys_tokens, None),
        Budget(SECTIONS["kg template"], kg_tokens - ent_used - rel_used, None),  # headers, fences, JSON brackets
        Budget(SECTIONS["query"], q_tokens, None),
        Budget(SECTIONS["buffer"], ctx.BUFFER_TOKENS, None),
        total_budget(r, kg_tokens + sys_tokens + q_tokens + ctx.BUFFER_TOKENS + chunk_used, p.max_total_tokens, LABEL),
    ]
    if not n_ent and not n_rel:
        for cand in in_context(r.chunks):
            cand.in_context = False
            cand.dropped = msg("no entity or relation left: LightRAG 1.4.7 returns no context")
        r.warnings.append(
            msg(
                "no entity or relation survived retrieval and truncation: no context (LightRAG answers with its "
                "fail response)"
            )
        )
        clock.lap("assemble", msg("nothing to assemble"), 0, 0)
        return
    if not reuse.summary_only():  # a summary step reads no context (``reuse.summaries``)
        r.context = ctx.kg_context_text(ent_json, rel_json, _units_json(index, merged[: len(kept)], kept))
    clock.lap(
        "assemble",
        msg("-----Entities(KG)----- / -----Relationships(KG)----- / -----Document Chunks(DC)-----"),
        n_ent + n_rel + len(kept),
        3,
    )
