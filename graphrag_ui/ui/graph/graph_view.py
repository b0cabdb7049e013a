"""Interactive graph HTML (pyvis / vis-network, fully inlined, no remote script, style or font).

What to draw lives in ``graph_select`` (the retrieved subgraph first, a neighbourhood, expansions,
filters), how it looks in ``graph_style`` (the one node/edge builder) and where it sits in
``graph_layout`` (computed here on the server, so vis-network runs no physics). This module is their
front door and turns a spec into standalone HTML. Every text from the index is data: pyvis emits
node/edge data with ``tojson`` (``</script>`` is escaped) and vis-network renders string tooltips as
plain text, so descriptions can never run script.
"""

from __future__ import annotations

import html
import json
import re

from graphrag_ui.index.model import Index
from graphrag_ui.ui.graph.graph_select import (  # noqa: F401  (the graph's public names, in one place)
    EXPAND_CAP,
    MAX_NODES,
    GraphSpec,
    community_members,
    community_of,
    expand,
    facets,
    filtered,
    neighbourhood,
    retrieval_subgraph,
)
from graphrag_ui.ui.graph.graph_style import (  # noqa: F401
    COLOUR_BY,
    PALETTE,
    GraphElements,
    elements,
    role_text,
    why_text,
)
from graphrag_ui.ui.shell.language import t

OPTIONS = {
    "edges": {"smooth": False, "selectionWidth": 2},
    "nodes": {"font": {"face": "arial", "strokeWidth": 3}},
    "physics": {"enabled": False},  # positions come from graph_layout
    "layout": {"improvedLayout": False},
    "interaction": {"hover": True, "tooltipDelay": 150, "hideEdgesOnDrag": False, "multiselect": False},
}
_REMOTE_TAG = re.compile(
    r"<link[^>]+href=\"https?://[^\"]*\"[^>]*>|<script[^>]+src=\"https?://[^\"]*\"[^>]*>\s*</script>", re.I
)


def options(dark: bool = False) -> dict:
    """The look shared by both views; no physics (the server placed every node)."""
    opts = json.loads(json.dumps(OPTIONS))
    opts["nodes"]["font"]["strokeColor"] = "#0e1117" if dark else "#ffffff"
    return opts


def render(
    index: Index,
    spec: GraphSpec,
    height: int = 620,
    dark: bool = False,
    *,
    built: GraphElements | None = None,
) -> tuple[str, list[dict]]:
    """Standalone HTML for ``spec`` (pyvis, fully inlined) plus the legend rows."""
    from pyvis.network import Network

    net = Network(
        height=f"{height}px",
        width="100%",
        directed=False,
        cdn_resources="in_line",
        bgcolor="#0e1117" if dark else "#ffffff",
    )  # no font_color: pyvis would overwrite every node's own font
    built = built or elements(index, spec, dark=dark)
    for node in built.nodes:
        net.add_node(node["id"], **{k: v for k, v in node.items() if k != "id"})
    for edge in built.edges:
        net.add_edge(edge["from"], edge["to"], **{k: v for k, v in edge.items() if k not in {"from", "to"}})
    net.options = options(dark)
    page = _REMOTE_TAG.sub("", net.generate_html())
    page = page.replace("</body>", _legend_html(built, dark) + _PAINT_HOOK + "</body>", 1)
    return page, built.legend


# records the first paint so benchmarks and tests can wait for a drawn graph
_PAINT_HOOK = (  # redraw once: without physics the first frame may be drawn before this script runs
    "<script>network.once('afterDrawing', function () {"
    " document.body.dataset.painted = String(performance.now()); }); network.redraw();</script>"
)


def _legend_html(built: GraphElements, dark: bool) -> str:
    """A small static legend inside the standalone page (escaped text only)."""
    fg = "#fafafa" if dark else "#262730"
    items = "".join(
        f'<span style="margin-right:12px;white-space:nowrap"><span style="display:inline-block;width:10px;'
        f'height:10px;border-radius:50%;background:{row["colour"]};margin-right:4px"></span>'
        f"{html.escape((row['title'] or row['name'])[:40])} ({row['nodes']})</span>"
        for row in built.legend[:12]
    )
    keys = " · ".join(html.escape(k) for k in built.keys)
    return f'<div style="font:12px sans-serif;color:{fg};padding:4px 8px">{keys}<br>{items}</div>'


def remote_references(html: str) -> list[str]:
    """Every src/href pointing off the machine (tests assert this is empty)."""
    return re.findall(r"(?:src|href)\s*=\s*[\"'](https?://[^\"']+)", html, flags=re.I)


def empty_text() -> str:
    return t("Nothing to draw: this mode recalled no entities or relations. Try another mode or a larger top_k.")
