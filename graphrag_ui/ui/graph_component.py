"""Clickable graph: a Streamlit components-v2 inline component drawing vis-network in the app page.

Why a component and not the pyvis iframe: an iframe cannot talk back to Python, and the analyst
wants "click a node, see its details". The component gets the SAME node/edge dicts and options as
the standalone pyvis page (``graph_view.elements`` / ``graph_view.options``) and reports clicks
with ``setTriggerValue("node_click", id)``.

vis-network comes from pyvis's own wheel (no CDN): its source travels in ``data`` and is injected
once per page as an inline <script> (``script.textContent``, never a URL). Labels and titles are
handed to ``vis.DataSet`` as data: vis draws labels on the canvas and renders string titles as
text, and the legend is built with ``textContent`` — nothing from the index is parsed as HTML.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

import streamlit as st

from graphrag_ui.ui.graph_view import GraphElements

COMPONENT_NAME = "graphrag_ui_graph"

_CSS = """
:host { display: block; }
.wrap { position: relative; width: 100%; border: 1px solid rgba(128,128,128,.35); border-radius: 6px; }
.net { width: 100%; }
.legend { font: 12px "Source Sans Pro", sans-serif; padding: 6px 8px; color: var(--st-text-color, #262730);
  display: flex; flex-wrap: wrap; gap: 4px 14px; }
.legend .chip { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 4px; }
.status { position: absolute; top: 6px; right: 10px; font: 12px sans-serif; opacity: .7;
  color: var(--st-text-color, #262730); }
div.vis-tooltip { position: absolute; visibility: hidden; padding: 6px 8px; white-space: pre-wrap;
  font: 12px "Source Sans Pro", sans-serif; color: #262730; background: #fffbe6; border: 1px solid #d9c77a;
  border-radius: 4px; box-shadow: 0 2px 6px rgba(0,0,0,.2); max-width: 420px; pointer-events: none; z-index: 5; }
"""

_HTML = '<div class="wrap"><div class="status"></div><div class="net"></div><div class="legend"></div></div>'

_JS = """
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  if (!data || !data.nodes) { return; }
  if (!window.vis) {
    const script = document.createElement("script");
    script.textContent = data.vislib;
    document.head.appendChild(script);
  }
  const box = parentElement.querySelector(".net");
  if (box.dataset.sig === data.sig && box.__network) { return; }  // same graph: keep layout and zoom
  if (box.__network) { box.__network.destroy(); box.__network = null; }
  box.dataset.sig = data.sig;
  delete box.dataset.painted;
  const status = parentElement.querySelector(".status");
  const legend = parentElement.querySelector(".legend");
  box.style.height = data.height + "px";
  legend.replaceChildren();
  for (const row of data.legend) {
    const item = document.createElement("span");
    const chip = document.createElement("span");
    chip.className = "chip";
    chip.style.background = row.colour;
    item.appendChild(chip);
    item.appendChild(document.createTextNode(row.text));
    legend.appendChild(item);
  }
  status.textContent = "laying out " + data.nodes.length + " nodes…";
  const started = performance.now();
  const nodes = new window.vis.DataSet(data.nodes);
  const edges = new window.vis.DataSet(data.edges);
  const network = new window.vis.Network(box, { nodes: nodes, edges: edges }, data.options);
  box.__network = network;
  network.once("afterDrawing", () => {
    box.dataset.painted = String(performance.now() - started);
    status.textContent = "";
  });
  network.on("click", (params) => {
    if (params.nodes && params.nodes.length) {
      setTriggerValue("node_click", params.nodes[0]);
    }
  });
}
"""


@functools.cache
def _vis_source() -> str:
    import pyvis

    path = Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2" / "vis-network.min.js"
    return path.read_text(encoding="utf-8")


def _signature(built: GraphElements, options: dict, height: int) -> str:
    raw = json.dumps([built.nodes, built.edges, options, height], sort_keys=True, ensure_ascii=False)
    return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]


@functools.cache
def _component():
    return st.components.v2.component(COMPONENT_NAME, html=_HTML, css=_CSS, js=_JS)


def clickable_graph(built: GraphElements, options: dict, *, key: str, height: int = 620) -> str | None:
    """Draw the graph; returns the id of the node clicked in this run (or None)."""
    legend = [{"colour": r["colour"], "text": f"{r['title'] or r['community']} ({r['nodes']})"} for r in built.legend]
    data = {
        "nodes": built.nodes,
        "edges": built.edges,
        "options": options,
        "legend": legend[:16],
        "height": height,
        "sig": _signature(built, options, height),
        "vislib": _vis_source(),
    }
    result = _component()(key=key, data=data, on_node_click_change=lambda: None, height=height + 60)
    return getattr(result, "node_click", None)
