"""Where a slider move's browser time goes (issue 29): Chrome's per-task metrics and a JS profile, ours vs the floor.

    .venv/bin/python scripts/ui_cost_breakdown.py [--moves 6] [--rounds 2] [--mode nano.local]

bench_ui.py says how much a move costs against Streamlit's floor; this says what kind of work it is. Per slider
move, medians over ``--moves`` × ``--rounds`` (floor and ours alternate, in one run):

* Chrome's ``Performance.getMetrics`` deltas: main-thread CPU, JavaScript, style recalculation, layout, and the
  page's DOM nodes (the floor app is ``ui_floor.py``'s: one slider, one 60-row grid, one caption);
* a sampled JS profile of ours (sample:en, a pass of its own) split by the script bundle it ran in (React DOM, emotion, Streamlit's
  app code, its Markdown renderer, the data grid …), in ms a move. The bench's own waiting is left out.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import graphrag_ui  # noqa: E402,F401  (offline environment first)
from scripts.bench_ui import _open, _press, _slider  # noqa: E402
from scripts.ui_floor import CAPTION_JS, floor_app  # noqa: E402
from tests.support.browser_support import CHROMIUM, CHROMIUM_ARGS, new_page, settle, streamlit_app  # noqa: E402

METRICS = {  # Chrome's name -> (shown as, scale to ms or count)
    "ThreadTime": ("main-thread CPU ms", 1000),
    "ScriptDuration": ("JavaScript ms", 1000),
    "RecalcStyleDuration": ("style ms", 1000),
    "LayoutDuration": ("layout ms", 1000),
}


def metrics(page) -> dict[str, float]:
    if not hasattr(page, "_metrics_session"):
        page._metrics_session = page.context.new_cdp_session(page)
        page._metrics_session.send("Performance.enable")
    return {m["name"]: m["value"] for m in page._metrics_session.send("Performance.getMetrics")["metrics"]}


def floor_moves(browser, url: str, moves: int) -> tuple[list[dict[str, float]], float]:
    page = new_page(browser, [])
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(url)
    page.wait_for_function(CAPTION_JS, arg="top_k=100 ", timeout=120_000)
    settle(page)
    slider, value, out = page.get_by_test_id("stSlider").first.get_by_role("slider"), 100, []
    for _ in range(moves):
        value -= 1
        before = metrics(page)
        slider.focus()
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(CAPTION_JS, arg=f"top_k={value} ", timeout=60_000)
        settle(page)
        out.append(_delta(before, metrics(page)))
    nodes = metrics(page)["Nodes"]
    page.close()
    return out, nodes


def our_moves(browser, url: str, key: str, mode: str, moves: int, profile: bool = False):
    page, blocked, _ = _open(browser, url, key, mode, "")
    slider, value = _slider(page, "top_k")
    session = None
    if profile:
        session = page.context.new_cdp_session(page)
        session.send("Profiler.enable")
        session.send("Profiler.setSamplingInterval", {"interval": 100})
        session.send("Profiler.start")
    out = []
    for _ in range(moves):
        value -= 1
        before = metrics(page)
        _press(page, slider, value, "top_k")
        settle(page)
        out.append(_delta(before, metrics(page)))
    bundles = _by_bundle(session.send("Profiler.stop")["profile"]) if session else {}
    nodes = metrics(page)["Nodes"]
    page.close()
    assert not blocked, blocked
    return out, nodes, bundles


def _delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {name: (after[name] - before[name]) * scale for name, (_, scale) in METRICS.items()}


def _by_bundle(profile: dict) -> dict[str, float]:
    """Self time (ms) per script file; idle, the VM's own work and scripts with no file (the bench's polling)
    apart under their own names."""
    nodes = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    spent: collections.Counter[str] = collections.Counter()
    for sample, micros in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = nodes[sample]
        name = frame["url"].rsplit("/", 1)[-1] or f"({frame['functionName'] or 'no file'})"
        spent[name] += micros / 1000
    return dict(spent)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--mode", default="nano.local")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    runs: dict[str, list[dict[str, float]]] = collections.defaultdict(list)
    nodes: dict[str, float] = {}
    bundles: collections.Counter[str] = collections.Counter()
    with tempfile.TemporaryDirectory(prefix="ui-cost-") as tmp, sync_playwright() as p:
        home = Path(tmp)
        (home / "indexes.json").write_text("{}", encoding="utf-8")
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        with streamlit_app(home=home) as url, floor_app() as bare:
            our_moves(browser, url, "sample:en", args.mode, 2)  # warm the server's caches
            for _ in range(args.rounds):
                moves, nodes["floor"] = floor_moves(browser, bare, args.moves)
                runs["floor"] += moves
                for key in ("sample:en", "sample:zh"):
                    moves, nodes[key], _ = our_moves(browser, url, key, args.mode, args.moves)
                    runs[key] += moves
            # profiled apart: the sampling profiler's own cost would land in the metrics above
            _, _, spent = our_moves(browser, url, "sample:en", args.mode, args.moves, profile=True)
            bundles.update(spent)
            profiled = args.moves
    labels = list(runs)
    print(f"per slider move, medians of {args.moves} × {args.rounds} ({args.mode}):")
    print("| | " + " | ".join(labels) + " |\n|---|" + "---|" * len(labels))
    for name, (shown, _) in METRICS.items():
        print(f"| {shown} | " + " | ".join(f"{statistics.median(m[name] for m in runs[k]):.1f}" for k in labels) + " |")
    print("| DOM nodes on the page | " + " | ".join(f"{nodes[k]:.0f}" for k in labels) + " |")
    print(f"\nour JS profile (sample:en), self time per script file, ms a move ({profiled} moves):")
    for name, ms in bundles.most_common(14):
        print(f"{ms / profiled:8.2f}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
