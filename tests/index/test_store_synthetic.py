"""The synthetic index generator used by the load and retrieval benchmarks."""

from __future__ import annotations

import importlib.util
import statistics
from pathlib import Path

import numpy as np
import pytest

from graphrag_ui.embedding.embed import HashEmbedder
from graphrag_ui.index import embed_texts, store

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "make_synthetic_index.py"


@pytest.fixture(scope="module")
def synth():
    spec = importlib.util.spec_from_file_location("make_synthetic_index", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shape_of_a_small_synthetic_index(synth):
    index = synth.make_index(400, 1200, 60, seed=1, dim=32, vectors="random")
    assert (len(index.entities), len(index.relations), len(index.chunks)) == (400, 1200, 60)
    pairs = {frozenset((r.source, r.target)) for r in index.relations}
    assert len(pairs) == 1200 and all(len(p) == 2 for p in pairs)  # distinct, no self-loops
    degrees = sorted((d for _n, d in index.graph.degree()), reverse=True)
    assert degrees[0] >= 5 * statistics.median(degrees)  # hubs: a power-law-like tail
    levels = {c.level for c in index.communities}
    assert levels == {0, 1}
    by_id = index.community_by_id
    assert all(c.parent is None or by_id[c.parent].level == c.level + 1 for c in index.communities)
    assert all([lv for lv, _ in e.communities] == [0, 1] for e in index.entities)
    assert 250 <= statistics.median(c.tokens for c in index.chunks) <= 360
    assert any(not e.name.isascii() for e in index.entities) and any(e.aliases for e in index.entities)
    for table in index.vectors.values():
        assert table.matrix.shape == (len(table), 32)
        np.testing.assert_allclose(np.linalg.norm(table.matrix, axis=1), 1.0, rtol=1e-5)
    assert index.manifest.embedder == "synthetic-random-32"
    assert index.manifest.vector_sources["entities"] == "random unit vectors"


def test_same_seed_same_index(synth):
    a = synth.make_index(100, 200, 10, seed=7, dim=8, vectors="random")
    b = synth.make_index(100, 200, 10, seed=7, dim=8, vectors="random")
    assert a.entities == b.entities and a.relations == b.relations
    assert a.vectors["chunks"].matrix.tobytes() == b.vectors["chunks"].matrix.tobytes()


def test_hash_vectors_and_cli_round_trip(synth, tmp_path):
    out = tmp_path / "syn"
    assert (
        synth.main(["--entities", "60", "--relations", "100", "--chunks", "8", "--out", str(out), "--vectors", "hash"])
        == 0
    )
    index = store.load(out)
    assert index.manifest.embedder == "hash" and index.manifest.dimension == 256
    ids, texts = embed_texts.texts_for(index, "entities")
    assert index.vectors["entities"].ids == ids
    assert np.array_equal(index.vectors["entities"].matrix[3], HashEmbedder.vector(texts[3]))
