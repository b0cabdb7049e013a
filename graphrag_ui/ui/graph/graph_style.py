"""How each node and edge looks: the ONE builder of vis-network data for the component and the pyvis page.

Selected (in-context) entities and relations are bold, dropped candidates faint, neighbours small;
what entered since the previous run gets a green ring (or a green edge), what left is a dashed grey
ghost. Colour is the community or the entity type. Every text is plain data: labels are drawn on the
canvas and string titles render as text, so nothing from the index is ever parsed as markup.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from graphrag_ui.base.i18n import msg
from graphrag_ui.index.model import Index
from graphrag_ui.ui.graph import graph_layout
from graphrag_ui.ui.graph.graph_select import STRONG_ROLES, GraphSpec, community_of, pair
from graphrag_ui.ui.shell.labels import GRAPH_ROLES, label
from graphrag_ui.ui.shell.language import language_read_once, t, translate

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
ENTERED = "#2ca02c"
GHOST = "#9aa0a6"
CONTEXT_EDGE = "#d62728"
CITED = "#ff6a00"  # cited by the answer (no community colour is this orange)
SHAPES = {"seed": "star", "centre": "star", "dropped": "diamond"}
BOLD = {"seed", "centre"}
OPACITY = {"dropped": 0.45, "dropped_endpoint": 0.45, "neighbour": 0.55, "left": 0.75}
RADIUS = {"seed": 14, "centre": 14, "context": 11, "nearby": 10, "dropped": 9}
FONT = {"strong": 18, "faint": 15}  # canvas px; at the smallest default zoom 12 and 10 px
COLOUR_BY = ("community", "type")
LABEL_CHARS = 32

# roles the app's label table does not name (its table is shared with other pages)
EXTRA_ROLES = {
    "dropped_endpoint": msg("endpoint of a dropped relation"),
    "left": msg("left the context since the previous run"),
}


@dataclass
class GraphElements:
    """vis-network data shared by the standalone pyvis page and the clickable component."""

    nodes: list[dict]
    edges: list[dict]
    legend: list[dict]  # name (community or type), title, colour, nodes drawn
    keys: list[str] = field(default_factory=list)  # what shapes, faint nodes and marks mean, in the UI language
    positions: dict[str, tuple[float, float]] = field(default_factory=dict)


def role_text(role: str) -> str:
    """What a node's role means, in the UI language (an unknown role is shown as is)."""
    if role in EXTRA_ROLES:
        return translate(EXTRA_ROLES[role])
    return label(GRAPH_ROLES, role)


def why_text(spec: GraphSpec, name: str) -> str:
    """Why the entity was selected and, when it was dropped, why, in the UI language (empty when not recalled)."""
    if name not in spec.why:
        return ""
    why = translate(spec.why[name])
    if name not in spec.dropped:
        return why
    return t("{why} — dropped: {dropped}", why=why, dropped=translate(spec.dropped[name]))


def _plain(text: str, limit: int = 400) -> str:
    text = (text or "").replace("<SEP>", "\n")
    return text if len(text) <= limit else text[:limit] + "…"


def short_label(name: str) -> str:
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"


class _Palette:
    def __init__(self) -> None:
        self.slots: dict[str, int] = {}

    def __call__(self, key: str | None) -> str:
        if key is None:
            return NO_COMMUNITY
        if key not in self.slots:
            self.slots[key] = len(self.slots)
        return PALETTE[self.slots[key] % len(PALETTE)]


def node_radius(role: str, degree: int) -> float:
    return RADIUS.get(role, 8) + min(10.0, 2.0 * math.log2(1 + degree))


def _title(index: Index, spec: GraphSpec, name: str, role: str, degree: int) -> str:
    entity = index.entity_by_name.get(name)
    lines = [
        name,
        t("{label}: {value}", label=t("Type"), value=entity.type if entity else "?"),
        t("{label}: {value}", label=t("Degree"), value=degree),
        t("{label}: {value}", label=t("Role in this view"), value=role_text(role)),
    ]
    if name in spec.why:
        lines.append(t("{label}: {value}", label=t("Why selected"), value=why_text(spec, name)))
    if name in spec.entered:
        lines.append(t("Entered the context since the previous run"))
    if name in spec.left:
        lines.append(t("Left the context since the previous run"))
    if name in spec.cited:
        lines.append(t("Cited by the answer"))
    if entity is not None:
        lines.append(_plain(entity.description))
    return "\n".join(lines)


def _node(index, spec, name, colour, degree, dark) -> dict:
    role = spec.roles.get(name, "neighbour")
    fg = "250,250,250" if dark else "38,39,48"
    faint = role not in STRONG_ROLES
    node = {
        "id": name,
        "label": short_label(name),
        "title": _title(index, spec, name, role, degree),
        "shape": SHAPES.get(role, "dot"),
        "size": round(node_radius(role, degree), 1),
        "color": {"background": colour, "border": "#111111" if role in BOLD else colour},
        "borderWidth": 3 if role in BOLD else 1,
        "opacity": OPACITY.get(role, 1.0),
        "font": {
            "size": FONT["faint" if faint else "strong"],
            "color": f"rgba({fg},{0.6 if faint else 1})",
            "mod": "bold" if role in BOLD else "",
        },
    }
    if role == "left":  # a ghost: it left the context and nothing else draws it
        node["color"] = {"background": "#3a3d45" if dark else "#eeeeee", "border": GHOST}
        node["shapeProperties"] = {"borderDashes": [4, 3]}
        node["borderWidth"] = 2
    elif name in spec.left:
        node["color"]["border"] = GHOST
        node["shapeProperties"] = {"borderDashes": [4, 3]}
        node["borderWidth"] = 3
    if name in spec.entered:
        node["color"]["border"] = ENTERED
        node["borderWidth"] = 4
        node["shadow"] = {"enabled": True, "color": "rgba(44,160,44,0.65)", "size": 14, "x": 0, "y": 0}
    if name in spec.cited:
        node["color"]["border"] = CITED
        node["borderWidth"] = 5
    return node


def _edge(index: Index, spec: GraphSpec, a: str, b: str) -> dict:
    rel = index.relation_between(a, b)
    weight = rel.weight if rel else 1.0
    ends = (a, b)
    edge = {
        "from": a,
        "to": b,
        "title": _plain(
            f"{a} — {b}\n"
            + t("{label}: {value}", label=t("Weight"), value=f"{weight:g}")
            + f"\n{rel.description if rel else ''}"
        ),
        "width": 1,
        "color": {"color": GHOST, "opacity": 0.5},
        "dashes": False,
    }
    if ends in spec.context_edges:
        edge.update(width=3, color={"color": CONTEXT_EDGE, "opacity": 1.0})
    elif ends in spec.left_edges:
        edge.update(width=2, color={"color": GHOST, "opacity": 0.9}, dashes=[6, 5])
    elif ends in spec.dropped_edges:
        edge.update(width=1.5, color={"color": CONTEXT_EDGE, "opacity": 0.3})
    if ends in spec.entered_edges:
        edge.update(width=4, color={"color": ENTERED, "opacity": 1.0})
    if ends in spec.cited_edges:
        edge.update(width=5, color={"color": CITED, "opacity": 1.0})
    return edge


def drawn_edges(index: Index, drawn: list[str]) -> list[tuple[str, str]]:
    """Edges among the drawn nodes, sorted (plain adjacency lookups: a subgraph view of a hub is slow)."""
    inside = set(drawn)
    adjacency = index.graph.adj
    found = {pair(a, b) for a in inside if a in adjacency for b in adjacency[a] if b in inside and a != b}
    return sorted(found)


def keys(spec: GraphSpec) -> list[str]:
    """One line per kind of mark present in the drawing, in the UI language."""
    roles = {spec.roles.get(n, "neighbour") for n in spec.nodes}
    out = []
    if "seed" in roles:
        out.append(t("★ bold: entity in the context"))
    if "centre" in roles:
        out.append(t("★ searched entity / community member"))
    if "context" in roles:
        out.append(t("● bold: endpoint of a relation in the context"))
    if "dropped" in roles or "dropped_endpoint" in roles:
        out.append(t("◆ faint: considered but dropped"))
    if "neighbour" in roles:
        out.append(t("· faint: neighbour, not retrieved"))
    if spec.context_edges:
        out.append(t("red edge: relation in the context (faint red: dropped)"))
    if spec.marks:
        out.append(t("green ring / edge: entered since the previous run"))
        out.append(t("dashed grey: left since the previous run"))
    if spec.cited or spec.cited_edges:
        out.append(t("orange ring / edge: cited by the answer"))
    out.append(t("size = degree"))
    return out


@language_read_once
def elements(
    index: Index,
    spec: GraphSpec,
    *,
    colour_by: str = "community",
    dark: bool = False,
    known: dict[str, tuple[float, float]] | None = None,
) -> GraphElements:
    """Nodes (placed: ``known`` positions stay, new nodes are laid out around them), edges, legend."""
    drawn = list(dict.fromkeys(spec.nodes))
    degrees = dict(index.graph.degree(drawn))
    palette = _Palette()
    legend: dict[str | None, dict] = {}
    nodes = []
    for name in drawn:
        entity = index.entity_by_name.get(name)
        if colour_by == "type":
            key = (entity.type if entity else "") or "?"
            title = key
        else:
            key = community_of(entity, spec.level)
            community = index.community_by_id.get(key) if key else None
            title = community.title if community else ""
        colour = palette(key)
        if key not in legend:
            legend[key] = {"name": key or "none", "community": key or "none", "title": title, "colour": colour}
            legend[key]["nodes"] = 0
        legend[key]["nodes"] += 1
        nodes.append(_node(index, spec, name, colour, degrees.get(name, 0), dark))
    pairs = drawn_edges(index, drawn)
    edges = [_edge(index, spec, a, b) for a, b in pairs]
    boxes = {
        n["id"]: graph_layout.label_box(n["label"], n["size"], n["font"]["size"], bool(n["font"]["mod"])) for n in nodes
    }
    priority = {name: spec.rank(name) * 100_000 + i for i, name in enumerate(drawn)}
    positions = graph_layout.layout(drawn, pairs, boxes, known, priority)
    for node in nodes:
        node["x"], node["y"] = positions[node["id"]]
    rows = sorted(legend.values(), key=lambda r: (-r["nodes"], r["name"]))
    return GraphElements(nodes, edges, rows, keys(spec), positions)
