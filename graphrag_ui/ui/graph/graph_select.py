"""What the graph draws: which entities, in which role, and what was left out.

``retrieval_subgraph`` draws what a Retrieval recalled: the entities and relations in the context
first (bold), the candidates it dropped (faint), optionally what entered or left since the
previous run (``change``), and its 1-hop neighbourhood only on demand. ``neighbourhood`` draws the
entities around a searched one (nearest and best connected first), ``expand`` adds a node's
neighbours, ``filtered`` keeps only some entity types or communities. Every one is bounded: a spec
says how many nodes it left out and why, so the page can say so.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace

from graphrag_ui.index.model import Entity, Index
from graphrag_ui.retrieval.core.change import Change
from graphrag_ui.retrieval.core.result import Retrieval

MAX_NODES = 400  # drawn at most (a neighbourhood, the retrieved subgraph with its neighbours)
EXPAND_CAP = 30  # neighbours one expansion adds at most (the best connected ones)
HARD_CAP = 600  # drawn at most, expansions included
SCAN_LIMIT = 50_000  # a neighbourhood count stops here ("more than 50,000")

# who is placed first and drawn on top: the lower, the more important
ROLE_RANK = {
    "centre": 0,
    "seed": 0,
    "context": 1,
    "nearby": 2,
    "dropped": 3,
    "dropped_endpoint": 4,
    "left": 5,
    "neighbour": 6,
}

STRONG_ROLES = {"seed", "context", "centre", "nearby"}  # drawn bold and opaque; the rest is faint

Pair = tuple[str, str]


def pair(a: str, b: str) -> Pair:
    return (a, b) if a <= b else (b, a)


@dataclass
class GraphSpec:
    """What to draw: nodes (entity names) with roles, the edges that matter, and what was left out."""

    nodes: list[str]
    roles: dict[str, str] = field(default_factory=dict)  # name -> a ROLE_RANK key
    why: dict[str, str] = field(default_factory=dict)  # name -> why it was selected (the retrieval's words)
    context_edges: set[Pair] = field(default_factory=set)
    total: int = 0  # nodes before the cap
    level: int = 0  # community level used for colours and the community filter
    dropped: dict[str, str] = field(default_factory=dict)  # name -> why it was then dropped
    dropped_edges: set[Pair] = field(default_factory=set)  # relations considered but dropped
    hidden: int = 0  # 1-hop neighbours not drawn because the neighbourhood is off
    entered: set[str] = field(default_factory=set)  # entities that entered the context since the previous run
    left: set[str] = field(default_factory=set)  # entities that left it (ghosts when nothing else draws them)
    entered_edges: set[Pair] = field(default_factory=set)
    left_edges: set[Pair] = field(default_factory=set)
    marks: bool = False  # a change was given: the legend explains the marks
    cited: set[str] = field(default_factory=set)  # entities the answer cites (graphrag_ui.citations)
    cited_edges: set[Pair] = field(default_factory=set)  # relations it cites
    added: dict[str, tuple[int, int]] = field(default_factory=dict)  # expanded node -> (added, its neighbours)
    filtered: int = 0  # nodes the type / community filter hid
    counted_all: bool = True  # False: ``total`` stopped at SCAN_LIMIT

    @property
    def capped(self) -> bool:
        return self.total > len(self.nodes)

    def rank(self, name: str) -> int:
        return ROLE_RANK.get(self.roles.get(name, "neighbour"), 9)


def entity_name(index: Index, candidate_id: str, label: str = "") -> str | None:
    """The graph node of an entity candidate: its id is the entity id (or, for some modes, its name)."""
    entity = index.entity_by_id.get(candidate_id) or index.entity_by_name.get(candidate_id)
    if entity is None and label:
        entity = index.entity_by_name.get(label)
    return entity.name if entity else None


def relation_pair(index: Index, candidate_id: str, data: dict | None = None) -> Pair | None:
    rel = index.relation_by_id.get(candidate_id)
    src, tgt = (rel.source, rel.target) if rel else ((data or {}).get("source"), (data or {}).get("target"))
    if not isinstance(src, str) or not isinstance(tgt, str) or src not in index.graph or tgt not in index.graph:
        return None
    return pair(src, tgt)


def by_degree(index: Index, names) -> list[str]:
    """Best connected first, then by name (a stable order for the cap)."""
    degree = index.graph.degree
    return sorted(names, key=lambda n: (-degree(n), n))


def _neighbours_of(index: Index, drawn: list[str], seen: set[str]) -> list[str]:
    found: set[str] = set()
    for name in drawn:
        if name in index.graph:
            found.update(n for n in index.graph.neighbors(name) if n not in seen)
    return by_degree(index, found)


def retrieval_subgraph(
    index: Index,
    result: Retrieval,
    change: Change | None = None,
    *,
    neighbourhood: bool = False,
    dropped: bool = True,
    cap: int = MAX_NODES,
    level: int = 0,
) -> GraphSpec:
    """The retrieved subgraph first: in-context entities and relation endpoints, then (``dropped``) the
    candidates the mode dropped, then (``change``) ghosts of what left since the previous run, then
    (``neighbourhood``) the 1-hop neighbours, best connected first; ``hidden`` counts those left out."""
    roles: dict[str, str] = {}
    why: dict[str, str] = {}
    gone: dict[str, str] = {}
    for c in result.entities:
        name = entity_name(index, c.id, c.label)
        if name is None or name in roles or (not c.in_context and not dropped):
            continue
        roles[name] = "seed" if c.in_context else "dropped"
        why[name] = c.why
        if not c.in_context:
            gone[name] = c.dropped
    edges: set[Pair] = set()
    faint: set[Pair] = set()
    for c in sorted(result.relations, key=lambda c: not c.in_context):  # context endpoints first
        ends = relation_pair(index, c.id, c.data)
        if ends is None or (not c.in_context and not dropped):
            continue
        (edges if c.in_context else faint).add(ends)
        for name in ends:
            roles.setdefault(name, "context" if c.in_context else "dropped_endpoint")
    spec = GraphSpec([], roles, why, edges, level=level, dropped=gone, dropped_edges=faint - edges)
    if change is not None:
        _mark(index, spec, change)
    ordered = sorted(roles, key=spec.rank)  # stable: the mode's order within a role
    around = _neighbours_of(index, ordered, set(roles))
    if neighbourhood:
        for name in around:
            roles[name] = "neighbour"
        ordered += around
    else:
        spec.hidden = len(around)
    spec.nodes, spec.total = ordered[:cap], len(ordered)
    return spec


def _mark(index: Index, spec: GraphSpec, change: Change) -> None:
    """What entered (marked) and what left (marked, and drawn as a ghost when nothing else draws it)."""
    spec.marks = True
    for cid in change.entered("entities"):
        name = entity_name(index, cid)
        if name:
            spec.entered.add(name)
    for cid in change.left("entities"):
        name = entity_name(index, cid)
        if name:
            spec.left.add(name)
            spec.roles.setdefault(name, "left")
    for cid in change.entered("relations"):
        ends = relation_pair(index, cid)
        if ends:
            spec.entered_edges.add(ends)
    for cid in change.left("relations"):
        ends = relation_pair(index, cid)
        if ends:
            spec.left_edges.add(ends)
            for name in ends:
                spec.roles.setdefault(name, "left")


def neighbourhood(index: Index, centres: list[str], depth: int, cap: int = MAX_NODES, level: int = 0) -> GraphSpec:
    """Entities within ``depth`` hops of ``centres``: nearest first, and within a hop the best connected,
    so the cap keeps what matters. Counting stops at SCAN_LIMIT entities (``counted_all`` is then False)."""
    roles = {c: "centre" for c in centres if c in index.graph}
    order = list(roles)
    seen = set(roles)
    frontier = list(roles)
    total, complete = len(order), True
    graph = index.graph
    for _ in range(max(depth, 0)):
        ring: set[str] = set()
        for name in frontier:
            ring.update(n for n in graph.neighbors(name) if n not in seen)
            if total + len(ring) > SCAN_LIMIT:
                complete = False
                break
        seen |= ring
        total += len(ring)
        room = cap - len(order)
        if room > 0:  # only the best connected of a big ring are drawn: no need to sort it all
            best = heapq.nsmallest(room, ring, key=lambda n: (-graph.degree(n), n))
            for name in best:
                roles[name] = "nearby"
            order += best
        frontier = list(ring)
        if not complete or not ring:
            break
    return GraphSpec(order[:cap], roles, total=total, level=level, counted_all=complete)


def community_members(index: Index, community: str, cap: int = MAX_NODES, level: int = 0) -> GraphSpec:
    """A community's members, best connected first."""
    found = index.community_by_id.get(community)
    members = by_degree(index, {m for m in (found.members if found else []) if m in index.graph})
    roles = dict.fromkeys(members, "centre")
    return GraphSpec(members[:cap], roles, total=len(members), level=level)


def expand(index: Index, spec: GraphSpec, names: list[str], per_node: int = EXPAND_CAP) -> GraphSpec:
    """``spec`` plus, for each of ``names`` that is drawn, its best connected neighbours not yet drawn."""
    nodes, roles, added = list(spec.nodes), dict(spec.roles), dict(spec.added)
    drawn = set(nodes)
    for name in names:
        if name not in drawn or name not in index.graph:
            continue
        fresh = _neighbours_of(index, [name], drawn)
        room = max(min(per_node, HARD_CAP - len(nodes)), 0)
        for nbr in fresh[:room]:
            roles.setdefault(nbr, "neighbour")
            nodes.append(nbr)
            drawn.add(nbr)
        added[name] = (min(len(fresh), room), index.graph.degree(name))
    return replace(spec, nodes=nodes, roles=roles, added=added)


def community_of(entity: Entity | None, level: int) -> str | None:
    """The entity's community at ``level`` (or its deepest one above it)."""
    if entity is None or not entity.communities:
        return None
    best = None
    for lvl, cid in entity.communities:
        if lvl <= level:
            best = cid
    return best if best is not None else entity.communities[0][1]


def facets(index: Index, spec: GraphSpec) -> tuple[list[str], list[str]]:
    """Entity types and communities (at the spec's level) among the drawn nodes, most frequent first."""
    types: dict[str, int] = {}
    communities: dict[str, int] = {}
    for name in spec.nodes:
        entity = index.entity_by_name.get(name)
        kind = (entity.type if entity else "") or "?"
        types[kind] = types.get(kind, 0) + 1
        community = community_of(entity, spec.level) or ""
        communities[community] = communities.get(community, 0) + 1
    order = lambda counts: sorted(counts, key=lambda k: (-counts[k], k))  # noqa: E731
    return order(types), order(communities)


def filtered(index: Index, spec: GraphSpec, types=None, communities=None) -> GraphSpec:
    """Only the nodes of the given entity types and communities (``None`` or empty: no filter)."""
    if not types and not communities:
        return spec
    keep = []
    for name in spec.nodes:
        entity = index.entity_by_name.get(name)
        if types and ((entity.type if entity else "") or "?") not in types:
            continue
        if communities and (community_of(entity, spec.level) or "") not in communities:
            continue
        keep.append(name)
    return replace(spec, nodes=keep, filtered=spec.filtered + len(spec.nodes) - len(keep))
