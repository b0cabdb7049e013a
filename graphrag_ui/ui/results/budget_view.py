"""The token budget of a retrieval: per section, what it used, its headroom and its limit.

One table, its share of each limit drawn as a bar in a column of the table: the Vega-Lite chart it
replaces was not interactive, and on every view click it cost the server ~7 ms (a long-form frame
serialised) and the browser ~18 ms (mounting Vega), for bars a grid column draws as well.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from graphrag_ui.retrieval.core.result import Budget, Retrieval, section_label
from graphrag_ui.ui.results import derived
from graphrag_ui.ui.shell.language import t, translate

FULL = 0.02  # a section with at most this share of its limit left is at its limit


@dataclass(frozen=True)
class Headroom:
    used: int  # tokens in the context
    headroom: int | None  # under the total's limit, else the sum of each limited section's own; None: no limit
    full: int  # limited sections at their limit
    limited: int  # sections with a limit of their own


def headroom_of(budgets: list[Budget]) -> Headroom:
    """Under the total's limit when the mode has one, else the sum of each limited section's own headroom
    (an unlimited section takes none)."""
    total = next((b for b in budgets if b.section == "total"), None)
    parts = [b for b in budgets if b.section != "total"]
    limited = [b for b in parts if b.limit is not None and b.limit > 0]
    full = sum(1 for b in limited if max(b.limit - b.used, 0) <= b.limit * FULL)
    if total is not None:
        left = None if total.limit is None else max(total.limit - total.used, 0)
        return Headroom(total.used, left, full, len(limited))
    left = sum(max(b.limit - b.used, 0) for b in limited) if limited else None
    return Headroom(sum(b.used for b in parts), left, full, len(limited))


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


def budget_table(result: Retrieval, before: Retrieval | None = None) -> pd.DataFrame:
    """Per section (named in the UI language): tokens used, the share of its limit, the headroom left under
    it and the limit (the last three empty where the section has no limit); with ``before``, the tokens the section used in
    the run compared with."""
    budgets = result.budgets
    columns: dict[str, object] = {
        "section": [translate(section_label(b.section)) for b in budgets],
        "used": [b.used for b in budgets],
        "share": [b.used / b.limit if b.limit else None for b in budgets],
        "headroom": pd.array([max(b.limit - b.used, 0) if b.limit is not None else None for b in budgets], "Int64"),
        "limit": pd.array([b.limit for b in budgets], dtype="Int64"),
    }
    if before is not None:
        earlier = {b.section: b.used for b in before.budgets}
        columns["before"] = pd.array([earlier.get(b.section) for b in budgets], dtype="Int64")
    return pd.DataFrame(columns)


def budget_chart(result: Retrieval, before: Retrieval | None = None) -> None:
    """The totals, the limits that bound, and per section its tokens with a bar of its limit's share."""
    if not result.budgets:
        st.info(t("Nothing in this section."))
        return
    room = headroom_of(result.budgets)
    c1, c2, c3 = st.columns(3)
    c1.metric(t("Tokens in the context"), f"{room.used:,}")
    c2.metric(t("Headroom under the limits"), "—" if room.headroom is None else f"{room.headroom:,}")
    c3.metric(t("Sections at their limit"), f"{room.full} / {room.limited}")
    limits_list(result)
    st.dataframe(
        budget_table(result, before),
        hide_index=True,
        width="stretch",
        placeholder="—",  # a section without a limit of its own
        column_config={
            "section": t("section"),
            "used": t("used"),
            "share": st.column_config.ProgressColumn(
                t("of its budget"),
                min_value=0.0,
                max_value=1.0,
                format="percent",
                help=t("the tokens the section used, as a share of its budget; empty: no budget of its own"),
            ),
            "headroom": t("headroom"),
            "limit": st.column_config.NumberColumn(t("budget"), help=t("empty: the section has no limit of its own")),
            "before": st.column_config.NumberColumn(
                t("before"), help=t("tokens of the section in the run compared with")
            ),
        },
    )
