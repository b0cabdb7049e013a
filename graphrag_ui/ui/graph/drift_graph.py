"""DRIFT's question tree drawn as a graph: a question per node, coloured by its score, the branches a round
followed drawn solid and those it never reached faint and dashed; clicking a question opens its local
retrieval below (the question picker of ``drift_view`` follows the click).

The nodes are laid out as the tree they are (depth downwards, siblings side by side, each under its
first parent), so the clickable graph component (``graph_component``) draws them without physics.
"""

from __future__ import annotations

import math

from graphrag_ui.retrieval.core.tree import QuestionNode, QuestionTree
from graphrag_ui.ui.graph.graph_style import GraphElements
from graphrag_ui.ui.shell.language import t

LOW, HIGH = (215, 48, 39), (26, 152, 80)  # score 0 → red, 100 → green
UNSCORED = "#b0b0b0"
X_GAP, Y_GAP = 200.0, 140.0
LABEL = 26  # characters of a question on its node (the whole question is in its tooltip)


def score_colour(score: float | None) -> str:
    """A question's colour: red (0) to green (100) by its score; grey without one."""
    if score is None or not math.isfinite(score):
        return UNSCORED
    x = min(max(score / 100.0, 0.0), 1.0)
    r, g, b = (round(lo + (hi - lo) * x) for lo, hi in zip(LOW, HIGH, strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"


def _followed(node: QuestionNode) -> bool:
    return node.round is not None


def _positions(tree: QuestionTree) -> dict[int, tuple[float, float]]:
    """Depth downwards; siblings in edge order, each under its first parent (unreached: a last row)."""
    children: dict[int, list[int]] = {}
    parent: dict[int, int] = {}
    for edge in tree.edges:
        if edge.target not in parent and edge.target != 0:
            parent[edge.target] = edge.source
            children.setdefault(edge.source, []).append(edge.target)
    at: dict[int, tuple[float, float]] = {}
    column = [0.0]

    def place(nid: int, depth: int) -> float:
        kids = [k for k in children.get(nid, []) if k not in at]
        if not kids:
            x = column[0]
            column[0] += X_GAP
        else:
            at[nid] = (0.0, depth * Y_GAP)  # claimed before its children (a cycle ends here)
            xs = [place(k, depth + 1) for k in kids]
            x = (xs[0] + xs[-1]) / 2
        at[nid] = (x, depth * Y_GAP)
        return x

    if tree.nodes:
        place(0, 0)
    for node in tree.nodes:
        if node.id not in at:
            at[node.id] = (column[0], (node.depth or 1) * Y_GAP)
            column[0] += X_GAP
    return at


def drift_elements(tree: QuestionTree) -> GraphElements:
    """vis-network nodes and edges of the tree (ids are the questions' numbers as text)."""
    at = _positions(tree)
    nodes, edges = [], []
    for node in tree.nodes:
        followed = _followed(node)
        score = node.score if node.score is not None and math.isfinite(node.score) else None
        title = "\n".join(
            [
                node.query,
                t("score: {score}", score="—" if score is None else f"{score:.0f}"),
                t("round: {round}", round=node.round) if followed else t("not followed"),
            ]
        )
        label = node.query if len(node.query) <= LABEL else node.query[: LABEL - 1] + "…"
        colour = score_colour(score)
        nodes.append(
            {
                "id": str(node.id),
                "label": label,
                "title": title,
                "shape": "dot",
                "size": 16 if node.id == 0 else 11,
                "color": {"background": colour, "border": "#111111" if followed else colour},
                "borderWidth": 2 if followed else 1,
                "opacity": 1.0 if followed else 0.45,
                "shapeProperties": {} if followed else {"borderDashes": [4, 3]},
                "font": {"size": 13, "color": "rgba(38,39,48,1)" if followed else "rgba(38,39,48,0.55)"},
                "x": at[node.id][0],
                "y": at[node.id][1],
            }
        )
    by_id = {n.id: n for n in tree.nodes}
    for edge in tree.edges:
        target = by_id.get(edge.target)
        followed = target is not None and _followed(target)
        edges.append(
            {
                "from": str(edge.source),
                "to": str(edge.target),
                "width": 2 if followed else 1,
                "dashes": not followed,
                "color": {"color": "#555555" if followed else "#bbbbbb"},
            }
        )
    keys = [
        t("colour: the question's score, red (0) to green (100); grey: no score"),
        t("solid: a round followed it · faint and dashed: not followed"),
        t("click a question to open its local retrieval below"),
    ]
    return GraphElements(nodes, edges, [], keys, {n["id"]: (n["x"], n["y"]) for n in nodes})
