"""Print ms.local context-build timings on synthetic GraphRAG-shaped indexes (10k and 100k entities).

    .venv/bin/python scripts/bench_ms_local.py [N_ENTITIES ...]

The index is built in memory in our model (as the msgraphrag importer would produce it): entities
with degree/human_readable_id, ~3 relations per entity, 2 community levels with reports, 1 text unit
per 10 entities, 256-d vectors, the 2.x (IVF_FLAT) distance kernel. Queries are embedded beforehand
(the caller times embedding separately), so the numbers are the context build alone.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from graphrag_ui.embedding.embed import HashEmbedder  # noqa: E402
from graphrag_ui.index.model import Chunk, Community, Entity, Index, Manifest, Relation, VectorTable  # noqa: E402
from graphrag_ui.retrieval.core.deps import Deps  # noqa: E402
from graphrag_ui.retrieval.ms.local_search import search as ms_local  # noqa: E402

WORDS = "harbor storm sensor kelp council festival survey buoy salinity oxygen university robotics gazette".split()


def synthetic(n: int, seed: int = 0) -> Index:
    rng = random.Random(seed)
    n_units = max(1, n // 10)
    chunks = [
        Chunk(
            id=f"tu{i}",
            doc_id="d0",
            text=" ".join(rng.choices(WORDS, k=200)),
            order=i,
            tokens=200,
            extra={"short_id": str(i), "relationship_ids": []},
        )
        for i in range(n_units)
    ]
    names = [f"ENTITY {i}" for i in range(n)]
    relations = []
    for i in range(n * 3):
        a, b = rng.randrange(n), rng.randrange(n)
        if a == b:
            continue
        relations.append(
            Relation(
                id=f"r{i}",
                source=names[a],
                target=names[b],
                description=f"{names[a]} and {names[b]} share a {rng.choice(WORDS)} project.",
                weight=float(rng.randint(1, 10)),
                source_chunk_ids=[f"tu{rng.randrange(n_units)}"],
                extra={"human_readable_id": i},
            )
        )
    degree: dict[str, int] = {}
    for r in relations:
        degree[r.source] = degree.get(r.source, 0) + 1
        degree[r.target] = degree.get(r.target, 0) + 1
    for r in relations:
        r.extra["combined_degree"] = degree[r.source] + degree[r.target]
    n_top = max(1, n // 50)
    entities = []
    for i, name in enumerate(names):
        top = i % n_top
        entities.append(
            Entity(
                id=f"e{i}",
                name=name,
                type="ORGANIZATION",
                description=f"{name} works on {' '.join(rng.choices(WORDS, k=12))}.",
                source_chunk_ids=[f"tu{rng.randrange(n_units)}" for _ in range(3)],
                communities=[(0, str(top)), (1, str(n_top + i % (n_top * 4)))],
                extra={"human_readable_id": i, "degree": degree.get(name, 0)},
            )
        )
    communities = [
        Community(
            id=str(c),
            level=0 if c < n_top else 1,
            parent=None,
            title=f"Report {c}",
            report=f"# Report {c}\n\n" + " ".join(rng.choices(WORDS, k=150)),
            rating=float(rng.randint(1, 9)),
            extra={
                "has_report": True,
                "rank": float(rng.randint(1, 9)),
                "summary": "s",
                "full_content": f"# Report {c}\n\n" + " ".join(rng.choices(WORDS, k=150)),
            },
        )
        for c in range(n_top * 5)
    ]
    embedder = HashEmbedder()
    matrix = embedder.embed([f"{e.name}:{e.description}" for e in entities])
    manifest = Manifest(
        source="graphrag-2",
        embedder="hash",
        dimension=256,
        tokenizer="cl100k_base",
        settings={"lance_kernel": "ivf_flat"},
    )
    return Index(
        manifest=manifest,
        documents=[],
        chunks=chunks,
        entities=entities,
        relations=relations,
        communities=communities,
        vectors={"entities": VectorTable([e.id for e in entities], matrix)},
    )


def bench(n: int, runs: int = 15) -> None:
    t = time.perf_counter()
    index = synthetic(n)
    build = time.perf_counter() - t
    spec = ms_local.SPECS[0]
    params = spec.resolve({})
    embedder = HashEmbedder()
    queries = [" ".join(random.Random(q).choices(WORDS, k=6)) for q in range(runs + 1)]
    deps = Deps(embed=embedder.embed)
    for q in queries:
        deps.vector(q)
    ms_local.run(index, queries[0], params, deps)  # first query builds the per-level views
    times = []
    for q in queries[1:]:
        t = time.perf_counter()
        result = ms_local.run(index, q, params, deps)
        times.append((time.perf_counter() - t) * 1000)
    steps = {s.name: s.ms for s in result.trace}
    print(
        f"{n:>7} entities, {len(index.relations)} relations: context p50 {statistics.median(times):.1f} ms, "
        f"p90 {sorted(times)[int(len(times) * 0.9)]:.1f} ms (synthetic build {build:.1f} s); last trace {steps}"
    )


if __name__ == "__main__":
    for n in [int(a) for a in sys.argv[1:]] or [10_000, 100_000]:
        bench(n)
    np.set_printoptions()
