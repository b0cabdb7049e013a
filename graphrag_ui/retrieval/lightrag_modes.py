"""The two LightRAG 1.4.7 pipelines (KG modes and naive) producing a fully explained ``Retrieval``.

KG (``kg_query`` + ``_build_query_context``): keywords → local path (ll) / global path (hl) →
round-robin merges → entity and relation token truncation → chunks of the surviving entities,
then relations (WEIGHT or VECTOR) and, in mix, vector chunks → round-robin chunk merge →
chunk_top_k and the chunk budget (max_total_tokens minus system prompt, KG context, query and a
100-token buffer) → the context text. Naive: vector chunks → budget → context.
"""

from __future__ import annotations

from typing import Any

from graphrag_ui import prompts
from graphrag_ui.index.model import Chunk, Index
from graphrag_ui.retrieval import lightrag_context as ctx
from graphrag_ui.retrieval.deps import Deps
from graphrag_ui.retrieval.lightrag_chunks import ChunkPick, pick_related, round_robin_chunks, vector_chunks
from graphrag_ui.retrieval.lightrag_explain import Clock, fill_graph_candidates, finish_chunks
from graphrag_ui.retrieval.lightrag_search import global_path, local_path, round_robin
from graphrag_ui.retrieval.result import Budget, Keywords, Retrieval

NAIVE_SHORT_QUERY = 50  # seed 001: both keyword lists empty and a query shorter than this -> naive


def _vector_fields(chunk: Chunk) -> tuple[str, str, int | None]:
    """(content, file_path, created_at) of a chunk as the chunk vector store returns it.

    Imported LightRAG chunks carry the vector row's own fields (``extra["vdb"]``, defaults as 1.4.7);
    chunks of other indexes have none, so their text and file path stand in.
    """
    vdb = chunk.extra.get("vdb")
    if vdb is None:
        return chunk.text, chunk.extra.get("file_path", "unknown_source"), None
    return vdb.get("content", chunk.text), vdb.get("file_path", "unknown_source"), vdb.get("created_at")


def _chunk_row(index: Index, cid: str, source: str) -> dict[str, Any]:
    """The chunk dict 1.4.7 measures and prints: vector hits carry the vector store's fields."""
    chunk = index.chunk_by_id[cid]
    if source == "vector":
        content, file_path, _ = _vector_fields(chunk)
        return {"content": content, "file_path": file_path, "chunk_id": cid}
    return {"content": chunk.text, "file_path": chunk.extra.get("file_path", "unknown_source"), "chunk_id": cid}


def _missing_vectors(index: Index, kind: str, r: Retrieval, what: str) -> None:
    if not len(index.vectors.get(kind, ())):
        r.warnings.append(f"this index has no {kind} vectors, so {what} finds nothing (re-embed the index to add them)")


def run_naive(index: Index, query: str, p: dict[str, Any], deps: Deps, r: Retrieval, clock: Clock) -> Retrieval:
    _missing_vectors(index, "chunks", r, "the chunk search")
    top = p["chunk_top_k"] or p["top_k"]
    pick = vector_chunks(index, deps.vector(query), top, p["cosine_better_than_threshold"])
    clock.lap(
        "vector chunks",
        f"chunk vdb on the query, top {top}, threshold {p['cosine_better_than_threshold']}",
        len(index.vectors.get("chunks", [])),
        len(pick.picked),
    )
    if not pick.picked:
        r.warnings.append(
            "naive: no chunk passed the cosine threshold, so there is no context (LightRAG answers with its fail response)"
        )
        return r
    rows = []
    for cid in pick.picked:
        content, file_path, created_at = _vector_fields(index.chunk_by_id[cid])
        row = {"content": content, "created_at": created_at, "file_path": file_path}
        rows.append({**row, "source_type": "vector", "chunk_id": cid})
    sys_tokens = ctx.system_overhead("naive", p["response_type"], p["user_prompt"])
    q_tokens = ctx.count(query)
    available = p["max_total_tokens"] - (sys_tokens + q_tokens + ctx.BUFFER_TOKENS)
    kept = finish_chunks(r, index, [(c, "vector") for c in pick.picked], rows, {"vector": pick}, [], p, available)
    used = sum(c.tokens for c in r.chunks if c.in_context)
    clock.lap("token control", f"chunk_top_k {p['chunk_top_k']}, chunk budget {available}", len(rows), len(kept))
    units = [{"id": i + 1, "content": row["content"], "file_path": row["file_path"]} for i, row in enumerate(kept)]
    r.context = ctx.naive_context(units)
    r.budgets = [
        Budget("chunks", used, max(available, 0)),
        Budget("system prompt", sys_tokens, None),
        Budget("query", q_tokens, None),
        Budget("buffer", ctx.BUFFER_TOKENS, None),
        _total_budget(r, sys_tokens + q_tokens + ctx.BUFFER_TOKENS + used, p["max_total_tokens"]),
    ]
    clock.lap("assemble", "naive context: document chunks", len(kept), len(units))
    return r


def run_kg(index: Index, query: str, mode: str, p: dict[str, Any], deps: Deps, r: Retrieval, clock: Clock) -> Retrieval:
    hl, ll = list(r.keywords.hl), list(r.keywords.ll)
    hl_text, ll_text = ", ".join(hl), ", ".join(ll)
    threshold = p["cosine_better_than_threshold"]
    local_e, local_r, global_e, global_r = [], [], [], []
    vec_pick = ChunkPick("vector")
    # 1.4.7's branch, as written: a KG mode missing its own keywords silently runs the other path
    if mode == "local" and ll_text:
        run_local, run_global, run_vector = True, False, False
    elif mode == "global" and hl_text:
        run_local, run_global, run_vector = False, True, False
    else:
        run_local, run_global, run_vector = bool(ll_text), bool(hl_text), mode == "mix"
    if mode == "local" and not ll_text:
        r.warnings.append(
            "local mode without low-level keywords: LightRAG 1.4.7 runs the global path on the high-level keywords instead"
        )
    if mode == "global" and not hl_text:
        r.warnings.append(
            "global mode without high-level keywords: LightRAG 1.4.7 runs the local path on the low-level keywords instead"
        )
    weights = (p.get("w_ilike", 1.0), p.get("w_sim", 0.7), p.get("w_occ", 0.2))
    if run_local:
        _missing_vectors(index, "entities", r, "the local path")
        local_e, local_r = local_path(
            index,
            ll_text,
            deps.vector(ll_text),
            top_k=p["top_k"],
            threshold=threshold,
            recall=p.get("recall", "vector"),
            weights=weights,
        )
        clock.lap(
            "local path",
            f"entity search on {ll_text!r} (top_k {p['top_k']}), then their edges by degree",
            len(index.entities),
            len(local_e) + len(local_r),
        )
    if run_global:
        _missing_vectors(index, "relations", r, "the global path")
        global_r, global_e = global_path(index, hl_text, deps.vector(hl_text), top_k=p["top_k"], threshold=threshold)
        clock.lap(
            "global path",
            f"relation search on {hl_text!r} (top_k {p['top_k']}), then their endpoints",
            len(index.relations),
            len(global_r) + len(global_e),
        )
    if run_vector:
        _missing_vectors(index, "chunks", r, "the chunk search")
        top = p["chunk_top_k"] or p["top_k"]
        vec_pick = vector_chunks(index, deps.vector(query), top, threshold)
        clock.lap(
            "vector chunks",
            f"chunk vdb on the query, top {top}",
            len(index.vectors.get("chunks", [])),
            len(vec_pick.picked),
        )
    entities, ent_dupes = round_robin(local_e, global_e, key=lambda h: h.entity.name)
    relations, rel_dupes = round_robin(local_r, global_r, key=lambda h: h.key)
    clock.lap(
        "round-robin merge",
        "local[i] then global[i]; names / sorted pairs deduplicated",
        len(local_e) + len(global_e) + len(local_r) + len(global_r),
        len(entities) + len(relations),
    )

    cache = ctx.cache_for(index)
    ent_items = [
        ctx.entity_item(i + 1, h.entity.name, h.entity.type, h.entity.description) for i, h in enumerate(entities)
    ]
    rel_items = [
        ctx.relation_item(i + 1, h.pair[0], h.pair[1], h.relation.description) for i, h in enumerate(relations)
    ]
    ent_costs = [ctx.entity_tokens(cache, it) for it in ent_items]
    rel_costs = [ctx.relation_tokens(cache, it) for it in rel_items]
    n_ent = ctx.prefix_fit(ent_costs, p["max_entity_tokens"])
    n_rel = ctx.prefix_fit(rel_costs, p["max_relation_tokens"])
    ent_items, rel_items = ent_items[:n_ent], rel_items[:n_rel]
    clock.lap(
        "token control",
        f"entities {n_ent}/{len(entities)} within {p['max_entity_tokens']}, relations {n_rel}/{len(relations)} within {p['max_relation_tokens']}",
        len(entities) + len(relations),
        n_ent + n_rel,
    )

    fill_graph_candidates(r, entities, ent_dupes, ent_costs, n_ent, p["max_entity_tokens"], "entity")
    fill_graph_candidates(r, relations, rel_dupes, rel_costs, n_rel, p["max_relation_tokens"], "relation")

    method, rcn = p["kg_chunk_pick_method"], p["related_chunk_number"]
    qvec = deps.vector(query) if method == "VECTOR" else None
    ent_pick = ChunkPick("entity")
    if n_ent:
        sources = [(h.entity.name, h.entity.source_chunk_ids) for h in entities[:n_ent]]
        ent_pick = pick_related(index, "entity", sources, method=method, related_chunk_number=rcn, query_vec=qvec)
    clock.lap(
        "chunks from entities", f"{ent_pick.method or method}, related_chunk_number {rcn}", n_ent, len(ent_pick.picked)
    )
    rel_pick = ChunkPick("relation")
    if n_rel:
        sources = [(f"{h.pair[0]}—{h.pair[1]}", h.relation.source_chunk_ids) for h in relations[:n_rel]]
        rel_pick = pick_related(
            index,
            "relation",
            sources,
            method=method,
            related_chunk_number=rcn,
            query_vec=qvec,
            exclude=set(ent_pick.picked),
        )
    clock.lap(
        "chunks from relations", f"{rel_pick.method or method}, entity chunks excluded", n_rel, len(rel_pick.picked)
    )
    r.warnings += ent_pick.warnings + rel_pick.warnings
    picks = {"vector": vec_pick, "entity": ent_pick, "relation": rel_pick}
    merged, dupes = round_robin_chunks([vec_pick, ent_pick, rel_pick])
    clock.lap(
        "merge",
        "vector[i], entity[i], relation[i]; chunk ids deduplicated",
        len(vec_pick.picked) + len(ent_pick.picked) + len(rel_pick.picked),
        len(merged),
    )

    sys_tokens = ctx.system_overhead("kg", p["response_type"], p["user_prompt"])
    q_tokens = ctx.count(query)
    kg_tokens = ctx.kg_tokens_for_budget(cache, ent_items, rel_items)  # 1.4.7 counts it only with chunks
    available = p["max_total_tokens"] - (kg_tokens + sys_tokens + q_tokens + ctx.BUFFER_TOKENS)
    rows = [_chunk_row(index, cid, source) for cid, source in merged]
    kept = finish_chunks(r, index, merged, rows, picks, dupes, p, available) if merged else []
    chunk_used = sum(c.tokens for c in r.chunks if c.in_context)
    clock.lap("token control", f"chunk_top_k {p['chunk_top_k']}, chunk budget {available}", len(merged), len(kept))
    ent_used, rel_used = sum(ent_costs[:n_ent]), sum(rel_costs[:n_rel])
    r.budgets = [
        Budget("entities", ent_used, p["max_entity_tokens"]),
        Budget("relations", rel_used, p["max_relation_tokens"]),
        Budget("chunks", chunk_used, max(available, 0) if merged else None),
        Budget("system prompt", sys_tokens, None),
        Budget("kg template", kg_tokens - ent_used - rel_used, None),  # headers, fences, JSON brackets
        Budget("query", q_tokens, None),
        Budget("buffer", ctx.BUFFER_TOKENS, None),
        _total_budget(r, kg_tokens + sys_tokens + q_tokens + ctx.BUFFER_TOKENS + chunk_used, p["max_total_tokens"]),
    ]
    if not ent_items and not rel_items:
        for cand in r.chunks:
            if cand.in_context:
                cand.in_context, cand.dropped = False, "no entity or relation left: LightRAG 1.4.7 returns no context"
        r.warnings.append(
            "no entity or relation survived retrieval and truncation: no context (LightRAG answers with its fail response)"
        )
        clock.lap("assemble", "nothing to assemble", 0, 0)
        return r
    units = [{"id": i + 1, "content": row["content"], "file_path": row["file_path"]} for i, row in enumerate(kept)]
    r.context = ctx.kg_context(ent_items, rel_items, units)
    clock.lap(
        "assemble",
        "-----Entities(KG)----- / -----Relationships(KG)----- / -----Document Chunks(DC)-----",
        len(ent_items) + len(rel_items) + len(units),
        3,
    )
    return r


def retrieve(index: Index, query: str, mode: str, params: dict[str, Any], deps: Deps) -> Retrieval:
    """Entry of every lightrag.* mode."""
    clock = Clock()
    kw = deps.keywords or Keywords()
    r = Retrieval(
        mode=f"lightrag.{mode}",
        query=query,
        params=dict(params),
        keywords=Keywords(list(kw.hl), list(kw.ll), kw.source),
    )
    p = params
    effective = mode
    if mode == "naive":
        r.keywords = Keywords(source="")
        clock.lap("keywords", "naive mode uses no keywords", 0, 0)
    else:
        if not kw.ll and mode in ("local", "hybrid", "mix"):
            r.warnings.append("low-level keywords are empty: the local (entity) path finds nothing")
        if not kw.hl and mode in ("global", "hybrid", "mix"):
            r.warnings.append("high-level keywords are empty: the global (relation) path finds nothing")
        if not kw.hl and not kw.ll:
            if len(query) < NAIVE_SHORT_QUERY:
                effective = "naive"
                r.warnings.append(
                    f"both keyword lists are empty and the query is shorter than {NAIVE_SHORT_QUERY} characters: "
                    "fell back to naive mode (seed 001; LightRAG 1.4.7 would search with the query as the only low-level keyword)"
                )
            else:
                r.warnings.append(
                    f"both keyword lists are empty and the query has {NAIVE_SHORT_QUERY}+ characters: no context "
                    "(LightRAG answers with its fail response)"
                )
                clock.lap("keywords", "hl and ll empty", 0, 0)
                r.trace = clock.trace()
                return r
        clock.lap("keywords", f"hl={list(kw.hl)} ll={list(kw.ll)} ({kw.source or 'given'})", 0, len(kw.hl) + len(kw.ll))
    if effective == "naive":
        run_naive(index, query, p, deps, r, clock)
    else:
        run_kg(index, query, mode, p, deps, r, clock)
    r.trace = clock.trace()
    if r.context:
        r.messages = prompts.build_messages(
            "lightrag",
            effective,
            r.context,
            query,
            response_type=p["response_type"] or prompts.DEFAULT_RESPONSE_TYPE,
            user_prompt=p["user_prompt"],
        )
    return r


def _total_budget(r: Retrieval, used: int, max_total_tokens: int) -> Budget:
    """``max_total_tokens`` only sizes the chunk budget in 1.4.7: the system prompt, KG context, query
    and buffer are never cut by it. When they alone exceed it, say so instead of showing a broken limit."""
    if used <= max_total_tokens:
        return Budget("total", used, max_total_tokens)
    r.warnings.append(
        f"the system prompt, KG context, query and buffer take {used} tokens, more than max_total_tokens "
        f"{max_total_tokens}: LightRAG 1.4.7 does not cut them, it only leaves no room for chunks"
    )
    return Budget("total", used, None)
