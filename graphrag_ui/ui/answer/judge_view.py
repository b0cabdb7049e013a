"""The optional judge pass under an answer: its price first, then one verdict per sentence (``llm.judge``)."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.ui.shell.escape import md_escape
from graphrag_ui.ui.shell.language import t, translate

if TYPE_CHECKING:  # the answer's modules (~40 ms): imported where an answer exists, which no first view has
    from graphrag_ui.citations import Trace

VERDICT_MARKS = {"supported": "✓", "partly": "≈", "unsupported": "✗"}
VERDICT_LABELS = {"supported": msg("supported"), "partly": msg("partly"), "unsupported": msg("unsupported")}


def _key(result: Retrieval, trace: Trace) -> str:
    raw = result.mode + "\x00" + result.query + "\x00" + "\x00".join(s.text for s in trace.sentences)
    return "judge_" + hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]


def judge_panel(result: Retrieval, trace: Trace, key: str) -> None:
    """Price of the judge calls, a button that makes them, and the verdicts (kept for this answer)."""
    from graphrag_ui.model_calls import judge
    from graphrag_ui.model_client.settings import LLMSettings

    settings = LLMSettings.from_env_and_secrets()
    with st.expander(t("Check each sentence with the model (judge)")):
        if not settings.configured:
            st.caption(t("The judge needs a language model: configure one on the Settings page."))
            return
        planned = judge.plan(trace, result, settings)
        if not planned.requests:
            st.caption(t("No sentence has rows to check."))
            return
        cost = t("unknown") if planned.cost_usd is None else f"${planned.cost_usd:.5f}"
        st.caption(
            t(
                "{n} calls to {model}, about {tokens} prompt tokens, estimated cost {cost} (answers already in the "
                "cache cost nothing); {skipped} sentences without rows are not sent",
                n=len(planned.requests),
                model=md_escape(settings.model),
                tokens=f"{planned.prompt_tokens:,}",
                cost=cost,
                skipped=planned.skipped,
            )
        )
        store = _key(result, trace)
        if st.button(t("Run the judge"), key=f"{key}_judge"):
            with st.spinner(t("The judge is reading the sentences…")):
                st.session_state[store] = judge.run(planned, settings)
        verdicts = st.session_state.get(store)
        if not verdicts:
            return
        rows = [
            {
                "sentence": v.text,
                "rows": t("cited") if v.basis == "cited" else t("estimated"),
                "verdict": f"{VERDICT_MARKS[v.verdict]} {translate(VERDICT_LABELS[v.verdict])}"
                if v.ok
                else "⚠ " + t("failed"),
                "reason": v.reason if v.ok else translate(v.error),
            }
            for v in verdicts
        ]
        st.dataframe(
            pd.DataFrame(rows),
            hide_index=True,
            width="stretch",
            key=f"{key}_judge_rows",
            column_config={
                "sentence": st.column_config.TextColumn(t("sentence"), width="large"),
                "rows": t("rows shown"),
                "verdict": t("verdict"),
                "reason": st.column_config.TextColumn(t("reason"), width="large"),
            },
        )
