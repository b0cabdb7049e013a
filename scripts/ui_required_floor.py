"""What bare Streamlit alone costs for the controls Explore must show (issue 29's 1.5× goal), against its floor.

    .venv/bin/python scripts/ui_required_floor.py [--rounds 4] [--moves 6]

bench_ui.py compares our Explore page with Streamlit's floor (one slider, one 60-row grid, one caption). This
script asks how much of the gap is ours at all: it serves bare Streamlit scripts (no code of ours, no index,
no retrieval; every value made up) that hold only what the issues ask Explore to show, and measures them
against the same floor in one run, interleaved, in Chromium (wall time from the key press or click to the
run's caption, and Chrome's main-thread CPU once the run settled):

* ``floor``: the issue's floor (``ui_floor.APP``);
* ``required``: the sidebar's language, index and answer-layout pickers and nano.local's twelve parameters
  (each with its help, bound to the URL: a link keeps the analyst's place), the question and the mode; in a
  fragment that the parameters' callback reruns: the change line, the view switch, the counts, an 11-row
  9-column grid with row selection, the run line with its limits;
* ``required, one component``: the same with the eleven parameters other than top_k drawn by one
  components-v2 element (what no Streamlit widget can do cheaper);
* ``view switch``: a bare script with only a view switch and a grid that a click swaps (Entities ↔ Budget,
  as bench_ui clicks), and the same click on ``required``;
* our Explore on sample:en (nano.local), its slider move and view click timed by bench_ui's own functions, in
  the same rounds: what our code adds to what Streamlit takes for the same controls.

A slider move is an ArrowLeft on top_k (``ui_floor.floor_runs``, bench_ui's for ours); every move makes a new value.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts import bench_ui  # noqa: E402
from scripts.ui_floor import APP as FLOOR  # noqa: E402
from scripts.ui_floor import CAPTION_JS, CPU, floor_app, floor_runs, thread_time  # noqa: E402
from tests.support.browser_support import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    VIEW_SWITCH,
    new_page,
    settle,
    streamlit_app,
)

_COMMON = """
import pandas as pd
import streamlit as st

VIEWS = ["Entities (11)", "Relations (98)", "Communities (9)", "Chunks (7)", "Graph", "Budget", "Trace", "Context", "Sweep"]
COLUMNS = ["Δ", "#", "label", "Why selected", "score", "rank", "tokens", "level", "rating"]


def kept(k):
    return pd.DataFrame({c: [f"{c} of row {i}: {k} words the mode wrote" if c in ("label", "Why selected") else i * k / 7
                             for i in range(11)] for c in COLUMNS})


def budget(k):
    return pd.DataFrame({"section": ["entities", "relations", "reports", "sources", "total"], "used": [k, 2 * k, 3 * k, 4 * k, 10 * k],
                         "share": [0.1, 0.2, 0.3, 0.4, 0.5], "headroom": [1, 2, 3, 4, 5], "budget": [9, 9, 9, 9, 9]})
"""

_PARAMS = """
HELP = "What the reference library does with this value, in a sentence or two."


def rerun():
    st.rerun("results")


def bound(**how):
    return dict(help=HELP, bind="query-params", on_change=rerun, **how)


with st.sidebar:
    st.selectbox("Language / 语言", ["English", "中文"], key="lang", help=HELP)
    st.selectbox("Index", ["sample:en", "sample:zh"], key="index")
    st.radio("Answer", ["beside", "below"], key="layout", horizontal=True, help=HELP)
    st.subheader("Parameters")
    st.slider("top_k", 1, 200, 100, **bound(key="top_k"))
{others}
"""

_WIDGETS = """    st.slider("level", 0, 10, 2, **bound(key="level"))
    for name in ("local_max_token_for_text_unit", "local_max_token_for_local_context", "local_max_token_for_community_report"):
        st.select_slider(name, options=[0, 500, 1000, 2000, 4000, 8000, 16000, 64000], value=4000, **bound(key=name))
    st.toggle("local_community_single_one", **bound(key="single"))
    st.slider("query_better_than_threshold", -1.0, 1.0, 0.2, **bound(key="threshold"))
    st.text_input("response_type", "Multiple Paragraphs", **bound(key="response_type"))
    st.selectbox("recall", ["vector", "ilike", "hybrid"], **bound(key="recall"))
    for name in ("w_ilike", "w_sim", "w_occ"):
        st.slider(name, 0.0, 5.0, 1.0, **bound(key=name))
"""

_COMPONENT = """    names = ["level", "local_max_token_for_text_unit", "local_max_token_for_local_context",
             "local_max_token_for_community_report", "local_community_single_one", "query_better_than_threshold",
             "response_type", "recall", "w_ilike", "w_sim", "w_occ"]
    rows = "".join(f'<label title="{HELP}">{n}<input type="range" min="0" max="100" value="50"></label>' for n in names)
    st.components.v2.component("params", html=f'<div style="display:grid;gap:6px">{rows}</div>',
                               js="export default function () {}")(key="params")
"""

_RESULTS = """
st.title("Explore")
st.text_area("Question", "萧炎是谁？", key="q", bind="query-params")
st.selectbox("Retrieval mode", ["nano.local", "nano.global", "lightrag.hybrid", "ms.local"], key="mode", bind="query-params")


@st.fragment(key="results")
def results():
    k = st.session_state.top_k
    st.caption(f"Since top_k={k + 1}: +1 entity (Guild founder) · −2 relations")
    view = st.segmented_control("View", VIEWS, default=VIEWS[0], key="view", required=True, label_visibility="collapsed")
    st.caption("In the context: 9 · Considered but dropped: 2")
    if view == "Budget":
        st.dataframe(budget(k), hide_index=True)
    else:
        st.dataframe(kept(k), hide_index=True, key="grid", on_select="rerun", selection_mode="single-row")
    st.caption(f"run: top_k={k} · view={view} · level=2 · 3.1 ms · in the context: 11 entities, 9 communities · "
               "limits: Relationships: budget binding, 44 candidates cut")


results()
"""

_VIEWS_ONLY = """
view = st.segmented_control("View", ["Entities (11)", "Budget"], default="Entities (11)", key="view", required=True,
                            label_visibility="collapsed")
if view == "Budget":
    st.dataframe(budget(1), hide_index=True)
else:
    st.dataframe(kept(1), hide_index=True, key="grid", on_select="rerun", selection_mode="single-row")
st.caption(f"run: view={view} · a view switch and a grid")
"""

APPS = {
    "floor": FLOOR,
    "required": _COMMON + _PARAMS.format(others=_WIDGETS) + _RESULTS,
    "required, one component": _COMMON + _PARAMS.format(others=_COMPONENT) + _RESULTS,
    "view switch": _COMMON + _VIEWS_ONLY,
}


def _page(browser, url: str, first: str):
    page = new_page(browser, [])
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(url)
    page.wait_for_function(CAPTION_JS, arg=first, timeout=120_000)
    settle(page)
    return page


def _timed(page, act, caption: str) -> tuple[float, float]:
    """(wall s from the action to the caption naming its run, main-thread CPU s once the run settled)."""
    cpu = thread_time(page)
    start = time.perf_counter()
    act()
    page.wait_for_function(CAPTION_JS, arg=caption, timeout=60_000, polling=10)
    wall = time.perf_counter() - start
    settle(page)
    return wall, thread_time(page) - cpu


def view_clicks(browser, url: str, clicks: int, first: str) -> list[tuple[float, float]]:
    page = _page(browser, url, first)
    out = []
    for i in range(clicks):
        target = "Budget" if i % 2 == 0 else "Entities (11)"
        button = page.locator(VIEW_SWITCH).filter(has_text=target.split(" (")[0]).first
        out.append(_timed(page, button.click, f"view={target} "))
    page.close()
    return out


def with_cpu(timed: list[float], label: str) -> list[tuple[float, float]]:
    """Wall times from ``ui_floor`` or ``bench_ui``, paired with the CPU they recorded for them under ``label``."""
    return list(zip(timed, CPU[label][-len(timed) :], strict=True))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--moves", type=int, default=6)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    runs: dict[str, list[tuple[float, float]]] = {}
    with sync_playwright() as p, contextlib.ExitStack() as servers:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        urls = {name: servers.enter_context(floor_app(code)) for name, code in APPS.items()}
        home = Path(servers.enter_context(tempfile.TemporaryDirectory(prefix="ui-required-")))
        (home / "indexes.json").write_text("{}", encoding="utf-8")
        explore = servers.enter_context(streamlit_app(home=home))
        for round_ in range(args.rounds + 1):  # the first round warms every server and is not counted
            measured = {
                **{
                    f"{name}: slider": with_cpu(floor_runs(browser, urls[name], args.moves, name), name)
                    for name in ("floor", "required", "required, one component")
                },
                "view switch alone: click": view_clicks(browser, urls["view switch"], args.moves, "view=Entities"),
                "required: view click": view_clicks(browser, urls["required"], args.moves, "view=Entities"),
                "Explore (ours), sample:en: slider": with_cpu(
                    bench_ui.slider_runs(browser, explore, "sample:en", "nano.local", "top_k", args.moves, ""),
                    "slider sample:en",
                ),
                "Explore (ours), sample:en: view click": with_cpu(
                    bench_ui.view_clicks(browser, explore, "sample:en", "nano.local", args.moves, ""), "view click"
                ),
            }
            if round_:
                for name, times in measured.items():
                    runs.setdefault(name, []).extend(times)
    floor_wall = statistics.median(w for w, _ in runs["floor: slider"])
    floor_cpu = statistics.median(c for _, c in runs["floor: slider"])
    print(
        f"bare Streamlit (no code of ours) and our Explore; medians of {args.moves} × {args.rounds} actions, interleaved"
    )
    print("| action | wall s | ÷ floor | main-thread CPU ms | ÷ floor |\n|---|---|---|---|---|")
    for name, times in runs.items():
        wall, cpu = statistics.median(w for w, _ in times), statistics.median(c for _, c in times)
        print(f"| {name} | {wall:.3f} | {wall / floor_wall:.2f}× | {cpu * 1000:.1f} | {cpu / floor_cpu:.2f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
