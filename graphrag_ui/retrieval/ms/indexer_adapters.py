"""The index as GraphRAG's query loaders see it (``query/indexer_adapters.py``).

``read_indexer_entities`` / ``read_indexer_reports`` depend on ``community_level``; the views are
built once per (index, level) and cached. Local, global and basic search all read the index
through these views.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base import tokens
from graphrag_ui.index import cache as index_cache
from graphrag_ui.index.model import Chunk, Community, Entity, Index, Relation
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.ms import column_view
from graphrag_ui.retrieval.ms.text import ENCODING


@dataclass(slots=True)
class EntityView:
    """An entity as ``read_indexer_entities`` loads it at one community level (one per entity of a level:
    slotted, its ``rows`` made on first use, ~17 MB less at 100k entities)."""

    entity: Entity
    short_id: str
    rank: int | None
    community_ids: list[str]
    _rows: dict[bool, tuple[str, int]] | None = field(default=None, compare=False, repr=False)
    # its text units with its relationships' count in each (``local_search.sources.entity_units``)
    units: list[tuple[Chunk, int]] | None = field(default=None, compare=False, repr=False)

    @property
    def rows(self) -> dict[bool, tuple[str, int]]:
        """include_entity_rank -> its Entities table row and tokens (``local_search.mixed_context.entity_row``)."""
        rows = self._rows
        if rows is None:
            rows = self._rows = {}
        return rows


@dataclass
class LevelView:
    level: int
    entities: dict[str, EntityView]  # by GraphRAG id, only the entities GraphRAG keeps at this level
    by_id_order: list[EntityView]  # GraphRAG's list order (its groupby sorts by id)
    reports: dict[str, Community]  # community id -> community with a report, level <= level
    memo: dict = field(default_factory=dict)  # other modes' per-level results (ms.global's weights and batches)


@dataclass
class IndexView:
    """Per-index lookups GraphRAG keeps as dicts and lists, built once."""

    rel_row: dict[str, int]
    rel_rank: dict[str, int]  # combined_degree (GraphRAG's relationship rank)
    rel_short: dict[str, str]  # human_readable_id as GraphRAG prints it
    chunks: dict[str, Chunk]
    unit_short_id: dict[str, str]
    levels: dict[int, LevelView] = field(default_factory=dict)
    row_tokens: dict[str, int] = field(default_factory=dict)  # table row -> tokens, counted once per index
    rel_lines: dict[tuple, tuple[str, int]] = field(default_factory=dict)  # (id, weight?, links?, links) -> row
    unit_rows: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # unit id -> text, its row, tokens
    report_rows: dict[tuple, tuple] = field(
        default_factory=dict
    )  # (id, summary?, rank?) -> report, tokens, cells, line
    rel_ids: dict[str, tuple[str, ...]] = field(default_factory=dict)  # entity name -> its relations' ids

    def relation_ids(self, index: Index, name: str) -> tuple[str, ...]:
        """The ids of the relations touching entity ``name``, once per index (a step's ~10² entities' ~10³)."""
        found = self.rel_ids.get(name)
        if found is None:
            found = self.rel_ids[name] = tuple(r.id for r in index.relations_by_entity.get(name, ()))
        return found

    def tokens(self, row: str) -> int:
        """Tokens of a table row (stored texts are counted once per index, not once per query)."""
        n = self.row_tokens.get(row)
        if n is None:
            n = self.row_tokens[row] = tokens.count(row, ENCODING)
        return n

    def tokens_of(self, rows: list[str]) -> list[int]:
        """``tokens`` of each row, those not counted yet counted together on every core (global search's
        ~3,000 report rows at 100k entities: most of its first query)."""
        known = self.row_tokens
        new = list(dict.fromkeys(row for row in rows if row not in known))
        known.update(zip(new, tokens.count_many(new, ENCODING), strict=True))
        return [known[row] for row in rows]

    def unit_row(self, unit: Chunk) -> tuple[str, int]:
        """A text unit's ``short_id|text`` row and its tokens (basic search's and the Sources table's),
        made once per unit: a sweep's steps meet the same units again."""
        found = self.unit_rows.get(unit.id)
        if found is None or found[0] is not unit.text:  # another unit under the same id: its own row
            line = f"{self.unit_short_id[unit.id]}|{unit.text}\n"
            found = self.unit_rows[unit.id] = (unit.text, line, self.tokens(line))
        return found[1], found[2]


def index_view(index: Index) -> IndexView:
    """The index's lookups, built once per index object (``index.cache``)."""
    return index_cache.kept(index, "ms.index_view", lambda: _index_view(index))


class OnRead(dict):
    """A lookup by id whose values are made on their first read by ``[]`` (a query reads ~10³ of 10⁵–10⁶):
    made for every row at open, GraphRAG's relationship ranks and printed ids and its text units' ids
    took ~0.3 s and ~40 MB of a 100k-entity index. Read it only with ``[]`` (``get`` and ``in`` see only
    the values made so far); an unknown id raises ``KeyError`` as a full dict's would."""

    def __init__(self, make: Callable[[str], Any]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, key: str) -> Any:
        value = self[key] = self._make(key)
        return value


def _index_view(index: Index) -> IndexView:
    relations, chunks = index.relations, index.chunk_by_id  # an id's last row, as a dict by id keeps it
    rel_row = dict(zip([r.id for r in relations], range(len(relations)), strict=True))
    # the lookups' makers hold the index's tables, never the index: this view is kept in ``index.cache``
    # by the index, and a value that held its owner would keep a dropped index alive
    degree, by_id = index.graph.degree, index.relation_by_id
    return IndexView(
        rel_row=rel_row,
        rel_rank=OnRead(lambda rid: _rel_rank(by_id[rid], degree)),
        rel_short=OnRead(lambda rid: _short(by_id[rid].extra, rel_row[rid])),
        chunks=chunks,
        unit_short_id=OnRead(lambda cid: str(chunks[cid].extra.get("short_id", chunks[cid].order))),
    )


def _short(extra: dict, row: int) -> str:
    """GraphRAG's printed id (human_readable_id); indexes from other sources use the row number."""
    if "human_readable_id" not in extra:
        return str(row)
    hid = extra["human_readable_id"]
    return "" if hid is None else str(hid)


def _rel_rank(rel: Relation, degree: Callable[[str], int]) -> int:
    if "combined_degree" in rel.extra:
        return rel.extra["combined_degree"] or 0
    return degree(rel.source) + degree(rel.target)  # both are nodes: the graph is made of the relations


def community_ids_at(entity: Entity, level: int) -> list[str]:
    """GraphRAG's ``Entity.community_ids``: a Python set of the community numbers at levels <= level,
    filled in communities.parquet row order, listed in set iteration order (ties in the report sort
    follow it). Numbers hash to themselves, so this order is the same in every process. Non-numeric
    ids (indexes from other sources) keep their listed order."""
    ids = [cid for lvl, cid in entity.communities if lvl <= level]
    if all(cid.lstrip("-").isdigit() for cid in ids):
        return [str(n) for n in {int(cid) for cid in ids}]
    return list(dict.fromkeys(ids))


def level_view(index: Index, level: int) -> LevelView:
    view = index_view(index)
    cached = view.levels.get(level)
    if cached is not None:
        return cached
    by_row = column_view.community_ids_by_row(index.entities, level)
    if by_row is None:  # rows not read from one loaded table as they are: each entity's own communities
        by_row = [community_ids_at(e, level) for e in index.entities]
    entities: dict[str, EntityView] = {}
    kept: list[int] = []  # the rows of the views, in table order (``unit_counts``)
    degree = index.graph.degree
    for row, (e, ids) in enumerate(zip(index.entities, by_row, strict=True)):
        if not ids or e.id in entities:  # no community at or below the level: read_indexer_entities drops it
            continue
        extra = e.extra
        rank = extra["degree"] if "degree" in extra else degree(e.name)
        entities[e.id] = EntityView(e, _short(extra, row), rank, ids)
        kept.append(row)
    present = {c.id for c in index.communities if c.level <= level}
    reports = {
        c.id: c
        for c in index.communities
        if c.extra.get("has_report", bool(c.report)) and c.id in present and _report_level(c) <= level
    }
    cached = LevelView(level, entities, sorted(entities.values(), key=lambda v: v.entity.id), reports)
    cached.memo["rows"] = kept
    view.levels[level] = cached
    return cached


def unit_counts(index: Index, level: int) -> dict[str, int]:
    """How many distinct text units the entities loaded at ``level`` have in each community they are in
    (``_compute_community_weights``' numerator); counted once per index and level."""
    lv = level_view(index, level)
    counts = lv.memo.get("unit_counts")
    if counts is None:
        counts = column_view.unit_counts(index.entities, lv.memo["rows"], level)
        if counts is None:  # the rows' own values
            units: dict[str, set[str]] = {}
            for v in lv.entities.values():
                for cid in v.community_ids:
                    units.setdefault(cid, set()).update(v.entity.source_chunk_ids)
            counts = {cid: len(ids) for cid, ids in units.items()}
        lv.memo["unit_counts"] = counts
    return counts


def _report_level(c: Community) -> int:
    lvl = c.extra.get("report_level")
    return c.level if lvl is None else int(lvl)


def relations_of(index: Index, names: list[str]) -> list[Relation]:
    """Relations touching any of ``names``, in relationships.parquet order, each once; once per ``names``
    in a sweep (``reuse.once``: a budget step's entities touch the same ones). Read only."""
    return reuse.once(("ms.relations_of", id(index), *names), lambda: _relations_of(index, names))


def _relations_of(index: Index, names: list[str]) -> list[Relation]:
    row = index_view(index).rel_row
    seen: dict[str, Relation] = {}
    for name in names:
        for rel in index.relations_by_entity.get(name, ()):
            seen.setdefault(rel.id, rel)
    return sorted(seen.values(), key=lambda r: row[r.id])
