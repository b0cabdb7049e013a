"""Explore's "Retrieving…" spinner only where a retrieval can keep the analyst waiting (runner.waiting_note):
a spinner starts a timer thread on every run, which a few-millisecond retrieval pays for and never shows."""

from __future__ import annotations

from contextlib import nullcontext

import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.ui.shell import runner


@pytest.fixture
def session(monkeypatch) -> dict:
    state: dict = {}
    monkeypatch.setattr(runner.st, "session_state", state)
    return state


def test_the_first_retrieval_of_a_session_has_its_spinner(session):
    assert not isinstance(runner.waiting_note("Retrieving…"), nullcontext)


def test_after_a_fast_retrieval_none_and_after_a_slow_one_again(session, monkeypatch):
    monkeypatch.setattr(runner, "retrieve", lambda *a, **k: "result")
    assert runner.timed_retrieve("index") == "result"
    assert session[runner._LAST_TOOK] < runner.SLOW_S
    assert isinstance(runner.waiting_note("Retrieving…"), nullcontext)

    _clock(monkeypatch, runner.SLOW_S + 0.5)
    runner.timed_retrieve("index")
    assert not isinstance(runner.waiting_note("Retrieving…"), nullcontext)


def test_a_retrieval_that_fails_still_counts_its_time(session, monkeypatch):
    def slow_failure(*args, **kwargs):
        raise UserError("catalog server timed out", where="catalog", fix="start it")

    _clock(monkeypatch, 5.0)
    monkeypatch.setattr(runner, "retrieve", slow_failure)
    with pytest.raises(UserError):
        runner.timed_retrieve("index")
    assert session[runner._LAST_TOOK] == 5.0
    assert not isinstance(runner.waiting_note("Retrieving…"), nullcontext)


def _clock(monkeypatch, took: float) -> None:
    """The package's one stopwatch (``base.timing``) as the runner reads it, saying ``took`` seconds passed."""
    monkeypatch.setattr(runner, "now", lambda: 100.0)
    monkeypatch.setattr(runner, "elapsed_s", lambda start: 100.0 + took - start)
