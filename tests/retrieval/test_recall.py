"""Entity recall (graphrag_ui/retrieval/core/recall.py): vector top-k, ILIKE through the catalog, seed-003 hybrid."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from graphrag_ui.embedding.embed import HashEmbedder
from graphrag_ui.index import store
from graphrag_ui.index.model import Entity, Index, Manifest, VectorTable
from graphrag_ui.retrieval.core.recall import DEFAULT_WEIGHTS, explain_recall, recall_entities, top_order, vector_topk
from tests.conftest import SAMPLES

E = HashEmbedder()


def table(rows: list[list[float]]) -> VectorTable:
    return VectorTable([f"r{i}" for i in range(len(rows))], np.asarray(rows, dtype=np.float32))


# ------------------------------------------------------------------ vector_topk


def test_ties_resolve_like_argsort_suffix_reversed():
    # scores 1, 1, 0, 1: argsort (stable for a short array) = [2, 0, 1, 3]; the suffix reversed puts
    # the LAST of the tied rows first, which is what nano-vectordb returns
    t = table([[1, 0], [1, 0], [0, 1], [1, 0]])
    assert vector_topk(t, np.array([1.0, 0.0]), 2) == [(3, 1.0), (1, 1.0)]
    assert vector_topk(t, np.array([1.0, 0.0]), 4) == [(3, 1.0), (1, 1.0), (0, 1.0), (2, 0.0)]


@settings(max_examples=60, deadline=None)
@given(
    matrix=arrays(
        np.float32, st.tuples(st.integers(1, 40), st.just(3)), elements=st.sampled_from([-1.0, 0.0, 0.5, 1.0])
    ),
    query=arrays(np.float32, 3, elements=st.sampled_from([-1.0, 0.0, 1.0, 2.0])),
    top_k=st.integers(0, 50),
)
def test_order_is_exactly_numpys_argsort_semantics(matrix, query, top_k):
    """Many exact ties (few distinct values): rows and scores match argsort(scores)[-k:][::-1]."""
    t = VectorTable([str(i) for i in range(len(matrix))], matrix)
    norm = np.linalg.norm(query)
    unit = query / norm if norm > 0 else query
    scores = matrix @ unit.astype(np.float32)
    expected = [] if top_k == 0 else [(int(r), float(scores[r])) for r in np.argsort(scores)[-top_k:][::-1]]
    assert vector_topk(t, query, top_k) == expected


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(1, 400),
    distinct=st.sampled_from([3, 50, 10_000]),  # few values: ties everywhere; many: the partition path
    top_k=st.integers(1, 60),
    nan=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_top_order_is_argsort_suffix_reversed_at_any_size(n, distinct, top_k, nan, seed):
    rng = np.random.default_rng(seed)
    scores = (rng.integers(0, distinct, n) / distinct).astype(np.float32)
    if nan:
        scores[rng.integers(0, n)] = np.nan
    assert top_order(scores, top_k).tolist() == np.argsort(scores)[-top_k:][::-1].tolist()


def test_top_order_partition_path_on_a_large_table():
    rng = np.random.default_rng(5)
    scores = rng.normal(size=100_000).astype(np.float32)
    assert top_order(scores, 40).tolist() == np.argsort(scores)[-40:][::-1].tolist()
    scores[np.argsort(scores)[-41]] = scores[np.argsort(scores)[-40]]  # a tie straddling the cut
    assert top_order(scores, 40).tolist() == np.argsort(scores)[-40:][::-1].tolist()


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(200, 5000),
    top_k=st.integers(1, 30),
    crowded=st.booleans(),
    nan_at=st.sampled_from([None, "first", "last"]),
    seed=st.integers(0, 2**16),
)
def test_top_order_bounded_by_block_maxima_is_argsort(n, top_k, crowded, nan_at, seed):
    """The partition searches only rows at or above the blocks' maxima bound: the top all in one block, a NaN
    in a block or in the rows past the last whole block, still give argsort's rows."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=n).astype(np.float32)
    if crowded:  # every top row in the first block: the other blocks' maxima set the bound
        scores[: 2 * top_k] += 100
    if nan_at is not None:
        scores[0 if nan_at == "first" else n - 1] = np.nan
    assert top_order(scores, top_k).tolist() == np.argsort(scores)[-top_k:][::-1].tolist()


def test_scores_are_float32_dot_products_with_the_normalised_query():
    rng = np.random.default_rng(3)
    m = rng.normal(size=(50, 16)).astype(np.float32)
    q = rng.normal(size=16) * 7.5  # not unit length, float64
    got = vector_topk(VectorTable([str(i) for i in range(50)], m), q, 5)
    q32 = q.astype(np.float32)  # cast first, then normalise in float32 (as nano-vectordb's float32 query)
    scores = m @ (q32 / np.linalg.norm(q32))
    assert [s for _, s in got] == [float(scores[r]) for r, _ in got]
    assert [r for r, _ in got] == list(np.argsort(scores)[-5:][::-1])


def test_threshold_stops_at_the_first_score_below_it():
    t = table([[0.9, 0.1], [0.4, 0.9], [0.6, 0.8], [0.2, 0.98]])
    q = np.array([1.0, 0.0])
    assert [r for r, _ in vector_topk(t, q, 4)] == [0, 2, 1, 3]
    assert [r for r, _ in vector_topk(t, q, 4, threshold=0.5)] == [0, 2]
    assert [r for r, _ in vector_topk(t, q, 4, threshold=0.6)] == [0, 2]  # >= threshold is kept
    assert vector_topk(t, q, 4, threshold=0.95) == []


def test_edge_cases():
    t = table([[1, 0], [0, 1]])
    assert vector_topk(t, np.array([1.0, 0.0]), 0) == []
    assert vector_topk(VectorTable([], np.zeros((0, 2), np.float32)), np.array([1.0, 0.0]), 3) == []
    assert vector_topk(t, np.zeros(2), 5) == [(1, 0.0), (0, 0.0)]  # a zero query scores every row 0
    assert vector_topk(t, np.zeros(2), 5, threshold=0.2) == []


# ------------------------------------------------------------------ a small index


def entity(i: int, name: str, occurrence: int, aliases: list[str] | None = None, description: str = "") -> Entity:
    return Entity(f"e{i}", name, "thing", description or name, aliases or [], occurrence=occurrence)


ENTITIES = [
    entity(0, "Alice Chen", 5, ["Dr. Chen"], "Alice Chen directs the institute"),
    entity(1, "Tidewater Institute", 9, [], "marine research institute on the bay"),
    entity(2, "Kelp Bay", 2, ["the bay"], "a bay with kelp forests"),
    entity(3, "跑步记录", 3, ["跑步数据"], "每周的跑步记录"),
    entity(4, "Running Club", 0, ["Joggers"], "a club of joggers who run every week"),
    entity(5, "Chen Wei", 1, [], "a sailor"),
]


def small_index() -> Index:
    ids = [e.id for e in ENTITIES]
    matrix = E.embed([f"{e.name} {e.description}" for e in ENTITIES])
    manifest = Manifest(source="build", embedder="hash", dimension=E.dim)
    return Index(manifest, [], [], list(ENTITIES), [], [], vectors={"entities": VectorTable(ids, matrix)})


def occ(e: Entity, w: float = 0.2) -> float:
    return w * math.log(e.occurrence + 1)


def test_vector_strategy_is_exactly_vector_topk():
    index = small_index()
    q = E.vector("who runs the marine institute")
    hits = recall_entities(index, "who runs the marine institute", q, strategy="vector", top_k=4, threshold=0.0)
    rows = vector_topk(index.vectors["entities"], q, 4, threshold=0.0)
    assert [(h.entity.id, h.score) for h in hits] == [(index.vectors["entities"].ids[r], s) for r, s in rows]
    assert all(h.sim == h.score and h.ilike == "" and "by vector" in h.why for h in hits)


def test_vector_rows_without_an_entity_are_skipped():
    index = small_index()
    index.vectors["entities"].ids[1] = "ghost"
    q = E.vector("Tidewater Institute marine research institute on the bay")
    hits = recall_entities(index, "x", q, strategy="vector", top_k=6)
    assert "e1" not in [h.entity.id for h in hits] and hits


def test_ilike_forward_alias_and_reverse_containment():
    index = small_index()

    def ilike(text: str) -> dict[str, str]:
        return {h.entity.name: h.ilike for h in recall_entities(index, text, None, strategy="ilike", top_k=10)}

    assert ilike("chen") == {"Alice Chen": "name", "Chen Wei": "name"}  # case-insensitive %chen%
    assert ilike("jogg") == {"Running Club": "alias"}
    assert ilike("跑步") == {"跑步记录": "name"}  # the seed's 跑步 example: name ILIKE %跑步%
    # a whole question never sits inside a name; the names inside the question are found instead
    assert ilike("What did Alice Chen find in Kelp Bay last year?") == {
        "Alice Chen": "name in query",
        "Kelp Bay": "name in query",
    }
    assert ilike("我之前的跑步数据怎么样") == {"跑步记录": "alias in query"}
    assert ilike("nothing matches here") == {}


def test_ilike_score_is_the_ilike_and_occurrence_terms():
    index = small_index()
    hits = recall_entities(index, "chen", None, strategy="ilike", top_k=10, weights=(1.5, 0.7, 0.3))
    for h in hits:
        assert h.score == pytest.approx(1.5 + occ(h.entity, 0.3)) and h.sim is None
    assert [h.entity.name for h in hits] == ["Alice Chen", "Chen Wei"]  # more occurrences first
    assert recall_entities(index, "chen", None, strategy="ilike", top_k=1)[0].entity.name == "Alice Chen"


def expected_hybrid(index: Index, text: str, q: np.ndarray, top_k: int, weights=DEFAULT_WEIGHTS, threshold=None):
    """Seed 003 written out: ILIKE hits, vector hits only when ILIKE < limit, one score per entity id."""
    w_ilike, w_sim, w_occ = weights
    found = [h.entity for h in recall_entities(index, text, None, strategy="ilike", top_k=top_k)]
    sims: dict[str, float] = {}
    if len(found) < top_k:
        t = index.vectors["entities"]
        sims = {t.ids[r]: s for r, s in vector_topk(t, q, top_k, threshold)}
    ids = [e.id for e in found] + [i for i in sims if i not in {e.id for e in found}]
    scores = {
        i: w_ilike * (i in {e.id for e in found}) + w_sim * sims.get(i, 0.0) + occ(index.entity_by_id[i], w_occ)
        for i in ids
    }
    return sorted(((scores[i], i) for i in ids), key=lambda p: -p[0])[:top_k]


@pytest.mark.parametrize(
    "weights", [DEFAULT_WEIGHTS, (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (2.0, 0.1, 0.5), (0.3, 5.0, 0.0)]
)
@pytest.mark.parametrize(
    "text",
    ["Alice Chen and the marine research institute", "chen", "a club of joggers who run", "跑步数据", "nothing"],
)
def test_hybrid_equals_the_seed_formula_term_by_term(text, weights):
    index = small_index()
    q = E.vector(text)
    hits = recall_entities(index, text, q, strategy="hybrid", top_k=4, weights=weights)
    want = expected_hybrid(index, text, q, 4, weights)
    assert [(h.entity.id, h.score) for h in hits] == [(i, pytest.approx(s)) for s, i in want]
    for h in hits:  # every term, as the breakdown shows it
        w_ilike, w_sim, w_occ = weights
        terms = w_ilike * bool(h.ilike) + w_sim * (h.sim or 0.0) + occ(h.entity, w_occ)
        assert h.score == pytest.approx(terms)
        assert "by hybrid" in h.why


def test_found_by_both_gets_all_three_terms():
    """The seed's sample code would skip the similarity of an entity ILIKE already found; the formula adds it."""
    index = small_index()
    text = "Alice Chen directs the institute"
    q = E.vector(text)
    hits = {h.entity.name: h for h in recall_entities(index, text, q, strategy="hybrid", top_k=5)}
    alice = hits["Alice Chen"]
    assert alice.ilike == "name in query" and alice.sim is not None and alice.sim > 0.5
    assert alice.score == pytest.approx(1.0 + 0.7 * alice.sim + occ(alice.entity))
    assert "also vector sim" in alice.why


def test_vector_runs_only_when_ilike_finds_fewer_than_the_limit():
    index = small_index()
    text = "chen"
    q = E.vector("Alice Chen directs the institute")
    full = recall_entities(index, text, q, strategy="hybrid", top_k=2)  # ILIKE found 2 = limit: no vector step
    assert [h.entity.name for h in full] == ["Alice Chen", "Chen Wei"] and all(h.sim is None for h in full)
    more = recall_entities(index, text, q, strategy="hybrid", top_k=3)
    assert any(h.sim is not None for h in more) and len(more) == 3


def test_hybrid_threshold_applies_to_the_vector_path_only():
    index = small_index()
    text = "chen"
    q = E.vector("zzz unrelated words")
    hits = recall_entities(index, text, q, strategy="hybrid", top_k=5, threshold=0.99)
    assert [h.entity.name for h in hits] == ["Alice Chen", "Chen Wei"]


def test_weights_change_the_ranking():
    index = small_index()
    text = "Alice Chen and the Tidewater Institute: joggers club"
    q = E.vector("a club of joggers who run every week")
    by_occ = recall_entities(index, text, q, strategy="hybrid", top_k=6, weights=(0.0, 0.0, 1.0))
    assert [h.entity.name for h in by_occ][:2] == ["Tidewater Institute", "Alice Chen"]
    by_sim = recall_entities(index, text, q, strategy="hybrid", top_k=6, weights=(0.0, 1.0, 0.0))
    assert by_sim[0].entity.name == "Running Club"


def test_explain_recall_matches_hybrid():
    index = small_index()
    text = "Alice Chen and the marine research institute"
    q = E.vector(text)
    breakdown = explain_recall(index, text, q, top_k=4)
    hits = recall_entities(index, text, q, strategy="hybrid", top_k=4)
    assert [row["entity"] for row in breakdown.merged] == [h.entity.name for h in hits]
    for row in breakdown.merged:
        assert row["score"] == pytest.approx(row["ilike term"] + row["sim term"] + row["occurrence term"], abs=1e-3)
    assert breakdown.vector_ran and [r["entity"] for r in breakdown.ilike] == ["Alice Chen"]


def test_unknown_strategy():
    with pytest.raises(ValueError, match="unknown recall strategy"):
        recall_entities(small_index(), "x", None, strategy="fuzzy", top_k=3)


def test_sample_catalog_ilike_on_a_saved_index():
    """The saved catalog.sqlite answers the same way (seed 003's example: 跑步 / 跑步数据)."""
    index = store.load(SAMPLES / "zh" / "index")
    hits = recall_entities(index, "跑步", None, strategy="ilike", top_k=10)
    assert hits and all("跑步" in h.entity.name or any("跑步" in a for a in h.entity.aliases) for h in hits)
    occurrences = [h.entity.occurrence for h in hits if h.ilike == "name"]
    assert occurrences == sorted(occurrences, reverse=True)


def test_exact_ties_are_named_in_why():
    """Entities whose similarity equals another's exactly say so: their order is argsort's, not a ranking."""
    import numpy as np

    from graphrag_ui.index.model import Entity, Index, Manifest, VectorTable
    from graphrag_ui.retrieval.core.recall import recall_entities

    names = ["A", "B", "C"]
    matrix = np.array([[1, 0], [0.6, 0.8], [0.6, 0.8]], dtype=np.float32)
    index = Index(
        Manifest(source="t", embedder="hash", dimension=2),
        [],
        [],
        [Entity(f"e{n}", n, "T", "") for n in names],
        [],
        [],
        {"entities": VectorTable([f"e{n}" for n in names], matrix)},
    )
    hits = recall_entities(index, "q", np.array([0.6, 0.8], dtype=np.float32), strategy="vector", top_k=3)
    whys = {h.entity.name: h.why for h in hits}
    assert "tied with C" in whys["B"] and "tied with B" in whys["C"] and "tied" not in whys["A"]


def test_dense_vectors_with_a_tie_planted_at_the_cut_keep_the_references_order():
    """Dense unit vectors (as an embedding model gives, and as bench_vs_reference's worlds store) take the
    partial-sort path; a row made an exact copy of another so that their equal scores straddle the top_k
    cut (or sit inside the top) gets nano-vectordb's order, ``argsort(scores)[-k:][::-1]``, through the
    full-sort fallback, and the next tie-free search is exact again. (Seed 15: this numpy's argsort leaves
    both tied pairs in the order a stable sort of the top would not, so a shortcut that skipped the
    fallback would fail here.)"""
    rng = np.random.default_rng(15)
    m = rng.standard_normal((5000, 64)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    t = VectorTable([f"r{i}" for i in range(len(m))], m)
    q = rng.standard_normal(64).astype(np.float32)

    def reference(k: int) -> list[tuple[int, float]]:
        scores = m @ (q / np.linalg.norm(q))
        return [(int(r), float(scores[r])) for r in np.argsort(scores)[-k:][::-1]]

    k = 40
    assert vector_topk(t, q, k) == reference(k)  # no tie: the partition path
    order = [r for r, _ in reference(k + 1)]
    m[order[k]] = m[order[k - 1]]  # rank k+1 now scores exactly as rank k: a tie across the cut
    m[order[5]] = m[order[4]]  # and one inside the top
    t = VectorTable(t.ids, m)
    got = vector_topk(t, q, k)
    assert got == reference(k)
    assert got[k - 1][1] == float((m @ (q / np.linalg.norm(q)))[order[k]])  # the tie is really at the cut
    other = rng.standard_normal(64).astype(np.float32)  # a later search without ties: exact as well
    scores = m @ (other / np.linalg.norm(other))
    assert [r for r, _ in vector_topk(t, other, k)] == np.argsort(scores)[-k:][::-1].tolist()
