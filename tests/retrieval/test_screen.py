"""The int8 screen (``retrieval.core.screen``) gives exactly nano-vectordb's top: ``np.argsort(M @ v)[-k:][::-1]``
with bit-equal float32 scores, or steps aside (None) for the full product — never another answer."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphrag_ui.index import cache as index_cache
from graphrag_ui.index.model import VectorTable
from graphrag_ui.retrieval.core import recall, screen
from graphrag_ui.retrieval.core.recall import normalise, vector_topk

SCREEN_FROM, MAX_SHARE = screen.SCREEN_FROM, screen.MAX_SHARE


@pytest.fixture(autouse=True)
def small_tables(monkeypatch):
    """Screen every table, however small, and keep however many rows survive (the sizes hypothesis explores)."""
    monkeypatch.setattr(screen, "SCREEN_FROM", 1)
    monkeypatch.setattr(screen, "MAX_SHARE", 1)
    monkeypatch.setattr(screen, "FELL_BACK", [])
    monkeypatch.setattr(screen, "IN_BACKGROUND", False)  # the copy made by the search that asks (one test: below)


def reference(matrix: np.ndarray, v: np.ndarray, k: int) -> list[tuple[int, float]]:
    scores = matrix @ v
    return [(int(r), float(scores[r])) for r in np.argsort(scores)[-k:][::-1]]


def bits(top: list[tuple[int, float]]) -> list[tuple[int, bytes]]:
    return [(r, np.float32(s).tobytes()) for r, s in top]


def tied_top(matrix: np.ndarray, v: np.ndarray, k: int) -> bool:
    """A tie at or inside the k-th place, or a NaN: where the screen must step aside."""
    scores = np.sort(matrix @ v)[::-1]
    best = scores[: k + 1]
    return bool(
        np.isnan(scores).any()
        or np.unique(best[:k]).size != min(k, len(best))
        or (len(best) > k and best[k - 1] == best[k])
    )


@st.composite
def tables(draw):
    n = draw(st.integers(1, 160))
    d = draw(st.sampled_from([1, 2, 3, 5, 8, 16, 64, 257]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    matrix = rng.normal(size=(n, d)).astype(np.float32)
    if draw(st.booleans()):  # rows of very different norms (squares that underflow float32 too)
        matrix *= (10.0 ** rng.uniform(-4, 4, size=(n, 1))).astype(np.float32)
        matrix[: n // 4] *= np.float32(1e-22)
    elif draw(st.booleans()):  # unit rows, as nano-vectordb stores them
        matrix = normalise(matrix)
    if n > 2 and draw(st.booleans()):  # duplicate rows: exact ties
        matrix[rng.integers(n, size=n // 3)] = matrix[rng.integers(n)]
    if draw(st.booleans()):
        matrix[rng.integers(n, size=max(1, n // 10))] = 0
    k = draw(st.one_of(st.integers(1, n), st.sampled_from([n, max(1, n - 1), n + 3])))
    queries = [normalise(rng.normal(size=d)) for _ in range(3)]
    if draw(st.booleans()):  # a query along a row: a clear winner
        queries.append(normalise(matrix[rng.integers(n)] + np.float32(0.01)))
    return np.ascontiguousarray(matrix), k, queries


def exact_rescore(matrix: np.ndarray, rows: np.ndarray, v: np.ndarray) -> np.ndarray:
    return (matrix @ v)[rows]


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(case=tables())
def test_screened_top_is_the_argsort_bit_for_bit(case, monkeypatch):
    """The screen's bound, selection and tie rules at every size and shape. Its rescoring is the full product's
    slice here: OpenBLAS scores a small or narrow matrix's rows in other groupings (the self-check turns the screen
    off there: ``test_a_rescoring_that_differs…``); ``rescore``'s own parity is the next test."""
    monkeypatch.setattr(screen, "rescore", exact_rescore)
    matrix, k, queries = case
    table = VectorTable([str(i) for i in range(len(matrix))], matrix)
    for v in queries:
        got = screen.screened_top(table, matrix, v, k)
        if k > len(matrix):
            assert got is None
            continue
        if not tied_top(matrix, v, k) and index_cache.values(table)[screen.INT8].columns is not None:  # it answers
            assert got is not None
        if got is not None:
            assert bits(got) == bits(reference(matrix, v, k))
        # and the path every caller takes (the screen or the full product) is the reference's
        recall_top = recall._recent_top(VectorTable(table.ids, matrix), v, k)
        assert bits(recall_top) == bits(reference(matrix, normalise(v), min(k, len(matrix))))
    assert screen.FELL_BACK == []


def blas_groups_rows_by_four() -> bool:
    """Whether this BLAS scores any four gathered rows, and a table's end, as the full product does (numpy's
    OpenBLAS on x86 at d ≥ 16 does; where it does not, the first search's check keeps the screen off)."""
    rng = np.random.default_rng(3)
    matrix = normalise(rng.normal(size=(20_003, 64)))
    v = normalise(rng.normal(size=64))
    full = matrix @ v
    rows = [np.sort(rng.choice(20_000, size=4, replace=False)) for _ in range(20)]
    return all((matrix[r] @ v).tobytes() == full[r].tobytes() for r in rows) and (
        (matrix[19_996:] @ v).tobytes() == full[19_996:].tobytes()
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(400, 3000), st.integers(16, 300), st.integers(0, 2**32 - 1))
def test_rescore_equals_the_full_products_rows(n, d, seed):
    """Any set of rows, any n % 4: the gathered rows padded to four, the table's last n % 4 on their own — bit for
    bit, wherever the BLAS groups rows as OpenBLAS's x86 kernels do (the first search's check samples it)."""
    if not blas_groups_rows_by_four():
        pytest.skip("this BLAS scores rows in other groupings: the first search's check keeps the screen off")
    rng = np.random.default_rng(seed)
    matrix = normalise(rng.normal(size=(n, d)))
    v = normalise(rng.normal(size=d))
    for size in (1, 2, 3, 5, int(rng.integers(1, n + 1))):
        rows = np.sort(rng.choice(n, size=size, replace=False))
        if rng.integers(2):
            rows = np.union1d(rows, np.arange(n - n % 4, n))  # the remainder rows with others
        assert screen.rescore(matrix, rows, v).tobytes() == (matrix @ v)[rows].tobytes()


def unit_table(n=4099, d=64, seed=1):
    rng = np.random.default_rng(seed)
    matrix = normalise(rng.normal(size=(n, d)))
    return VectorTable([str(i) for i in range(n)], matrix), [normalise(rng.normal(size=d)) for _ in range(4)]


def test_the_screen_reads_few_rows_and_answers_exactly():
    table, queries = unit_table()
    for v in queries:
        assert bits(screen.screened_top(table, table.matrix, v, 10)) == bits(reference(table.matrix, v, 10))
        rows = screen._survivors(index_cache.values(table)[screen.INT8], v, 10)
        assert 10 <= rows.size < len(table) // 8
    assert index_cache.values(table)[screen.INT8].checked is True


def test_a_rescoring_that_differs_turns_the_screen_off_and_results_stay_right(monkeypatch):
    table, queries = unit_table()
    real = screen.rescore
    monkeypatch.setattr(screen, "rescore", lambda m, rows, v: np.nextafter(real(m, rows, v), np.float32(np.inf)))
    for v in queries:
        assert screen.screened_top(table, table.matrix, v, 10) is None
        assert bits(vector_topk(table, v, 10)) == bits(reference(table.matrix, normalise(v), 10))
    assert len(screen.FELL_BACK) == 1 and screen.FELL_BACK[0].startswith("(4099, 64): ")


def test_int8_products_that_saturate_turn_the_screen_off(monkeypatch):
    table, queries = unit_table()
    real = screen.Product.__call__
    monkeypatch.setattr(screen.Product, "__call__", lambda self, qv: np.clip(real(self, qv), -32768, 32767))
    for v in queries:
        assert bits(vector_topk(table, v, 10)) == bits(reference(table.matrix, normalise(v), 10))
    assert len(screen.FELL_BACK) == 1  # its top or its products differ: the first search's check sees either
    assert index_cache.values(table)[screen.INT8].checked is False


def test_a_bound_too_tight_is_caught_by_the_first_search(monkeypatch):
    """A screen that drops a row of the top (here: half the bound) gives another top: the check sees it."""
    table, queries = unit_table()
    real = screen._survivors

    def narrow(kept, v, top_k):
        rows = real(kept, v, top_k)
        best = np.argsort(table.matrix @ v)[-1]
        return rows[rows != best]

    monkeypatch.setattr(screen, "_survivors", narrow)
    assert screen.screened_top(table, table.matrix, queries[0], 10) is None
    assert "top differs" in screen.FELL_BACK[0]
    assert bits(vector_topk(table, queries[1], 10)) == bits(reference(table.matrix, normalise(queries[1]), 10))


def test_nan_query_and_nan_rows_take_the_full_product():
    table, queries = unit_table()
    nan_query = np.full(table.matrix.shape[1], np.nan, dtype=np.float32)
    assert screen.screened_top(table, table.matrix, nan_query, 10) is None
    assert [r for r, _ in vector_topk(table, nan_query, 10)] == [r for r, _ in reference(table.matrix, nan_query, 10)]
    broken = table.matrix.copy()
    broken[7, 3] = np.nan
    bad = VectorTable(table.ids, broken)
    assert screen.screened_top(bad, broken, queries[0], 10) is None
    got = vector_topk(bad, queries[0], 10)
    assert [r for r, _ in got] == [r for r, _ in reference(broken, normalise(queries[0]), 10)]
    assert got[0][0] == 7 and np.isnan(got[0][1])


def test_a_tied_top_steps_aside_and_backs_off(monkeypatch):
    """Duplicate rows at the top: the full argsort's order; the table then sorts at once for a while, without
    paying for the screen too (``recall.SORT_AT_ONCE``)."""
    table, queries = unit_table()
    matrix = table.matrix.copy()
    v = queries[0]
    best = int(np.argmax(matrix @ v))
    matrix[[11, 500, 4098]] = matrix[best]
    tied = VectorTable(table.ids, matrix)
    assert screen.screened_top(tied, matrix, v, 10) is None
    assert bits(vector_topk(tied, v, 10)) == bits(reference(matrix, normalise(v), 10))
    assert index_cache.values(tied)[recall.SORT_AT_ONCE] == recall.RETRY_AFTER
    calls = []
    monkeypatch.setattr(screen, "screened_top", lambda *a: calls.append(a))
    assert bits(vector_topk(tied, queries[1], 10)) == bits(reference(matrix, normalise(queries[1]), 10))
    assert calls == []


@pytest.mark.parametrize("threshold", [-1.0, 0.0, 0.1, 0.2, 2.0])
def test_the_threshold_cut_is_the_references(threshold):
    table, queries = unit_table()
    for v in queries:
        expected = reference(table.matrix, normalise(v), 25)
        cut = next((i for i, (_, s) in enumerate(expected) if s < threshold), len(expected))
        assert bits(vector_topk(table, v, 25, threshold)) == bits(expected[:cut])


def test_small_tables_and_wide_searches_keep_the_full_product(monkeypatch):
    monkeypatch.setattr(screen, "SCREEN_FROM", SCREEN_FROM)  # the module's own limits
    monkeypatch.setattr(screen, "MAX_SHARE", MAX_SHARE)
    table, queries = unit_table()
    assert screen.screened_top(table, table.matrix, queries[0], 10) is None
    assert screen.INT8 not in index_cache.values(table)
    big, big_queries = unit_table(n=20_003, d=32)
    assert screen.screened_top(big, big.matrix, big_queries[0], 20_003 // MAX_SHARE + 1) is None
    assert bits(screen.screened_top(big, big.matrix, big_queries[0], 40)) == bits(
        reference(big.matrix, big_queries[0], 40)
    )


def test_a_new_matrix_builds_a_new_int8_copy():
    table, queries = unit_table()
    screen.screened_top(table, table.matrix, queries[0], 5)
    first = index_cache.values(table)[screen.INT8]
    table.matrix = normalise(np.random.default_rng(9).normal(size=table.matrix.shape))
    got = screen.screened_top(table, table.matrix, queries[0], 5)
    assert index_cache.values(table)[screen.INT8] is not first
    assert bits(got) == bits(reference(table.matrix, queries[0], 5))


def vnni() -> bool:
    """Whether this CPU sums uint8 × int8 products in int32 (``vpdpbusd``), where the full range is exact."""
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    return "avx512_vnni" in flags or "avx_vnni" in flags


@pytest.mark.parametrize("d", [1, 3, 64, 257, screen.MAX_D])
def test_the_int8_product_is_exact_at_every_width_and_at_the_extremes(d):
    """±127 rows, ±top queries: no saturation in the range ``query_top`` chose, no int32 overflow up to ``MAX_D``."""
    top = screen.query_top()
    assert top == 127 or not vnni()
    assert top in screen.TOPS
    rng = np.random.default_rng(d)
    columns = np.concatenate(
        [np.full((d, 1), 127, np.int8), np.full((d, 1), -127, np.int8), rng.integers(-127, 128, (d, 5), np.int8)], 1
    )
    product = screen.Product(columns, top)
    for query in (np.full(d, top, np.int8), np.full(d, -top, np.int8), rng.integers(-top, top + 1, d, np.int8)):
        assert product(query).tolist() == (columns.T.astype(np.int64) @ query.astype(np.int64)).tolist()


def saturating(self, qv):
    """What AVX2's ``vpmaddubsw`` kernel computes: uint8 × int8 products summed in pairs into int16 (saturating)."""
    shifted = qv.astype(np.int64) + self.top + 1
    columns = self.columns.astype(np.int64)
    if len(shifted) % 2:
        shifted, columns = np.append(shifted, 0), np.vstack([columns, np.zeros((1, columns.shape[1]), np.int64)])
    pairs = shifted[0::2, None] * columns[0::2] + shifted[1::2, None] * columns[1::2]
    return (np.clip(pairs, -32768, 32767).sum(axis=0) - (self.top + 1) * columns.sum(axis=0)).astype(np.int32)


def test_a_kernel_that_saturates_the_full_range_gets_queries_half_as_fine_and_the_same_answers(monkeypatch):
    """On a CPU without VNNI the screen multiplies ±63 queries (2·127·127 fits int16) and still answers exactly."""
    monkeypatch.setattr(screen.Product, "__call__", saturating)
    monkeypatch.setattr(screen, "_TOP", [])
    assert screen.query_top() == 63
    table, queries = unit_table()
    for v in queries:
        assert bits(screen.screened_top(table, table.matrix, v, 10)) == bits(reference(table.matrix, v, 10))
    kept = index_cache.values(table)[screen.INT8]
    assert kept.checked is True and kept.product.top == 63 and screen.FELL_BACK == []


def test_a_kernel_exact_in_no_range_keeps_the_full_product(monkeypatch):
    monkeypatch.setattr(screen.Product, "__call__", lambda self, qv: saturating(self, qv) + 1)
    monkeypatch.setattr(screen, "_TOP", [])
    assert screen.query_top() is None
    table, queries = unit_table()
    assert screen.screened_top(table, table.matrix, queries[0], 10) is None
    assert bits(vector_topk(table, queries[1], 10)) == bits(reference(table.matrix, normalise(queries[1]), 10))
    assert screen.FELL_BACK == ["(4099, 64): onnxruntime's int8 products are not exact"]


def test_a_table_wider_than_the_int32_bound_keeps_the_full_product():
    matrix = normalise(np.random.default_rng(2).normal(size=(3, screen.MAX_D + 1)))
    assert not screen.screenable(matrix, 1)


def test_a_big_table_gets_its_checked_int8_copy_on_its_first_search_not_when_the_index_opens(monkeypatch):
    """A table no query of the session searches (ms.global searches none) never pays for its copy."""
    from graphrag_ui.retrieval.prepare import prepare_index
    from tests.support.store_fixtures import small_index

    monkeypatch.setattr(screen, "SCREEN_FROM", 1_000)
    monkeypatch.setattr(screen, "IN_BACKGROUND", True)
    index = small_index()
    big, queries = unit_table(n=5_000, d=64)
    other, _ = unit_table(n=5_000, d=64)
    small, _ = unit_table(n=50, d=64)
    index.vectors = {"entities": big, "relations": other, "chunks": small}
    prepare_index(index)
    assert not any(screen.INT8 in index_cache.values(t) for t in (big, other, small))
    assert bits(vector_topk(big, queries[0], 10)) == bits(reference(big.matrix, normalise(queries[0]), 10))
    assert screen.settle(timeout=60)
    assert index_cache.values(big)[screen.INT8].checked is True
    assert screen.INT8 not in index_cache.values(other)  # never searched
    assert bits(vector_topk(small, queries[0], 10)) == bits(reference(small.matrix, normalise(queries[0]), 10))
    assert screen.INT8 not in index_cache.values(small)  # under SCREEN_FROM


def test_onnxruntime_failing_leaves_the_full_product(monkeypatch):
    table, queries = unit_table()

    def broken(*args):
        raise RuntimeError("no onnxruntime here")

    monkeypatch.setattr(screen, "Product", broken)
    assert screen.screened_top(table, table.matrix, queries[0], 10) is None
    assert bits(vector_topk(table, queries[1], 10)) == bits(reference(table.matrix, normalise(queries[1]), 10))
    assert screen.FELL_BACK == ["(4099, 64): onnxruntime failed: RuntimeError"]


def test_the_first_search_takes_the_full_product_while_a_thread_makes_the_checked_copy(monkeypatch):
    """Off the first query's path (~0.2 s at 100k rows): that search is the full product's; the copy, its
    onnxruntime packing and its check are made on a thread, and the searches after it are screened."""
    monkeypatch.setattr(screen, "IN_BACKGROUND", True)
    table, queries = unit_table()
    made = []
    real = screen._build
    monkeypatch.setattr(screen, "_build", lambda matrix: made.append(threading.current_thread()) or real(matrix))
    assert screen.screened_top(table, table.matrix, queries[0], 10) is None  # the caller multiplies in full
    assert bits(vector_topk(table, queries[1], 10)) == bits(reference(table.matrix, normalise(queries[1]), 10))
    assert screen.settle(timeout=60)
    assert len(made) == 1 and made[0] is not threading.main_thread()  # one thread, however many searches asked
    kept = index_cache.values(table)[screen.INT8]
    assert kept.checked is True and kept.product is not None  # checked on the thread, with the first query
    for v in queries:
        assert bits(screen.screened_top(table, table.matrix, v, 10)) == bits(reference(table.matrix, v, 10))
    assert len(made) == 1 and screen.FELL_BACK == []


def test_a_copy_that_cannot_be_made_leaves_the_full_product_and_the_thread_says_why(monkeypatch, caplog):
    monkeypatch.setattr(screen, "IN_BACKGROUND", True)
    table, queries = unit_table()

    def broken(matrix):
        raise MemoryError("no room for the int8 copy")

    monkeypatch.setattr(screen, "_build", broken)
    assert screen.screened_top(table, table.matrix, queries[0], 10) is None
    assert screen.settle(timeout=60)
    assert screen.screened_top(table, table.matrix, queries[1], 10) is None  # not asked again, not screened
    assert bits(vector_topk(table, queries[2], 10)) == bits(reference(table.matrix, normalise(queries[2]), 10))
    assert "could not be made" in caplog.text
