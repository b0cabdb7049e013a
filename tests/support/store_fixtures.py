"""Small indexes built in code for the storage tests (no bundled sample needed)."""

from __future__ import annotations

import numpy as np

from graphrag_ui.index.model import Chunk, Community, Document, Entity, Index, Manifest, Relation, VectorTable


def small_index(dim: int = 8, seed: int = 0) -> Index:
    """A mixed English/Chinese index whose rows exercise every stored type."""
    rng = np.random.default_rng(seed)
    docs = [Document("d1", "Alice notes", "Alice lives in 北京.", extra={"path": "a.txt", "bytes": 21})]
    chunks = [
        Chunk("k1", "d1", "Alice lives in 北京.", 0, 7, extra={"file_path": "a.txt"}),
        Chunk("k2", "d1", "张三 met Alice at the 50%_club.", 1, 9),
    ]
    entities = [
        # deliberately not sorted by name: order is data
        Entity(
            "e3",
            '"ZED"',
            "PERSON",
            "A 'quoted' name as nano stores it",
            occurrence=1,
            communities=[(1, "c2"), (0, "c1")],
            extra={"rank": 3, "score": 1.0, "pair": (1, "x"), "by_level": {0: "c1", 1: "c2"}, "nested": [{"a": None}]},
        ),
        Entity(
            "e1", "ALICE", "PERSON", "Alice Chen", aliases=["Al", "爱丽丝"], source_chunk_ids=["k1", "k2"], occurrence=7
        ),
        Entity(
            "e2", "北京", "GEO", "中国的首都", aliases=["Beijing", "Peking"], occurrence=12, communities=[(0, "c1")]
        ),
        Entity("e4", "50%_CLUB", "ORG", "a club with a percent sign", occurrence=2),
        Entity("e5", "张三", "PERSON", "一个人", occurrence=4),
        Entity("e6", "ÉCOLE", "ORG", "accented", occurrence=1),
    ]
    relations = [
        Relation("r2", "北京", "ALICE", "Alice lives in Beijing", keywords="home", weight=2.5, source_chunk_ids=["k1"]),
        Relation("r1", "ALICE", '"ZED"', "friends", weight=1.0, extra={"human_readable_id": 0}),
        Relation("r3", "张三", "ALICE", "met", keywords="meeting,club", weight=3.0),
        Relation("r4", "张三", "50%_CLUB", "member", weight=1.0),
    ]
    communities = [
        Community("c1", 0, None, "Beijing circle", "# Report\nAlice and 北京.", 8.5, ["ALICE", "北京", '"ZED"']),
        Community("c2", 1, "c1", "Zed", "Zed alone", None, ['"ZED"'], extra={"report_json": {"rating": 1}}),
    ]
    vectors = {
        "entities": VectorTable([e.id for e in entities], rng.standard_normal((len(entities), dim)).astype(np.float32)),
        "relations": VectorTable(
            [r.id for r in relations], rng.standard_normal((len(relations), dim)).astype(np.float32)
        ),
        "chunks": VectorTable([c.id for c in chunks], rng.standard_normal((len(chunks), dim)).astype(np.float32)),
        "communities": VectorTable(["c2", "c1"], rng.standard_normal((2, dim)).astype(np.float32)),
    }
    manifest = Manifest(
        source="build",
        embedder="test-random",
        dimension=dim,
        settings={"chunk_size": 1200, "overlap": 100, "levels": [0, 1]},
        vector_sources={"entities": "random"},
        title="Small 测试",
        language="mixed",
    )
    return Index(manifest, docs, chunks, entities, relations, communities, vectors=vectors)
