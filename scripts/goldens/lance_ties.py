"""Which order one pylance release returns tied distances in: TopK heap order or row order.

    python3 scripts/goldens/lance_ties.py 0.32.0   # venv /tmp/goldens-venv-lance-0.32.0, prints "heap" or "row"

The importer's TOPK_TIES_BEFORE comes from this check (0.20, 0.24, 0.30, 0.32: heap; 0.33 and later:
row). It writes a table the way GraphRAG 2.3 does (a first batch, then 500-row appends, so several
fragments) with many exactly duplicated vectors, runs flat k-NN searches and compares the returned
rows with graphrag_ui.retrieval.ms.lance_topk's heap replay and with row order, both fed LanceDB's own
``_distance`` values (the distance kernel itself is checked by the graphrag 2.3 goldens).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import graphrag_scripted as gs  # noqa: E402

if __name__ == "__main__":
    RELEASE = sys.argv[1]
    gs.ensure_venv(f"/tmp/goldens-venv-lance-{RELEASE}", [f"pylance=={RELEASE}", "pyarrow==20.0.0", "numpy<2"])


def main() -> None:
    import lance
    import numpy as np
    import pyarrow as pa

    from graphrag_ui.retrieval.ms.lance_topk import TopKHeap

    rng = np.random.default_rng(0)
    n, dim = 3000, 32
    m = rng.integers(0, 3, size=(40, dim)).astype(np.float32)[rng.integers(0, 40, size=n)]
    m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)
    path = tempfile.mkdtemp() + "/t.lance"
    for start in range(0, n, 500):
        part = m[start : start + 500]
        vectors = pa.FixedSizeListArray.from_arrays(pa.array(part.ravel(), pa.float32()), dim)
        rows = pa.array(range(start, start + len(part)), pa.int64())
        lance.write_dataset(pa.table({"row": rows, "vector": vectors}), path, mode="create" if start == 0 else "append")
    ds = lance.dataset(path)
    counts = {"heap": 0, "row": 0, "searches": 0}
    for _ in range(20):
        q = rng.integers(0, 3, size=dim).astype(np.float32)
        q /= np.linalg.norm(q)
        full = ds.to_table(nearest={"column": "vector", "q": q, "k": n})
        dist = dict(zip(full.column("row").to_pylist(), full.column("_distance").to_pylist(), strict=True))
        for k in (5, 20, 100):
            got = ds.to_table(nearest={"column": "vector", "q": q, "k": k}).column("row").to_pylist()
            heap = TopKHeap(k)
            for row in range(n):
                heap.offer(row, dist[row])
            counts["heap"] += got == [row for row, _ in heap.order()]
            counts["row"] += got == sorted(range(n), key=lambda r: (dist[r], r))[:k]
            counts["searches"] += 1
    verdict = "heap" if counts["heap"] == counts["searches"] else "row" if counts["row"] == counts["searches"] else "?"
    print(f"pylance {lance.__version__}: {verdict} order ({counts})")


if __name__ == "__main__":
    main()
