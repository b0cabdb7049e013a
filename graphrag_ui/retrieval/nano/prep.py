"""Per-index memo for the nano modes: token counts of stored texts and chunk-id sets, computed once.

nano-graphrag re-encodes every report, chunk and edge description on every query; counting each
stored text once per loaded index (lazily, on first use) is most of our speed-up. The memo is kept in
``index.cache`` and holds its index weakly, so keeping it never keeps a dropped index alive.
"""

from __future__ import annotations

import weakref
from typing import NamedTuple, cast

import numpy as np

from graphrag_ui.base import tokens
from graphrag_ui.index import cache as index_cache
from graphrag_ui.index import nano_precount
from graphrag_ui.index.model import Chunk, Community, Entity, Index, Relation
from graphrag_ui.retrieval.nano.community_schema import SchemaEntry, community_schema

ENCODING = "o200k_base"
BATCH = 1000  # uncounted edge descriptions of one node worth one batch count (``relations_tokens``)
EdgeRow = tuple[
    tuple[str, str], int, float, Relation
]  # (sorted pair, edge degree, weight, relation)  # nano-graphrag: tiktoken.encoding_for_model("gpt-4o")


class EdgeColumns(NamedTuple):
    """A node's ``edges`` as columns: each edge's number in ``NanoPrep.edge_table``, edge degree, weight and
    description tokens (``nano.local``'s relations gather sorts and cuts these without a row object)."""

    nos: np.ndarray
    rank: np.ndarray
    weight: np.ndarray
    cost: np.ndarray


class NanoPrep:
    def __init__(self, index: Index) -> None:
        self._index = weakref.ref(index)
        self._chunk_tokens: dict[str, int] = {}
        self._report_tokens: dict[str, int] = {}
        self._relation_tokens: dict[str, int] = {}
        self._entity_tokens: dict[str, int] = {}
        self._chunk_sets: dict[str, frozenset[str]] = {}
        self._support: dict[str, dict[str, int]] = {}
        self._schema: dict[str, SchemaEntry] | None = None
        self._degrees: dict[str, int] | None = None
        self._ratings: dict[str, float] = {}
        self._edges: dict[str, tuple[EdgeRow, ...]] = {}
        self._edge_columns: dict[str, EdgeColumns] = {}
        self._edge_no: dict[tuple[str, str], int] = {}
        self.edge_table: list[EdgeRow] = []  # every edge met so far, by its number (``edge_columns``)

    @property
    def index(self) -> Index:
        """The index of this memo (alive: the memo is only reached through it, ``prepared(index)``)."""
        return cast(Index, self._index())

    def degrees(self) -> dict[str, int]:
        """Node -> degree of the graph (networkx's degree view costs microseconds per call)."""
        if self._degrees is None:
            self._degrees = dict(self.index.graph.degree())
        return self._degrees

    def edges(self, name: str) -> tuple[EdgeRow, ...]:
        """The stored edges of node ``name`` in ``graph.edges(name)`` order, each as (sorted pair, edge degree,
        weight, relation): what ``nano.local``'s relations gather reads per edge, looked up once per node
        (hubs come back query after query). A node not in the graph has none; an edge without its
        relation row is left out (nano's ``get_edge`` finds nothing there either)."""
        found = self._edges.get(name)
        if found is None:
            index, degree = self.index, self.degrees()
            adjacency, by_id = index.graph._adj, index.relation_by_id  # views cost microseconds per edge
            rows = []
            for nbr, edge in adjacency.get(name, {}).items():
                a, b = (name, nbr) if name <= nbr else (nbr, name)
                rel = by_id.get(edge["id"]) if edge else None
                if rel is not None:
                    rows.append(((a, b), degree[a] + degree[b], rel.weight, rel))
            found = self._edges[name] = tuple(rows)
        return found

    def edge_columns(self, name: str) -> EdgeColumns:
        """``edges(name)`` as columns, each edge numbered once per index (a sorted pair is one edge)."""
        found = self._edge_columns.get(name)
        if found is None:
            rows = self.edges(name)
            numbers, table = self._edge_no, self.edge_table
            nos = []
            for row in rows:
                no = numbers.get(row[0])
                if no is None:
                    no = numbers[row[0]] = len(table)
                    table.append(row)
                nos.append(no)
            found = self._edge_columns[name] = EdgeColumns(
                np.array(nos, dtype=np.int64),
                np.array([r[1] for r in rows], dtype=np.int64),
                np.array([r[2] for r in rows], dtype=np.float64),
                np.array(self.relations_tokens([r[3] for r in rows]), dtype=np.int64),
            )
        return found

    def chunk_tokens(self, chunk: Chunk) -> int:
        n = self._chunk_tokens.get(chunk.id)
        if n is None:
            n = self._chunk_tokens[chunk.id] = _count(chunk, chunk.text)
        return n

    def report_tokens(self, community: Community) -> int:
        n = self._report_tokens.get(community.id)
        if n is None:
            n = self._report_tokens[community.id] = _count(community, community.report)
        return n

    def relation_tokens(self, relation: Relation) -> int:
        n = self._relation_tokens.get(relation.id)
        if n is None:
            n = self._relation_tokens[relation.id] = _count(relation, relation.description)
        return n

    def relations_tokens(self, relations: list[Relation]) -> list[int]:
        """``relation_tokens`` of each; when many are not counted yet (a hub's 10⁴ edges on a first query: ~0.5 s
        at 100k entities) those are counted in one ``tokens.count_many``, on both cores (same counts)."""
        known = self._relation_tokens
        todo = [r for r in relations if r.id not in known]
        if len(todo) >= BATCH:
            uncounted = [r for r in todo if nano_precount.stored(r, r.description) is None]
            for rel, n in zip(uncounted, tokens.count_many([r.description for r in uncounted], ENCODING), strict=True):
                known.setdefault(rel.id, n)
        return [self.relation_tokens(r) for r in relations]

    def entity_tokens(self, entity: Entity) -> int:
        n = self._entity_tokens.get(entity.id)
        if n is None:
            n = self._entity_tokens[entity.id] = _count(entity, entity.description)
        return n

    def chunk_set(self, name: str) -> frozenset[str]:
        """The chunk ids an entity cites (nano builds this set for each one-hop neighbour)."""
        found = self._chunk_sets.get(name)
        if found is None:
            entity = self.index.entity_by_name.get(name)
            found = self._chunk_sets[name] = frozenset(entity.source_chunk_ids if entity else ())
        return found

    def chunk_support(self, entity: Entity) -> dict[str, int]:
        """For each chunk ``entity`` cites: how many of its one-hop neighbours cite it too (nano's text-unit
        sort key), counted once per entity (hubs come back query after query)."""
        found = self._support.get(entity.id)
        if found is None:
            adjacency = self.index.graph._adj  # graph.edges(name)'s neighbours, without a view per entity
            name = entity.name
            neighbours = [self.chunk_set(nbr) for nbr in adjacency[name]] if name in adjacency else []
            found = self._support[entity.id] = {
                cid: sum(1 for chunk_ids in neighbours if cid in chunk_ids) for cid in entity.source_chunk_ids
            }
        return found

    def schema(self) -> dict[str, SchemaEntry]:
        """nano's ``community_schema()`` for this index (``nano.global``), computed once."""
        if self._schema is None:
            self._schema = community_schema(self.index)
        return self._schema

    def rating(self, community: Community) -> float:
        """nano's sort key ``report_json.get("rating", -1)``; a non-number rating counts as -1 (kept per report)."""
        found = self._ratings.get(community.id)
        if found is None:
            found = self._ratings[community.id] = self._rating(community)
        return found

    @staticmethod
    def _rating(community: Community) -> float:
        raw = community.extra.get("report_json", {}).get("rating", community.rating)
        if raw is None:
            return -1.0
        try:
            return float(raw)
        except (TypeError, ValueError):
            return -1.0


def _count(row: Chunk | Community | Entity | Relation, text: str) -> int:
    """The count the importer kept for this very text (``nano_precount``), else counted now."""
    n = nano_precount.stored(row, text)
    return tokens.count(text, ENCODING) if n is None else n


def prepared(index: Index) -> NanoPrep:
    """The index's memo, made once per index object (``index.cache``)."""
    return index_cache.kept(index, "nano.prep", lambda: _new(index))


def _new(index: Index) -> NanoPrep:
    tokens.encoding(ENCODING)  # load the BPE once here, not inside the first query's trace
    return NanoPrep(index)
