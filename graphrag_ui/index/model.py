"""The canonical index data model shared by the builder, the importers and every retrieval mode.

Names, descriptions and ids are kept exactly as the source stored them (nano-graphrag keeps literal
quotes in names, LightRAG joins fragments with ``<SEP>``): retrieval reproduces each reference's
context byte for byte, so nothing is normalised on the way in. Source-specific fields that a
reference prints (GraphRAG's ``human_readable_id``, LightRAG's ``file_path``, nano's
``report_json``) live in ``extra``.

Order is data too: entities are kept in the source graph's node order and relations in its edge
order, so that rebuilding the ``networkx.Graph`` gives the same adjacency order the reference saw.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from graphrag_ui.index import cache

FORMAT_VERSION = 1
SEP = "<SEP>"
VECTOR_KINDS = ("entities", "relations", "chunks", "communities")


class Stored:
    """A row field an opened index leaves in its decoded Arrow column until the row's first read of it.

    Opening a 100k-entity index built ~10⁶ Python strings and lists (texts, descriptions, keywords,
    chunk-id lists, community refs) of which a first view reads a few hundred: ~0.6 s of the open's
    Python and ~200 MB (measured). Rows the loader makes (``tables.rows_of``) hold their other fields as usual plus
    ``_columns`` (the table's ``stored.StoredColumns``, which says how a value is read) and ``_row``
    (their place in it). The value read is kept in the row, where every later read and write finds it
    (a non-data descriptor: an instance's own value always wins). Rows made any other way (builders,
    importers, ``dataclasses.replace``, a copy) hold every field and never reach this.
    """

    def __init__(self, name: str, default: Any) -> None:
        self.name, self.default = name, default

    def __get__(self, row: Any, owner: type | None = None) -> Any:
        if row is None:  # on the class: its dataclass default, as before
            if self.default is MISSING:
                raise AttributeError(self.name)
            return self.default
        try:
            columns = row._columns
        except AttributeError:
            raise AttributeError(self.name) from None
        value = columns.value(self.name, row)
        setattr(row, self.name, value)  # the row's own from now on (two first readers set equal values)
        return value


class StoredRow:
    """A row class some of whose fields may be ``Stored``: a copy or pickle carries every value, not the table."""

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        if state.pop("_columns", None) is not None:
            state.pop("_row", None)
            state.update({f.name: getattr(self, f.name) for f in fields(self)})  # type: ignore[arg-type]
        return state


def _store_fields(cls: type, names: tuple[str, ...]) -> None:
    """Make ``names`` of dataclass ``cls`` ``Stored`` (after the dataclass is made: its ``__init__`` keeps
    the defaults it captured, and sets every field on the instance as before)."""
    for f in fields(cls):
        if f.name in names:
            setattr(cls, f.name, Stored(f.name, f.default))


@dataclass
class Document(StoredRow):
    id: str
    title: str
    text: str
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Chunk(StoredRow):
    id: str
    doc_id: str
    text: str
    order: int
    tokens: int
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Entity(StoredRow):
    """A graph node. ``name`` is the node id in ``Index.graph`` (exactly as stored)."""

    id: str
    name: str
    type: str
    description: str
    aliases: list[str] = field(default_factory=list)
    source_chunk_ids: list[str] = field(default_factory=list)
    occurrence: int = 0
    # (level, community id) pairs in the order the source listed them
    communities: list[tuple[int, str]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Relation(StoredRow):
    """A graph edge between two entity names (direction as stored; the graph is undirected)."""

    id: str
    source: str
    target: str
    description: str
    keywords: str = ""
    weight: float = 1.0
    source_chunk_ids: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


# fields an opened index reads from its Arrow columns on first use (``Stored``); the rest are built at load
# (``extra``: its JSON decoded on first read — GraphRAG's 300k relation ranks and 50k chunks' id lists were
# ~130 MB of dicts at 100k entities that ms.global never reads; communities are few and all read: built)
STORED_FIELDS: dict[type, tuple[str, ...]] = {
    Document: ("text", "extra"),
    Chunk: ("text", "extra"),
    Entity: (
        "description",
        "source_chunk_ids",
        "communities",
        "extra",
    ),  # aliases: every question's name check reads them all
    Relation: ("description", "keywords", "source_chunk_ids", "extra"),
}
for _cls, _names in STORED_FIELDS.items():
    _store_fields(_cls, _names)


@dataclass
class Community:
    id: str
    level: int
    parent: str | None
    title: str
    report: str
    rating: float | None
    members: list[str] = field(default_factory=list)  # entity names
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Manifest:
    """What an index is and how it was made; written as ``manifest.json``."""

    source: str  # "build", "nano-graphrag", "lightrag-1.4", "lightrag-1.5", "graphrag-2", "graphrag-3"
    embedder: str  # embedder id, "unknown" when an import could not tell
    dimension: int
    tokenizer: str = "o200k_base"
    format_version: int = FORMAT_VERSION
    counts: dict[str, int] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    vector_sources: dict[str, str] = field(default_factory=dict)  # kind -> where its vectors came from
    title: str = ""
    language: str = ""


@dataclass
class VectorTable:
    """Vectors of one kind, row i belongs to ``ids[i]``; rows are float32 as stored."""

    ids: list[str]
    matrix: np.ndarray  # shape (n, dim), float32

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def width(self) -> int:
        """The vectors' dimension (0 for an empty or unshaped table), without reading a row."""
        matrix = self.matrix
        return int(matrix.shape[1]) if matrix.ndim == 2 else 0


class CheckedOnRead(VectorTable):
    """A table whose matrix is mapped from the index's file and checked on its first read (``store.load``
    with ``vector_checks="first read"``, as the app opens an index), not at the load.

    The load's pass over every vector (finite, norms) read each whole matrix into memory: at 100k entities
    all four kinds (460 MB of pages with a synthetic index's relation vectors), which a mode that never
    searches a kind (ms.global searches none) kept as its peak. Here a kind's pages are read the first
    time a search reads ``matrix``: ``check(table, mapped)`` then refuses NaN/infinite rows
    (``IndexFormatError``, raised again on every read until the file is fixed) or gives the matrix to
    search (with far-off rows set to zero and said, as the load does)."""

    def __init__(self, ids: list[str], mapped: np.ndarray, check: Callable[[VectorTable, np.ndarray], np.ndarray]):
        self.ids = ids
        self._matrix, self._check = mapped, check
        self._lock = threading.Lock()

    @property  # type: ignore[override]
    def matrix(self) -> np.ndarray:
        if self._check is not None:
            with self._lock:
                if self._check is not None:
                    self._matrix = self._check(self, self._matrix)  # raises while the file is bad
                    self._check = None
        return self._matrix

    @matrix.setter
    def matrix(self, value: np.ndarray) -> None:
        with self._lock:
            self._matrix, self._check = value, None

    @property
    def width(self) -> int:
        return int(self._matrix.shape[1]) if self._matrix.ndim == 2 else 0

    @property
    def checked(self) -> bool:
        return self._check is None

    def __reduce__(self) -> tuple:
        """A copy or pickle is a plain table of the checked matrix (a lock and a check do not travel)."""
        return (VectorTable, (self.ids, self.matrix))


@dataclass
class Index:
    """An index in memory: tables, graph, vectors and lookups built once at load time."""

    manifest: Manifest
    documents: list[Document]
    chunks: list[Chunk]
    entities: list[Entity]
    relations: list[Relation]
    communities: list[Community]
    vectors: dict[str, VectorTable] = field(default_factory=dict)
    graph: nx.Graph = field(default_factory=nx.Graph)
    path: str = ""
    # what the load found wrong in single rows and did about it (``index.row_checks``), said with each query
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.refresh()

    def refresh(self) -> None:
        """(Re)build the graph and the id → row maps after the tables change (what was worked out from
        the old tables is forgotten)."""
        cache.close(self)
        self.entity_by_name: dict[str, Entity] = {e.name: e for e in self.entities}
        if len(self.entity_by_name) != len(self.entities):  # a repeated name: the first row is the one found
            self.entity_by_name = {}
            for e in self.entities:
                self.entity_by_name.setdefault(e.name, e)
        self.entity_by_id: dict[str, Entity] = {e.id: e for e in self.entities}
        self.chunk_by_id: dict[str, Chunk] = {c.id: c for c in self.chunks}
        self.document_by_id: dict[str, Document] = {d.id: d for d in self.documents}
        self.community_by_id: dict[str, Community] = {c.id: c for c in self.communities}
        self.relation_by_id: dict[str, Relation] = {r.id: r for r in self.relations}
        self.graph = entity_graph(self.entities, self.relations)
        self.__dict__.pop("relations_by_entity", None)  # made again on its next read (``__getattr__``)

    if TYPE_CHECKING:
        relations_by_entity: RelationsByEntity

    def __getattr__(self, name: str) -> Any:
        """``relations_by_entity`` (``RelationsByEntity``), made on the first read: only GraphRAG's modes
        read it."""
        if name != "relations_by_entity":
            raise AttributeError(name)
        self.relations_by_entity = RelationsByEntity(self.__dict__["relations"])
        return self.relations_by_entity

    def close(self) -> None:
        """Forget every per-index cache of this index (``index.cache``): it is replaced or let go."""
        cache.close(self)

    def relation_between(self, a: str, b: str) -> Relation | None:
        data = self.graph.get_edge_data(a, b)
        return self.relation_by_id.get(data["id"]) if data else None

    def counts(self) -> dict[str, int]:
        return {
            "documents": len(self.documents),
            "chunks": len(self.chunks),
            "entities": len(self.entities),
            "relations": len(self.relations),
            "communities": len(self.communities),
            **{f"vectors.{k}": len(v) for k, v in self.vectors.items()},
        }


class RelationsByEntity:
    """Entity name -> the relations touching it, in relation-table order, each once (``get`` only).

    Each name's list is made on its first ``get`` from the table's row numbers grouped by name: a dict of
    lists for every entity took ~0.3 s and ~17 MB of a 100k-entity index's first GraphRAG query, which
    reads a few hundred names' lists."""

    def __init__(self, relations: list[Relation]) -> None:
        self._relations = relations
        code: dict[str, int] = {}
        n = len(relations)
        ends = np.fromiter(
            (code.setdefault(name, len(code)) for r in relations for name in (r.source, r.target)), np.int64, 2 * n
        )
        rows = np.repeat(np.arange(n), 2)
        once = np.ones(2 * n, dtype=bool)
        once[1::2] = ends[1::2] != ends[0::2]  # a self-loop is listed once
        ends, rows = ends[once], rows[once]
        order = np.lexsort((rows, ends))  # by name, then by row
        self._rows = rows[order]
        self._starts = np.searchsorted(ends[order], np.arange(len(code) + 1))
        self._code = code
        self._made: dict[str, list[Relation]] = {}

    def get(self, name: str, default: Any = None) -> Any:
        made = self._made.get(name)
        if made is None:
            c = self._code.get(name)
            if c is None:
                return default
            relations = self._relations
            made = self._made[name] = [relations[i] for i in self._rows[self._starts[c] : self._starts[c + 1]].tolist()]
        return made


def entity_graph(entities: list[Entity], relations: list[Relation]) -> nx.Graph:
    """The entity graph: a node per entity name (table order), then one edge per relation with its id.

    Exactly what ``add_nodes_from`` + ``add_edges_from`` make (the same node, neighbour and edge order; a
    repeated pair keeps its first place and its last relation's id; an endpoint without an entity row
    becomes a node where first met), with the adjacency dicts filled here and handed to networkx (its
    ``_adj``/``_node`` setters reset its cached views): networkx's per-edge checks were a quarter of a
    100k-entity index's open, and this loop takes about two thirds of their time.
    """
    adjacency: dict[str, dict[str, dict[str, str]]] = {e.name: {} for e in entities}
    for rel in relations:
        u, v = rel.source, rel.target
        around_u = adjacency.get(u)
        if around_u is None:
            around_u = adjacency[u] = {}
        edge = around_u.get(v)
        if edge is not None:
            edge["id"] = rel.id
            continue
        around_v = adjacency.get(v)
        if around_v is None:
            around_v = adjacency[v] = {}
        around_u[v] = around_v[u] = {"id": rel.id}  # one dict per edge, seen from both ends (as networkx)
    graph = nx.Graph()
    graph._node = {name: {} for name in adjacency}
    graph._adj = adjacency
    return graph
