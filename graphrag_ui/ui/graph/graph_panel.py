"""One graph panel for every page: interactive (click → details, double-click → neighbours) or the
standalone pyvis page, colour by community or entity type, a filter, what was left out, downloads.

Both views are drawn from the same ``graph_view.elements``. The panel keeps, per page and question
(``scope``), where every node was placed and which nodes were expanded, so reruns caused by other
widgets redraw the same picture; the component itself keeps the zoom and pan.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.change import Change
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.ui.graph import graph_select, graph_view
from graphrag_ui.ui.graph.graph_component import clickable_graph
from graphrag_ui.ui.graph.graph_details import node_details
from graphrag_ui.ui.graph.graph_select import HARD_CAP, STRONG_ROLES
from graphrag_ui.ui.shell.labels import GRAPH_VIEWS, label
from graphrag_ui.ui.shell.language import in_this_language, t

VIEWS = ("interactive", "standalone")
HEIGHT = 620
MAX_KEPT_POSITIONS = 5_000


def _dark() -> bool:
    try:
        return st.context.theme.type == "dark"
    except Exception:  # no browser context (AppTest, bare mode)
        return False


def _panel(key: str, scope: str) -> dict:
    """This panel's memory for one scope: node positions and expanded nodes (a new scope starts afresh)."""
    panel = st.session_state.get(f"_{key}_panel")
    if not isinstance(panel, dict) or panel.get("scope") != scope or len(panel["pos"]) > MAX_KEPT_POSITIONS:
        panel = {"scope": scope, "pos": {}, "expanded": []}
        st.session_state[f"_{key}_panel"] = panel
    return panel


def _controls(index: Index, spec: graph_view.GraphSpec, key: str, default_view: str, extra=None):
    """View, colour and filter in one row that wraps in a narrow column (``extra`` draws more controls
    first); returns (view, colour_by, types, communities)."""
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        if extra is not None:
            extra()
        view = st.segmented_control(
            t("Graph view"),
            VIEWS,
            default=default_view,
            key=f"{key}_view",
            format_func=in_this_language(lambda v: label(GRAPH_VIEWS, v)),
            persist_state="page",
            label_visibility="collapsed",
            help=t(
                "Interactive: click a node to see its details, double-click it to add its neighbours. "
                "Standalone: the same graph as the self-contained pyvis page you can download.",
            ),
        )
        colour_by = st.segmented_control(
            t("Colour by"),
            graph_view.COLOUR_BY,
            default="community",
            key=f"{key}_colour",
            format_func=in_this_language(
                lambda v: t("Colour: community") if v == "community" else t("Colour: entity type")
            ),
            persist_state="page",
            label_visibility="collapsed",
        )
        types, communities = graph_view.facets(index, spec)
        chosen_types = st.session_state.get(f"{key}_types") or []
        chosen_comms = st.session_state.get(f"{key}_comms") or []
        active = len(chosen_types) + len(chosen_comms)
        with st.popover(t("Filter") + (f" ({active})" if active else ""), icon=":material/filter_list:"):
            types = st.multiselect(
                t("Entity types"),
                list(dict.fromkeys([*chosen_types, *types])),
                key=f"{key}_types",
                placeholder=t("All types"),
                persist_state="page",
            )
            titles = {c.id: c.title for c in index.communities}
            communities = st.multiselect(
                t("Communities"),
                list(dict.fromkeys([*chosen_comms, *communities])),
                key=f"{key}_comms",
                format_func=in_this_language(lambda c: f"{c} · {titles.get(c, '')}" if c else t("no community")),
                placeholder=t("All communities"),
                persist_state="page",
            )
    return view or default_view, colour_by or "community", set(types), set(communities)


def left_out(spec: graph_view.GraphSpec) -> list[str]:
    """What the drawing leaves out, one short sentence each (the page must say so)."""
    notes = []
    if spec.capped or not spec.counted_all:
        more = spec.total - len(spec.nodes)
        if spec.counted_all:
            notes.append(
                t(
                    "Drawing {n} of {total} entities: the {more} farther or less connected ones are left out.",
                    n=f"{len(spec.nodes):,}",
                    total=f"{spec.total:,}",
                    more=f"{more:,}",
                )
            )
        else:
            notes.append(
                t(
                    "Drawing {n} of more than {limit} entities: the farther or less connected ones are left out.",
                    n=f"{len(spec.nodes):,}",
                    limit=f"{graph_select.SCAN_LIMIT:,}",
                )
            )
    if spec.hidden:
        notes.append(
            t(
                "{n} 1-hop neighbours are not drawn: turn on “Show neighbourhood” to add them.",
                n=f"{spec.hidden:,}",
            )
        )
    for name, (added, degree) in spec.added.items():
        if added < degree:
            notes.append(t("{name}: {added} of its {degree} neighbours added.", name=name, added=added, degree=degree))
    if len(spec.nodes) >= HARD_CAP:
        notes.append(t("At most {cap} nodes are drawn: expanding adds nothing more.", cap=HARD_CAP))
    if spec.filtered:
        notes.append(t("{n} nodes hidden by the filter.", n=f"{spec.filtered:,}"))
    return notes


def show_graph(
    index: Index,
    spec: graph_view.GraphSpec,
    *,
    key: str,
    cache_key: str,
    default_view: str = "interactive",
    side_by_side: bool = True,
    file_name: str = "graph.html",
    scope: str | None = None,
    extra_controls=None,
    fit_all: bool = False,
) -> None:
    """Graph + details panel. ``scope`` names what the picture is about (the question, the searched
    entity): within one scope nodes keep their places and expansions are kept; ``cache_key`` (which must
    change whenever ``spec`` does) is the scope when none is given. ``extra_controls`` draws more widgets
    in the row of controls. ``fit_all``: the first view shows every node (the Graph page: nothing is
    clipped at the edges), not the retrieved ones at a readable zoom."""
    if not spec.nodes:
        st.info(graph_view.empty_text())
        return
    dark = _dark()
    panel = _panel(key, f"{index.path}|{scope if scope is not None else cache_key}")
    shown = graph_view.expand(index, spec, panel["expanded"]) if panel["expanded"] else spec
    view, colour_by, types, communities = _controls(index, shown, key, default_view, extra_controls)
    shown = graph_view.filtered(index, shown, types, communities)
    notes = left_out(shown)
    if notes:
        st.caption(" · ".join(notes))
    built = graph_view.elements(index, shown, colour_by=colour_by, dark=dark, known=panel["pos"])
    panel["pos"].update(built.positions)
    if side_by_side:
        graph_area, details_area = st.columns([3, 2], gap="medium")
    else:
        graph_area, details_area = st.container(), st.container()
    node_key = f"{key}_node"
    with graph_area:
        if not shown.nodes:
            st.info(t("Nothing to draw with these filters."))
        elif view == "standalone":
            page, _ = graph_view.render(index, shown, dark=dark, built=built)
            st.iframe(page, height=700, tab_index=0, alt="Knowledge graph (standalone pyvis view)")
        else:
            focus = [n for n in shown.nodes if shown.roles.get(n) in STRONG_ROLES] or shown.nodes[:50]
            centres = [n for n in shown.nodes if shown.roles.get(n) == "centre"]
            view_key = hashlib.sha1(panel["scope"].encode("utf-8")).hexdigest()[:12]
            events = clickable_graph(
                built,
                graph_view.options(dark),
                key=f"{key}_graph",
                height=HEIGHT,
                view_key=f"{key}|{view_key}",
                focus=focus,
                anchor=centres[0] if len(centres) == 1 else None,
                dark=dark,
                png_name=file_name.rsplit(".", 1)[0] + ".png",
                fit_all=fit_all,
            )
            if events.clicked in shown.nodes:
                st.session_state[node_key] = events.clicked
            if events.expand in shown.nodes and events.expand not in panel["expanded"]:
                panel["expanded"].append(events.expand)
                st.session_state[node_key] = events.expand
                st.rerun()
    with details_area:
        _details(index, shown, built, key, panel, dark, file_name)


def _details(index, spec, built, key, panel, dark, file_name) -> None:
    node_key = f"{key}_node"
    if st.session_state.get(node_key) not in spec.nodes:
        st.session_state.pop(node_key, None)
    chosen = st.selectbox(
        t("Node details"),
        spec.nodes,
        index=None,
        key=node_key,
        placeholder=t("Click a node in the graph, or pick one"),
    )
    if chosen:
        node_details(index, chosen, spec.roles.get(chosen, ""), graph_view.why_text(spec, chosen))
    with st.container(horizontal=True):
        if chosen and chosen not in panel["expanded"]:
            if st.button(t("Add its neighbours"), key=f"{key}_expand", icon=":material/hub:"):
                panel["expanded"].append(chosen)
                st.rerun()
        if panel["expanded"]:
            if st.button(t("Remove added neighbours"), key=f"{key}_collapse", icon=":material/undo:"):
                panel["expanded"].clear()
                st.rerun()
        st.download_button(
            t("Download graph HTML"),
            lambda: graph_view.render(index, spec, dark=dark, built=built)[0].encode("utf-8"),
            file_name=file_name,
            mime="text/html",
            key=f"{key}_graph_dl",
            icon=":material/download:",
            on_click="ignore",
        )


def cited_in_graph(index: Index, result: Retrieval, spec: graph_view.GraphSpec, trace) -> None:
    """Mark the entities and relations ``trace`` (the shown answer's) cites, where they are drawn."""
    from graphrag_ui.ui.answer.citation_marks import citing_sentences
    from graphrag_ui.ui.graph.graph_select import entity_name, relation_pair

    if trace is None:
        return
    labels = {c.id: c for kind in ("entities", "relations") for c in result.candidates(kind)}
    for item in citing_sentences(trace):
        c = labels.get(item.item_id)
        if item.kind == "entities":
            name = entity_name(index, item.item_id, c.label if c else "")
            if name in spec.nodes:
                spec.cited.add(name)
        elif item.kind == "relations":
            ends = relation_pair(index, item.item_id, c.data if c else None)
            if ends is not None:
                spec.cited_edges.add(ends)


def retrieval_graph(index: Index, result: Retrieval, *, key: str, change: Change | None = None) -> None:
    """Explore's graph: the retrieved subgraph first (in-context bold, dropped faint), the neighbourhood on
    demand, and — given the ``change`` since the previous run — what entered (green) and what left (ghosts)."""
    around_key, dropped_key = f"{key}_around", f"{key}_dropped"
    # read first (the spec depends on them), drawn in the row of controls below
    around = bool(st.session_state.get(around_key, False))
    dropped = bool(st.session_state.get(dropped_key, True))

    def toggles() -> None:
        st.toggle(
            t("Show neighbourhood"),
            value=False,
            key=around_key,
            persist_state="page",
            help=t("Add the 1-hop neighbours of what was retrieved (best connected first)."),
        )
        st.toggle(t("Show dropped candidates"), value=True, key=dropped_key, persist_state="page")

    spec = graph_view.retrieval_subgraph(index, result, change, neighbourhood=around, dropped=dropped)
    from graphrag_ui.ui.answer.citation_marks import trace_for

    cited_in_graph(index, result, spec, trace_for(result))
    digest = hashlib.sha1(result.to_json(indent=None).encode("utf-8"))
    digest.update(repr((around, dropped, change is not None and change.kinds)).encode("utf-8"))
    digest.update(repr((sorted(spec.cited), sorted(spec.cited_edges))).encode("utf-8"))
    show_graph(
        index,
        spec,
        key=key,
        cache_key=digest.hexdigest(),
        scope=f"question|{result.query}",
        side_by_side=False,
        file_name="retrieval-graph.html",
        extra_controls=toggles,
    )
