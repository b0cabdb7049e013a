"""LightRAG 1.4.7's two KG paths and the round-robin merges.

* local (``_get_node_data``): entity search with the joined low-level keywords, entities in search
  order with their degree as rank; relations = every edge of those entities in adjacency order,
  deduplicated by the sorted pair, stably sorted by (edge degree, weight) descending.
* global (``_get_edge_data``): relation search with the joined high-level keywords, relations in
  search order printed with the vector row's own src/tgt; entities = their endpoints, first seen first.
* merges: local[i] then global[i] for each i, dropping names / sorted pairs already taken.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import accumulate
from typing import Any

import numpy as np

from graphrag_ui.base.i18n import Reason, lmsg
from graphrag_ui.index import cache as index_cache
from graphrag_ui.index.model import Entity, Index, Relation
from graphrag_ui.index.servers import vector_server
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.recall import RecallHit, recall_entities, vector_hit, vector_topk
from graphrag_ui.retrieval.lightrag.lazy_hits import LazyHits, printed


@dataclass
class EntityHit:
    entity: Entity
    path: str  # "local" | "global"
    order: int  # 0-based position in its path's list
    why: str | Reason  # kept as data until a reader formats it (``lmsg``)
    sim: float | None = None
    rank: float | None = None  # node degree (local path only, as in 1.4.7)
    duplicate_of: str | Reason = ""  # why the round-robin merge skipped it: "round-robin: duplicate of local #3"


@dataclass
class RelationHit:
    relation: Relation
    pair: tuple[str, str]  # (entity1, entity2) as 1.4.7 prints them
    path: str
    order: int
    why: str | Reason
    sim: float | None = None
    rank: float | None = None  # edge degree (local path only)
    duplicate_of: str | Reason = ""  # why the round-robin merge skipped it (as for ``EntityHit``)

    @property
    def key(self) -> tuple[str, str]:
        a, b = self.pair
        return (a, b) if a <= b else (b, a)


@dataclass
class GraphCache:
    """Per-index lookups: vector-row id -> (relation, row src, row tgt), node degrees."""

    relation_rows: dict[str, tuple[Relation, str, str]] = field(default_factory=dict)
    degree: dict[str, int] = field(default_factory=dict)
    # node -> its stored edges as (sorted pair, relation, edge degree), filled on first use: the local path
    # reads every edge of its entities, and the hubs among them come back query after query
    edges: dict[str, tuple[tuple[tuple[str, str], Relation, int], ...]] = field(default_factory=dict)

    def edges_of(self, index: Index, name: str) -> tuple[tuple[tuple[str, str], Relation, int], ...]:
        """``name``'s edges in ``graph.adj[name]`` order; one without its relation row is left out (1.4.7's
        ``get_edge`` finds none). The graph's own adjacency dicts and ``Index.relation_between`` inline:
        the views and the method call cost microseconds per edge, 10⁴ edges per query around a hub."""
        found = self.edges.get(name)
        if found is None:
            adjacency, by_id, degree, rows = index.graph._adj, index.relation_by_id, self.degree, []
            for nbr, edge in adjacency[name].items():
                rel = by_id.get(edge["id"]) if edge else None
                if rel is not None:
                    key = (name, nbr) if name <= nbr else (nbr, name)
                    rows.append((key, rel, degree.get(key[0], 0) + degree.get(key[1], 0)))
            found = self.edges[name] = tuple(rows)
        return found


def graph_cache(index: Index) -> GraphCache:
    """The index's lookups, built once per index object (``index.cache``)."""
    return index_cache.kept(index, GRAPH_CACHE, lambda: _graph_cache(index))


GRAPH_CACHE = "lightrag.graph"


def _graph_cache(index: Index) -> GraphCache:
    cache = GraphCache()
    for rel in index.relations:
        rows = rel.extra.get("vdb_rows") or [[rel.id, rel.id, *sorted((rel.source, rel.target))]]
        for key, _vid, src, tgt in rows:
            cache.relation_rows[key] = (rel, src, tgt)
    cache.degree = dict(index.graph.degree())
    return cache


def local_path(
    index: Index,
    ll_text: str,
    query_vec: np.ndarray,
    *,
    top_k: int,
    threshold: float | None,
    recall: str = "vector",
    weights: tuple[float, float, float] = (1.0, 0.7, 0.2),
) -> tuple[list[EntityHit], list[RelationHit]]:
    cache = graph_cache(index)
    table = index.vectors.get("entities")
    if recall == "vector" and query_vec is not None and reuse.active() and not vector_server.is_server(table):
        hits = _narrowed_recall(index, ll_text, query_vec, top_k, threshold)
    else:
        hits = recall_entities(
            index, ll_text, query_vec, strategy=recall, top_k=top_k, threshold=threshold, weights=weights
        )
    # a sweep's top_k steps recall the first hits of one recall (``_narrowed_recall``): each one's EntityHit at
    # its position once (held with its recall hit, whose id then names no other while the sweep lasts)
    made: dict[tuple[int, int, int], tuple[RecallHit, EntityHit]] = reuse.once(("lightrag.local hits", id(index)), dict)
    entities: list[EntityHit] = []
    for i, hit in enumerate(hits):
        key = (id(hit), i, len(entities))
        found = made.get(key)
        if found is not None and found[0] is hit:
            entities.append(found[1])
            continue
        if hit.entity.name not in index.graph:
            continue
        deg = cache.degree.get(hit.entity.name, 0)
        why = lmsg("local #{n} ({why})", n=i + 1, why=hit.why)
        entities.append(EntityHit(hit.entity, "local", len(entities), why, hit.sim, deg))
        made[key] = (hit, entities[-1])
    names = tuple(ent.entity.name for ent in entities)
    # in a sweep, a top_k step below one already run narrows that step's edges (``reuse.prefixed``)
    edges = reuse.prefixed("lightrag.local edges", id(index), names, lambda: _edges(index, names), _first_edges)
    # the token cut keeps the first ~10² of 10²–10³ edges: each hit is made when read (``lazy_hits``), in a
    # sweep once per edge and position (a top_k step's edges are mostly those of the step before, many at the
    # same position: the hit there is the same)
    made_hits: dict[tuple[int, int], tuple[Edge, RelationHit]] = reuse.once(
        ("lightrag.local edge hits", id(index)), dict
    )
    keys = [edge[0] for edge in edges]
    return entities, LazyHits([edge[7] for edge in edges], keys, partial(_local_hit, edges, made_hits))


def _local_hit(edges: list[Edge], made: dict[tuple[int, int], tuple[Edge, RelationHit]], i: int) -> RelationHit:
    edge = edges[i]
    found = made.get((id(edge), i))
    if found is not None and found[0] is edge:  # the edge held with its hit: its id names no other
        return found[1]
    key, _via, rel, deg, via_why, degree, weight, _printed = edge
    why = lmsg(
        "local #{n}: {why}, edge degree {degree}, weight {weight}", n=i + 1, why=via_why, degree=degree, weight=weight
    )
    hit = RelationHit(rel, key, "local", i, why, None, deg)
    made[id(edge), i] = (edge, hit)
    return hit


def _narrowed_recall(
    index: Index, ll_text: str, query_vec: np.ndarray, top_k: int, threshold: float | None
) -> list[RecallHit]:
    """Vector recall at ``top_k`` inside a sweep: the first hits of a wider recall of the same vector and
    threshold when one was made. Exact: the hits are those of the scored rows ``vector_topk`` gives,
    the first ``top_k`` rows of one ranking stopped at the threshold (the wider list's first ``top_k``),
    each numbered by its row's rank; a hit's tie note names the rows of the same score among them, the
    same ones but for the group of equal scores ``top_k`` splits: those hits are made again (``_retied``)."""
    table = index.vectors.get("entities")
    if table is None:
        return []
    wider: list[tuple[int, list[RecallHit], list[int], list[tuple[int, float]]]] = reuse.kept(
        "lightrag.recall", table, query_vec, list, threshold
    )
    for their_k, hits, rows_before, scored in wider:
        if their_k >= top_k > 0:
            if top_k >= len(scored):
                return hits
            head = hits[: rows_before[top_k]]
            if scored[top_k - 1][1] != scored[top_k][1]:
                return head
            return _retied(index, table, head, rows_before, scored[:top_k])
    hits = recall_entities(index, ll_text, query_vec, strategy="vector", top_k=top_k, threshold=threshold)
    scored = vector_topk(table, query_vec, top_k, threshold)
    found = [index.entity_by_id.get(table.ids[row]) or index.entity_by_name.get(table.ids[row]) for row, _ in scored]
    rows_before = list(accumulate((e is not None for e in found), initial=0))  # hits among the first n rows
    wider.append((top_k, hits, rows_before, scored))
    return hits


def _retied(
    index: Index, table: Any, head: list[RecallHit], rows_before: list[int], scored: list[tuple[int, float]]
) -> list[RecallHit]:
    """``head`` (a wider recall's first hits, a new list) with the hits of its last tie group made again: their
    notes name the group's rows within ``scored`` only (``recall.tied_rows`` over the narrower list); every
    other group lies wholly inside both lists, its notes the same."""
    last = scored[-1][1]
    start = len(scored) - 1
    while start > 0 and scored[start - 1][1] == last:
        start -= 1
    group = [row for row, _ in scored[start:]]
    for j in range(start, len(scored)):
        if rows_before[j + 1] > rows_before[j]:  # row j names an entity: it is hit number rows_before[j]
            row = scored[j][0]
            head[rows_before[j]] = vector_hit(index, table, j + 1, row, last, [r for r in group if r != row])
    return head


Edge = tuple[tuple[str, str], int, Relation, int, Reason, str, str, tuple[Relation, tuple[str, str]]]
# sorted pair, position of the entity that brought it, its relation, edge degree, the parts of its reason and
# (relation, pair) as printed (``lazy_hits.printed``), made once per edge: a sweep's top_k steps number the
# same edges again


def _edges(index: Index, names: tuple[str, ...]) -> list[Edge]:
    """Every edge of the entities ``names`` once (by sorted pair, the first entity bringing it), in
    adjacency order, stably sorted by (edge degree, weight) descending: 1.4.7's ``_find_most_related_edges_from_entities``."""
    cache = graph_cache(index)
    first: dict[tuple[str, str], tuple] = {}  # sorted pair -> its edge, brought by the first entity that has it
    for pos, name in enumerate(names):
        for key, rel, deg in cache.edges_of(index, name):  # graph.adj[name]'s order
            if key not in first:
                first[key] = (key, pos, rel, deg)
    edges = list(first.values())
    edges.sort(key=lambda e: (e[3], e[2].weight), reverse=True)  # stable: ties keep adjacency order
    return [
        (*e, lmsg("edge of {name}", name=names[e[1]]), f"{e[3]:g}", f"{e[2].weight:g}", (e[2], e[0])) for e in edges
    ]


def _first_edges(edges: list[Edge], k: int) -> list[Edge]:
    """``_edges`` of the first ``k`` entities, from the edges of more of them: an edge belongs to the first
    entity that brings it, so theirs are exactly those brought by one of the first ``k``, and the stable
    sort keeps them in the same order (its keys do not depend on the other entities)."""
    return [edge for edge in edges if edge[1] < k]


def global_path(
    index: Index, hl_text: str, query_vec: np.ndarray, *, top_k: int, threshold: float | None
) -> tuple[list[RelationHit], list[EntityHit]]:
    """1.4.7's ``_get_edge_data``. Inside a sweep a step below a wider one of the same vector and threshold
    takes that one's first hits: its relations are the vector order's first ``top_k`` rows (the same
    numbers), its entities the endpoints those bring, first seen first (a prefix of the wider ones); the
    hits are shared read only (the merge marks copies of its duplicates)."""
    table = index.vectors.get("relations")
    # a server's search is approximate: its top k need not start its top K (then every step searches)
    if table is None or not reuse.active() or vector_server.is_server(table):
        return _global_path(index, table, query_vec, top_k, threshold)[:2]
    wider: list[tuple[int, list, list, list[int], list[int]]] = reuse.kept(
        "lightrag.global", table, query_vec, list, threshold
    )
    for their_k, rels, entities, ranks, brought_by in wider:
        if their_k >= top_k:
            n_rels = bisect_left(ranks, top_k)
            return rels[:n_rels], entities[: bisect_left(brought_by, n_rels)]
    made = _global_path(index, table, query_vec, top_k, threshold)
    wider.append((top_k, *made))
    return made[0], made[1]


def _global_path(
    index: Index, table: Any, query_vec: np.ndarray, top_k: int, threshold: float | None
) -> tuple[list[RelationHit], list[EntityHit], list[int], list[int]]:
    """The relation hits, their endpoint entities, each relation's rank in the vector order (0-based) and
    the position of the relation that brought each entity."""
    cache = graph_cache(index)
    rels: list[RelationHit] = []
    ranks: list[int] = []
    if table is not None:
        for i, (row, sim) in enumerate(vector_topk(table, query_vec, top_k, threshold)):
            found = cache.relation_rows.get(table.ids[row])
            if found is None:
                continue  # a vector whose edge is not in the graph: 1.4.7 skips it too
            rel, src, tgt = found
            why = lmsg("global #{n} (relation vdb sim {sim})", n=i + 1, sim=f"{sim:.3f}")
            rels.append(RelationHit(rel, (src, tgt), "global", len(rels), why, sim))
            ranks.append(i)
    entities: list[EntityHit] = []
    brought_by: list[int] = []
    seen: set[str] = set()
    for at, rel in enumerate(rels):
        for name in rel.pair:
            if name in seen:
                continue
            seen.add(name)
            entity = index.entity_by_name.get(name)
            if entity is None:
                continue
            why = lmsg("global #{n} via relation {pair}", n=len(entities) + 1, pair=f"{rel.pair[0]}—{rel.pair[1]}")
            entities.append(EntityHit(entity, "global", len(entities), why))
            brought_by.append(at)
    return rels, entities, ranks, brought_by


def round_robin(local: Sequence, global_: Sequence, key) -> tuple[Sequence, list]:
    """Merged list and the duplicates it skipped (each a copy marked with what it duplicates: the hits
    themselves stay as their path made them, shared by a sweep's steps). Local[i] then global[i]: while
    both lists last, pairs in turn; then the longer list's rest. A lazy list (``LazyHits``) is merged by
    its keys and gives a lazy merge: only the duplicates are made now."""
    lists = (local, global_)
    keys = [items.keys if isinstance(items, LazyHits) else [key(item) for item in items] for items in lists]
    if not local or not global_:  # one path ran (local, global mode): its own repeats are all it can drop
        items = local or global_
        if len(set(keys[0] or keys[1])) == len(items):
            return (items if isinstance(items, LazyHits) else list(items)), []
    n, n_local = min(len(local), len(global_)), len(local)
    # each item as a code: i for local[i], n_local + i for global_[i]; in merge order, with its key
    codes = [0] * (2 * n)
    codes[0::2], codes[1::2] = range(n), range(n_local, n_local + n)
    codes += [*range(n, n_local), *range(n_local + n, n_local + len(global_))]
    all_keys = [*keys[0], *keys[1]]
    merged_keys = [all_keys[c] for c in codes]
    first = dict(zip(reversed(merged_keys), reversed(codes), strict=True))  # key -> the code that brings it first
    if len(first) == len(codes):  # no key twice: the merge order is the plan
        plan, dropped = codes, []
    else:
        in_order, dropped = merged_keys, []
        plan = [c for k, c in zip(in_order, codes, strict=True) if first[k] == c]
        merged_keys = [all_keys[c] for c in plan]
        for k, c in zip(in_order, codes, strict=True):
            if first[k] != c:
                item = reuse.copied(_item(lists, n_local, c))
                item.duplicate_of = _duplicate(_item(lists, n_local, first[k]))
                dropped.append(item)
    if not any(isinstance(items, LazyHits) for items in lists):
        every = [*local, *global_]
        return [every[c] for c in plan], dropped
    every_row = [*printed(local), *printed(global_)]
    # the hit a merge code names (``_item``), a lazy list's read without its index checks: the codes are in range
    hit_of = [items._hit if isinstance(items, LazyHits) else items.__getitem__ for items in lists]
    local_hit, global_hit = hit_of

    def make(j: int) -> Any:
        code = plan[j]
        return local_hit(code) if code < n_local else global_hit(code - n_local)

    return LazyHits([every_row[c] for c in plan], merged_keys, make), dropped


def _item(lists: tuple[Sequence, Sequence], n_local: int, code: int) -> Any:
    """The hit a merge code names: local[code], or global_[code - n_local]."""
    return lists[0][code] if code < n_local else lists[1][code - n_local]


def _duplicate(first: EntityHit | RelationHit) -> Reason:
    """Why the merge skips an item ``first`` (a hit of the local or the global path) already brought."""
    if first.path == "local":
        return lmsg("round-robin: duplicate of local #{n}", n=first.order + 1)
    return lmsg("round-robin: duplicate of global #{n}", n=first.order + 1)
