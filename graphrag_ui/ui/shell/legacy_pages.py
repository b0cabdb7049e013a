"""Keep every page inside the app's frame while Streamlit treats ``pages/`` as a legacy app.

Streamlit 1.67 decides once per server process, when the first session starts, whether the app is
a legacy multipage app: it is one when a ``pages/`` folder sits beside the main script, and it stays
one until some run calls ``st.navigation``. Until then a link such as ``/graph`` runs
``pages/graph.py`` alone (no sidebar, no index picker, no shared state) and runs app.py itself as
a page with its own widget ids. AppTest resets that flag before every run, so there every run
meets it. Our pages live in ``pages/`` (the design's layout), so:

- a page that runs alone runs the frame in its place, in the same run (this run's widget clicks
  included; ``frame.return_to_frame``); the frame's navigation then opens the page the URL asked for;
- the frame draws its widgets under the main script's identity, as in a normal run, so the
  sidebar keeps its values (and its URL binding) from one run to the next.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx


def ran_alone() -> bool:
    """True while Streamlit runs scripts as a legacy ``pages/`` app instead of through the frame."""
    return bool(PagesManager.uses_pages_directory)


@contextlib.contextmanager
def as_main_script() -> Iterator[None]:
    """Give widgets drawn inside the ids they get when app.py runs normally."""
    ctx = get_script_run_ctx()
    if ctx is None or not ran_alone():
        yield
        return
    with ctx.run_with_active_hash(ctx.pages_manager.main_script_hash):
        yield
