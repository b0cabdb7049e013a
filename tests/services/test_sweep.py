"""What a parameter change does (retrieval.core.change) and a sweep across one parameter (sweep, sweep_cli)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import translate
from graphrag_ui.cli import main
from graphrag_ui.index import store
from graphrag_ui.retrieval.core.change import context_tokens, diff, summary
from graphrag_ui.retrieval.core.result import KINDS
from graphrag_ui.services.query import run_query
from graphrag_ui.services.sweep import parse_values, run_sweep

ROOT = Path(__file__).resolve().parents[2]
EN = ROOT / "data" / "sample" / "en" / "index"
QUESTION = "How did the city respond to the flood?"


@pytest.fixture(scope="module")
def index():
    return store.load(EN)


def test_ranges_read_as_the_parameter_type():
    assert parse_values("int", "5:20:5") == [5, 10, 15, 20]
    assert parse_values("int", "5:22:5") == [5, 10, 15, 20]
    assert parse_values("int", " 3, 1,3 ") == [3, 1]
    assert parse_values("float", "0:0.3:0.1") == [0.0, 0.1, 0.2, 0.3]
    for bad in ("5:1:1", "1:5:0", "a:b:c", "1:5", ",", "1:100000:1"):
        with pytest.raises(UserError):
            parse_values("int", bad)


def test_the_change_names_what_entered_and_left_and_the_tokens(index):
    before = run_query(index, "ms.local", QUESTION, {"top_k_mapped_entities": 2})
    after = run_query(index, "ms.local", QUESTION, {"top_k_mapped_entities": 8})
    change = diff(before, after)
    assert change.params == [("top_k_mapped_entities", 2, 8)]
    for kind in KINDS:
        old, new = set(before.selected_ids(kind)), set(after.selected_ids(kind))
        assert change.entered(kind) == new - old and change.left(kind) == old - new
    assert (change.tokens_before, change.tokens_after) == (context_tokens(before), context_tokens(after))
    line = summary(change)
    entered = len(change.entered("entities"))
    assert line.startswith(f"top_k_mapped_entities 2 → 8: +{entered} entities")
    assert f"tokens {change.tokens_before:,} → {change.tokens_after:,} (" in line
    zh = translate(line, "zh").split("：", 1)[1]  # after the parameter names
    assert "个实体" in zh and "entities" not in zh and "tokens" not in zh


def test_no_change_says_so(index):
    result = run_query(index, "nano.local", QUESTION, {"top_k": 20})
    change = diff(result, result)
    assert not change.moved and summary(change).startswith("the same items; tokens ")


def test_every_step_of_a_sweep_is_the_retrieval_at_that_value(index):
    values = [2, 8, 14, 20]
    sweep = run_sweep(index, "ms.local", QUESTION, {}, "top_k_mapped_entities", values)
    assert sweep.values == values and len(sweep.steps) == 4
    for step in sweep.steps:
        alone = run_query(index, "ms.local", QUESTION, {"top_k_mapped_entities": step.value})
        assert step.ids == {kind: alone.selected_ids(kind) for kind in KINDS}
        assert step.tokens == context_tokens(alone)
    for item in sweep.items:
        assert item.present == [item.id in step.ids[item.kind] for step in sweep.steps]
        assert item.enters is not None and item.present[item.enters]
        if item.leaves is not None:
            assert item.leaves > item.enters and not item.present[item.leaves]
    assert any(it.enters and it.enters > 0 for it in sweep.items) and any(it.leaves for it in sweep.items)


def test_a_keyword_mode_resolves_its_keywords_once(index, monkeypatch):
    import graphrag_ui.services.sweep as sweep_module

    calls = []
    real = sweep_module.resolve_keywords
    monkeypatch.setattr(sweep_module, "resolve_keywords", lambda *a, **k: calls.append(a) or real(*a, **k))
    sweep = run_sweep(index, "lightrag.local", QUESTION, {}, "top_k", [5, 10, 40])
    assert len(calls) == 1 and sweep.keywords.ll
    assert sweep.steps[0].counts["entities"] <= sweep.steps[-1].counts["entities"]


def test_only_numbers_are_swept(index):
    with pytest.raises(UserError, match="no numeric parameter recall"):
        run_sweep(index, "nano.local", QUESTION, {}, "recall", [1])


def test_the_command_writes_csv_and_json(tmp_path, capsys):
    out_csv, out_json = tmp_path / "s.csv", tmp_path / "s.json"
    argv = ["sweep", "--index", str(EN), "--mode", "ms.local", "--param", "top_k_mapped_entities=2:20:6"]
    assert main([*argv, "--csv", str(out_csv), "--json", str(out_json), QUESTION]) == 0
    rows = list(csv.DictReader(io.StringIO(out_csv.read_text(encoding="utf-8"))))
    assert [r["top_k_mapped_entities"] for r in rows] == ["2", "8", "14", "20"]
    assert rows[0]["entered"] == "" and any(r["entered"] for r in rows[1:])
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["param"] == "top_k_mapped_entities" and len(data["steps"]) == 4
    table = capsys.readouterr().out
    assert "enters at" in table and "top_k_mapped_entities over 4 value(s)" in table


def test_the_command_says_what_is_wrong(capsys):
    argv = ["sweep", "--index", str(EN), "--mode", "nano.local"]
    assert main([*argv, "--param", "top_k=5", QUESTION]) == 2
    assert "give exactly one --param with a range" in capsys.readouterr().err
    assert main([*argv, "--param", "recall=1,2", QUESTION]) == 2
    assert "no numeric parameter recall" in capsys.readouterr().err
