"""UI latency in real Chromium against ``streamlit run`` (a script that prints medians, not a test).

    python scripts/bench_ui.py [--runs 7] [--synthetic DIR] [--mode nano.local]

Measures, with every non-localhost request blocked:
1. slider → tables: from a top_k key press to the run-summary line of the new run (it is drawn after
   the tables, so its arrival means the tables are updated), on the English and Chinese samples and on
   a 10k-entity synthetic index (made with scripts/make_synthetic_index.py when --synthetic is absent);
   every run uses a new top_k, so no cached retrieval is reused.
2. first graph paint on the Graph page at ~100 and 400 (capped) nodes of the synthetic index:
   navigation → vis-network's first ``afterDrawing`` in the clickable component, and the same for the
   standalone pyvis iframe; the component's own layout+paint time is printed beside it.
Goals: slider ≤ 1.5 s p50 on the samples, ≤ 3 s at 10k entities; ≤ 3 s to first paint at 400 nodes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote_plus

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import graphrag_ui  # noqa: E402,F401  (offline environment first)
from tests.browser_support import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    GRAPH_BOX_JS,
    new_page,
    settle,
    streamlit_app,
    tab_counts,
    wait_until,
)


def slider_runs(
    browser, url: str, index_key: str, mode: str, top_k_param: str, runs: int, question: str = ""
) -> list[float]:
    """Seconds from each ArrowLeft on top_k to the new run's summary line."""
    blocked: list[str] = []
    page = new_page(browser, blocked)
    page.goto(f"{url}/?index={index_key}&mode={mode}" + (f"&q={quote_plus(question)}" if question else ""))
    wait_until(page, lambda: tab_counts(page), timeout_s=180, what=f"tables of {index_key}")
    settle(page)
    widget = page.get_by_test_id("stSlider").filter(has_text=top_k_param).first
    slider = widget.get_by_role("slider")
    value = int(widget.get_by_test_id("stSliderThumbValue").inner_text())
    times = []
    for _ in range(runs):
        slider.focus()
        value -= 1
        start = time.perf_counter()
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(
            "(t) => [...document.querySelectorAll('[data-testid=\"stCaptionContainer\"]')]"
            ".some((e) => e.innerText.startsWith('run:') && e.innerText.includes(t))",
            arg=f"{top_k_param}={value} ",
            timeout=120_000,
            polling=20,
        )
        times.append(time.perf_counter() - start)
        settle(page)
    page.close()
    assert not blocked, blocked
    return times


PAINTED_JS = f"""(old) => {{ const box = ({GRAPH_BOX_JS})();
    return box && box.dataset.sig !== old && box.dataset.painted ? [box.dataset.sig, box.dataset.painted] : null; }}"""


def graph_paint(browser, url: str, index_key: str, entity: str, depth: int) -> tuple[float, float, float, float]:
    """Seconds: (cold navigation → first paint, depth change in the open page → paint of the new graph,
    layout+paint inside the browser for that graph, click "Standalone" → pyvis page painted)."""
    blocked: list[str] = []
    page = new_page(browser, blocked)
    base = f"{url}/graph?index={index_key}&g_entity={quote_plus(entity)}"
    start = time.perf_counter()
    page.goto(f"{base}&g_depth={depth}")
    page.wait_for_function(PAINTED_JS, arg="", timeout=120_000, polling=20)
    cold = time.perf_counter() - start
    page.goto(f"{base}&g_depth={depth - 1}")
    old = page.wait_for_function(PAINTED_JS, arg="", timeout=120_000, polling=20).json_value()[0]
    settle(page)
    page.get_by_test_id("stSlider").filter(has_text="depth").get_by_role("slider").focus()
    start = time.perf_counter()
    page.keyboard.press("ArrowRight")
    _, own = page.wait_for_function(PAINTED_JS, arg=old, timeout=120_000, polling=20).json_value()
    change = time.perf_counter() - start
    settle(page)
    start = time.perf_counter()
    page.get_by_test_id("stButtonGroup").get_by_text("Standalone").click()
    frame = page.frame_locator('[data-testid="stIFrame"]').first
    frame.locator("body[data-painted]").wait_for(state="attached", timeout=120_000)
    standalone = time.perf_counter() - start
    page.close()
    assert not blocked, blocked
    return cold, change, float(own) / 1000, standalone


def cold_settings_page(browser, url: str) -> float:
    """Baseline: navigation → a simple page drawn (Streamlit's own start-up in the browser)."""
    blocked: list[str] = []
    page = new_page(browser, blocked)
    start = time.perf_counter()
    page.goto(f"{url}/settings")
    page.get_by_text("Embedders").first.wait_for(timeout=60_000)
    took = time.perf_counter() - start
    page.close()
    return took


def pick_centres(index) -> dict[int, tuple[str, int, int]]:
    """For ~100 and 400 nodes: (entity, depth, nodes drawn) from the synthetic index."""
    from graphrag_ui.ui.graph_view import neighbourhood

    by_degree = sorted(index.entities, key=lambda e: -index.graph.degree(e.name))
    out: dict[int, tuple[str, int, int]] = {}
    for goal in (100, 400):
        best = None
        for entity in by_degree[:2000:7]:
            for depth in (1, 2):
                spec = neighbourhood(index, [entity.name], depth)
                n = len(spec.nodes)
                gap = abs(n - goal) + (0 if spec.total >= goal else 1000)
                if best is None or gap < best[0]:
                    best = (gap, entity.name, depth, n)
            if best and best[0] == 0:
                break
        out[goal] = best[1:]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--synthetic", type=Path, help="a 10k-entity index folder (made here when absent)")
    ap.add_argument("--mode", default="nano.local")
    args = ap.parse_args()

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-ui-") as tmp:
        synthetic = args.synthetic
        if synthetic is None or not (synthetic / "manifest.json").is_file():
            synthetic = synthetic or Path(tmp) / "synthetic-10k"
            print(f"making the 10k-entity synthetic index at {synthetic} …", flush=True)
            subprocess.run(
                [sys.executable, str(ROOT / "scripts" / "make_synthetic_index.py"), "--entities", "10000"]
                + ["--relations", "30000", "--chunks", "5000", "--vectors", "hash", "--out", str(synthetic)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
        home = Path(tmp) / "home"
        home.mkdir()
        (home / "indexes.json").write_text(json.dumps({"synthetic-10k": str(synthetic)}), encoding="utf-8")
        from graphrag_ui.index import store

        index = store.load(synthetic)
        centres = pick_centres(index)
        hub = max(index.entities, key=lambda e: index.graph.degree(e.name))
        synthetic_question = f"What do we know about {hub.name} and {hub.description[:60]}?"

        from graphrag_ui.retrieval.registry import get_mode
        from graphrag_ui.ui.params import widget_key

        spec = get_mode(args.mode)
        top_k = next(p for p in spec.params if p.name.startswith("top_k"))
        assert widget_key(spec, top_k)  # the slider is labelled with the parameter name
        rows = []
        with streamlit_app(home=home) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for key in ("sample:en", "sample:zh", "path:synthetic-10k"):
                question = synthetic_question if key.startswith("path:") else ""
                times = slider_runs(browser, url, key, args.mode, top_k.name, args.runs, question)
                rows.append((f"slider → tables  {key:<20}", times))
                print(rows[-1][0], [round(x, 2) for x in times], flush=True)
            rows.append(("cold page load (Settings, baseline)", [cold_settings_page(browser, url) for _ in range(3)]))
            for entity, depth, n in centres.values():
                graph_paint(browser, url, "path:synthetic-10k", entity, depth)  # warm the caches
                runs = [graph_paint(browser, url, "path:synthetic-10k", entity, depth) for _ in range(3)]
                print(n, "nodes", [[round(x, 2) for x in r] for r in runs], flush=True)
                rows.append((f"{n:>3} nodes: cold navigation → graph painted", [r[0] for r in runs]))
                rows.append((f"{n:>3} nodes: depth change → new graph painted", [r[1] for r in runs]))
                rows.append((f"{n:>3} nodes:   of which layout+paint in browser", [r[2] for r in runs]))
                rows.append((f"{n:>3} nodes: click Standalone → pyvis painted", [r[3] for r in runs]))
            browser.close()
    print(f"\nmode {args.mode}; {args.runs} slider runs per index; medians (min–max) in seconds")
    for label, times in rows:
        print(f"{label:<48} p50 {statistics.median(times):6.2f}   ({min(times):.2f}–{max(times):.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
