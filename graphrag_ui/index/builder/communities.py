"""Hierarchical Leiden communities (graspologic-native), stored per entity and as Community rows.

Every connected part of the graph is clustered (nano-graphrag and GraphRAG keep only the largest
connected component; a small offline graph is often several islands and each deserves communities).
Entities without any relation belong to no community. Edges are fed in sorted order with a fixed
seed, so the same graph always gives the same communities. Level 0 is the coarsest partition; a
community larger than ``max_cluster_size`` is split again at the next level.
"""

from __future__ import annotations

from dataclasses import dataclass

import graspologic_native as gn

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.index.model import Community, Entity, Relation


@dataclass
class Clustering:
    communities: list[Community]
    by_entity: dict[str, list[tuple[int, str]]]


def cluster(
    entities: list[Entity], relations: list[Relation], max_cluster_size: int = 10, seed: int = 0xDEADBEEF
) -> Clustering:
    """Communities of the relation graph; titles and reports are filled in later."""
    if max_cluster_size < 2:
        raise UserError(
            msg("max cluster size must be at least 2 (got {max_cluster_size})", max_cluster_size=max_cluster_size)
        )
    weights: dict[tuple[str, str], float] = {}
    for rel in relations:
        if rel.source == rel.target:
            continue
        pair = (rel.source, rel.target) if rel.source < rel.target else (rel.target, rel.source)
        weights[pair] = weights.get(pair, 0.0) + max(float(rel.weight), 1e-6)
    if not weights:
        return Clustering([], {})
    edges = [(a, b, w) for (a, b), w in sorted(weights.items())]
    parts = gn.hierarchical_leiden(edges, max_cluster_size=max_cluster_size, seed=seed & 0xFFFFFFFFFFFFFFFF)
    members: dict[tuple[int, int], set[str]] = {}
    parent: dict[int, int | None] = {}
    by_entity: dict[str, set[tuple[int, str]]] = {}
    for p in parts:
        members.setdefault((p.level, p.cluster), set()).add(p.node)
        parent[p.cluster] = p.parent_cluster
        by_entity.setdefault(p.node, set()).add((p.level, str(p.cluster)))
    order = {e.name: i for i, e in enumerate(entities)}
    communities = []
    for level, cid in sorted(members, key=lambda lc: (lc[0], lc[1])):
        up = parent.get(cid)
        names = sorted(members[(level, cid)], key=lambda n: (order.get(n, len(order)), n))
        communities.append(
            Community(str(cid), level, None if up is None else str(up), f"Community {cid}", "", None, names)
        )
    return Clustering(communities, {name: sorted(levels) for name, levels in by_entity.items()})
