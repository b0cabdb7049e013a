"""GraphRAG's per-level lookups worked out on an opened index's columns (``ms.column_view``) equal the
row-by-row ones: each entity's community ids in Python's set order, the entities kept at a level, and
the distinct text units per community behind global search's occurrence weights. Whatever the columns
cannot answer exactly (ids that are not canonical integers, rows read or changed) falls back to the rows.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from graphrag_ui.index import store
from graphrag_ui.index.model import Entity, Relation, VectorTable
from graphrag_ui.retrieval.ms import column_view
from graphrag_ui.retrieval.ms import indexer_adapters as ia
from tests.support.store_fixtures import small_index

LEVELS = (0, 1, 2, 3, 9)
# numbers whose set order differs from their listed order (8, 16, 24 and 0 share a slot of a small
# table), negatives, one beyond 32 bits; and enough refs per entity to make a set grow
NUMBERS = [0, 8, 16, 24, 1, 9, 33, 7, -3, 100000, 2**40, 5, 13, 21, 29, 37, 45, 53, 61]


def _entities(seed: int, ids=lambda n: str(n)) -> list[Entity]:
    rng = random.Random(seed)
    units = [f"u{i}" for i in range(12)]
    rows = []
    for i in range(300):
        kind = i % 7
        if kind == 0:
            refs = []  # in no community
        elif kind == 1:
            refs = [(rng.choice((4, 5)), ids(rng.choice(NUMBERS)))]  # only below every asked level but 9
        else:
            refs = [(rng.randrange(4), ids(rng.choice(NUMBERS))) for _ in range(rng.randrange(1, 25))]
        chunk_ids = [] if i % 5 == 0 else [rng.choice(units) for _ in range(rng.randrange(1, 6))]  # repeats too
        extra = {"human_readable_id": i} if i % 3 else {"degree": i % 11, "human_readable_id": None}
        entity_id = f"e{i // 2}" if i % 4 == 0 else f"e{i}"  # some ids twice: the load keeps the first
        rows.append(Entity(entity_id, f"N{i}", "T", "d", source_chunk_ids=chunk_ids, communities=refs, extra=extra))
    return rows


def _kept(entities: list[Entity]) -> list[Entity]:
    """The rows a load keeps: the first of each id (``row_checks``)."""
    seen: set[str] = set()
    return [e for e in entities if not (e.id in seen or seen.add(e.id))]


def _index(entities: list[Entity]):
    index = small_index()
    index.entities = entities
    ids = list(dict.fromkeys(e.id for e in entities))
    index.vectors["entities"] = VectorTable(ids, np.ones((len(ids), index.manifest.dimension), dtype=np.float32))
    index.refresh()
    return index


def _saved(tmp_path, entities: list[Entity]):
    out = tmp_path / "idx"
    store.save(_index(entities), out)
    return store.load(out)


def _views(index, level: int) -> list[tuple]:
    lv = ia.level_view(index, level)
    return [(v.entity.id, v.entity.name, v.short_id, v.rank, v.community_ids) for v in lv.by_id_order]


def _unit_counts_by_rows(index, level: int) -> dict[str, int]:
    units: dict[str, set[str]] = {}
    for v in ia.level_view(index, level).entities.values():
        for cid in v.community_ids:
            units.setdefault(cid, set()).update(v.entity.source_chunk_ids)
    return {cid: len(ids) for cid, ids in units.items()}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_columns_give_what_the_rows_give(tmp_path, seed):
    entities = _entities(seed)
    loaded, built = _saved(tmp_path, entities), _index(_kept(_entities(seed)))
    for level in LEVELS:
        by_columns = column_view.community_ids_by_row(loaded.entities, level)
        assert by_columns == [ia.community_ids_at(e, level) for e in built.entities]
        assert _views(loaded, level) == _views(built, level)
        assert column_view.unit_counts(loaded.entities, ia.level_view(loaded, level).memo["rows"], level) is not None
        assert ia.unit_counts(loaded, level) == _unit_counts_by_rows(built, level)
    assert not {"communities", "source_chunk_ids"} & set(loaded.entities[3].__dict__)  # nothing converted


def test_ids_that_are_not_canonical_integers_are_read_from_the_rows(tmp_path):
    """'007' is 7 in GraphRAG's set of numbers; 'c1' keeps its listed order: the columns do not answer."""
    for ids in (lambda n: f"00{n}" if n == 7 else str(n), lambda n: "c1" if n == 9 else str(n)):
        loaded, built = _saved(tmp_path / str(id(ids)), _entities(5, ids)), _index(_kept(_entities(5, ids)))
        assert column_view.community_ids_by_row(loaded.entities, 3) is None
        assert column_view.unit_counts(loaded.entities, list(range(len(loaded.entities))), 3) is None
        for level in LEVELS:
            assert _views(loaded, level) == _views(built, level)
            assert ia.unit_counts(loaded, level) == _unit_counts_by_rows(built, level)


def test_rows_read_or_changed_before_are_read_from_the_rows(tmp_path):
    loaded, built = _saved(tmp_path, _entities(3)), _index(_kept(_entities(3)))
    assert loaded.entities[10].communities  # read: that row holds its own list now
    assert column_view.community_ids_by_row(loaded.entities, 2) is None
    for rows in (loaded.entities, built.entities):
        rows[20].source_chunk_ids = ["u-new"]
    assert column_view.unit_counts(loaded.entities, list(range(len(loaded.entities))), 2) is None
    for level in LEVELS:
        assert _views(loaded, level) == _views(built, level)
        assert ia.unit_counts(loaded, level) == _unit_counts_by_rows(built, level)


def test_a_table_of_no_entities_or_no_refs(tmp_path):
    empty = [Entity(f"e{i}", f"N{i}", "T", "d") for i in range(3)]
    loaded = _saved(tmp_path, empty)
    assert column_view.community_ids_by_row(loaded.entities, 2) == [[], [], []]
    assert ia.level_view(loaded, 2).entities == {} and ia.unit_counts(loaded, 2) == {}


def test_the_index_views_lookups_made_on_read_equal_those_made_for_every_row():
    """Relationship ranks (combined_degree, else the endpoints' degrees), printed ids (human_readable_id,
    else the row) and text-unit ids; an id twice reads its last row, as a dict by id keeps it."""
    index = small_index()
    r1, r2, r3, r4 = index.relations
    r1.extra = {"human_readable_id": 7, "combined_degree": 12}
    r2.extra = {"human_readable_id": None, "combined_degree": None}
    r3.extra = {"combined_degree": 0}
    twice = Relation("r1", "张三", "北京", "again", extra={"human_readable_id": 9})
    index.relations = [r1, r2, r3, r4, twice]
    index.chunks[0].extra = {"short_id": "s-1"}
    index.refresh()
    view = ia.index_view(index)
    degree = dict(index.graph.degree())
    for r in index.relations:
        last = max(i for i, other in enumerate(index.relations) if other.id == r.id)
        mine = index.relations[last]
        rank = mine.extra.get("combined_degree", degree[mine.source] + degree[mine.target]) or 0
        hid = mine.extra.get("human_readable_id", last)
        assert (view.rel_rank[r.id], view.rel_short[r.id], view.rel_row[r.id]) == (
            rank,
            "" if hid is None else str(hid),
            last,
        )
    assert view.rel_short["r1"] == "9" and view.rel_rank["r1"] == degree["张三"] + degree["北京"]
    assert [view.unit_short_id[c.id] for c in index.chunks] == ["s-1", "1"]
    with pytest.raises(KeyError):
        view.rel_rank["no such relation"]


def test_rows_counted_together_count_as_one_at_a_time():
    """Global search counts its report rows together (``tokens_of``): the same numbers as ``tokens``,
    special-token text counted as ordinary text, a row met twice or counted before taken from the memo."""
    view = ia.index_view(small_index())
    rows = [f"{i}|report <|endoftext|> {'word ' * (i % 50)}|{i / 7}\n" for i in range(2500)] + ["x\n", "x\n", ""]
    view.tokens(rows[5])
    fresh = ia.index_view(_index(small_index().entities))
    assert view.tokens_of(rows) == [fresh.tokens(r) for r in rows]
    assert set(view.row_tokens) == set(rows)
