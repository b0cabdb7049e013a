"""Progress on stderr fits where it goes: tqdm bars on a terminal, a line per ~10 % in a log."""

from __future__ import annotations

import io

from graphrag_ui.base.progress import StageClock, TextProgress


def _run(progress: TextProgress) -> None:
    progress("save vectors", 0, 66)
    for done in range(1, 67):
        progress("save vectors", done, 66)
    progress("save catalog", 0, 3)
    progress("save catalog", 3, 3)
    progress("save catalog", 3, 3)  # reported twice: one end line


def test_a_log_gets_one_line_per_stage_start_every_tenth_and_end():
    out = io.StringIO()
    _run(TextProgress(out, terminal=False))
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    vectors = [line for line in lines if line.startswith("save vectors")]
    assert vectors[0] == "save vectors: start, 66 to do"
    assert vectors[-1].startswith("save vectors: done 66/66")
    assert 10 <= len(vectors) <= 12, vectors  # start, 10 %, 20 %, … 90 %, end
    assert all("left" in line and "/s" in line for line in vectors[1:-1])
    catalog = [line for line in lines if line.startswith("save catalog")]
    assert catalog == ["save catalog: start, 3 to do", catalog[-1]] and "done 3/3" in catalog[-1]


def test_a_terminal_gets_one_redrawn_tqdm_bar_per_stage_with_counts_and_rate():
    out = io.StringIO()
    _run(TextProgress(out, terminal=True))
    text = out.getvalue()
    assert "\r" in text  # redrawn in place
    final = [part for part in text.split("\r") if "save vectors" in part][-1]
    assert "66/66" in final and "it/s" in final and "100%" in final
    assert text.count("\n") == 2  # each stage's bar ends its own line once


def test_stage_clock_gives_rate_and_time_left():
    now = [0.0]
    clock = StageClock(lambda: now[0])
    assert clock.tick("embed", 0, 100) == ("?/s", "?")
    now[0] = 2.0
    rate, eta = clock.tick("embed", 50, 100)
    assert rate == "25.0/s" and eta == "00:02"
