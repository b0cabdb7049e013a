"""The per-index edge lists (nano ``prep.edges``, LightRAG ``GraphCache.edges_of``) give the relations gathers
exactly what reading the graph edge by edge gives: every edge of a recalled entity once, first entity wins, in
adjacency order, then the stable (edge degree, weight) sort; and an index whose tables change is read again."""

from __future__ import annotations

from graphrag_ui.index.model import Relation
from graphrag_ui.retrieval.core.recall import RecallHit
from graphrag_ui.retrieval.lightrag import search
from graphrag_ui.retrieval.nano import local_gather
from graphrag_ui.retrieval.nano.prep import prepared
from tests.support.store_fixtures import small_index


def _edge_by_edge(index, names: list[str]) -> list[tuple]:
    """The gather done from the networkx graph itself: (sorted pair, first entity's position, relation id, degree)."""
    found: dict[tuple[str, str], int] = {}
    for pos, name in enumerate(names):
        for _u, nbr in index.graph.edges(name):
            found.setdefault(tuple(sorted((name, nbr))), pos)
    rows = []
    for (a, b), pos in found.items():
        rel = index.relation_between(a, b)
        if rel is not None:
            rows.append(((a, b), pos, rel.id, index.graph.degree(a) + index.graph.degree(b), rel.weight))
    rows.sort(key=lambda r: (r[3], r[4]), reverse=True)
    return [r[:4] for r in rows]


def _hits(index, names: list[str]) -> list[RecallHit]:
    return [RecallHit(index.entity_by_name[n], 1.0, 1.0, "", "") for n in names]


def _nano(index, names: list[str]) -> list[tuple]:
    got = local_gather.relations(index, prepared(index), _hits(index, names))
    return [((a, b), via, rel.id, rank) for rank, _w, a, b, rel, via in got.rows]


def _lightrag(index, names: list[str]) -> list[tuple]:
    return [(key, via, rel.id, deg) for key, via, rel, deg, *_reason in search._edges(index, tuple(names))]


def test_both_gathers_read_every_edge_once_in_the_graph_s_order():
    index = small_index()
    # a hub with a self-loop, a second relation on one pair (the graph keeps the last) and equal weights
    index.relations += [
        Relation("r5", "ALICE", "ALICE", "talks to herself", weight=1.0),
        Relation("r6", "ALICE", "北京", "visits", weight=1.0),
        Relation("r7", "ÉCOLE", "ALICE", "teaches", weight=3.0),
    ]
    index.refresh()
    for names in (["ALICE"], ["张三", "ALICE"], ["ALICE", "张三", "ÉCOLE"], ['"ZED"', "50%_CLUB"], []):
        want = _edge_by_edge(index, names)
        assert _nano(index, names) == want
        assert _lightrag(index, names) == want
    for _ in range(2):  # read again from the kept lists: the same rows
        assert (
            _nano(index, ["ALICE", "张三"])
            == _lightrag(index, ["ALICE", "张三"])
            == _edge_by_edge(index, ["ALICE", "张三"])
        )


def test_an_index_whose_relations_change_is_read_again():
    index = small_index()
    before = _nano(index, ["ALICE"])
    assert _lightrag(index, ["ALICE"]) == before
    index.relations.append(Relation("r9", "ALICE", "50%_CLUB", "joined", weight=9.0))
    index.refresh()  # the kept lists belonged to the old tables
    want = _edge_by_edge(index, ["ALICE"])
    assert len(want) == len(before) + 1
    assert _nano(index, ["ALICE"]) == _lightrag(index, ["ALICE"]) == want


def test_a_batch_count_of_edge_tokens_gives_each_edge_s_own_count(monkeypatch):
    """``relations_tokens`` counts a hub's uncounted edges in one batch: the same numbers one count per edge
    gives, a count the importer kept for the very text is used, one kept for another text is not."""
    from graphrag_ui.base import tokens
    from graphrag_ui.index import nano_precount
    from graphrag_ui.retrieval.nano import prep as nano_prep

    index = small_index()
    index.relations += [Relation(f"x{i}", "ALICE", f"N{i}", f"edge {i} <|endoftext|> " + "字" * i) for i in range(6)]
    index.refresh()
    kept, stale = index.relation_by_id["x0"], index.relation_by_id["x1"]
    kept.extra[nano_precount.STORED_KEY] = nano_precount._crc(kept.description) << 32 | 999
    stale.extra[nano_precount.STORED_KEY] = nano_precount._crc("another text") << 32 | 999
    monkeypatch.setattr(nano_prep, "BATCH", 1)
    batched = prepared(index).edge_columns("ALICE").cost.tolist()
    expected = [
        999 if rel is kept else tokens.count(rel.description, nano_prep.ENCODING)
        for rel in (row[3] for row in prepared(index).edges("ALICE"))
    ]
    assert batched == expected and 999 in batched
