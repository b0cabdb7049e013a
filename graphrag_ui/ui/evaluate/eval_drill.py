"""One question of an evaluation, item by item: where each gold item came into the context, why each
missed one did not, and the smallest single-parameter change of the sweep that brings it in.

A missed item's fix is one click: **Open in Explore** sets Explore's question, mode, release and the
parameter to the fix's value, opens the view of the item's kind, and names the question and item in
the URL (``gold_q``, ``gold_item``), so Explore marks the item's row (``gold_view``).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitAPIException

from graphrag_ui.base.i18n import msg
from graphrag_ui.evaluation.gold import Question
from graphrag_ui.evaluation.metrics import ItemResult, RowMetrics
from graphrag_ui.evaluation.plan import Config
from graphrag_ui.evaluation.runner import EvalRun
from graphrag_ui.evaluation.stats import Fix, smallest_fix
from graphrag_ui.retrieval.registry import get_mode
from graphrag_ui.retrieval.spec.schema import VERSION_PARAM
from graphrag_ui.ui.results.kind_table import TALL_ROW
from graphrag_ui.ui.shell.labels import KIND_LABELS, label
from graphrag_ui.ui.shell.language import t, translate
from graphrag_ui.ui.widgets import question as shared_question
from graphrag_ui.ui.widgets import url_choice
from graphrag_ui.ui.widgets.params import url_form, widget_key

ITEM_KINDS = {
    "evidence": msg("evidence"),
    "doc": msg("document"),
    "chunk": msg("chunk"),
    "entity": msg("entity"),
}
VIEW_OF = {"evidence": "chunks", "doc": "chunks", "chunk": "chunks", "entity": "entities"}  # Explore's view
SHOWN_FIXES = 40  # buttons of one question × setting (a gold list is at most a few dozen items)
PREVIEW = 160
OWN_KEYS = ("view", "gold_q", "gold_item")  # Explore's link keys no widget is bound to


def _short(text: str) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= PREVIEW else flat[: PREVIEW - 1] + "…"


def item_rows(row: RowMetrics, fixes: dict[int, Fix | None]) -> pd.DataFrame:
    """One row per gold item: kind, text, in or not, where it came in, why it was missed, its fix."""
    out = []
    for n, item in enumerate(row.items):
        fix = fixes.get(n)
        out.append(
            {
                "n": n + 1,
                "kind": translate(ITEM_KINDS.get(item.item.kind, item.item.kind)),
                "item": _short(item.item.value),
                "found": "✓" if item.found else "✗",
                "where": _where(item),
                "why": "" if item.missed is None else translate(item.missed.reason_text),
                "detail": "" if item.missed is None else translate(item.missed.detail),
                "fix": "" if fix is None else setting_change(fix),
                "cost": None if fix is None else fix.token_cost,
            }
        )
    return pd.DataFrame(out)


def _where(item: ItemResult) -> str:
    parts = []
    for p in item.where[:3]:
        kind = label(KIND_LABELS, p.kind) if p.kind in KIND_LABELS else t("context")
        parts.append(f"{kind} #{p.position}: {_short(p.label)}" if p.position else f"{kind}: {translate(p.label)}")
    return " · ".join(parts)


def setting_change(fix: Fix) -> str:
    return f"{fix.at.param}: {fix.at.value} → {fix.to.value}"


def fixes_of(run: EvalRun, row: RowMetrics) -> dict[int, Fix | None]:
    """Item number -> the smallest fix of each missed item (None: no step of the sweep brings it in)."""
    return {n: smallest_fix(run, row.question_id, r.item, row.config) for n, r in enumerate(row.items) if not r.found}


def drill_down(run: EvalRun, questions: list[Question]) -> None:
    """Pick a question and a setting; the gold items with where / why / fix, and a button per fix."""
    asked = {q.id: q for q in questions}
    ids = [q.id for q in questions if any(r.question_id == q.id for r in run.rows)]
    if not ids:
        st.info(t("No question was evaluated."))
        return
    url_choice.seed("ev_q", ids, _first_missed(run, ids))
    keys = [c.key for c in run.configs if run.rows_of(c)]
    url_choice.seed("ev_cfg", keys, keys[0])
    c1, c2 = st.columns([3, 2])
    qid = c1.selectbox(
        t("Question"),
        ids,
        key="ev_q",
        format_func=lambda i: f"{i} · {_short(asked[i].question)}",
        placeholder=t("Choose an option"),
    )
    key = c2.selectbox(t("Setting"), keys, key="ev_cfg", placeholder=t("Choose an option"))
    url_choice.sync("ev_q", qid)
    url_choice.sync("ev_cfg", key)
    config = next(c for c in run.configs if c.key == key)
    row = next((r for r in run.rows_of(config) if r.question_id == qid), None)
    if row is None:
        st.info(t("This setting has no result for this question (see the errors above)."))
        return
    q = asked[qid]
    st.text(q.question)  # the set's text is data: shown as plain text
    if not row.items:
        st.info(t("This question has no gold item."))
        return
    recall = row.evidence_recall or 0.0
    st.caption(
        t(
            "{found} of {n} gold items in the context (recall {recall}) · {tokens} context tokens",
            found=sum(r.found for r in row.items),
            n=len(row.items),
            recall=f"{recall:.2f}",
            tokens=f"{row.context_tokens:,}",
        )
    )
    fixes = fixes_of(run, row)
    st.dataframe(
        item_rows(row, fixes),
        hide_index=True,
        width="stretch",
        key="ev_items",
        row_height=TALL_ROW,  # three wrapped lines: a fact, where it came in, the mode's reason
        column_config={
            "n": st.column_config.NumberColumn("#", width=40),
            "kind": st.column_config.TextColumn(t("kind"), width=84),
            "item": st.column_config.TextColumn(t("gold item"), width="medium"),
            "found": st.column_config.TextColumn(t("in"), width=40),
            "where": st.column_config.TextColumn(t("where it came in"), width="medium"),
            "why": st.column_config.TextColumn(t("why missed"), width="small"),
            "detail": st.column_config.TextColumn(t("the mode's reason"), width="medium"),
            "fix": st.column_config.TextColumn(
                t("smallest fix"), help=t("the nearest value of the swept parameter that brings it in")
            ),
            "cost": st.column_config.NumberColumn(
                t("token cost"), help=t("context tokens the fix adds (negative: saves)"), format="%+d"
            ),
        },
    )
    _fix_buttons(run, row, q, fixes)


def _first_missed(run: EvalRun, ids: list[str]) -> str:
    """The first question with a missed item under some setting (else the first question)."""
    return next((r.question_id for r in run.rows if r.missed and r.question_id in ids), ids[0])


def _fix_buttons(run: EvalRun, row: RowMetrics, q: Question, fixes: dict[int, Fix | None]) -> None:
    shown = [(n, fix) for n, fix in fixes.items() if fix is not None][:SHOWN_FIXES]
    none = [n for n, fix in fixes.items() if fix is None]
    if none:
        st.caption(
            t(
                "No step of the sweep brings in item(s) {items}: widen the range or try another parameter.",
                items=", ".join(f"#{n + 1}" for n in none),
            )
        )
    for n, fix in shown:
        text = t(
            "Open #{n} in Explore at {param}={value} ({cost} tokens)",
            n=n + 1,
            param=fix.to.param,  # a name of the mode's schema and a number: no markup can come from them
            value=fix.to.value,
            cost=f"{fix.token_cost:+,}",
        )
        if st.button(text, key=f"ev_fix_{n}", icon=":material/open_in_new:"):
            view = view_at(run, q.id, row.items[n], fix.to)
            query = open_in_explore(q, n, fix.to, view)
            try:
                st.switch_page("pages/explore.py", query_params=query)
            except StreamlitAPIException:  # Explore drew its widgets earlier in this session: they own their keys
                st.switch_page("pages/explore.py", query_params={k: query[k] for k in OWN_KEYS})


def view_at(run: EvalRun, qid: str, item: ItemResult, to: Config) -> str:
    """Explore's view that shows where ``item`` comes in at setting ``to`` (its first placement's kind)."""
    there = next((r for r in run.rows_of(to) if r.question_id == qid), None)
    found = next((r for r in there.items if r.item == item.item and r.found), None) if there else None
    if found is not None and found.where:
        return found.where[0].kind if found.where[0].kind in KIND_LABELS else "context"
    return VIEW_OF.get(item.item.kind, "chunks")


def _widget_keys(to: Config) -> tuple[str | None, str | None]:
    """Explore's widget keys of ``to``'s release and swept parameter (None: the mode has none)."""
    spec = get_mode(to.mode)
    version_key = None
    if to.version and spec.versions:
        spec = spec.for_version(to.version)
        version_key = f"{spec.family}_{VERSION_PARAM}"
    params = {p.name: p for p in spec.params}
    return version_key, (widget_key(spec, params[to.param]) if to.param in params else None)


def open_in_explore(q: Question, n: int, to: Config, view: str) -> dict[str, str]:
    """Set Explore's widgets for the fix and return Explore's URL query that says the same: the question,
    mode, release, value and view, and the question and item the gold marks follow. (The index and the
    language stay as they are: the frame's widgets hold them, and a link may not set a drawn widget's key.)"""
    state = st.session_state
    query = {"mode": to.mode, "q": q.question}
    version_key, param_key = _widget_keys(to)
    if version_key:
        query[version_key] = to.version
    if param_key:
        query[param_key] = url_form(to.value)
    for key, value in query.items():
        state[key] = to.value if key == param_key else value
    state[shared_question.SHARED] = q.question  # the question follows across pages (question.follow)
    state["main_show"] = view
    return {**query, "view": view, "gold_q": q.id, "gold_item": str(n + 1)}
