"""Every suggested question of the samples gives a non-empty context in every registered mode at its defaults.

New modes are registered while the app grows, so this iterates ``mode_names()``; a map-reduce mode
counts as non-empty when it has map batches to run (its context is built from their answers).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.retrieval.core.result import KINDS, Retrieval
from graphrag_ui.retrieval.registry import mode_names
from graphrag_ui.services.query import run_query
from graphrag_ui.ui.shell.state import SAMPLES, suggested_questions

GENERAL = ("most important", "matter most", "影响最大", "最重要")
NO_RETRIEVAL = {"lightrag.bypass"}  # sends the bare question to the model by design: it has no context to fill


def _non_empty(result: Retrieval) -> bool:
    if result.stages is not None:
        return bool(result.stages.batches)
    return any(c.in_context for kind in KINDS for c in result.candidates(kind)) and bool(result.context.strip())


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_every_suggested_question_fills_the_context_in_every_mode(sample, monkeypatch):
    for var in ("GRAPHRAG_UI_LLM_MODEL", "GRAPHRAG_UI_LLM_API_BASE"):
        monkeypatch.delenv(var, raising=False)
    index = store.load(Path(SAMPLES[sample]) / "index")
    questions = suggested_questions(sample)
    assert sum(any(word in q for word in GENERAL) for q in questions) >= 3, "three general questions"
    modes = [mode for mode in mode_names() if mode not in NO_RETRIEVAL]
    empty = [(q, mode) for q in questions for mode in modes if not _non_empty(run_query(index, mode, q, {}))]
    assert not empty, empty
