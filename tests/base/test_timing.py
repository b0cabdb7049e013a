"""One stopwatch (``base/timing``) measures every duration the package reports."""

from __future__ import annotations

import re
from pathlib import Path

from graphrag_ui.base.timing import elapsed_ms, elapsed_s, now
from graphrag_ui.retrieval.lightrag.explain import Clock

PACKAGE = Path(__file__).resolve().parents[2] / "graphrag_ui"


def test_durations_from_a_mark():
    mark = now()
    ms = elapsed_ms(mark - 0.5)
    assert 500 <= ms < 5_000 and ms == round(ms, 3)  # to the microsecond, as traces show them
    assert 2.0 <= elapsed_s(mark - 2.0) < 20.0
    assert now() >= mark


def test_lightrag_clock_adds_a_step_done_in_two_parts():
    clock = Clock()
    clock._t -= 0.2  # 200 ms spent on the first part
    clock.lap("token control", "first", 1, 1)
    clock._t -= 0.1
    clock.lap("token control", "second", 2, 1)
    (step,) = clock.trace()
    assert 300 <= step.ms < 3_000 and (step.n_in, step.n_out) == (3, 2)


def test_no_other_clock_measures_a_duration():
    found = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if re.search(r"\b(perf_counter|monotonic)\b", path.read_text(encoding="utf-8"))
    }
    assert found == {"base/timing.py"}
