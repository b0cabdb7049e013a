"""No dead end on a threshold: the empty state names the best score and sets the threshold just below it."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from graphrag_ui.retrieval.registry import get_mode
from graphrag_ui.ui.results.threshold_rescue import just_below, threshold_param
from tests.ui import test_app

ROOT = Path(__file__).resolve().parents[2]
PLAIN = "Who are the most important people and how are they connected?"


def test_just_below_is_strictly_below_on_the_slider_grid():
    assert just_below(0.1739) == 0.17
    assert just_below(0.17) == 0.16
    assert just_below(-0.031) == -0.04


def test_threshold_modes_default_to_the_reference_values():
    assert threshold_param(get_mode("nano.local")).default == 0.2
    assert threshold_param(get_mode("lightrag.naive")).default == 0.2
    assert threshold_param(get_mode("ms.local")) is None


@pytest.mark.parametrize(("mode", "key"), [("nano.local", "nano_query_better_than_threshold")])
def test_one_click_lowers_the_threshold_for_this_view_and_the_url_keeps_it(tmp_path, monkeypatch, mode, key):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    for var in ("GRAPHRAG_UI_LLM_MODEL", "GRAPHRAG_UI_LLM_API_BASE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    at.query_params.update({"index": "sample:en", "mode": mode, "q": PLAIN})
    at.run()
    assert not at.exception
    notice = [i.value for i in at.info if "best candidate scores" in i.value]
    assert notice and "0.174" in notice[0] and "0.2" in notice[0], [i.value for i in at.info]
    button = at.button(key="threshold_rescue")
    assert "0.17" in button.label
    button.click().run()
    assert not at.exception
    assert at.slider(key=key).value == pytest.approx(0.17)
    assert at.query_params[key] in ("0.17", ["0.17"])
    assert not [i.value for i in at.info if "best candidate scores" in i.value]
    assert test_app.tab_counts(at)["Entities"] > 0


def test_compare_offers_the_same_action_per_side(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    for var in ("GRAPHRAG_UI_LLM_MODEL", "GRAPHRAG_UI_LLM_API_BASE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    at.query_params.update({"index": "sample:en", "a_mode": "nano.local", "b_mode": "ms.local", "cq": PLAIN})
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    at.button(key="a_threshold_rescue").click().run()
    assert not at.exception
    assert at.slider(key="a_nano_query_better_than_threshold").value == pytest.approx(0.17)
    assert not [b for b in at.button if b.key == "b_threshold_rescue"]  # ms.local has no threshold
