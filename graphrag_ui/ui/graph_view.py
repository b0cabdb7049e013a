"""Interactive graph HTML (pyvis / vis-network, fully inlined, no remote script, style or font).

``retrieval_subgraph`` picks what to draw for a Retrieval (the recalled entities and relations
inside their 1-hop neighbourhood); ``neighbourhood`` does the same around entities the user
searched for. ``render`` turns either into standalone HTML. Every text from the index is data:
pyvis emits node/edge data with ``tojson`` (``</script>`` is escaped) and vis-network renders
string tooltips as plain text, so descriptions can never run script.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field

import networkx as nx

from graphrag_ui.i18n import t, translate
from graphrag_ui.index.model import Entity, Index
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.ui.labels import GRAPH_ROLES, label

MAX_NODES = 400
PALETTE = [
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#e15759",
    "#76b7b2",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
    "#1f77b4",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#17becf",
]
NO_COMMUNITY = "#c7c7c7"
SHAPES = {"seed": "star", "centre": "star", "context": "dot", "neighbour": "dot", "nearby": "dot", "dropped": "diamond"}
STRONG = {"seed", "context", "centre", "nearby"}  # drawn opaque; the rest is faded
PHYSICS = {
    "edges": {"smooth": False, "font": {"size": 10, "align": "middle"}},
    "nodes": {"font": {"size": 13}},
    "physics": {
        "solver": "barnesHut",
        "barnesHut": {
            "gravitationalConstant": -9000,
            "centralGravity": 0.25,
            "springLength": 150,
            "springConstant": 0.03,
            "damping": 0.3,
        },
        "stabilization": {"enabled": True, "iterations": 200, "updateInterval": 25},
    },
    "layout": {"improvedLayout": False, "randomSeed": 7},
    "interaction": {"hideEdgesOnDrag": True, "tooltipDelay": 150, "hover": True},
}
_REMOTE_TAG = re.compile(
    r"<link[^>]+href=\"https?://[^\"]*\"[^>]*>|<script[^>]+src=\"https?://[^\"]*\"[^>]*>\s*</script>", re.I
)


@dataclass
class GraphSpec:
    """What to draw: nodes (entity names) with roles, and the edges that were in the context."""

    nodes: list[str]
    roles: dict[str, str] = field(default_factory=dict)  # name -> "seed" | "context" | "dropped" | "neighbour"
    why: dict[str, str] = field(default_factory=dict)  # name -> why it was selected (the retrieval's words)
    context_edges: set[tuple[str, str]] = field(default_factory=set)
    total: int = 0  # nodes before the cap
    level: int = 0  # community level used for colours
    dropped: dict[str, str] = field(default_factory=dict)  # name -> why it was then dropped

    @property
    def capped(self) -> bool:
        return self.total > len(self.nodes)


def _entity_name(index: Index, candidate_id: str, label: str) -> str | None:
    entity = index.entity_by_id.get(candidate_id) or index.entity_by_name.get(candidate_id)
    if entity is None:
        entity = index.entity_by_name.get(label)
    return entity.name if entity else None


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def retrieval_subgraph(index: Index, result: Retrieval, cap: int = MAX_NODES, level: int = 0) -> GraphSpec:
    """Recalled entities first (seeds), then relation endpoints, then their 1-hop neighbours."""
    roles: dict[str, str] = {}
    why: dict[str, str] = {}
    dropped: dict[str, str] = {}
    for c in result.entities:
        name = _entity_name(index, c.id, c.label)
        if name and name not in roles:
            roles[name] = "seed" if c.in_context else "dropped"
            why[name] = c.why
            if not c.in_context:
                dropped[name] = c.dropped
    edges: set[tuple[str, str]] = set()
    for c in result.relations:
        rel = index.relation_by_id.get(c.id)
        src, tgt = (rel.source, rel.target) if rel else (c.data.get("source"), c.data.get("target"))
        if src not in index.graph or tgt not in index.graph:
            continue
        if c.in_context:
            edges.add(_pair(src, tgt))
        for name in (src, tgt):
            roles.setdefault(name, "context" if c.in_context else "dropped")
    ordered = list(roles)
    neighbours: list[str] = []
    seen = set(ordered)
    for name in ordered:
        for nbr in index.graph.neighbors(name):
            if nbr not in seen:
                seen.add(nbr)
                neighbours.append(nbr)
    everything = ordered + neighbours
    for name in neighbours:
        roles[name] = "neighbour"
    return GraphSpec(everything[:cap], roles, why, edges, total=len(everything), level=level, dropped=dropped)


def neighbourhood(index: Index, centres: list[str], depth: int, cap: int = MAX_NODES, level: int = 0) -> GraphSpec:
    """Entities within ``depth`` hops of ``centres`` (breadth-first, so the cap keeps the nearest)."""
    roles = {c: "centre" for c in centres if c in index.graph}
    frontier = list(roles)
    order = list(roles)
    for _ in range(max(depth, 0)):
        nxt = []
        for name in frontier:
            for nbr in index.graph.neighbors(name):
                if nbr not in roles:
                    roles[nbr] = "nearby"
                    order.append(nbr)
                    nxt.append(nbr)
        frontier = nxt
    return GraphSpec(order[:cap], roles, {}, set(), total=len(order), level=level)


def community_of(entity: Entity | None, level: int) -> str | None:
    """The entity's community at ``level`` (or its deepest one above it)."""
    if entity is None or not entity.communities:
        return None
    best = None
    for lvl, cid in entity.communities:
        if lvl <= level:
            best = cid
    return best if best is not None else entity.communities[0][1]


def colour_for(community: str | None, palette_index: dict[str, int]) -> str:
    if community is None:
        return NO_COMMUNITY
    if community not in palette_index:
        palette_index[community] = len(palette_index)
    return PALETTE[palette_index[community] % len(PALETTE)]


def _plain(text: str, limit: int = 400) -> str:
    text = (text or "").replace("<SEP>", "\n")
    return text if len(text) <= limit else text[:limit] + "…"


@dataclass
class GraphElements:
    """vis-network data shared by the standalone pyvis page and the clickable component."""

    nodes: list[dict]
    edges: list[dict]
    legend: list[dict]  # community, title, colour, nodes drawn


def role_text(role: str, lang: str) -> str:
    """What a node's role means, in ``lang`` (an unknown role is shown as is)."""
    return label(GRAPH_ROLES, role, lang)


def why_text(spec: GraphSpec, name: str, lang: str) -> str:
    """Why the entity was selected and, when it was dropped, why, in ``lang`` (empty when not recalled)."""
    if name not in spec.why:
        return ""
    why = translate(spec.why[name], lang)
    if name not in spec.dropped:
        return why
    return t("{why} — dropped: {dropped}", lang, why=why, dropped=translate(spec.dropped[name], lang))


def elements(index: Index, spec: GraphSpec, lang: str = "en") -> GraphElements:
    """The ONE node/edge builder: colour = community, size = degree, star = recalled (seed) entity.

    Every text is plain data (labels are drawn on the canvas, string titles render as text).
    """
    drawn = set(spec.nodes)
    sub: nx.Graph = index.graph.subgraph(drawn)
    palette: dict[str, int] = {}
    legend: dict[str, dict] = {}
    degrees = dict(index.graph.degree(spec.nodes))
    nodes = []
    for name in spec.nodes:
        entity = index.entity_by_name.get(name)
        community = community_of(entity, spec.level)
        colour = colour_for(community, palette)
        role = spec.roles.get(name, "neighbour")
        if community not in legend:
            title = index.community_by_id[community].title if community in index.community_by_id else ""
            legend[community] = {"community": community or "none", "title": title, "colour": colour, "nodes": 0}
        legend[community]["nodes"] += 1
        title_lines = [
            name,
            t("{label}: {value}", lang, label=t("Type", lang), value=entity.type if entity else "?"),
            t("{label}: {value}", lang, label=t("Degree", lang), value=degrees.get(name, 0)),
            t("{label}: {value}", lang, label=t("Role in this view", lang), value=role_text(role, lang)),
        ]
        if name in spec.why:
            title_lines.append(
                t("{label}: {value}", lang, label=t("Why selected", lang), value=why_text(spec, name, lang))
            )
        if entity is not None:
            title_lines.append(_plain(entity.description))
        nodes.append(
            {
                "id": name,
                "label": name if len(name) <= 40 else name[:40] + "…",
                "title": "\n".join(title_lines),
                "color": {"background": colour, "border": "#111111" if role in {"seed", "centre"} else colour},
                "borderWidth": 3 if role in {"seed", "centre"} else 1,
                "shape": SHAPES.get(role, "dot"),
                "size": 10 + min(degrees.get(name, 0), 30),
                "opacity": 1.0 if role in STRONG else 0.55,
            }
        )
    edges = []
    for a, b in sorted(_pair(*e) for e in sub.edges()):
        rel = index.relation_between(a, b)
        in_context = (a, b) in spec.context_edges
        weight = rel.weight if rel else 1.0
        edges.append(
            {
                "from": a,
                "to": b,
                "title": _plain(
                    f"{a} — {b}\n"
                    + t("{label}: {value}", lang, label=t("Weight", lang), value=f"{weight:g}")
                    + f"\n{rel.description if rel else ''}"
                ),
                "label": f"{weight:g}",
                "width": 3 if in_context else 1,
                "dashes": not in_context and bool(spec.context_edges),
                "color": "#d62728" if in_context else "#9aa0a6",
            }
        )
    rows = sorted(legend.values(), key=lambda r: (-r["nodes"], r["community"]))
    return GraphElements(nodes, edges, rows)


def options(dark: bool = False) -> dict:
    """Physics and look, tuned so ~400 nodes settle in about a second (see ui_anchors §3.4)."""
    opts = json.loads(json.dumps(PHYSICS))
    font = "#fafafa" if dark else "#262730"
    opts["nodes"]["font"]["color"] = font
    opts["edges"]["font"]["color"] = font
    opts["edges"]["font"]["strokeColor"] = "#0e1117" if dark else "#ffffff"
    return opts


def render(
    index: Index, spec: GraphSpec, height: int = 620, dark: bool = False, lang: str = "en"
) -> tuple[str, list[dict]]:
    """Standalone HTML for ``spec`` (pyvis, fully inlined) plus the legend rows."""
    from pyvis.network import Network

    net = Network(
        height=f"{height}px",
        width="100%",
        directed=False,
        cdn_resources="in_line",
        bgcolor="#0e1117" if dark else "#ffffff",
        font_color="#fafafa" if dark else "#262730",
    )
    built = elements(index, spec, lang)
    for node in built.nodes:
        net.add_node(node["id"], **{k: v for k, v in node.items() if k != "id"})
    for edge in built.edges:
        net.add_edge(edge["from"], edge["to"], **{k: v for k, v in edge.items() if k not in {"from", "to"}})
    net.options = options(dark)
    page = _REMOTE_TAG.sub("", net.generate_html())
    page = page.replace("</body>", _legend_html(built.legend, dark, lang) + _PAINT_HOOK + "</body>", 1)
    return page, built.legend


# records the first paint so benchmarks and tests can wait for a drawn graph
_PAINT_HOOK = (
    "<script>network.once('afterDrawing', function () {"
    " document.body.dataset.painted = String(performance.now()); });</script>"
)


def _legend_html(legend: list[dict], dark: bool, lang: str = "en") -> str:
    """A small static legend inside the standalone page (escaped text only)."""
    fg = "#fafafa" if dark else "#262730"
    items = "".join(
        f'<span style="margin-right:12px;white-space:nowrap"><span style="display:inline-block;width:10px;'
        f'height:10px;border-radius:50%;background:{row["colour"]};margin-right:4px"></span>'
        f"{html.escape(row['title'] or row['community'])[:40]} ({row['nodes']})</span>"
        for row in legend[:12]
    )
    keys = html.escape(t("★ recalled · ● context / neighbour · ◆ dropped · red edge = relation in the context", lang))
    return f'<div style="font:12px sans-serif;color:{fg};padding:4px 8px">{keys}<br>{items}</div>'


def remote_references(html: str) -> list[str]:
    """Every src/href pointing off the machine (tests assert this is empty)."""
    return re.findall(r"(?:src|href)\s*=\s*[\"'](https?://[^\"']+)", html, flags=re.I)
