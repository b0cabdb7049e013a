"""The stages LightRAG 1.4.7 and 1.5.7 share: the KG search (local/global paths, vector chunks,
round-robin merges) and the chunk picks of the surviving entities and relations.

Both versions run ``_perform_kg_search``'s branch as written (a KG mode missing its own keywords
silently runs the other path), merge local[i] then global[i], and pick chunks the same way (WEIGHT
polling or VECTOR similarity on LightRAG's float16 copies, relation chunks skipping entity chunks,
then vector/entity/relation round-robin). They differ in token control and the context text
(v1_4_7/context.py for 1.4.7, v1_5_7/context.py for 1.5.7).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from graphrag_ui.base.i18n import msg, pmsg
from graphrag_ui.index.lightrag_precount import kg_row
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.candidates import Candidates
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.recall import DEFAULT_WEIGHTS
from graphrag_ui.retrieval.core.result import SECTIONS, Budget, Retrieval
from graphrag_ui.retrieval.lightrag.chunks import ChunkPick, pick_related, round_robin_chunks, vector_chunks
from graphrag_ui.retrieval.lightrag.explain import Clock, graph_rows
from graphrag_ui.retrieval.lightrag.lazy_hits import printed
from graphrag_ui.retrieval.lightrag.search import EntityHit, RelationHit, global_path, local_path, round_robin
from graphrag_ui.retrieval.spec.schema import Params


@dataclass
class Found:
    """What the KG search found, merged round-robin, with the duplicates the merges skipped."""

    entities: list[EntityHit] = field(default_factory=list)
    entity_dupes: list[EntityHit] = field(default_factory=list)
    relations: list[RelationHit] = field(default_factory=list)
    relation_dupes: list[RelationHit] = field(default_factory=list)
    vector: ChunkPick = field(default_factory=lambda: ChunkPick("vector"))


@dataclass
class Picked:
    """Chunks of every source and their round-robin merge (chunk id, source) with skipped duplicates."""

    picks: dict[str, ChunkPick]
    merged: list[tuple[str, str]]
    dupes: list[tuple[str, str, str]]


def chunk_rows(index: Index, merged: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """The chunk dict LightRAG measures and prints (``lightrag_precount.kg_row``) of each (chunk id, source),
    each made once in a sweep (``reuse.once``): a row is a pure function of the two, and only read after."""
    made: dict[tuple[str, str], dict[str, Any]] = reuse.once(("lightrag.chunk rows", id(index)), dict)
    rows = []
    for key in merged:
        row = made.get(key)
        if row is None:
            row = made[key] = kg_row(index.chunk_by_id[key[0]], key[1])
        rows.append(row)
    return rows


# a vector table's kind as the warnings name it
KIND_WORDS = {
    "chunks": pmsg("vector kind", "chunks"),
    "entities": pmsg("vector kind", "entities"),
    "relations": pmsg("vector kind", "relations"),
}


def missing_vectors(index: Index, kind: str, r: Retrieval, what: str) -> None:
    if not len(index.vectors.get(kind, ())):
        r.warnings.append(
            msg(
                "this index has no {kind} vectors, so {what} finds nothing (re-embed the index to add them)",
                kind=KIND_WORDS.get(kind, kind),
                what=what,
            )
        )


def search_chunks(index: Index, query: str, p: Params, deps: Deps, r: Retrieval, clock: Clock, label: str) -> ChunkPick:
    """Naive's search (``_get_vector_context``): chunk-vdb hits for the query above the threshold."""
    missing_vectors(index, "chunks", r, msg("the chunk search"))
    top = p.chunk_top_k or p.top_k
    threshold = p.cosine_better_than_threshold
    # a sweep's budget steps search the same: one search (its pick only read after)
    pick = reuse.once(
        ("lightrag.vector chunks", id(index), query, top, threshold),
        lambda: vector_chunks(index, deps.vector(query), top, threshold),
    )
    clock.lap(
        "vector chunks",
        msg("chunk vdb on the query, top {top}, threshold {threshold}", top=top, threshold=threshold),
        len(index.vectors.get("chunks", [])),
        len(pick.picked),
    )
    if not pick.picked:
        r.warnings.append(
            msg(
                "naive: no chunk passed the cosine threshold, so there is no context ({label} answers with its "
                "fail response)",
                label=label,
            )
        )
    return pick


def recall_of(p: Params) -> tuple[str, tuple[float, float, float]]:
    """The entity recall and its seed-003 weights; ``lightrag.global`` has no recall parameters: its
    local fallback recalls as LightRAG does, by vector."""
    if not hasattr(p, "recall"):
        return "vector", DEFAULT_WEIGHTS
    return p.recall, (p.w_ilike, p.w_sim, p.w_occ)


def by_name(deps: Deps, text: str, p: Params) -> Any:
    """The text's vector; with recall = ilike, None when the index's embedder is unknown (the local path
    then finds its entities by name, and what needs a vector is skipped and said)."""
    return deps.optional_vector(text) if recall_of(p)[0] == "ilike" else deps.vector(text)


def skipped(what: str) -> str:
    return msg(
        "recall = ilike without a known embedder: {what} is skipped, it needs the question's vector (re-embed the "
        "index on the Index page to run it)",
        what=what,
    )


def search_graph(
    index: Index, query: str, mode: str, p: Params, deps: Deps, r: Retrieval, clock: Clock, label: str
) -> Found:
    """Stage 1 (``_perform_kg_search``): local and/or global path, mix's vector chunks, merges.

    In a sweep (``reuse.once``) a step whose search inputs did not change (a budget step) gets the
    ``Found`` of the first such step, its warnings and its trace laps again; ``Found`` is only read after."""
    if not reuse.active():
        return _search_graph(index, query, mode, p, deps, r, clock, label)
    recall, weights = recall_of(p)
    key = ("lightrag.search", id(index), label, mode, query, tuple(r.keywords.hl), tuple(r.keywords.ll))
    key += (p.top_k, p.chunk_top_k, p.cosine_better_than_threshold, recall, weights)
    made = []

    def first() -> tuple[Found, list[str], list[tuple[str, str, int, int]]]:
        made.append(True)
        warned, clock.recorded = len(r.warnings), []
        try:
            found = _search_graph(index, query, mode, p, deps, r, clock, label)
            return found, r.warnings[warned:], clock.recorded
        finally:
            clock.recorded = None

    found, warnings, laps = reuse.once(key, first)
    if not made:
        r.warnings.extend(warnings)
        for lap in laps:
            clock.lap(*lap)
    return found


def _search_graph(
    index: Index, query: str, mode: str, p: Params, deps: Deps, r: Retrieval, clock: Clock, label: str
) -> Found:
    hl_text, ll_text = ", ".join(r.keywords.hl), ", ".join(r.keywords.ll)
    threshold = p.cosine_better_than_threshold
    local_e, local_r, global_e, global_r = [], [], [], []
    found = Found()
    if mode == "local" and ll_text:
        run_local, run_global, run_vector = True, False, False
    elif mode == "global" and hl_text:
        run_local, run_global, run_vector = False, True, False
    else:
        run_local, run_global, run_vector = bool(ll_text), bool(hl_text), mode == "mix"
    if mode == "local" and not ll_text:
        r.warnings.append(
            msg(
                "local mode without low-level keywords: {label} runs the global path on the high-level keywords "
                "instead",
                label=label,
            )
        )
    if mode == "global" and not hl_text:
        r.warnings.append(
            msg(
                "global mode without high-level keywords: {label} runs the local path on the low-level keywords "
                "instead",
                label=label,
            )
        )
    recall, weights = recall_of(p)
    if run_local:
        missing_vectors(index, "entities", r, msg("the local path"))
        # in a sweep a top_k step narrows a wider step's recall and edges (``search.local_path``)
        local_e, local_r = local_path(
            index,
            ll_text,
            by_name(deps, ll_text, p),
            top_k=p.top_k,
            threshold=threshold,
            recall=recall,
            weights=weights,
        )
        clock.lap(
            "local path",
            msg("entity search on {text} (top_k {k}), then their edges by degree", text=repr(ll_text), k=p.top_k),
            len(index.entities),
            len(local_e) + len(local_r),
        )
    if run_global and by_name(deps, hl_text, p) is None:
        run_global = False
        r.warnings.append(skipped(msg("the global path (relations by vector)")))
    if run_vector and by_name(deps, query, p) is None:
        run_vector = False
        r.warnings.append(skipped(msg("the chunk search (chunks by vector)")))
    if run_global:
        missing_vectors(index, "relations", r, msg("the global path"))
        global_r, global_e = global_path(index, hl_text, deps.vector(hl_text), top_k=p.top_k, threshold=threshold)
        clock.lap(
            "global path",
            msg("relation search on {text} (top_k {k}), then their endpoints", text=repr(hl_text), k=p.top_k),
            len(index.relations),
            len(global_r) + len(global_e),
        )
    if run_vector:
        missing_vectors(index, "chunks", r, msg("the chunk search"))
        top = p.chunk_top_k or p.top_k
        # a sweep's top_k steps under a chunk_top_k search the same (naive's key: ``search_chunks``; read only)
        found.vector = reuse.once(
            ("lightrag.vector chunks", id(index), query, top, threshold),
            lambda: vector_chunks(index, deps.vector(query), top, threshold),
        )
        clock.lap(
            "vector chunks",
            msg("chunk vdb on the query, top {top}", top=top),
            len(index.vectors.get("chunks", [])),
            len(found.vector.picked),
        )
    found.entities, found.entity_dupes = round_robin(local_e, global_e, key=lambda h: h.entity.name)
    found.relations, found.relation_dupes = round_robin(local_r, global_r, key=lambda h: h.key)
    clock.lap(
        "round-robin merge",
        msg("local[i] then global[i]; names / sorted pairs deduplicated"),
        len(local_e) + len(global_e) + len(local_r) + len(global_r),
        len(found.entities) + len(found.relations),
    )
    return found


def pick_chunks(
    index: Index,
    query: str,
    p: Params,
    deps: Deps,
    r: Retrieval,
    clock: Clock,
    entities: list[EntityHit],
    relations: list[RelationHit],
    vector: ChunkPick,
) -> Picked:
    """Stage 3: chunks of the kept entities, then relations (entity chunks excluded), then the merge."""
    method, rcn = p.kg_chunk_pick_method, p.related_chunk_number
    qvec = by_name(deps, query, p) if method == "VECTOR" else None
    # a sweep's steps whose kept entities / relations did not change pick the same chunks: ``pick_related``
    # is a pure function of the key (each hit's id names its label and chunk ids, the question's vector is
    # the query's), its pick only read after
    explained = not reuse.summary_only()  # a summary step reads which chunks, not why (``pick_related``)
    asked = (id(index), method, rcn, query if qvec is not None else None, explained)
    ent_pick = ChunkPick("entity")
    if entities:
        ent_pick = reuse.once(
            ("lightrag.pick", "entity", *asked, tuple(h.entity.id for h in entities)),
            lambda: pick_related(
                index,
                "entity",
                [(h.entity.name, h.entity.source_chunk_ids) for h in entities],
                method=method,
                related_chunk_number=rcn,
                query_vec=qvec,
                explained=explained,
            ),
        )
    clock.lap(
        "chunks from entities",
        msg("{method}, related_chunk_number {n}", method=ent_pick.method or method, n=rcn),
        len(entities),
        len(ent_pick.picked),
    )
    rel_pick = ChunkPick("relation")
    if relations:
        shown = printed(relations)  # (relation, pair as printed): no hit made (``lazy_hits``)
        rel_pick = reuse.once(
            (
                "lightrag.pick",
                "relation",
                *asked,
                tuple((rel.id, pair) for rel, pair in shown),
                tuple(ent_pick.picked),
            ),
            lambda: pick_related(
                index,
                "relation",
                [(f"{pair[0]}—{pair[1]}", rel.source_chunk_ids) for rel, pair in shown],
                method=method,
                related_chunk_number=rcn,
                query_vec=qvec,
                exclude=set(ent_pick.picked),
                explained=explained,
            ),
        )
    clock.lap(
        "chunks from relations",
        msg("{method}, entity chunks excluded", method=rel_pick.method or method),
        len(relations),
        len(rel_pick.picked),
    )
    r.warnings += ent_pick.warnings + rel_pick.warnings
    picks = {"vector": vector, "entity": ent_pick, "relation": rel_pick}
    # a step whose three picks are an earlier step's (a budget step, a wider top_k keeping the same items)
    # merges them as that one did: the picks are held with their merge, so their ids name no other
    picks3 = (vector, ent_pick, rel_pick)
    merged, dupes = reuse.of_objects("lightrag.chunk merge", picks3, lambda: round_robin_chunks(list(picks3)))
    clock.lap(
        "merge",
        msg("vector[i], entity[i], relation[i]; chunk ids deduplicated"),
        len(vector.picked) + len(ent_pick.picked) + len(rel_pick.picked),
        len(merged),
    )
    return Picked(picks, merged, dupes)


def lap_token_control(
    clock: Clock, p: Params, totals: tuple[int, int], kept: tuple[int, int], json_lines: bool = False
) -> None:
    """The trace step of the entity / relation token cut: how many of each fit their budget (1.5.7 counts
    JSON lines with their separators, 1.4.7 CSV rows)."""
    values = dict(
        n_ent=kept[0],
        ent_total=totals[0],
        ent_limit=p.max_entity_tokens,
        n_rel=kept[1],
        rel_total=totals[1],
        rel_limit=p.max_relation_tokens,
    )
    if json_lines:
        detail = msg(
            "entities {n_ent}/{ent_total} within {ent_limit}, relations {n_rel}/{rel_total} within {rel_limit} "
            "(JSON lines, separators counted)",
            **values,
        )
    else:
        detail = msg(
            "entities {n_ent}/{ent_total} within {ent_limit}, relations {n_rel}/{rel_total} within {rel_limit}",
            **values,
        )
    clock.lap("token control", detail, sum(totals), sum(kept))


def fill_graph(
    r: Retrieval, found: Found, label: str, costs: tuple[Sequence[int], Sequence[int]], keep: tuple[int, int], p: Params
) -> None:
    """The entity and relation candidates (``graph_rows``) of one search cut at ``keep``; in a sweep, a step
    with the same search (``found``, held by the scope), cut and limits gets copies of the kept rows an
    earlier such step made and shares their tail (read only: each step's ``Candidates`` makes its own rows
    from it), as a budget step that moves only the chunk budget does (``reuse.owned``)."""
    for kind, name, hits, dupes, cost, n, limit in (
        ("entity", "entities", found.entities, found.entity_dupes, costs[0], keep[0], p.max_entity_tokens),
        ("relation", "relations", found.relations, found.relation_dupes, costs[1], keep[1], p.max_relation_tokens),
    ):
        key = ("lightrag.rows", label, id(found), kind, n, limit)
        head, tail = reuse.owned(key, partial(graph_rows, hits, dupes, cost, n, limit, kind), _copied_head)
        setattr(r, name, Candidates([*r.candidates(name), *head], tail))


def _copied_head(rows: tuple[list, Any]) -> tuple[list, Any]:
    """Kept graph rows for another step: copies of the made rows, the same tail (read only)."""
    return [reuse.copied(c) for c in rows[0]], rows[1]


def total_budget(r: Retrieval, used: int, max_total_tokens: int, label: str) -> Budget:
    """``max_total_tokens`` only sizes the chunk budget in LightRAG: the system prompt, KG context,
    query and buffer are never cut by it. When they alone exceed it, say so instead of showing a
    broken limit."""
    if used <= max_total_tokens:
        return Budget(SECTIONS["total"], used, max_total_tokens)
    r.warnings.append(
        msg(
            "the system prompt, KG context, query and buffer take {used} tokens, more than max_total_tokens "
            "{limit}: {label} does not cut them, it only leaves no room for chunks",
            used=used,
            limit=max_total_tokens,
            label=label,
        )
    )
    return Budget(SECTIONS["total"], used, None)
