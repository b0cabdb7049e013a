"""An exact int8 screen in front of nano-vectordb's float32 product ``matrix @ query`` (issue 30).

At 10⁵ rows the float32 product reads the whole matrix (100 MB at d = 256) for every query: memory-bound, the
same product the reference makes. The screen reads a quarter of that: an int8 copy of the table (row ``i`` is
``s_i·q_i``, ``s_i = max|x_i|/127``, ``q_i`` rounded) times the int8 query (``t·q_v``), an exact int32 product
(onnxruntime's ``MatMulInteger`` with the copy as a constant it packs once: ``Product``). With
``e_i = x_i − s_i q_i``, ``f = v − t q_v``:

    |x_i·v − s_i t (q_i·q_v)| ≤ ‖s_i q_i‖‖f‖ + ‖e_i‖‖v‖        (Cauchy–Schwarz, ‖s_i q_i‖ ≤ ‖x_i‖ + ‖e_i‖)

and the reference's own float32 dot is within ``γ_d Σ|x_j v_j| ≤ γ_d ‖x_i‖‖v‖`` of the real one (any summation
order, FMA or not; ``γ_d = d u/(1 − d u)``, ``u = 2⁻²⁴``). So every row's float32 score lies in
``[a_i − b_i, a_i + b_i]``; no row whose upper end is below the ``k``-th best lower end can be in the top ``k``
(nor tie with it). The few hundred rows left are scored again in float32, bit for bit as the full product
scores them (``rescore``), and ranked as ``recall.top_order`` ranks: a tie at or inside the ``k``-th place, or a
NaN, gives up (None) and the caller takes the full product, whose argsort order of equal scores is the
reference's.

Bit parity of the rescoring is a property of the BLAS build: OpenBLAS's sgemv scores rows four at a time and
a remainder row with another kernel, so a gathered set is padded to a multiple of four and the table's own
last ``n % 4`` rows are scored as the full product's end (with the four rows before them). The first screened
search of each table in a process checks it all against the full product (every row's rescoring, the int8
products, the top); a mismatch keeps that table on the full product for the rest of the process (logged and in
``FELL_BACK``: only time is lost).
"""

from __future__ import annotations

import logging
import math
import threading
import weakref
from dataclasses import dataclass

import numpy as np

from graphrag_ui.index import cache as index_cache

log = logging.getLogger(__name__)

SCREEN_FROM = 20_000  # rows; at 10k the screen saves 0.1 ms a search, less than its first search costs (measured)
MAX_SHARE = 16  # a top_k over n/16, or more survivors than n/16: rescoring costs what the full product does
MAX_D = 60_000  # 255·127·d stays an int32: the uint8 query's products before the zero point is taken off
ROUND = np.float32(1.5 * 2**23)  # y + ROUND − ROUND: float32 y rounded to the nearest integer (|y| < 2²²)
CHUNK = 8192  # rows quantised at a time: bounded temporaries
CHECKED_ROWS = 2048  # rows of the first search's check (``_check``)
INT8 = "screen.int8"  # ``index.cache`` name of a table's ``_Int8``
FELL_BACK: list[str] = []  # tables (and why) this process left on the full product: the bench prints it
KEPT_REPORTS = 50  # the last this many
IN_BACKGROUND = True  # a table's int8 copy is made on a thread of its own (``_prepared``); tests turn it off
MAKING = "screen.making"  # ``index.cache`` name: the matrix whose copy a thread is making
_STARTING = threading.Lock()
_THREADS: set[threading.Thread] = set()
TOPS = (127, 63)  # the query's int8 range, widest first (``query_top``)
_TOP: list[int | None] = []  # this process's ``query_top``, once known
_TOP_LOCK = threading.Lock()


class Product:
    """``columns.T @ q`` exactly (int32) for int8 ``columns`` [d, n] and int8 queries [d]: an onnxruntime
    session holding ``columns`` as a constant, so onnxruntime packs it once for its int8 kernel (VNNI where the
    CPU has it) instead of on every call. Measured on this machine (Zen 5, one thread): 0.14 ms for 50k × 256 and
    0.49 ms for 100k × 256, where both operands as inputs took 1.3 / 2.7 ms and numpy's float32 product 0.8 / 2.1.
    The query is uint8 (``q + top + 1``, that zero point): the kernel multiplies uint8 by int8; int8 by int8 took
    3–9× longer. ``top`` is the query's largest int8 value (``query_top``). ``columns`` is lent, not copied (an
    external initialiser): this object keeps it alive."""

    def __init__(self, columns: np.ndarray, top: int = 127) -> None:
        import onnxruntime
        from onnx import TensorProto, helper, numpy_helper

        d, n = columns.shape
        lent = TensorProto(name="columns", data_type=TensorProto.INT8, dims=[d, n])
        lent.data_location = TensorProto.EXTERNAL
        where = lent.external_data.add()
        where.key, where.value = "location", "columns"  # never read: add_external_initializers gives the data
        graph = helper.make_graph(
            [helper.make_node("MatMulInteger", ["query", "columns", "zero"], ["products"])],
            "int8_screen",
            [helper.make_tensor_value_info("query", TensorProto.UINT8, [1, d])],
            [helper.make_tensor_value_info("products", TensorProto.INT32, [1, n])],
            initializer=[numpy_helper.from_array(np.array(top + 1, dtype=np.uint8), "zero"), lent],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # one thread, as the BLAS is (OPENBLAS_NUM_THREADS=1)
        options.inter_op_num_threads = 1
        self.top, self.columns = top, np.ascontiguousarray(columns, dtype=np.int8)
        self._value = onnxruntime.OrtValue.ortvalue_from_numpy(self.columns)
        options.add_external_initializers(["columns"], [self._value])
        self._session = onnxruntime.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )

    def __call__(self, qv: np.ndarray) -> np.ndarray:
        shifted = (qv.astype(np.int16) + (self.top + 1)).astype(np.uint8).reshape(1, -1)
        return self._session.run(None, {"query": shifted})[0].ravel()


@dataclass
class _Int8:
    matrix: weakref.ref  # the float32 matrix this copy was made from (a re-embedded table builds another)
    columns: np.ndarray | None  # the int8 copy [d, n], column i is q_i; None: the table cannot be screened
    scale: np.ndarray  # s_i, float64
    norm: np.ndarray  # an upper bound of ‖x_i‖, float64
    norm_max: float = 0.0
    scale_max: float = 0.0
    checked: bool | None = None  # None: the first screened search checks; False: full product from now on
    product: Product | None = None  # made by the first screened search, where a failing onnxruntime falls back


def warm() -> None:
    """Import onnxruntime and onnx now (``retrieval.prepare``, off the first query's path: ~0.3 s); a failure
    is left to the first search, which falls back to the full product."""
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except Exception:  # noqa: BLE001 - missing or failing: the first search says so (``_off``)
        return


def _build(matrix: np.ndarray) -> _Int8:
    """The int8 copy (transposed: onnxruntime's constant operand), per-row scales and norm bounds, ``CHUNK``
    rows at a time, in float32 (made on the table's first search: ``_prepared``)."""
    n, d = matrix.shape
    u = 2.0**-24
    norm_up = 1 + d * u / (1 - d * u) + 4 * u  # a float32 sum of d squares (any order) and its root, rounded up
    columns = np.empty((d, n), dtype=np.int8)
    scale, norm = np.empty(n), np.empty(n)
    work = np.empty((min(n, CHUNK), d), dtype=np.float32)
    for start in range(0, n, CHUNK):
        x = matrix[start : start + CHUNK]
        y = work[: len(x)]
        peak = np.abs(x).max(axis=1)
        if not (np.isfinite(peak).all() and ((peak == 0) | (peak > 1e-30)).all()):  # 127/peak must stay finite
            return _Int8(weakref.ref(matrix), None, scale, norm)
        inverse = np.divide(np.float32(127), peak, out=np.zeros_like(peak), where=peak > 0)
        np.multiply(x, inverse[:, None], out=y)  # |y| ≤ 127·(1 + 2u)
        y += ROUND  # float32 rounds to an integer here (half to even); the subtraction is exact
        y -= ROUND
        columns[:, start : start + len(x)] = y.T
        scale[start : start + len(x)] = peak.astype(np.float64) / 127
        norm[start : start + len(x)] = np.sqrt(np.einsum("ij,ij->i", x, x)).astype(np.float64) * norm_up
        tiny = peak < 1e-15  # squares that may underflow float32: √d·peak bounds the norm instead
        norm[start : start + len(x)][tiny] = math.sqrt(d) * peak[tiny].astype(np.float64)
    if not norm.max(initial=0.0) < 1e18:  # products this large could overflow float32 partial sums
        return _Int8(weakref.ref(matrix), None, scale, norm)
    return _Int8(weakref.ref(matrix), columns, scale, norm, float(norm.max(initial=0.0)), float(scale.max(initial=0.0)))


def _prepared(table: object, matrix: np.ndarray, v: np.ndarray, top_k: int) -> _Int8 | None:
    """The table's checked int8 copy; None while it is being made (``IN_BACKGROUND``): this search is the full
    product's, exact as ever, and the copy is made on a thread of its own (~0.2 s at 100k × 256: the int8 copy,
    onnxruntime's packing, the first search's check), off the query that asked first."""
    kept = index_cache.values(table)
    found = kept.get(INT8)
    if found is not None and found.matrix() is matrix:
        return found
    if not IN_BACKGROUND:
        found = kept[INT8] = _build(matrix)
        return found
    with _STARTING:
        making = kept.get(MAKING)
        if making is None or making() is not matrix:
            kept[MAKING] = weakref.ref(matrix)
            thread = threading.Thread(target=_make, args=(kept, matrix, v, top_k), name="int8-screen", daemon=True)
            _THREADS.add(thread)
            thread.start()
    return None


def _make(kept: dict, matrix: np.ndarray, v: np.ndarray, top_k: int) -> None:
    """The int8 copy, its ``Product`` and its check (a screened search for the query that asked first, checked
    against the full product), published to the table's cache when done."""
    try:
        found = _build(matrix)
        if found.columns is not None:
            _screened(found, matrix, v, top_k)
        kept[INT8] = found
    except Exception:  # noqa: BLE001 - the thread must not die loudly: the full product keeps serving
        log.exception("the int8 screen of a %s table could not be made", matrix.shape)
    finally:
        _THREADS.discard(threading.current_thread())


def settle(timeout: float | None = None) -> bool:
    """Wait for the int8 copies being made (``prepare.settle``: the bench's warm queries run on a settled
    process); whether all are done."""
    for thread in list(_THREADS):
        thread.join(timeout)
    return not _THREADS


def screenable(matrix: np.ndarray, top_k: int) -> bool:
    n = len(matrix)
    return (
        n >= SCREEN_FROM
        and 0 < top_k <= n // MAX_SHARE
        and matrix.dtype == np.float32
        and matrix.ndim == 2
        and matrix.flags.c_contiguous
        and 0 < matrix.shape[1] <= MAX_D
    )


def rescore(matrix: np.ndarray, rows: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``(matrix @ v)[rows]`` bit for bit, without the full product (``rows`` ascending): the rows the full
    product scored four at a time gathered and padded to a multiple of four, the last ``n % 4`` as the full product's
    end: a product of those and the four rows before them."""
    whole = len(matrix) - len(matrix) % 4
    body, tail = rows[rows < whole], rows[rows >= whole]
    out = np.empty(len(rows), dtype=np.float32)
    if body.size:
        padded = np.concatenate([body, np.repeat(body[:1], (-body.size) % 4)])
        out[: body.size] = (matrix[padded] @ v)[: body.size]
    if tail.size:  # with the four rows before them, as in the full product (numpy dots a lone row otherwise)
        start = max(0, whole - 4)
        out[body.size :] = (matrix[start:] @ v)[tail - start]
    return out


def query_int8(v: np.ndarray, top: int = 127) -> tuple[float, np.ndarray] | None:
    """(t, q_v): the query's scale and int8 form in ``[-top, top]``; None for one it cannot hold (non-finite or
    zero)."""
    v64 = v.astype(np.float64)
    peak = float(np.abs(v64).max())
    if not (math.isfinite(peak) and peak > 0):
        return None
    t = peak / top
    return t, np.clip(np.rint(v64 / t), -top, top).astype(np.int8)


def query_top() -> int | None:
    """The widest query range onnxruntime's uint8 × int8 kernel multiplies exactly on this CPU, found once per
    process; None: neither (the screen stays off). With VNNI (``vpdpbusd``) products are summed in int32: 127.
    AVX2's ``vpmaddubsw`` sums two products in int16, which 2·255·127 overflows and 2·127·127 does not: 63
    (a query rounded half as finely: a wider bound, more rows rescored, the same answer)."""
    with _TOP_LOCK:
        if not _TOP:
            rng = np.random.default_rng(0)
            _TOP.append(next((top for top in TOPS if _exact_at_the_extremes(64, rng, top)), None))
        return _TOP[0]


def _survivors(kept: _Int8, v: np.ndarray, top_k: int) -> np.ndarray | None:
    """The rows whose float32 score may reach the ``top_k`` best (ascending): every row's score is within
    ``b_i`` of ``a_i = s_i t (q_i·q_v)`` (module docstring). First with the widest ``b_i`` of the table (a pass
    over ``a`` alone), then with each survivor's own. None for a query the int8 form cannot hold."""
    quantised = query_int8(v, kept.product.top)
    if quantised is None:
        return None
    t, qv = quantised
    d = v.shape[0]
    v64 = v.astype(np.float64)
    f = v64 - t * qv
    v_norm = math.sqrt(float(v64 @ v64)) * (1 + 1e-9)
    f_norm = math.sqrt(float(f @ f)) * (1 + 1e-9)
    u = 2.0**-24
    slack = 1e-12 * (v_norm + f_norm)  # float64 rounding of a and b themselves
    # ‖e_i‖ ≤ s_i·√d·(½ + 2⁻¹⁰): rounded to nearest from x·(127/peak) in float32 (off by < 2⁻¹⁰ of a step)
    alpha = (f_norm + d * u / (1 - d * u) * v_norm + slack) * (1 + 1e-9)
    beta = (math.sqrt(d) * (0.5 + 2.0**-10) * (f_norm + v_norm) + slack * math.sqrt(d)) * (1 + 1e-9)
    eta = d * 2.0**-126  # float32 underflow of the products and sums (subnormal results)
    a = kept.product(qv) * kept.scale
    a *= t
    widest = (alpha * kept.norm_max + beta * kept.scale_max + eta) * (1 + 1e-9)
    rows = np.flatnonzero(a >= _kth_best(a, top_k) - 2 * widest)  # holds the top_k best of a − b too
    a = a[rows]
    b = alpha * kept.norm[rows] + beta * kept.scale[rows] + eta
    lower = a - b
    kth = np.partition(lower, lower.size - top_k)[lower.size - top_k]
    return rows[a + b >= kth]


def screened_top(table: object, matrix: np.ndarray, v: np.ndarray, top_k: int) -> list[tuple[int, float]] | None:
    """``[(row, score)]`` of ``np.argsort(matrix @ v)[-top_k:][::-1]``, scores bit-equal, without the full
    product; None when the screen does not apply or cannot prove the order (the caller multiplies in full)."""
    if not screenable(matrix, top_k):
        return None
    kept = _prepared(table, matrix, v, top_k)
    if kept is None or kept.columns is None or kept.checked is False:
        return None
    return _screened(kept, matrix, v, top_k)


def _screened(kept: _Int8, matrix: np.ndarray, v: np.ndarray, top_k: int) -> list[tuple[int, float]] | None:
    """``screened_top`` with the table's int8 copy; the first search to get a top checks it (``_check``)."""
    try:
        if kept.product is None:
            top = query_top()
            if top is None:
                _off(kept, matrix, "onnxruntime's int8 products are not exact")
                return None
            kept.product = Product(kept.columns, top)
        rows = _survivors(kept, v, top_k)
    except Exception as error:  # onnxruntime missing or failing here: the full product serves, as exactly
        _off(kept, matrix, f"onnxruntime failed: {type(error).__name__}")
        return None
    if rows is None or rows.size > len(matrix) // MAX_SHARE:
        return None
    scores = rescore(matrix, rows, v)
    order = np.argsort(scores)[::-1]
    best = scores[order[: top_k + 1]]
    if np.isnan(scores).any() or np.unique(best[:top_k]).size != top_k or (best.size > top_k and best[-1] == best[-2]):
        return None  # a tie at or inside the k-th place (or a NaN): the full argsort's order is the reference's
    top = [(int(rows[i]), float(scores[i])) for i in order[:top_k]]
    if kept.checked is None:
        kept.checked = _check(kept, matrix, v, top, rows, scores)
        if not kept.checked:
            return None
    return top


def _kth_best(values: np.ndarray, top_k: int) -> float:
    """The ``top_k``-th largest of ``values`` (no NaN), partitioning only the rows ``above_block_maxima`` keeps."""
    rows = above_block_maxima(values, top_k)
    pool = values if rows is None else values[rows]
    return float(np.partition(pool, pool.size - top_k)[pool.size - top_k])


BLOCKS_PER_HIT = 4  # blocks of scores whose maxima bound the top from below (``above_block_maxima``)


def above_block_maxima(scores: np.ndarray, top_k: int) -> np.ndarray | None:
    """The rows scoring at least the ``top_k``-th best of the blocks' maxima, which holds every row of the
    top: ``top_k`` distinct rows (the blocks' maxima) score that much, so the ``top_k``-th best score is no
    lower. A few dozen rows for the partition to search instead of 10⁵. None (search all) with a NaN, which
    a maximum hides, or too few blocks."""
    size = len(scores) // (BLOCKS_PER_HIT * top_k)
    if size < 2:
        return None
    whole = size * (len(scores) // size)
    maxima = scores[:whole].reshape(-1, size).max(axis=1)
    if np.isnan(maxima).any() or np.isnan(scores[whole:]).any():
        return None
    bound = np.partition(maxima, maxima.size - top_k)[maxima.size - top_k]
    return np.flatnonzero(scores >= bound)


def _check(
    kept: _Int8,
    matrix: np.ndarray,
    v: np.ndarray,
    top: list[tuple[int, float]],
    rows: np.ndarray,
    scores: np.ndarray,
) -> bool:
    """Once per table and process: the screened search against the full product, bit for bit — its top, the
    rescoring of its survivors and of a sample of rows with the last ``n % 4``, and the int8 products of those
    and of extreme rows (±127, where a saturating kernel would be wrong). False (and logged) on any mismatch."""
    n, d = matrix.shape
    full = matrix @ v
    expected = np.argsort(full)[-len(top) :][::-1]
    rng = np.random.default_rng(0)
    sample = np.union1d(rng.choice(n, size=min(n, CHECKED_ROWS), replace=False), np.arange(n - n % 4, n))
    query_range = kept.product.top
    qv = query_int8(v, query_range)[1]
    why = ""
    if [r for r, _ in top] != expected.tolist() or [s for _, s in top] != [float(full[r]) for r in expected]:
        why = "the screened top differs from the full product's"
    elif full[rows].tobytes() != scores.tobytes() or full[sample].tobytes() != rescore(matrix, sample, v).tobytes():
        why = "rows rescore differently from the full product (the BLAS kernel's order)"
    elif not (
        np.array_equal(kept.product(qv)[sample], kept.columns[:, sample].T.astype(np.int64) @ qv.astype(np.int64))
        and _exact_at_the_extremes(d, rng, query_range)
    ):
        why = "onnxruntime's int8 products are not exact"
    if why:
        _off(kept, matrix, why)
    return not why


def _exact_at_the_extremes(d: int, rng: np.random.Generator, top: int) -> bool:
    """Products of ±127 rows and ±``top`` queries through a ``Product`` of their own: where a kernel sums
    uint8 × int8 products in int16 and the range is too wide for it, these differ."""
    signs = np.array([-127, 127], dtype=np.int8)
    columns = np.concatenate(
        [np.full((d, 2), 127, dtype=np.int8), np.full((d, 2), -127, dtype=np.int8), rng.choice(signs, size=(d, 60))],
        axis=1,
    )
    product = Product(columns, top)
    ends = np.array([-top, top], dtype=np.int8)
    queries = [np.full(d, top, dtype=np.int8), np.full(d, -top, dtype=np.int8), rng.choice(ends, size=d)]
    wide = columns.T.astype(np.int64)
    return all(np.array_equal(product(query), wide @ query.astype(np.int64)) for query in queries)


def _off(kept: _Int8, matrix: np.ndarray, why: str) -> None:
    kept.checked = False
    FELL_BACK.append(f"{matrix.shape}: {why}")
    del FELL_BACK[:-KEPT_REPORTS]
    log.warning("int8 screen off for a %s table in this process: %s", matrix.shape, why)
