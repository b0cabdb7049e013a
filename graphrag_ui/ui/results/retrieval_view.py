"""Render one ``Retrieval``: tabs of tables, graph, budget, trace and context, with downloads."""

from __future__ import annotations

import streamlit as st

from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.change import Change
from graphrag_ui.retrieval.core.result import KINDS, Retrieval
from graphrag_ui.retrieval.core.vector_engine import overlaps
from graphrag_ui.retrieval.registry import get_mode
from graphrag_ui.ui.answer.citation_view import citation_budget, run_line
from graphrag_ui.ui.graph.graph_panel import retrieval_graph
from graphrag_ui.ui.results import derived, tables
from graphrag_ui.ui.results.budget_view import budget_chart
from graphrag_ui.ui.results.kind_table import csv_download, kind_table
from graphrag_ui.ui.results.sweep_view import rerun_if_a_step_was_shown, sweep_view
from graphrag_ui.ui.shell.escape import md_escape, shown
from graphrag_ui.ui.shell.guard import guarded
from graphrag_ui.ui.shell.labels import KIND_LABELS, TIMINGS, TRACE_STEPS, VIEW_LABELS, label
from graphrag_ui.ui.shell.language import in_this_language, t, translate
from graphrag_ui.ui.widgets.params import widget_key


def warnings_box(result: Retrieval) -> None:
    for warning in result.warnings:
        st.warning(shown(warning), icon="⚠️")


def vector_search_note(result: Retrieval) -> None:
    """Which engine searched the vectors, and how its top-k agrees with the exact search (server only)."""
    info = result.vector_search
    if not info:
        return
    st.info(
        t("Vectors searched by chroma HNSW on {where}.", where=md_escape(info.get("server", ""))),
        icon=":material/dns:",
    )
    agreed = overlaps(info)
    for kind, k, both, n in agreed:
        st.caption(
            t(
                "{kind}: server top-{k} ∩ exact top-{k}: {both}/{n}",
                kind=label(KIND_LABELS, kind),
                k=k,
                both=both,
                n=n,
            )
        )
    if not agreed:
        st.caption(t("No local copy of the vectors: the server's top-k cannot be compared with the exact search."))


def run_summary(result: Retrieval) -> None:
    """One line that reproduces the run: mode, every parameter, timing and what went in (last on the page)."""
    params = " · ".join(f"{k}={v}" for k, v in sorted(result.params.items()))
    total = sum(result.timings_ms.values())
    kept = ", ".join(
        t("{n} {kind}", n=n, kind=label(KIND_LABELS, kind)) for kind, (n, _) in derived.counts(result).items()
    )
    bound = "; ".join(translate(lim.text) for lim in derived.limits(result))
    st.caption(
        t(
            "run: {mode} · {params} · {ms} ms · in the context: {kept} · limits: {limits}",
            mode=result.mode,
            params=params,
            ms=f"{total:.1f}",
            kept=kept,
            limits=bound or "—",
        )
    )
    run_line(result)  # what the answer cites and never used, once an answer is shown


def timings_line(timings_ms: dict[str, float]) -> str:
    """``keywords: 0.3 ms, embed: 23.6 ms, …`` with the stage names in the UI language."""
    parts = [t("{stage}: {ms} ms", stage=label(TIMINGS, k), ms=f"{v:.1f}") for k, v in timings_ms.items()]
    return ", ".join(parts)


def empty_state(result: Retrieval, known_cause: bool = False) -> bool:
    """One clear line when a mode put nothing into its context (the dropped rows still explain why);
    ``known_cause``: the index limits this mode, and the notes above name it (no threshold advice)."""
    if any(kept for kept, _ in derived.counts(result).values()):
        return False
    if known_cause:
        st.info(
            t(
                "{mode} found nothing for this question; the notes above say what this index lacks for it.",
                mode=result.mode,
            ),
            icon=":material/search_off:",
        )
        return True
    if not any(dropped for _, dropped in derived.counts(result).values()):
        text = t(
            "{mode} found nothing for this question: it considered no entity, relation, community or chunk at "
            "all. Try another mode, different keywords, or check that the index is about this question.",
            mode=result.mode,
        )
        st.info(text, icon=":material/search_off:")
        return True
    st.info(
        t(
            "{mode} found nothing for this question: no entity, relation, community or chunk made it "
            "into the context. The dropped rows in each tab say why; try another mode, a lower "
            "threshold or different keywords.",
            mode=result.mode,
        ),
        icon=":material/search_off:",
    )
    return True


def graph_panel(index: Index, result: Retrieval, key: str, change: Change | None = None) -> None:
    """The retrieved subgraph first; ``change`` (since the previous run) marks what entered and left."""
    retrieval_graph(index, result, key=key, change=change)


def context_panel(result: Retrieval, key: str, *, show_text: bool = True) -> None:
    """The exact context string (``show_text``) and the context and JSON downloads."""
    if show_text:
        st.code(result.context or "", language=None, wrap_lines=True)
    c1, c2 = st.columns(2)
    c1.download_button(
        t("Download context"),
        lambda: result.context.encode("utf-8"),  # made on click: a context can be 10⁵ characters
        file_name="context.txt",
        mime="text/plain",
        key=f"{key}_ctx_dl",
        icon=":material/download:",
        on_click="ignore",
    )
    c2.download_button(
        t("Download Retrieval JSON"),
        lambda: result.to_json().encode("utf-8"),  # made on click: every candidate of a large index
        file_name="retrieval.json",
        mime="application/json",
        key=f"{key}_json_dl",
        icon=":material/download:",
        on_click="ignore",
    )


def section_downloads(index: Index, result: Retrieval, key: str) -> None:
    """Each section's rows as CSV, kept and dropped with their reasons: here, with the other downloads, not
    below each grid (a download button is a new element on every run: one more to redraw on each move)."""
    with st.container(horizontal=True):
        for kind in KINDS:
            csv_download(index, result, kind, key, t("{section} as CSV", section=label(KIND_LABELS, kind)))


MAP_REDUCE = "map-reduce"  # batches and points of a map-reduce mode, one view with its own switch
OTHER_VIEWS = ("graph", "budget", "trace", "context", "sweep")


def views_of(result: Retrieval) -> list[str]:
    """The views a result offers, in order (map-reduce modes lead with their stages)."""
    return ([MAP_REDUCE] if result.stages is not None else []) + [*KINDS, *OTHER_VIEWS]


def _view_label(view: str, result: Retrieval, counts: dict[str, tuple[int, int]]) -> str:
    if view in KINDS:
        return f"{label(KIND_LABELS, view)} ({counts[view][0]})"
    if view == MAP_REDUCE:
        kept = sum(1 for p in result.stages.points if p.in_context) if result.stages else 0
        n = len(result.stages.batches)
        batches = t("{n} batch", n=n) if n == 1 else t("{n} batches", n=n)
        points = t("{n} point", n=kept) if kept == 1 else t("{n} points", n=kept)
        return t("Map-reduce: {batches}, {points}", batches=batches, points=points)
    return label(VIEW_LABELS, view)


def chosen_view(result: Retrieval, key: str) -> str:
    """The view to show: the analyst's last choice (from the URL on a first visit), kept across reruns
    and mode switches while the new result offers it."""
    options = views_of(result)
    state_key, url_key = f"{key}_show", ("view" if key == "main" else f"{key}_view")
    current = st.session_state.get(state_key)
    if current is None:
        current = st.query_params.get(url_key)
    if current not in options:
        current = options[0]
    st.session_state[state_key] = current
    return current


def result_tabs(index: Index, result: Retrieval, key: str = "main", comparison=None) -> None:
    """The result's views behind one switch; switching runs only this part of the page (a fragment)."""
    chosen_view(result, key)
    _views(index, result, key, comparison)


@st.fragment
@guarded
def _views(index: Index, result: Retrieval, key: str, comparison) -> None:
    rerun_if_a_step_was_shown(key)
    options = views_of(result)
    counts = derived.counts(result)  # each option's label shows one
    url_key = "view" if key == "main" else f"{key}_view"
    view = st.segmented_control(
        t("View"),
        options,
        key=f"{key}_show",
        format_func=in_this_language(lambda v: _view_label(v, result, counts)),
        required=True,
        label_visibility="collapsed",
        width="stretch",
    )
    view = view or options[0]
    if st.query_params.get(url_key) != view:
        st.query_params[url_key] = view
    marks = comparison.marks if comparison is not None else None
    before = comparison.base if comparison is not None else None
    if view == MAP_REDUCE:
        _stages(result, key)
    elif view in KINDS:
        kind_table(index, result, view, key, marks)
    elif view == "graph":
        graph_panel(index, result, key, comparison.change if comparison is not None else None)
    elif view == "budget":
        budget_chart(result, before)
        citation_budget(result)
    elif view == "trace":
        trace_view(result, key)
    elif view == "sweep":
        sweep_view(index, result, key, _sidebar_keys(result) if key == "main" else {})
    else:
        if result.stages is not None:
            from graphrag_ui.ui.answer.stages_view import reduce_context_view

            reduce_context_view(result, key)
        context_panel(result, key, show_text=result.stages is None)
        section_downloads(index, result, key)


def _sidebar_keys(result: Retrieval) -> dict[str, str]:
    """Parameter name -> the key of its sidebar widget on Explore (``params.widget_key``)."""
    spec = get_mode(result.mode)
    if spec.versions and result.params.get("version"):
        spec = spec.for_version(result.params["version"])
    return {p.name: widget_key(spec, p) for p in spec.params}


def _stages(result: Retrieval, key: str) -> None:
    from graphrag_ui.ui.answer import stages_view

    part = st.segmented_control(
        t("Stage"),
        ["batches", "points"],
        key=f"{key}_stage",
        default="batches",
        format_func=in_this_language(lambda v: label(VIEW_LABELS, v)),
        required=True,
        label_visibility="collapsed",
    )
    if part == "points":
        stages_view.points_view(result, key)
    else:
        stages_view.batches_view(result, key)


def trace_view(result: Retrieval, key: str) -> None:
    trace = tables.trace_frame(result, TRACE_STEPS)
    slowest = float(trace["ms"].max()) if not trace.empty else 1.0
    st.dataframe(
        trace,
        hide_index=True,
        width="stretch",
        key=f"{key}_trace",
        column_config={
            "step": t("step"),
            "in": t("in"),
            "out": t("out"),
            "ms": st.column_config.ProgressColumn(t("ms"), min_value=0.0, max_value=slowest, format="%.2f"),
            "detail": st.column_config.TextColumn(t("detail"), width="large"),
        },
    )
    st.caption(timings_line(result.timings_ms))
    if result.stages is not None:
        from graphrag_ui.ui.answer.stages_view import calls_view

        calls_view(result, key)
