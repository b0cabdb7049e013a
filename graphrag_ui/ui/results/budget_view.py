"""The token budget of a retrieval: per section, what it used, its headroom and its limit."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from graphrag_ui.retrieval.core.result import SECTIONS, Retrieval
from graphrag_ui.ui.results import derived, tables
from graphrag_ui.ui.shell.language import t, translate


def headroom_of(frame: pd.DataFrame) -> tuple[int, int | None, pd.DataFrame]:
    """(tokens in the context, headroom, the sections with a limit): under the total's limit when the mode
    has one, else the sum of each limited section's own headroom (an unlimited section takes none)."""
    is_total = frame["section"] == translate(SECTIONS["total"])
    parts = frame[~is_total]
    limited = parts[parts["limit"].notna() & (parts["limit"] > 0)]
    if is_total.any():
        used, limit = int(frame[is_total]["used"].iloc[0]), frame[is_total]["limit"].iloc[0]
        return used, None if pd.isna(limit) else max(int(limit) - used, 0), limited
    used = int(parts["used"].sum())
    if limited.empty:
        return used, None, limited
    return used, int((limited["limit"] - limited["used"]).clip(lower=0).sum()), limited


def limits_list(result: Retrieval) -> None:
    """Which limits bound each section (●) and which did not (○), as ``binding.limits`` reads the run; one
    element, a line per limit (a view click redraws this view: each element is the browser's work)."""
    found = derived.limits(result)
    if found:
        lines = [t("Limits of this run (● binding, ○ not binding):")]
        for lim in found:
            text = translate(lim.text)  # our section and parameter names and numbers: no index text
            lines.append(t("● {limit}", limit=text) if lim.binding else t("○ {limit}", limit=text))
        st.caption("  \n".join(lines))


def budget_chart(result: Retrieval, before: Retrieval | None = None) -> None:
    """Per section: used (solid) then headroom (grey) up to its limit; with ``before``, each section's tokens
    in the run compared with beside the table's current ones."""
    frame = tables.budget_frame(result, before)
    if frame.empty:
        st.info(t("Nothing in this section."))
        return
    for column in ("limit", "before"):  # a section without a limit (or absent before) is empty, never "None"
        if column in frame:
            frame[column] = pd.to_numeric(frame[column], errors="coerce").astype("Int64")
    used, headroom, limited = headroom_of(frame)
    full = int((limited["headroom"] <= limited["limit"] * 0.02).sum())
    c1, c2, c3 = st.columns(3)
    c1.metric(t("Tokens in the context"), f"{used:,}")
    c2.metric(t("Headroom under the limits"), "—" if headroom is None else f"{headroom:,}")
    c3.metric(t("Sections at their limit"), f"{full} / {len(limited)}")
    limits_list(result)
    parts = frame[frame["section"] != translate(SECTIONS["total"])]
    long = parts.melt(id_vars=["section"], value_vars=["used", "headroom"], var_name="part", value_name="tokens")
    long["order"] = (long["part"] == "headroom").astype(int)
    long["part"] = long["part"].map({"used": t("used"), "headroom": t("headroom")})
    st.vega_lite_chart(long, _chart_spec(list(parts["section"])), width="stretch")
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        column_config={
            "section": t("section"),
            "used": t("used"),
            "headroom": t("headroom"),
            "limit": st.column_config.NumberColumn(t("budget"), help=t("empty: the section has no limit of its own")),
            "before": st.column_config.NumberColumn(
                t("before"), help=t("tokens of the section in the run compared with")
            ),
        },
    )


def _chart_spec(sections: list[str]) -> dict:
    """The stacked bars as a Vega-Lite spec written out: building it through altair validated the whole
    schema on every view click (~15 ms of the server's run), for a chart whose shape never changes."""
    used, headroom = t("used"), t("headroom")
    return {
        "mark": {"type": "bar"},
        "height": {"step": 26},
        "encoding": {
            "y": {
                "field": "section",
                "type": "nominal",
                "sort": sections,
                "title": None,
                "axis": {"labelOverlap": False, "labelLimit": 0},
            },
            "x": {"field": "tokens", "type": "quantitative", "stack": "zero", "title": t("tokens")},
            "color": {
                "field": "part",
                "type": "nominal",
                "scale": {"domain": [used, headroom], "range": ["#4e79a7", "#d9dde3"]},
                "legend": {"orient": "bottom", "title": None},
            },
            "order": {"field": "order", "type": "quantitative"},
            "tooltip": [
                {"field": "section", "type": "nominal", "title": t("section")},
                {"field": "part", "type": "nominal", "title": t("kind")},
                {"field": "tokens", "type": "quantitative", "title": t("tokens")},
            ],
        },
    }
