"""Scale of one index: a fresh server's first view and peak memory at 10k, 100k and 300k entities.

    .venv/bin/python scripts/bench_scale.py [--sizes 10000 100000 300000] [--rounds 3 1 1]
                                            [--reference-sizes 10000 100000] [--skip browser,reference]
                                            [--mode nano.local] [--cache DIR]

Per size, on scripts/make_synthetic_index.py's index (hash vectors, 3 relations and 0.5 chunks per
entity; the folders of ``--cache`` are bench_vs_reference.py's, so both scripts share them):

* open: a fresh process opens the index as the app does (``store.load(lazy=True)``, then ``prepare_index``) and
  answers the first ``--mode`` question with its defaults: seconds per stage and the process's peak RSS;
* first view: a fresh server (``python -m graphrag_ui.cli.serve``, with its start-up preload) per round;
  Chromium navigates to Explore with the index, the mode and a question → the result views drawn
  (bench_ui.py's "first view, fresh server"; goal issue 30: ≤ 5 s at 100k), the server's CPU seconds
  meanwhile (user + system of all its threads, /proc: what a busy machine's wall clock hides) and its peak RSS;
* reference, on the same files: nano-graphrag 0.0.8.2 opens the golden-style working dir of this index's
  rows (``nano_direct_writer.py``: the bytes its own storages write, streamed) and answers the first question (``only_need_context``), against
  our ``open_index`` + first question on our import of that dir (bench_vs_reference.py's two sides,
  one question): open + first question and peak RSS, ours ÷ reference (goal: peak memory ≤ 1×).

Each round runs its measurements one after another (ours, the reference, the browser), so all of them
see the same drift of a noisy machine; printed are the medians over rounds. Peak RSS is /proc's VmHWM
of the measured process (``ru_maxrss`` would report a harness's peak across fork + exec).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

import bench_retrieval as br  # noqa: E402  (synthetic indexes, library-written dirs)
import bench_retrieval_reference as ref  # noqa: E402  (peak RSS, read the same way on every side)
import bench_vs_reference as bvr  # noqa: E402  (the reference venv, our import, both sides' runs)

med = statistics.median


def open_main(folder: str, mode: str, question: str) -> int:
    """Child process: open ``folder`` as the app does and answer one question; print stages and peak RSS."""
    start, cpu = time.perf_counter(), time.process_time()
    from graphrag_ui.base.gc_pause import paused_gc
    from graphrag_ui.index import store
    from graphrag_ui.retrieval.prepare import prepare_index
    from graphrag_ui.services.query import run_query

    imported = time.perf_counter()
    with paused_gc():  # as open_index: one pause over loading and preparing
        index = store.load(folder, lazy=True)  # as open_index: vectors checked, stored columns decoded on first read
        loaded = time.perf_counter()
        prepare_index(index)
    prepared = time.perf_counter()
    run_query(index, mode, question, {})
    done = time.perf_counter()
    stages = {
        "imports_s": imported - start,
        "load_s": loaded - imported,
        "prepare_s": prepared - loaded,
        "query_s": done - prepared,
        "cpu_s": time.process_time() - cpu,  # every thread's, imports included: a busy machine's wall clock is not
        "peak_rss_mib": ref.peak_rss_mib(),
    }
    print(json.dumps(stages))
    return 0


def run_open(folder: Path, mode: str, question: str) -> dict:
    cmd = [sys.executable, str(Path(__file__)), "open", str(folder), mode, question]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise SystemExit(f"opening {folder} failed: {done.stderr.strip()[-600:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def hub_question(folder: Path) -> str:
    """A question about the best-connected entity (read from the relations table, no index loaded)."""
    import collections

    import pyarrow.parquet as pq

    table = pq.read_table(folder / "relations.parquet", columns=["source", "target"])
    degree = collections.Counter(table.column("source").to_pylist())
    degree.update(table.column("target").to_pylist())
    return f"What do we know about {degree.most_common(1)[0][0]} and its partners?"


def server_pid(port: int) -> int:
    """The server process listening on ``port`` (found by its command line)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"graphrag_ui.cli.serve" in cmdline and str(port).encode() in cmdline:
            return int(pid)
    raise SystemExit(f"no server process on port {port}")


def peak_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    return next(int(x.split()[1]) / 1024 for x in status.splitlines() if x.startswith("VmHWM:"))


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of every thread of ``pid`` so far (less sensitive to a busy machine than
    the wall clock: what the server itself spent)."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_view(browser, folder: Path, mode: str, question: str) -> tuple[float, float, float]:
    """(navigation → result views drawn on a fresh server, the server's CPU seconds meanwhile, its peak
    RSS MiB)."""
    from bench_ui import _open

    from tests.support.browser_support import streamlit_app

    with tempfile.TemporaryDirectory(prefix="bench-scale-") as home:
        (Path(home) / "indexes.json").write_text(json.dumps({"scale": str(folder)}), encoding="utf-8")
        with streamlit_app(home=Path(home)) as url:
            pid = server_pid(int(url.rsplit(":", 1)[1]))
            before = cpu_s(pid)
            page, blocked, seconds = _open(browser, url, "path:scale", mode, question)
            cpu, peak = cpu_s(pid) - before, peak_mib(pid)
            page.close()
    if blocked:
        raise SystemExit(f"the page asked for {blocked}")
    return seconds, cpu, peak


def reference_pair(n: int, cache: Path, mode: str, question: str) -> tuple[dict, dict] | str:
    """(ours on our import of the nano dir, nano-graphrag on that dir): one question each, fresh processes."""
    bvr.ensure_venv("nano")
    written = (cache / f"golden-style-nano-{n}" / "graph_chunk_entity_relation.graphml").is_file()
    folder = br.scaled_dir("nano", n, cache, None if written else br.synthetic_index(n, cache)[0])
    if isinstance(folder, str):
        return folder
    ours_dir, _, _ = bvr.import_ours("nano", folder, cache)
    cases = cache / f"cases-scale-{mode}-{n}.json"
    cases.write_text(json.dumps(bvr.cases_for(mode, [(question, [], [])]), ensure_ascii=False), encoding="utf-8")
    return bvr.run_ours(ours_dir, cases, mode), bvr.run_theirs("nano", folder, cases, mode)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "open":
        return open_main(*sys.argv[2:5])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 300_000])
    ap.add_argument("--rounds", type=int, nargs="+", default=[3, 1, 1], help="rounds per size (the last repeats)")
    ap.add_argument("--reference-sizes", type=int, nargs="*", default=[10_000, 100_000, 300_000])
    ap.add_argument("--skip", default="", help="comma-separated: browser, reference")
    ap.add_argument("--mode", default="nano.local")
    ap.add_argument("--cache", default="/tmp/bench_vs_reference", help="synthetic indexes and working dirs (kept)")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0]
    print(f"load average at start {load:.2f}; mode {args.mode}", flush=True)
    lines = []
    with _browser(skip) as browser:
        for i, n in enumerate(args.sizes):
            folder = br.synthetic_folder(n, cache)
            question = hub_question(folder)
            opens, views, pairs = [], [], []
            for _ in range(args.rounds[min(i, len(args.rounds) - 1)]):
                opens.append(run_open(folder, args.mode, question))
                print(f"{n // 1000}k open: {json.dumps({k: round(v, 2) for k, v in opens[-1].items()})}", flush=True)
                if "reference" not in skip and n in args.reference_sizes:
                    pair = reference_pair(n, cache, args.mode, question)
                    if isinstance(pair, str):
                        print(f"{n // 1000}k reference: not measured ({pair})", flush=True)
                    else:
                        pairs.append(pair)
                        print(f"{n // 1000}k ours / nano-graphrag: {_pair_text(pair)}", flush=True)
                if browser is not None:
                    views.append(first_view(browser, folder, args.mode, question))
                    print(
                        f"{n // 1000}k first view: {views[-1][0]:.2f} s (server CPU {views[-1][1]:.2f} s), peak {views[-1][2]:.0f} MiB"
                    )
            lines.append(_line(n, opens, views, pairs))
    print(f"\nload average at end {os.getloadavg()[0]:.2f}; medians over rounds")
    print(
        "| size | rounds | load + prepare + first query s (CPU s) | peak RSS MiB | first view s | its server CPU s "
        "| server peak MiB | ours / nano-graphrag open+first s | peak RSS ours / ref MiB |\n"
        "|---|---|---|---|---|---|---|---|---|"
    )
    print("\n".join(lines))
    return 0


def _open_first(side: dict) -> float:
    return side["load_s"] + side["ms"][0] / 1000


def _pair_text(pair: tuple[dict, dict]) -> str:
    ours, theirs = pair
    return (
        f"open+first {_open_first(ours):.2f} / {_open_first(theirs):.2f} s, "
        f"peak {ours['peak_rss_mib']:.0f} / {theirs['peak_rss_mib']:.0f} MiB"
    )


def _line(n: int, opens: list[dict], views: list[tuple[float, float]], pairs: list[tuple[dict, dict]]) -> str:
    stages = " + ".join(f"{med(o[k] for o in opens):.2f}" for k in ("load_s", "prepare_s", "query_s"))
    stages += f" ({med(o['cpu_s'] for o in opens):.2f})"
    view = (
        f"{med(v[0] for v in views):.2f} | {med(v[1] for v in views):.2f} | {med(v[2] for v in views):.0f}"
        if views
        else "— | — | —"
    )
    if pairs:
        o_open, t_open = med(_open_first(o) for o, _ in pairs), med(_open_first(t) for _, t in pairs)
        o_peak, t_peak = med(o["peak_rss_mib"] for o, _ in pairs), med(t["peak_rss_mib"] for _, t in pairs)
        ref_cols = (
            f"{o_open:.2f} / {t_open:.2f} = {o_open / t_open:.2f} | {o_peak:.0f} / {t_peak:.0f} = {o_peak / t_peak:.2f}"
        )
    else:
        ref_cols = "— | —"
    peak = med(o["peak_rss_mib"] for o in opens)
    return f"| {n // 1000}k | {len(opens)} | {stages} | {peak:.0f} | {view} | {ref_cols} |"


class _browser:
    """Chromium for the first-view rounds (``None`` when skipped)."""

    def __init__(self, skip: set[str]):
        self.skip = "browser" in skip

    def __enter__(self):
        if self.skip:
            return None
        from playwright.sync_api import sync_playwright

        from tests.support.browser_support import CHROMIUM, CHROMIUM_ARGS

        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        return self._browser

    def __exit__(self, *exc) -> None:
        if not self.skip:
            self._browser.close()
            self._pw.stop()


if __name__ == "__main__":
    sys.exit(main())
