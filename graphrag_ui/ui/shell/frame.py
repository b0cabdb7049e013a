"""The app's frame: page config, sidebar (language, index picker) and navigation around every page.

Every page runs inside ``run_guarded``: an unexpected error becomes one st.error line, never a
traceback on the page.
"""

from __future__ import annotations

import streamlit as st

from graphrag_ui.ui.shell import activity, legacy_pages, state
from graphrag_ui.ui.shell.guard import run_guarded
from graphrag_ui.ui.shell.labels import PAGE_TITLES, label

# every page: its file under pages/, url path and title key are its name; the first is the start page
PAGES = {
    "explore": ":material/search:",
    "compare": ":material/compare_arrows:",
    "evaluate": ":material/fact_check:",
    "recall": ":material/target:",
    "graph": ":material/hub:",
    "index": ":material/database:",
    "settings": ":material/settings:",
}


def app_pages() -> list:
    """Every page at ``/<its name>`` (``pages/graph.py`` is ``/graph``), the first also at ``/``.

    Streamlit serves the default page at ``/`` only, so the first page is listed twice: the visible
    default (its url path only names it internally) and a hidden twin at its own url path, so that
    a link to ``/explore`` opens Explore too. The legacy-mode handover (legacy_pages.py) also relies
    on every url path being the file name.
    """

    def page(name: str, **how) -> st.Page:
        return st.Page(f"pages/{name}.py", title=label(PAGE_TITLES, name), **how)

    first, *rest = PAGES
    return [
        page(first, icon=PAGES[first], url_path="start", default=True),
        page(first, url_path=first, visibility="hidden"),
        *(page(name, icon=PAGES[name], url_path=name) for name in rest),
    ]


# Streamlit's wide layout keeps 5rem on each side and 6rem above: at 1280×800 that is 160 px of a
# 980 px page, taken from the tables' reasons. A fixed style of ours (no index text in it).
PAGE_STYLE = (
    "<style>"
    '[data-testid="stMainBlockContainer"] {padding-left: 1.5rem; padding-right: 1.5rem; padding-top: 2.5rem}'
    "</style>"
)


def run_app() -> None:
    """Draw the frame and run the page the URL asks for inside it (counted in ``activity``)."""
    with activity.page_run():
        st.set_page_config(page_title="GraphRAG Retrieval Explorer", page_icon="🕸️", layout="wide")
        st.html(PAGE_STYLE)
        with legacy_pages.as_main_script():
            index, index_key = state.sidebar_frame()
            st.session_state["_index"] = index
            st.session_state["_index_key"] = index_key
            page = st.navigation(app_pages(), position="sidebar")
        run_guarded(page.run)


def return_to_frame() -> None:
    """If this page runs alone (``legacy_pages``), run the frame (which runs this page inside it) and end the bare run."""
    if not legacy_pages.ran_alone():
        return
    run_app()
    st.stop()
