"""Marks that features put on a result's rows (``★ gold``, ``cited``): one hook every grid reads.

A feature registers a *source* for this session (``use``): a function of (result, kind) that gives
candidate id -> mark (a ``msg``). The grids (``kind_table``) show the marks of every source in one
column, in the UI language; a source with nothing for a result adds nothing. Sources are kept per
session (never per process: one analyst's gold set is not another's), so a mark follows the result
onto every page that draws its grids, and the grids need not know which features exist.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd
import streamlit as st

from graphrag_ui.i18n import translate
from graphrag_ui.retrieval.core.result import Retrieval

SOURCES = "_row_mark_sources"  # session key: name -> source
COLUMN = "mark"  # the grids' column (present while some source is registered, so a sort survives reruns)
MarkSource = Callable[[Retrieval, str], Mapping[str, str]]


def use(name: str, source: MarkSource) -> None:
    """Register (or replace) the source ``name`` for this session."""
    st.session_state.setdefault(SOURCES, {})[name] = source


def drop(name: str) -> None:
    st.session_state.get(SOURCES, {}).pop(name, None)


def active() -> bool:
    return bool(st.session_state.get(SOURCES))


def marks(result: Retrieval, kind: str, lang: str = "en") -> dict[str, str]:
    """Candidate id -> every source's mark for it, in ``lang``, joined by `` · ``."""
    out: dict[str, list[str]] = {}
    for source in list(st.session_state.get(SOURCES, {}).values()):
        for cid, mark in source(result, kind).items():
            out.setdefault(cid, []).append(translate(mark, lang))
    return {cid: " · ".join(parts) for cid, parts in out.items()}


def with_marks(frame: pd.DataFrame, result: Retrieval, kind: str, lang: str = "en") -> pd.DataFrame:
    """``frame`` (rows with an ``id`` column) with the ``mark`` column when any source is registered."""
    if not active() or "id" not in frame.columns:
        return frame
    found = marks(result, kind, lang)
    frame = frame.copy()
    frame.insert(0, COLUMN, [found.get(str(cid), "") for cid in frame["id"]])
    return frame
