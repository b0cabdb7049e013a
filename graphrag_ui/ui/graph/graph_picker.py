"""The Graph page's entity picker: a search box answered on the server and a short ranked list.

The browser only ever gets the few best matches (``graph_search``), never every name, so a
100k-entity index picks as fast as the samples. Typing reruns only this fragment; picking a match
reruns the page, which draws the graph around it. The picked entity is in the URL (``g_entity``).
"""

from __future__ import annotations

import streamlit as st

from graphrag_ui.index.model import Index
from graphrag_ui.ui.graph import graph_search
from graphrag_ui.ui.shell.escape import md_escape
from graphrag_ui.ui.shell.language import t

ENTITY = "g_entity"  # the picked entity (session and URL)
QUERY = "g_q"  # the search box
PICK = "g_pick"  # the list of matches
DRAWN = "_g_drawn"  # the entity the last full run drew
SHOWN = 10


def current_entity(index: Index) -> str | None:
    """The picked entity: this session's pick, else the URL's, else the best connected entity."""
    name = st.session_state.get(ENTITY)
    if name not in index.entity_by_name:
        name = st.query_params.get(ENTITY)
    if name not in index.entity_by_name:
        top, _ = graph_search.search(index, "", 1)
        name = top[0].name if top else None
    st.session_state[ENTITY] = name
    if name is not None and st.query_params.get(ENTITY) != name:
        st.query_params[ENTITY] = name
    return name


def _picked() -> None:
    chosen = st.session_state.get(PICK)
    if chosen:
        st.session_state[ENTITY] = chosen
        st.query_params[ENTITY] = chosen


@st.fragment
def entity_picker(index: Index) -> None:
    """Search box, the current pick and, while searching, the best matches (names and aliases) as one-click
    choices."""
    current = st.session_state.get(ENTITY)
    if current != st.session_state.get(DRAWN):
        st.rerun()  # a match was picked: the whole page draws the graph around it
    query = st.text_input(
        t("Search an entity"),
        key=QUERY,
        type="search",
        live=True,
        placeholder=t("Type part of a name or alias"),
        help=t("Searched on the server among every entity name and alias; the best matches are listed."),
    )
    typed = (query or "").strip()
    matches, found = graph_search.search(index, typed, SHOWN) if typed else ([], len(index.entities))
    shown = {m.name: m for m in matches}
    options = list(dict.fromkeys([*([current] if current else []), *shown]))

    def display(name: str) -> str:
        match = shown.get(name)
        if match is not None and match.alias:
            return md_escape(f"{match.alias} → {name}")
        return md_escape(name)

    st.session_state[PICK] = current
    st.pills(
        t("Entity"),
        options,
        key=PICK,
        format_func=display,
        required=True,
        on_change=_picked,
        label_visibility="collapsed",
    )
    if not typed:
        st.caption(t("Type to search all {n} entity names and aliases.", n=f"{found:,}"))
    elif not matches:
        st.caption(t("No entity name or alias contains “{text}”.", text=md_escape(typed)))
    elif found == 1:
        st.caption(t("One entity matches “{text}” (names and aliases).", text=md_escape(typed)))
    else:
        st.caption(
            t(
                "{n} entities match “{text}” (names and aliases): the best {shown} are listed.",
                n=f"{found:,}",
                text=md_escape(typed),
                shown=len(matches),
            )
        )
