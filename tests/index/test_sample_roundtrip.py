"""Save/load round trip of both bundled samples: tables, graph, vectors and the ILIKE catalog."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphrag_ui.index import store
from graphrag_ui.index.servers import catalog

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("sample", ["en", "zh"])
def test_sample_round_trips(sample, tmp_path):
    original = store.load(ROOT / "data" / "sample" / sample / "index")
    store.save(original, tmp_path / "copy")
    copy = store.load(tmp_path / "copy")
    for table in ("documents", "chunks", "entities", "relations", "communities"):
        assert getattr(copy, table) == getattr(original, table), table
    for name in original.graph:
        assert list(copy.graph.neighbors(name)) == list(original.graph.neighbors(name)), name
    assert set(copy.vectors) == set(original.vectors)
    for kind, table in original.vectors.items():
        assert copy.vectors[kind].ids == table.ids
        assert np.array_equal(copy.vectors[kind].matrix, table.matrix), kind
    probes = [e.name for e in original.entities[:5]] + [a for e in original.entities for a in e.aliases][:5]
    for text in probes:
        assert catalog.find_entities_by_name_or_alias(copy, text, 10) == catalog.find_entities_by_name_or_alias(
            original, text, 10
        ), text
    assert copy.manifest.embedder == original.manifest.embedder == "use-m3"
