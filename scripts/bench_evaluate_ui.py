"""The Evaluate page's responsiveness in Chromium (a script that prints medians, not a test).

    python scripts/bench_evaluate_ui.py [--runs 10]

Every non-localhost request is blocked. Measured on the English sample (seconds, medians of ``--runs``),
interleaved so that the machine's noise falls on all alike:
- Explore view click → drawn (Entities ↔ Budget): ``bench_ui.py``'s view click, the floor to compare with;
- Evaluate results click → drawn (Settings ↔ Paired), after an evaluation of 2 modes × 4 steps;
- Evaluate control click, idle: the "to" box's + → the page redrawn with the new count of settings;
- the same click while an evaluation runs in the background (6 modes × 10 steps × 14 questions, ms.local at its defaults: 714 runs): the page
  must stay usable, so this is the number that says whether a run freezes it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import graphrag_ui  # noqa: E402,F401  (offline environment first)
from scripts.bench_ui import view_clicks  # noqa: E402
from tests.support.browser_support import CHROMIUM, CHROMIUM_ARGS, new_page, settle, streamlit_app  # noqa: E402

SMALL = "ev_modes=nano.local&ev_modes=lightrag.local&ev_param=top_k&ev_from=2&ev_to=20&ev_step=6"
LONG_MODES = ("nano.local", "nano.naive", "lightrag.local", "lightrag.hybrid", "ms.local", "lightrag.naive")
LONG = "&".join(f"ev_modes={m}" for m in LONG_MODES) + "&ev_param=top_k&ev_from=2&ev_to=11&ev_step=1"
SETTINGS = """() => ([...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
    .map((e) => e.innerText.trim()).find((t) => t.endsWith(' settings per question')) || '')"""
CHANGED = "(before) => (" + SETTINGS + ")() !== before"


def _evaluate_page(browser, url: str, link: str, run: bool):
    blocked: list[str] = []
    page = new_page(browser, blocked)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{url}/evaluate?index=sample:en&{link}")
    page.get_by_role("button", name="Evaluate").wait_for(timeout=300_000)
    settle(page)
    if run:
        page.get_by_role("button", name="Evaluate").click()
    return page, blocked


def results_clicks(browser, url: str, runs: int) -> list[float]:
    """Seconds from a click on Paired (or Settings) to that view drawn."""
    page, blocked = _evaluate_page(browser, url, SMALL, run=True)
    page.get_by_test_id("stVegaLiteChart").first.wait_for(timeout=300_000)
    settle(page)
    times = []
    for i in range(runs):
        paired = i % 2 == 0
        start = time.perf_counter()
        page.get_by_role("radio", name="Paired" if paired else "Settings").click()
        if paired:
            page.get_by_test_id("stMetric").first.wait_for(state="visible", timeout=60_000)
        else:
            page.get_by_test_id("stVegaLiteChart").first.wait_for(state="visible", timeout=60_000)
        times.append(time.perf_counter() - start)
        settle(page)
    page.close()
    assert not blocked, blocked
    return times


def control_clicks(browser, url: str, runs: int, during_run: bool) -> list[float]:
    """Seconds from a + on the range's "to" box to the page redrawn with one more step per mode (the count
    of settings changes with every click: the range steps by 1)."""
    page, blocked = _evaluate_page(browser, url, LONG, run=during_run)
    box = page.get_by_test_id("stNumberInput").filter(has_text="to").first
    if during_run:
        page.get_by_test_id("stProgress").first.wait_for(timeout=60_000)
    times = []
    for _ in range(runs):
        if during_run and page.get_by_test_id("stProgress").count() == 0:
            break  # the run ended: later clicks would not measure a page under load
        before = page.evaluate(SETTINGS)
        start = time.perf_counter()
        box.get_by_test_id("stNumberInputStepUp").click()
        page.wait_for_function(CHANGED, arg=before, timeout=120_000, polling=10)
        times.append(time.perf_counter() - start)
        page.wait_for_timeout(150)
    page.close()
    assert not blocked, blocked
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    got: dict[str, list[float]] = {}
    with sync_playwright() as p, streamlit_app(home=ROOT / ".pytest_cache" / "bench_evaluate_home") as url:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        view_clicks(browser, url, "sample:en", "nano.local", 2, "")  # warm
        for _ in range(2):  # interleaved rounds
            for label, measure in (
                (
                    "Explore view click → drawn (floor)",
                    lambda: view_clicks(browser, url, "sample:en", "nano.local", args.runs, ""),
                ),
                ("Evaluate results click → drawn", lambda: results_clicks(browser, url, args.runs)),
                ("Evaluate control click → redrawn, idle", lambda: control_clicks(browser, url, args.runs, False)),
                ("Evaluate control click → redrawn, run going", lambda: control_clicks(browser, url, args.runs, True)),
            ):
                got.setdefault(label, []).extend(measure())
        browser.close()
    for label, times in got.items():
        if not times:
            print(f"{label:<48} no sample (the run ended before the first click)")
            continue
        print(f"{label:<48} median {statistics.median(times):.3f} s  (n={len(times)}, max {max(times):.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
