"""Unit and property tests of ms.local's steps (GraphRAG local search), on the committed 3.x golden index."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.embedding.embed import HashEmbedder
from graphrag_ui.index.importers import ms_graphrag
from graphrag_ui.index.model import Entity, VectorTable
from graphrag_ui.retrieval import registry
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.ms import vector_search
from graphrag_ui.retrieval.ms.indexer_adapters import community_ids_at, level_view
from graphrag_ui.retrieval.ms.lance_topk import TopKHeap
from graphrag_ui.retrieval.ms.local_search import search as ms_local
from graphrag_ui.retrieval.ms.local_search.mixed_context import filter_relationships
from graphrag_ui.retrieval.ms.vector_search import lance_distances, lance_knn
from tests.conftest import GOLDENS

QUERY = "Who directs the Tidewater Institute and what is Project Seawatch?"


@pytest.fixture(scope="module")
def index():
    return ms_graphrag.import_dir(GOLDENS / "graphrag-3" / "en", embedder="hash")


def run(index, query=QUERY, **params):
    spec = registry.get_mode("ms.local")
    return ms_local.run(index, query, spec.resolve(params), Deps(embed=HashEmbedder().embed))


def test_registered_with_graphrag_names_and_defaults():
    spec = registry.get_mode("ms.local")
    d = spec.defaults()
    assert d["top_k_mapped_entities"] == 10 and d["top_k_relationships"] == 10 and d["max_context_tokens"] == 12000
    assert d["text_unit_prop"] == 0.5 and d["community_prop"] == 0.15 and d["community_level"] == 2
    assert d["include_entity_rank"] and d["include_relationship_weight"] and not d["include_community_rank"]
    assert {
        "recall",
        "w_ilike",
        "w_sim",
        "w_occ",
        "response_type",
        "min_community_rank",
        "use_community_summary",
    } <= set(d)


def test_budget_split_is_graphrags_arithmetic():
    assert ms_local.budgets(12000, 0.15, 0.5) == (1800, 4200, 6000)
    assert ms_local.budgets(1000, 0.25, 0.5) == (250, 250, 500)
    with pytest.raises(UserError, match="exceeds 1"):
        ms_local.budgets(1000, 0.6, 0.5)


def test_lance_distances_are_squared_l2_and_ties_keep_row_order():
    rng = np.random.default_rng(1)
    m = rng.normal(size=(50, 20)).astype(np.float32)
    q = rng.normal(size=20).astype(np.float32)
    for kernel in ("ivf_flat", "flat"):
        d = lance_distances(m, q, kernel)
        assert d.dtype == np.float32
        assert np.allclose(d, ((m.astype(np.float64) - q) ** 2).sum(1), rtol=1e-5)
    table = VectorTable(ids=["a", "b", "c", "d"], matrix=np.array([[0, 1], [1, 0], [0, 1], [1, 0]], np.float32))
    hits = lance_knn(table, np.array([1, 0], np.float32), 3, "flat")
    assert [h.id for h in hits] == ["b", "d", "a"]  # equal distances: lower row first
    assert hits[0].score == 1.0 and hits[2].score == -1.0  # GraphRAG's 1 - |distance|


def test_large_tables_prefilter_to_the_same_hits_as_the_exact_kernel():
    rng = np.random.default_rng(3)
    m = rng.normal(size=(6000, 32)).astype(np.float32)
    m[100:300] = m[7]  # a block of exact ties
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    table = VectorTable(ids=[f"r{i}" for i in range(len(m))], matrix=m)
    for kernel in ("ivf_flat", "flat"):
        for q in (m[7], rng.normal(size=32).astype(np.float32)):
            d = lance_distances(m, q, kernel)
            expected = [f"r{i}" for i in np.lexsort((np.arange(len(m)), d))[:40]]
            assert [h.id for h in lance_knn(table, q, 40, kernel)] == expected


def test_topk_ties_follow_the_heap_and_large_tables_skip_no_step(monkeypatch):
    """pylance <= 0.32 order: tied rows as DataFusion's TopK heap leaves them (not row order), and the
    block pre-filter of large tables gives exactly the order of feeding every row to the heap."""
    table = VectorTable(ids=list("abcde"), matrix=np.array([[0, 1], [1, 0], [0, 1], [1, 0], [0, 1]], np.float32))
    hits = lance_knn(table, np.array([1, 0], np.float32), 5, "flat_topk")
    assert [h.id for h in hits] == ["d", "b", "e", "c", "a"]  # worked by hand through the Rust heap moves
    rng = np.random.default_rng(5)
    m = rng.normal(size=(9000, 32)).astype(np.float32)
    m[100:300] = m[7]
    m[5000:5100] = m[7]
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    table = VectorTable(ids=[f"r{i}" for i in range(len(m))], matrix=m)
    for q in (m[7], rng.normal(size=32).astype(np.float32)):
        for k in (3, 40, 250):
            fast = [h.id for h in lance_knn(table, q, k, "flat_topk")]
            heap = TopKHeap(k)
            for row, distance in enumerate(lance_distances(m, q, "flat").tolist()):
                heap.offer(row, distance)
            assert fast == [f"r{row}" for row, _ in heap.order()]
    filtered = [(h.id, h.distance) for h in lance_knn(table, m[7], 250, "flat_topk")]
    monkeypatch.setattr(vector_search, "EXACT_ROWS", 10**6)  # every row gets the exact kernel
    assert [(h.id, h.distance) for h in lance_knn(table, m[7], 250, "flat_topk")] == filtered


def test_community_ids_follow_python_set_order():
    e = Entity(id="x", name="X", type="", description="", communities=[(0, "9"), (1, "1"), (2, "17")])
    assert community_ids_at(e, 2) == [str(n) for n in {9, 1, 17}]
    assert community_ids_at(e, 0) == ["9"]


def test_vector_search_returns_2k_without_threshold(index):
    result = run(index, top_k_mapped_entities=3)
    assert len([c for c in result.entities if "by vector" in c.why]) == 6
    assert [c.order for c in result.entities] == list(range(len(result.entities)))
    assert all(c.score is not None for c in result.entities)


def test_empty_query_takes_top_k_by_degree(index):
    result = run(index, query="", top_k_mapped_entities=4)
    degrees = [c.rank for c in result.entities]
    assert len(degrees) == 4 and degrees == sorted(degrees, reverse=True)
    assert max(e.extra["degree"] for e in index.entities) == degrees[0]


def test_entities_without_community_at_level_are_skipped(index):
    lv = level_view(index, 0)
    assert all(any(lvl <= 0 for lvl, _ in v.entity.communities) for v in lv.entities.values())
    result = run(index, community_level=0)
    for cand in result.entities:
        if cand.id not in lv.entities:
            assert not cand.in_context and "not loaded at community_level 0" in cand.dropped


def test_in_network_first_out_network_capped_and_links_fresh(index):
    lv = level_view(index, 2)
    views = sorted(lv.entities.values(), key=lambda v: -(v.rank or 0))[:2]
    names = {v.entity.name for v in views}
    links: dict[str, int] = {}
    selected, dropped = filter_relationships(index, views, 1, links)
    kinds = ["in" if r.source in names and r.target in names else "out" for r in selected]
    assert kinds == sorted(kinds)  # in-network first
    assert kinds.count("out") <= 1 * len(views)
    outs = [r for r in selected if kinds[selected.index(r)] == "out"]
    keys = [(links[r.id], r.extra["combined_degree"]) for r in outs]
    assert keys == sorted(keys, reverse=True)
    assert all(reason.startswith("beyond top_k") for reason in dropped.values())
    again: dict[str, int] = {}
    assert filter_relationships(index, views, 1, again)[0] == selected and again == links


def test_every_candidate_is_explained(index):
    result = run(index, max_context_tokens=2500)
    for kind in ("entities", "relations", "communities", "chunks"):
        for cand in result.candidates(kind):
            assert cand.why or cand.dropped
            if cand.in_context:
                assert cand.tokens > 0 and not cand.dropped
            else:
                assert cand.dropped
    assert any(not c.in_context for c in result.relations)
    assert [t.name for t in result.trace] == [
        "entity search",
        "community context",
        "local context",
        "text units",
        "assemble",
    ]
    assert result.messages[0]["role"] == "system" and result.context in result.messages[0]["content"]
    assert result.messages[-1] == {"role": "user", "content": QUERY}


def test_min_community_rank_drops_low_rated_reports(index):
    ratings = sorted({c.rating for c in index.communities if c.rating is not None})
    result = run(index, min_community_rank=ratings[-1])
    low = [c for c in result.communities if c.dropped.startswith("below threshold")]
    assert low and all(index.community_by_id[c.id].rating < ratings[-1] for c in low)


def test_ilike_recall_starts_from_named_entities(index):
    result = run(index, query="Alice Chen", recall="ilike")
    assert result.entities and result.entities[0].label == "ALICE CHEN"
    assert "-----Entities-----" in result.context


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    total=st.integers(min_value=0, max_value=6000),
    cp=st.sampled_from([0.0, 0.1, 0.15, 0.3]),
    tp=st.sampled_from([0.0, 0.2, 0.5, 0.7]),
    k=st.integers(min_value=1, max_value=12),
)
def test_budgets_never_exceeded_and_order_kept(index, total, cp, tp, k):
    result = run(index, max_context_tokens=total, community_prop=cp, text_unit_prop=tp, top_k_mapped_entities=k)
    limits = {b.section: b.limit for b in result.budgets}
    assert [b.section for b in result.budgets] == ["reports", "local", "text units"]
    for kind, section in (
        ("communities", "reports"),
        ("entities", "local"),
        ("relations", "local"),
        ("chunks", "text units"),
    ):
        kept = sum(c.tokens for c in result.candidates(kind) if c.in_context)
        if limits[section] is None:  # the budget cannot even hold the header: said in a warning, no rows
            assert kept == 0 and any(f"the {section} budget" in w for w in result.warnings)
        else:
            assert kept <= limits[section]
    assert limits["reports"] is None or result.budgets[0].used <= limits["reports"]
    ents = [c for c in result.entities if c.data.get("short_id") is not None and not c.dropped.startswith("not loaded")]
    flags = [c.in_context for c in ents]
    assert flags == sorted(flags, reverse=True)  # the entity table is a prefix of the mapped entities
    chunks = [c.in_context for c in result.chunks]
    assert chunks == sorted(chunks, reverse=True)  # sources stop at the first unit that does not fit


def test_runs_on_an_index_from_another_source():
    """A nano-graphrag import has no GraphRAG short ids or ranks: row numbers and graph degrees stand in."""
    from graphrag_ui.index.importers import nano_graphrag

    nano = nano_graphrag.import_dir(GOLDENS / "nano" / "en", embedder="hash")
    result = run(nano, query="Who directs the Tidewater Institute?")
    assert "-----Entities-----" in result.context and "-----Sources-----" in result.context
    entities = [c for c in result.entities if c.in_context]
    assert entities and all(c.data["short_id"].isdigit() for c in entities)
    assert all(c.rank == nano.graph.degree(c.label) for c in entities)
    assert any(c.in_context for c in result.relations)


def test_relationship_table_tokens_add_up_row_by_row():
    """The local budget check re-counts whole relationship tables in GraphRAG; we add header + rows.
    cl100k never merges across a newline followed by a non-space, so both agree on every golden table."""
    import json

    from graphrag_ui.retrieval.ms.text import count_text

    checked = 0
    for version in ("graphrag-2", "graphrag-3"):
        for line in (GOLDENS / version / "cases.jsonl").read_text(encoding="utf-8").splitlines():
            context = json.loads(line)["context"]
            if "-----Relationships-----" not in context:
                continue
            table = (
                "-----Relationships-----" + context.split("-----Relationships-----", 1)[1].split("\n\n", 1)[0] + "\n"
            )
            head, *rows = table.splitlines(keepends=True)
            head += rows.pop(0)
            assert count_text(table) == count_text(head) + sum(count_text(r) for r in rows)
            checked += 1
    assert checked > 100


def test_entity_table_tokens_add_up_row_by_row():
    """The local budget check re-counts the whole Entities table in GraphRAG; we add header + rows (as for the
    Relationships table): both agree on every golden table."""
    import json

    from graphrag_ui.retrieval.ms.text import count_text

    checked = 0
    for version in ("graphrag-2", "graphrag-3"):
        for line in (GOLDENS / version / "cases.jsonl").read_text(encoding="utf-8").splitlines():
            context = json.loads(line)["context"]
            if "-----Entities-----" not in context:
                continue
            table = "-----Entities-----" + context.split("-----Entities-----", 1)[1].split("\n\n", 1)[0] + "\n"
            head, *rows = table.splitlines(keepends=True)
            head += rows.pop(0)
            assert count_text(table) == count_text(head) + sum(count_text(r) for r in rows)
            checked += 1
    assert checked > 100


def test_negative_scores_come_with_a_word_of_what_they_are(index):
    result = run(index)
    scores = [c.score for c in result.entities if c.score is not None]
    note = [w for w in result.warnings if "scores below 0" in w]
    assert any(s < 0 for s in scores) and len(note) == 1  # hash vectors: most cosines are below 0.5
    assert "1 − squared L2 distance" in note[0]
    table = index.vectors["entities"]
    hits = lance_knn(table, table.matrix[0], 1, "flat")  # a question equal to an entity's vector scores 1: no note
    assert hits[0].score > 0.99 and vector_search.negative_scores(hits) == []
