"""Re-embedding an index with the hash embedder, through the function and the CLI."""

from __future__ import annotations

import numpy as np
import pytest

from graphrag_ui import cli
from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.embedding.embed import HashEmbedder
from graphrag_ui.index import embed_texts, store
from graphrag_ui.index.reembed import reembed, reembed_index
from tests.support.store_fixtures import small_index


def _expected(index, kind, ids):
    _ids, texts = embed_texts.texts_for(index, kind, ids)
    return np.stack([HashEmbedder.vector(t) for t in texts]).astype(np.float32)


def test_reembed_rewrites_vectors_and_manifest(tmp_path):
    original = small_index(dim=8)
    del original.vectors["chunks"]  # a kind without vectors gets one per row
    out = tmp_path / "idx"
    store.save(original, out)
    stages = []
    new = reembed(out, "hash", progress=lambda stage, done, total: stages.append((stage, done, total)))
    loaded = store.load(out)
    assert loaded.manifest.embedder == "hash" and loaded.manifest.dimension == 256
    assert set(loaded.manifest.vector_sources) == {"entities", "relations", "chunks", "communities"}
    assert "hash" in loaded.manifest.vector_sources["entities"]
    # existing kinds keep their ids (and order); the missing kind covers every row
    assert loaded.vectors["communities"].ids == ["c2", "c1"]
    assert loaded.vectors["chunks"].ids == [c.id for c in original.chunks]
    for kind, table in loaded.vectors.items():
        assert table.matrix.shape == (len(table.ids), 256)
        assert np.array_equal(table.matrix, _expected(loaded, kind, table.ids)), kind
    # tables are untouched
    assert loaded.entities == original.entities and loaded.relations == original.relations
    assert new.manifest.embedder == "hash"
    assert ("embed entities", len(original.entities), len(original.entities)) in stages
    assert any(s[0] == "save vectors" for s in stages)


def test_texts_follow_the_source_style():
    index = small_index()
    alice = index.entity_by_id["e1"]
    assert embed_texts.entity_text(alice, "lightrag") == "ALICE\nAlice Chen"
    assert embed_texts.entity_text(alice, "nano") == "ALICEAlice Chen"
    assert embed_texts.entity_text(alice, "graphrag") == "ALICE:Alice Chen"
    rel = index.relation_by_id["r2"]  # 北京 -> ALICE, endpoints sorted in the LightRAG form
    assert embed_texts.relation_text(rel) == "home\tALICE\n北京\nAlice lives in Beijing"
    assert embed_texts.style_for("nano-graphrag") == "nano" and embed_texts.style_for("graphrag-3") == "graphrag"
    assert embed_texts.style_for("build") == "lightrag"
    kinds = embed_texts.texts_to_embed(index)
    assert kinds["communities"][1][1] == "Zed alone" and kinds["chunks"][0] == ["k1", "k2"]


def test_texts_for_rejects_vectors_without_rows():
    index = small_index()
    with pytest.raises(IndexFormatError, match="'ghost' has no row in the entities table"):
        embed_texts.texts_for(index, "entities", ["ghost"])


def test_reembed_fills_missing_vectors_and_drops_ids_without_rows():
    index = small_index()
    table = index.vectors["entities"]
    first = table.ids[0]
    table.ids = ["ghost", *table.ids[1:]]  # the first entity has no vector, a ghost has one
    reembed_index(index, "hash")
    ids = index.vectors["entities"].ids
    assert "ghost" not in ids and ids[-1] == first
    assert sorted(ids) == sorted(e.id for e in index.entities)


def test_cli_reembed_and_clear_errors(tmp_path, capsys):
    out = tmp_path / "idx"
    store.save(small_index(), out)
    assert cli.main(["reembed", str(out), "--embedder", "hash"]) == 0
    captured = capsys.readouterr()
    assert "re-embedded" in captured.out and "hash" in captured.out
    assert "embed entities" in captured.err  # the text progress bar
    assert store.load(out).manifest.embedder == "hash"

    assert cli.main(["reembed", str(out), "--embedder", "no-such-model"]) == 2
    assert "unknown embedder 'no-such-model'" in capsys.readouterr().err
    assert store.load(out).manifest.embedder == "hash"  # unchanged

    assert cli.main(["reembed", str(tmp_path / "missing"), "--embedder", "hash"]) == 2
    assert "no index folder here" in capsys.readouterr().err
