"""Render one ``Retrieval``: tabs of tables, graph, budget, trace and context, with downloads."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from graphrag_ui.i18n import t, translate
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.change import Change
from graphrag_ui.retrieval.core.result import KINDS, Retrieval
from graphrag_ui.retrieval.core.vector_engine import overlaps
from graphrag_ui.ui import tables
from graphrag_ui.ui.graph_panel import retrieval_graph
from graphrag_ui.ui.labels import KIND_LABELS, TIMINGS, label
from graphrag_ui.ui.text import safe_markdown


def warnings_box(result: Retrieval, lang: str = "en") -> None:
    for warning in result.warnings:
        st.warning(translate(warning, lang), icon="⚠️")


def vector_search_note(result: Retrieval, lang: str = "en") -> None:
    """Which engine searched the vectors, and how its top-k agrees with the exact search (server only)."""
    info = result.vector_search
    if not info:
        return
    st.info(
        t("Vectors searched by chroma HNSW on {where}.", lang, where=safe_markdown(info.get("server", ""))),
        icon=":material/dns:",
    )
    agreed = overlaps(info)
    for kind, k, both, n in agreed:
        st.caption(
            t(
                "{kind}: server top-{k} ∩ exact top-{k}: {both}/{n}",
                lang,
                kind=label(KIND_LABELS, kind, lang),
                k=k,
                both=both,
                n=n,
            )
        )
    if not agreed:
        st.caption(
            t("No local copy of the vectors: the server's top-k cannot be compared with the exact search.", lang)
        )


def run_summary(result: Retrieval, lang: str = "en") -> None:
    """One line that reproduces the run: mode, every parameter, timing and what went in (last on the page)."""
    params = " · ".join(f"{k}={v}" for k, v in sorted(result.params.items()))
    total = sum(result.timings_ms.values())
    kept = ", ".join(
        t("{n} {kind}", lang, n=n, kind=label(KIND_LABELS, kind, lang))
        for kind, (n, _) in tables.counts(result).items()
    )
    st.caption(
        t(
            "run: {mode} · {params} · {ms} ms · in the context: {kept}",
            lang,
            mode=result.mode,
            params=params,
            ms=f"{total:.1f}",
            kept=kept,
        )
    )


def timings_line(timings_ms: dict[str, float], lang: str) -> str:
    """``keywords: 0.3 ms, embed: 23.6 ms, …`` with the stage names in ``lang``."""
    parts = [t("{stage}: {ms} ms", lang, stage=label(TIMINGS, k, lang), ms=f"{v:.1f}") for k, v in timings_ms.items()]
    return ", ".join(parts)


def empty_state(result: Retrieval, lang: str) -> bool:
    """One clear line when a mode put nothing into its context (the dropped rows still explain why)."""
    if any(kept for kept, _ in tables.counts(result).values()):
        return False
    st.info(
        t(
            "{mode} found nothing for this question: no entity, relation, community or chunk made it "
            "into the context. The dropped rows in each tab say why; try another mode, a lower "
            "threshold or different keywords.",
            lang,
            mode=result.mode,
        ),
        icon=":material/search_off:",
    )
    return True


def _column_config(lang: str) -> dict:
    """Headers of the app's own columns in ``lang``; the reference's row fields keep their names."""
    cc = st.column_config
    return {
        "order": cc.NumberColumn(t("#", lang), width="small", help=t("order in which the mode found the item", lang)),
        "label": cc.TextColumn(t("label", lang), width="medium"),
        "score": cc.NumberColumn(t("score", lang), format="%.4f", help=t("similarity or the reference's score", lang)),
        "rank": cc.NumberColumn(t("rank", lang), help=t("degree or the reference's rank", lang)),
        "tokens": cc.NumberColumn(t("tokens", lang), help=t("tokens this row adds to the context", lang)),
        "why": cc.TextColumn(t("Why selected", lang), width="large"),
        "dropped": cc.TextColumn(t("why dropped", lang), width="large"),
        "id": cc.TextColumn(t("id", lang), width="small"),
    }


def _ordered(frame) -> list[str]:
    """Kept rows lead with what and why; dropped rows lead with why they were dropped, then what and why
    they were considered (the reason must be visible without scrolling sideways)."""
    first = ["order", "label", "score", "rank", "tokens", "why"]
    if "dropped" in frame.columns:
        first = ["dropped", "label", "why", "score", "rank", "tokens", "order"]
    head = [c for c in first if c in frame.columns]
    return head + [c for c in frame.columns if c not in head and c != "id"] + (["id"] if "id" in frame.columns else [])


def kind_table(result: Retrieval, kind: str, lang: str, key: str) -> None:
    kept, dropped = tables.split_tables(result, kind, lang)
    config = _column_config(lang)
    st.caption(t("In the context", lang) + f": {len(kept)}")
    if kept.empty:
        st.info(t("Nothing in this section.", lang))
    else:
        st.dataframe(
            kept,
            hide_index=True,
            width="stretch",
            key=f"{key}_{kind}_kept",
            column_order=_ordered(kept),
            column_config=config,
        )
    if not dropped.empty:
        st.caption(t("Considered but dropped", lang) + f": {len(dropped)}")
        st.dataframe(
            dropped,
            hide_index=True,
            width="stretch",
            key=f"{key}_{kind}_dropped",
            column_order=_ordered(dropped),
            column_config=config,
        )
    both = tables.candidate_rows(kind, result.candidates(kind))  # reasons in English (see tables)
    st.download_button(
        t("Download CSV", lang),
        both.to_csv(index=False).encode("utf-8"),
        file_name=f"{kind}.csv",
        mime="text/csv",
        key=f"{key}_{kind}_csv",
        icon=":material/download:",
        on_click="ignore",
    )


def budget_chart(result: Retrieval, lang: str) -> None:
    """Per section: used (solid) then headroom (grey) up to its limit; truncated sections are marked."""
    import altair as alt

    frame = tables.budget_frame(result)
    if frame.empty:
        st.info(t("Nothing in this section.", lang))
        return
    frame["limit"] = pd.to_numeric(frame["limit"], errors="coerce")
    is_total = frame["section"] == "total"
    parts = frame[~is_total]
    if is_total.any():
        used, limit = int(frame[is_total]["used"].iloc[0]), frame[is_total]["limit"].iloc[0]
    else:
        used, limit = int(parts["used"].sum()), parts["limit"].sum(min_count=1)
    limited = parts[parts["limit"].notna() & (parts["limit"] > 0)]
    full = int((limited["headroom"] <= limited["limit"] * 0.02).sum())
    c1, c2, c3 = st.columns(3)
    c1.metric(t("Tokens in the context", lang), f"{used:,}")
    c2.metric(t("Headroom under the limits", lang), "—" if pd.isna(limit) else f"{max(int(limit) - used, 0):,}")
    c3.metric(t("Sections at their limit", lang), f"{full} / {len(limited)}")
    long = parts.melt(id_vars=["section"], value_vars=["used", "headroom"], var_name="part", value_name="tokens")
    long["order"] = (long["part"] == "headroom").astype(int)
    long["part"] = long["part"].map({"used": t("used", lang), "headroom": t("headroom", lang)})
    chart = (
        alt.Chart(long)
        .mark_bar()
        .encode(
            y=alt.Y("section:N", sort=list(parts["section"]), title=None, axis=alt.Axis(labelOverlap=False)),
            x=alt.X("tokens:Q", stack="zero", title=t("tokens", lang)),
            color=alt.Color(
                "part:N",
                scale=alt.Scale(domain=[t("used", lang), t("headroom", lang)], range=["#4e79a7", "#d9dde3"]),
                legend=alt.Legend(orient="bottom", title=None),
            ),
            order=alt.Order("order:Q"),
            tooltip=[
                alt.Tooltip("section:N", title=t("section", lang)),
                alt.Tooltip("part:N", title=t("kind", lang)),
                alt.Tooltip("tokens:Q", title=t("tokens", lang)),
            ],
        )
        .properties(height={"step": 26})
    )
    st.altair_chart(chart, width="stretch")
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        column_config={
            "section": t("section", lang),
            "used": t("used", lang),
            "headroom": t("headroom", lang),
            "limit": st.column_config.NumberColumn(
                t("budget", lang), help=t("empty: the section has no limit of its own", lang)
            ),
        },
    )


def graph_panel(index: Index, result: Retrieval, lang: str, key: str, change: Change | None = None) -> None:
    """The retrieved subgraph first; ``change`` (since the previous run) marks what entered and left."""
    retrieval_graph(index, result, lang, key=key, change=change)


def context_panel(result: Retrieval, lang: str, key: str, *, show_text: bool = True) -> None:
    """The exact context string (``show_text``) and the context and JSON downloads."""
    if show_text:
        st.code(result.context or "", language=None, wrap_lines=True)
    c1, c2 = st.columns(2)
    c1.download_button(
        t("Download context", lang),
        result.context.encode("utf-8"),
        file_name="context.txt",
        mime="text/plain",
        key=f"{key}_ctx_dl",
        icon=":material/download:",
        on_click="ignore",
    )
    c2.download_button(
        t("Download Retrieval JSON", lang),
        result.to_json().encode("utf-8"),
        file_name="retrieval.json",
        mime="application/json",
        key=f"{key}_json_dl",
        icon=":material/download:",
        on_click="ignore",
    )


def result_tabs(index: Index, result: Retrieval, lang: str, key: str = "main") -> None:
    """Tables per kind, graph, budget, trace and context; a map-reduce mode adds Batches and Points first."""
    counts = tables.counts(result)
    labels = [f"{label(KIND_LABELS, kind, lang)} ({counts[kind][0]})" for kind in KINDS]
    labels += [t("Graph", lang), t("Budget", lang), t("Trace", lang), t("Context", lang)]
    if result.stages is not None:
        staged = result.stages
        kept = sum(1 for p in staged.points if p.in_context)
        labels = [t("Batches", lang) + f" ({len(staged.batches)})", t("Points", lang) + f" ({kept})", *labels]
    tabs = st.tabs(labels, key=f"{key}_tabs", on_change="rerun")
    if result.stages is not None:
        from graphrag_ui.ui import stages_view

        with tabs[0]:
            if tabs[0].open:
                stages_view.batches_view(result, lang, key)
        with tabs[1]:
            if tabs[1].open:
                stages_view.points_view(result, lang, key)
        tabs = tabs[2:]
    for tab, kind in zip(tabs[:4], KINDS, strict=True):
        with tab:
            if tab.open:
                kind_table(result, kind, lang, key)
    with tabs[4]:
        if tabs[4].open:
            graph_panel(index, result, lang, key)
    with tabs[5]:
        if tabs[5].open:
            budget_chart(result, lang)
    with tabs[6]:
        if tabs[6].open:
            trace = tables.trace_frame(result)
            slowest = float(trace["ms"].max()) if not trace.empty else 1.0
            st.dataframe(
                trace,
                hide_index=True,
                width="stretch",
                column_config={
                    "step": t("step", lang),
                    "in": t("in", lang),
                    "out": t("out", lang),
                    "ms": st.column_config.ProgressColumn(
                        t("ms", lang), min_value=0.0, max_value=slowest, format="%.2f"
                    ),
                    "detail": st.column_config.TextColumn(t("detail", lang), width="large"),
                },
            )
            st.caption(timings_line(result.timings_ms, lang))
            if result.stages is not None:
                from graphrag_ui.ui.stages_view import calls_view

                calls_view(result, lang, key)
    with tabs[7]:
        if tabs[7].open:
            if result.stages is not None:
                from graphrag_ui.ui.stages_view import reduce_context_view

                reduce_context_view(result, lang, key)
            context_panel(result, lang, key, show_text=result.stages is None)
