"""Clickable graph: a Streamlit components-v2 inline component drawing vis-network in the app page.

Why a component and not the pyvis iframe: an iframe cannot talk back to Python, and the analyst
wants "click a node, see its details" and "double-click it, see its neighbours". The component gets
the SAME node/edge dicts and options as the standalone pyvis page (``graph_view.elements`` /
``graph_view.options``), reports clicks with ``setTriggerValue("node_click", id)`` and double clicks
with ``setTriggerValue("node_expand", id)``, and keeps the analyst's zoom and pan across reruns
(``graph_component.js``). Fit, fullscreen and the PNG export are done by its own script, offline.

vis-network comes from pyvis's own wheel (no CDN): its source travels in ``data`` on the session's
first graph and is injected once per page as an inline <script> (``script.textContent``, never a
URL); later runs leave it out (a page without it asks for it with ``need_vislib``). Labels and titles are
handed to ``vis.DataSet`` as data: vis draws labels on the canvas and renders string titles as
text, and the legend and buttons are written with ``textContent`` — nothing from the index is
parsed as HTML. Every word the component shows comes from Python, in the UI language.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from graphrag_ui.ui.graph.graph_view import GraphElements
from graphrag_ui.ui.shell.language import t

COMPONENT_NAME = "graphrag_ui_graph"
LIB_SENT = "_graph_vislib_sent"  # this session's page has vis-network already (~470 kB not sent again)
MIN_SCALE = 0.68  # the default view never zooms out further: labels stay 10 px or more
MAX_SCALE = 1.2

_CSS = """
:host { display: block; }
.wrap { position: relative; width: 100%; border: 1px solid rgba(128,128,128,.35); border-radius: 6px;
  background: var(--st-background-color, #ffffff); }
.net { width: 100%; }
.bar { display: flex; justify-content: space-between; align-items: center; gap: 8px; padding: 4px 6px;
  font: 12px "Source Sans Pro", sans-serif; color: var(--st-text-color, #262730); }
.status { opacity: .7; }
.tools { display: flex; gap: 6px; }
.tools button { font: 12px "Source Sans Pro", sans-serif; padding: 2px 10px; cursor: pointer; border-radius: 4px;
  border: 1px solid rgba(128,128,128,.45); background: transparent; color: var(--st-text-color, #262730); }
.tools button:hover { border-color: var(--st-primary-color, #ff4b4b); }
.foot { font: 12px "Source Sans Pro", sans-serif; padding: 4px 8px; color: var(--st-text-color, #262730); }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; }
.legend .chip { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 4px; }
.keys { opacity: .8; margin-top: 2px; }
div.vis-tooltip { position: absolute; visibility: hidden; padding: 6px 8px; white-space: pre-wrap;
  font: 12px "Source Sans Pro", sans-serif; color: #262730; background: #fffbe6; border: 1px solid #d9c77a;
  border-radius: 4px; box-shadow: 0 2px 6px rgba(0,0,0,.2); max-width: 420px; pointer-events: none; z-index: 5; }
"""

_HTML = (
    '<div class="wrap"><div class="bar"><span class="status"></span><span class="tools">'
    '<button type="button" data-act="fit"></button><button type="button" data-act="fs"></button>'
    '<button type="button" data-act="png"></button></span></div><div class="net"></div>'
    '<div class="foot"><div class="legend"></div><div class="keys"></div></div></div>'
)
_JS = (Path(__file__).with_name("graph_component.js")).read_text(encoding="utf-8")


@dataclass
class GraphEvents:
    """What the analyst did in this run: the node clicked (details) or double-clicked (expand)."""

    clicked: str | None = None
    expand: str | None = None


@functools.cache
def _vis_source() -> str:
    import pyvis

    path = Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2" / "vis-network.min.js"
    return path.read_text(encoding="utf-8")


def _signature(built: GraphElements, options: dict, height: int, view_key: str, text: dict) -> str:
    raw = json.dumps(
        [built.nodes, built.edges, built.legend, built.keys, options, height, view_key, text],
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]


@functools.cache
def _component():
    return st.components.v2.component(COMPONENT_NAME, html=_HTML, css=_CSS, js=_JS)


def component_text(nodes: int) -> dict[str, str]:
    """Every word the component shows, in the UI language (its script has none of its own)."""
    return {
        "drawing": t("Drawing {n} nodes…", n=f"{nodes:,}"),
        "empty": t("Nothing to draw with these filters."),
        "fit": t("Fit"),
        "fs": t("Fullscreen"),
        "fullscreen": t("Fullscreen"),
        "exitFullscreen": t("Exit fullscreen"),
        "png": t("Download PNG"),
        "hint": t("click: details · double-click: add its neighbours"),
    }


def component_data(
    built: GraphElements,
    options: dict,
    *,
    height: int,
    view_key: str,
    focus: list[str],
    dark: bool,
    png_name: str = "graph.png",
    anchor: str | None = None,
    vislib: bool = True,
    fit_all: bool = False,
) -> dict:
    legend = [{"colour": r["colour"], "text": f"{r['title'] or r['name']} ({r['nodes']})"} for r in built.legend]
    text = component_text(len(built.nodes))
    return {
        "nodes": built.nodes,
        "edges": built.edges,
        "options": options,
        "legend": legend[:16],
        "keys": built.keys,
        "height": height,
        "text": text,
        "focus": [] if fit_all else focus[:200],  # fit_all: the first view holds every node, however small
        "anchor": anchor,
        "minScale": 0.0 if fit_all else MIN_SCALE,
        "maxScale": MAX_SCALE,
        "viewKey": view_key,
        "background": "#0e1117" if dark else "#ffffff",
        "pngName": png_name,
        "sig": _signature(built, options, height, view_key, text),
        "vislib": _vis_source() if vislib else "",
    }


def clickable_graph(
    built: GraphElements,
    options: dict,
    *,
    key: str,
    height: int = 620,
    view_key: str = "",
    focus: list[str] | None = None,
    anchor: str | None = None,
    dark: bool = False,
    png_name: str = "graph.png",
    fit_all: bool = False,
) -> GraphEvents:
    """Draw the graph; returns what was clicked or double-clicked in this run. ``fit_all``: the first view
    (and Fit) shows every node, not only ``focus`` at a readable zoom."""
    data = component_data(
        built,
        options,
        height=height,
        view_key=view_key or key,
        focus=focus or [],
        dark=dark,
        png_name=png_name,
        anchor=anchor,
        vislib=not st.session_state.get(LIB_SENT, False),
        fit_all=fit_all,
    )
    result = _component()(
        key=key,
        data=data,
        on_node_click_change=lambda: None,
        on_node_expand_change=lambda: None,
        on_need_vislib_change=lambda: None,
        height=height + 90,
    )
    if getattr(result, "need_vislib", None):  # a page that lost it (reloaded on the same session): once more
        st.session_state[LIB_SENT] = False
        st.rerun()
    st.session_state[LIB_SENT] = True
    return GraphEvents(getattr(result, "node_click", None), getattr(result, "node_expand", None))
