"""What the last move did: each result is compared with the previous run of the same question (or with
a run the analyst pinned), summed up in one line above the results, and marked in tables and graph.

A page keeps, per result area (``key``), the last run it showed and the one before it, in the session.
A run is identified by what produced it (index, mode, question, parameters, keywords): a rerun that
changed none of them (a tab click, a sort, the answer streaming) does not count as a move. A new
question starts over: items of another question are not "what changed".
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import streamlit as st

from graphrag_ui.retrieval.core.change import Change, diff, summary
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.ui.results import derived
from graphrag_ui.ui.results.tables import Marks
from graphrag_ui.ui.shell.escape import md_escape
from graphrag_ui.ui.shell.language import t, translate


@dataclass
class Comparison:
    """The run the current result is compared with, and what moved between them."""

    base: Retrieval
    pinned: bool
    change: Change
    marks: Marks


def _identity(index_key: str, result: Retrieval) -> str:
    parts = [index_key, result.mode, result.query, result.params, result.keywords.hl, result.keywords.ll]
    return hashlib.sha1(json.dumps(parts, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def remember(result: Retrieval, index_key: str, key: str) -> Comparison | None:
    """Record ``result`` as this area's latest run; return what it is compared with (None: nothing yet)."""
    runs = st.session_state.setdefault(f"{key}_runs", {})
    ident = _identity(index_key, result)
    last = runs.get("last")
    if last is not None and last[0] != ident:
        before = last[1]
        same_question = before.query == result.query and runs.get("index") == index_key
        runs["previous"] = before if same_question else None
        if not same_question:
            runs["pinned"] = None
    runs["last"], runs["index"] = (ident, result), index_key
    base, pinned = runs.get("pinned"), True
    if base is None:
        base, pinned = runs.get("previous"), False
    if base is None:
        return None
    change = derived.against(result, base, lambda r: diff(base, r), "change")  # a view switch: the same pair
    return Comparison(base, pinned, change, derived.against(result, base, lambda r: Marks.between(base, r), "marks"))


def pin(key: str, result: Retrieval | None) -> None:
    """Fix ``result`` as the baseline every later run of this area is compared with (None: unpin)."""
    st.session_state.setdefault(f"{key}_runs", {})["pinned"] = result


def _params_text(result: Retrieval) -> str:
    return " · ".join(f"{k}={v}" for k, v in sorted(result.params.items()) if k != "version")


def change_bar(result: Retrieval, comparison: Comparison | None, key: str) -> None:
    """The one-line summary of the move, and the pin that fixes (or releases) the baseline."""
    # one row, one block (columns were three, and every block is redrawn on every move)
    with st.container(horizontal=True, vertical_alignment="center", gap="medium"):
        if comparison is None:
            st.caption(t("Move a slider: what enters and leaves the context is shown here."))
        else:
            head = (
                t("Against the pinned run ({params})", params=_params_text(comparison.base))
                if comparison.pinned
                else t("Since the previous run")
            )
            # one element, two paragraphs (each one fewer for the browser to redraw on every move)
            st.markdown(f":small[:gray[{_md(head)}]]\n\n{_md(translate(summary(comparison.change)))}", width="stretch")
        if comparison is not None and comparison.pinned:
            if st.button(t("Unpin"), key=f"{key}_unpin", icon=":material/keep_off:", help=_pin_help()):
                pin(key, None)
                st.rerun()
        elif st.button(t("Pin"), key=f"{key}_pin", icon=":material/keep:", help=_pin_help()):
            pin(key, result)
            st.rerun()


def _pin_help() -> str:
    return t(
        "Pin this run as the baseline: every later move is then compared with it instead of with the "
        "previous run. Unpin to compare with the previous run again.",
    )


def _md(text: str) -> str:
    return md_escape(text)
