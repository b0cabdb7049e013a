"""GraphRAG Retrieval Explorer — entry point: the frame (language, index picker, navigation) runs every page."""

from __future__ import annotations

import graphrag_ui  # noqa: F401  (offline environment first)
from graphrag_ui.ui.shell.frame import run_app

run_app()
