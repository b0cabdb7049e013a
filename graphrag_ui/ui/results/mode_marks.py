"""Explore marks the modes that cannot run on the open index, and says why.

The readiness table (``graphrag_ui.services.readiness``, the same one the import report prints) is worked
out once per opened index: a mode that cannot run (its embedder unknown, no communities, chunks
without text) is listed under the picker, and choosing it shows the reasons and the way out (the Index
page's Re-embed tab) instead of an error with command-line advice.
"""

from __future__ import annotations

import streamlit as st

from graphrag_ui.index.model import Index
from graphrag_ui.services.readiness import CANNOT, READY, ModeReadiness, kept_readiness
from graphrag_ui.ui.shell.language import t, translate


def marks_of(index: Index) -> dict[str, ModeReadiness]:
    """mode -> its readiness on ``index`` (worked out once per opened index: ``kept_readiness``)."""
    return {row.mode: row for row in kept_readiness(index)[1]}


def picker_note(marks: dict[str, ModeReadiness]) -> None:
    """Under the mode picker: the modes that cannot run on this index (their names stay the picker's
    options: a link binds the mode by the text the picker shows, so a label cannot carry the mark)."""
    blocked = [mode for mode, row in marks.items() if row.status == CANNOT]
    if blocked:
        st.caption(t("Cannot run on this index: {modes} (choose one to see why).", modes=", ".join(blocked)))


def explain_cannot_run(mode: str, marks: dict[str, ModeReadiness]) -> bool:
    """When ``mode`` cannot run on this index: its reasons and, when re-embedding helps, the way to the
    Re-embed tab. True when the caller should not run it."""
    row = marks.get(mode)
    if row is None or row.status != CANNOT:
        return False
    st.warning(
        t("{mode} cannot run on this index:", mode=mode)
        + "\n\n"
        + "\n".join(f"- {translate(reason)}" for reason in row.reasons),
        icon=":material/block:",
    )
    if row.reembed_helps:
        st.page_link("pages/index.py", label=t("Open the Index page (Re-embed tab)"), icon=":material/sync:")
    return True


def has_known_cause(mode: str, marks: dict[str, ModeReadiness]) -> bool:
    """The index itself limits ``mode`` (gaps): an empty result is then explained by its notes, not the threshold."""
    row = marks.get(mode)
    return row is not None and row.status != READY
