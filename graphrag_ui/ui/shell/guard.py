"""No traceback ever reaches the page: unexpected errors become one line saying what to do.

Streamlit's own control flow (st.stop, st.rerun, st.switch_page) raises BaseException subclasses,
which pass through untouched. The full traceback goes to the server log for whoever runs the app.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.redact import redact
from graphrag_ui.ui.shell.escape import md_escape, shown_error
from graphrag_ui.ui.shell.language import t

log = logging.getLogger("graphrag_ui.ui")


def message(exc: Exception) -> str:
    """One line for the user: our own errors already say what/where/fix; others get a generic fix."""
    if isinstance(exc, UserError):
        return shown_error(exc)
    first = (redact(str(exc)).strip().splitlines() or [""])[0][:200]
    what = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return t(
        "Something went wrong while drawing this page ({what}). Try again or change the last "
        "setting; if it persists, pick another index and report the server log.",
        what=md_escape(what),
    )


def run_guarded(body: Callable[[], None]) -> None:
    """Run ``body``; any ordinary exception is logged and shown as one st.error line."""
    try:
        body()
    except Exception as exc:  # noqa: BLE001 - this is the last line of defence for the page
        log.exception("page failed")
        st.error(message(exc), icon=":material/error:")


def guarded(body: Callable[..., None]) -> Callable[..., None]:
    """``body`` under ``run_guarded``, for a fragment: Streamlit catches a fragment's exception itself and
    draws it with its traceback before the page's guard could see it (``@st.fragment`` over ``@guarded``)."""

    @functools.wraps(body)
    def run(*args, **kwargs) -> None:
        run_guarded(lambda: body(*args, **kwargs))

    return run
