"""The DRIFT tree: the questions ``ms.drift`` asked itself, and any question's local retrieval.

The graph (``drift_graph``) draws them coloured by score, followed and unfollowed branches apart; a
click on a question opens its local retrieval. The table lists the questions depth-first from the user's question along the "follow-up of" edges
(a question asked by several parents sits under the first), indented by depth, its score as a bar, the
round that ran it; questions no round reached are marked as not followed. Picking a question shows
its answer and the local retrieval that produced it in the usual tables.
"""

from __future__ import annotations

import math

import streamlit as st

from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.result import KINDS, Retrieval
from graphrag_ui.retrieval.core.tree import QuestionNode, QuestionTree
from graphrag_ui.ui.graph.drift_graph import drift_elements
from graphrag_ui.ui.results.kind_table import kind_table
from graphrag_ui.ui.shell.escape import md_escape
from graphrag_ui.ui.shell.labels import KIND_LABELS, label
from graphrag_ui.ui.shell.language import t

CLICKED = "_drift_clicked"  # (view key, question) last opened from the graph


def _clicked(value: object) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


def depth_first(tree: QuestionTree) -> list[QuestionNode]:
    """Nodes from the root along the edges, each once, children in edge order; unreached ones last."""
    children: dict[int, list[int]] = {}
    for edge in tree.edges:
        children.setdefault(edge.source, []).append(edge.target)
    seen: set[int] = set()
    out: list[QuestionNode] = []
    stack = [0] if tree.nodes else []
    while stack:
        nid = stack.pop()
        if nid in seen:
            continue
        seen.add(nid)
        out.append(tree.nodes[nid])
        stack.extend(reversed([c for c in children.get(nid, []) if c not in seen]))
    return out + [n for n in tree.nodes if n.id not in seen]


def _score(node: QuestionNode) -> float | None:
    return node.score if node.score is not None and math.isfinite(node.score) else None


def tree_rows(tree: QuestionTree) -> list[dict[str, object]]:
    """One row per question; the model call that answered it (the primer's: all its fold calls)."""
    calls: dict[str, list] = {}
    for c in tree.calls:
        key = "primer" if c.stage == "primer" else c.label
        calls.setdefault(key, []).append(c)
    rows = []
    for n in depth_first(tree):
        ran = t("not followed") if n.round is None else ("primer" if n.round == 0 else str(n.round))
        made = calls.get(n.call, [])
        rows.append(
            {
                t("question"): "\u3000" * n.depth + ("↳ " if n.depth else "") + n.query,
                t("score"): _score(n),
                t("round"): ran,
                t("answered"): n.answer is not None,
                t("depth"): n.depth,
                t("tokens"): sum(c.prompt_tokens + c.answer_tokens for c in made) if made else None,
                "ms": round(sum(c.ms for c in made), 1) if made else None,
                t("cached"): all(c.cached for c in made) if made else None,
                "#": n.id,
            }
        )
    return rows


def drift_tree(index: Index, tree: QuestionTree, key: str) -> None:
    """The questions as a clickable graph and a tree table, then the chosen question's answer and local
    retrieval (a click on a question that ran picks it)."""
    from graphrag_ui.ui.graph.graph_component import clickable_graph
    from graphrag_ui.ui.graph.graph_view import options

    run_ids = {n.id for n in tree.nodes if n.local is not None}
    events = clickable_graph(drift_elements(tree), options(), key=f"{key}_drift_graph", height=380)
    clicked = _clicked(events.clicked)
    if clicked is not None and clicked in run_ids and st.session_state.get(CLICKED) != (key, clicked):
        st.session_state[CLICKED] = (key, clicked)  # the component keeps reporting its last click
        st.session_state[f"{key}_drift_node"] = clicked
    elif clicked is not None and clicked not in run_ids:
        st.caption(t("Question #{n} was not followed: no round ran it, so it has no local retrieval.", n=clicked))
    st.dataframe(
        tree_rows(tree),
        hide_index=True,
        use_container_width=True,
        column_config={t("score"): st.column_config.ProgressColumn(min_value=0, max_value=100, format="%.0f")},
    )
    seed = tree.seed if tree.seed is not None else 0
    st.caption(
        t(
            "Each round runs the unanswered questions in a shuffled order drawn from seed {seed}; GraphRAG "
            "draws that order at random, so its runs follow other questions from the same tree.",
            seed=seed,
        )
    )
    run = [n for n in tree.nodes if n.local is not None]
    if not run:
        return
    chosen = st.selectbox(
        t("Local retrieval of the question"),
        [n.id for n in run],
        format_func=lambda i: f"#{i} · {tree.nodes[i].query[:100]}",
        key=f"{key}_drift_node",
    )
    node = tree.nodes[chosen]
    if node.answer is not None:
        st.markdown(md_escape(str(node.answer), formatting=True))
    local = Retrieval.from_dict(node.local or {})
    for kind in KINDS:
        if local.candidates(kind):
            st.markdown(f"**{label(KIND_LABELS, kind)}**")
            kind_table(index, local, kind, f"{key}_drift_{chosen}", csv=True)
