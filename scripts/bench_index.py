"""Print how long opening an index takes, its peak memory and its counts.

    python scripts/bench_index.py INDEX_DIR... [--runs 5]

Each run is a fresh Python process (so nothing is cached in memory by an earlier load) that
imports the package, then times ``store.load``; the OS page cache stays warm after the first
run, which is said in the output. Printed per index: median and min of the load time over the
runs, how much of it is ``Index.refresh`` (graph and id maps), the median import time, peak RSS of the process (``ru_maxrss``) and the loaded counts.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[2])
from graphrag_ui.index import store
t1 = time.perf_counter()
index = store.load(sys.argv[1])
t2 = time.perf_counter()
rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
import gc
gc.disable()
t3 = time.perf_counter()
index.refresh()  # the graph and id maps that Index() builds inside load, timed again on its own
refresh_s = time.perf_counter() - t3
print(json.dumps({"import_s": t1 - t0, "load_s": t2 - t1, "refresh_s": refresh_s, "rss_mb": rss_mb,
                  "counts": index.counts()}))
"""


def run_once(index_dir: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(index_dir), str(ROOT)], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise SystemExit(f"loading {index_dir} failed:\n{out.stderr.strip()}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("index_dirs", nargs="+", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    for index_dir in args.index_dirs:
        runs = [run_once(index_dir) for _ in range(max(1, args.runs))]
        loads = [r["load_s"] for r in runs]
        print(f"{index_dir}")
        print(
            f"  load   median {statistics.median(loads):.3f} s  min {min(loads):.3f} s  "
            f"({len(runs)} fresh processes; page cache warm after run 1, first run {loads[0]:.3f} s)"
        )
        print(f"  of which Index.refresh (graph + id maps) ~{statistics.median(r['refresh_s'] for r in runs):.3f} s")
        print(f"  import median {statistics.median(r['import_s'] for r in runs):.3f} s (graphrag_ui.index.store)")
        print(f"  peak RSS {max(r['rss_mb'] for r in runs):.0f} MB")
        print(f"  counts {json.dumps(runs[0]['counts'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
