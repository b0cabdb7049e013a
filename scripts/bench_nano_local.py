"""Context-build timing of ``nano.local`` on synthetic indexes (prints numbers; not a test).

    python scripts/bench_nano_local.py [--sizes 10000 100000] [--queries 30]

Builds each index in memory with scripts/make_synthetic_index.py (hash vectors, ~3 relations and
0.5 chunks per entity), embeds the queries first (the caller times embedding separately), then
reports the first (cold: token counts are memoised per index) and the p50 / p95 of the warm runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from make_synthetic_index import make_index  # noqa: E402

from graphrag_ui.embedding.embed import HashEmbedder  # noqa: E402
from graphrag_ui.retrieval.core.deps import Deps  # noqa: E402
from graphrag_ui.retrieval.nano.local_query import SPECS  # noqa: E402


def bench(n_entities: int, n_queries: int) -> None:
    t0 = time.perf_counter()
    index = make_index(n_entities, n_entities * 3, max(n_entities // 2, 10), 0, HashEmbedder.dim, "hash")
    built = time.perf_counter() - t0
    rng = np.random.default_rng(1)
    names = [index.entities[i].name for i in rng.choice(len(index.entities), n_queries, replace=False)]
    queries = [f"what is known about {n} and its partners" for n in names]
    deps = Deps(embed=lambda texts: np.stack([HashEmbedder.vector(t) for t in texts]))
    for q in queries:
        deps.vector(q)
    spec = SPECS[0]
    params = spec.resolve({"query_better_than_threshold": 0.0})
    times, sizes = [], []
    for q in queries:
        start = time.perf_counter()
        result = spec.func(index, q, params, deps)
        times.append((time.perf_counter() - start) * 1000)
        sizes.append((len(result.selected_ids("entities")), len(result.relations), len(result.chunks)))
    warm = times[1:]
    print(
        f"{n_entities:>7} entities (built in {built:.1f}s): cold {times[0]:.1f} ms, "
        f"p50 {statistics.median(warm):.1f} ms, p95 {np.percentile(warm, 95):.1f} ms; "
        f"mean candidates (entities, relations, chunks) = {tuple(round(float(x), 1) for x in np.mean(sizes, axis=0))}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    ap.add_argument("--queries", type=int, default=30)
    args = ap.parse_args()
    for n in args.sizes:
        bench(n, args.queries)


if __name__ == "__main__":
    main()
