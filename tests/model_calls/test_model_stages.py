"""A mode's model stages are typed data on its spec, and only the spec's interface drives them.

Two halves: the rule (outside ``retrieval/`` no source reads a string flag off a mode's spec, branches on a
staged mode's name, or imports a family's stage code) and the wiring (each staged mode runs through the
generic drivers against the local test model server: ``ms.global`` with and without dynamic selection,
``nano.global``, ``ms.drift`` before and after its rounds are asked for, and a test-local mode with
rounds that no caller knows by name).
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.model_calls import map_reduce as mr
from graphrag_ui.model_client.settings import LLMSettings
from graphrag_ui.retrieval import registry
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import DONE, NEEDS_MODEL, Stages
from graphrag_ui.retrieval.ms.global_search.hooks import HOOKS as MS_HOOKS
from graphrag_ui.retrieval.nano.map_reduce import HOOKS as NANO_HOOKS
from graphrag_ui.retrieval.registry import get_mode, mode_names
from graphrag_ui.retrieval.spec.model_stages import CallRequest, ModelRounds, ModelStages
from graphrag_ui.retrieval.spec.schema import ModeSpec
from graphrag_ui.services.query import run_query
from tests.conftest import SAMPLES
from tests.test_architecture import GRAPH

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "What are the main themes of these documents?"
FLAGS = {"drift_loop", "dynamic_selection", "map_reduce"}  # the string flags specs once carried


# --- the rule --------------------------------------------------------------------------------------


def _outside_retrieval() -> list[Path]:
    package = ROOT / "graphrag_ui"
    files = [p for p in package.rglob("*.py") if "retrieval" not in p.relative_to(package).parts[:1]]
    return [*files, *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]


def _spec_like(node: ast.AST) -> bool:
    """A mode's spec as callers reach it: ``get_mode(...)``, ``spec``, ``self.spec``, ``mode_spec``."""
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name | ast.Attribute) and ast.unparse(node.func).endswith("get_mode")
    if isinstance(node, ast.Name | ast.Attribute):
        return ast.unparse(node).split(".")[-1].endswith("spec")
    return False


def faults(source: str, staged: set[str]) -> list[str]:
    """Flag reads of ``.extra`` on a mode's spec, the old flags as strings, and comparisons with a staged
    mode's name (a branch on the name instead of on the spec's ``stages``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "extra" and _spec_like(node.value):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Constant) and node.value in FLAGS:
            found.append(f"line {node.lineno}: flag {node.value!r}")
        elif isinstance(node, ast.Compare):
            names = [c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and c.value in staged]
            if names:
                found.append(f"line {node.lineno}: compares with {names}")
    return found


def _staged() -> set[str]:
    return {m for m in mode_names() if get_mode(m).stages is not None}


def test_no_caller_reads_a_flag_or_branches_on_a_staged_mode():
    staged = _staged()
    wrong = {
        str(path.relative_to(ROOT)): hits
        for path in _outside_retrieval()
        if (hits := faults(path.read_text(encoding="utf-8"), staged))
    }
    assert wrong == {}


def test_the_rule_catches_each_kind_of_fault():
    staged = _staged()
    assert staged == {"ms.global", "nano.global", "ms.drift"}
    planted = (
        "if get_mode(result.mode).extra.get('drift_loop'):\n    pass\n"
        "x = spec.extra['map_reduce']\n"
        "if mode in ('nano.global', 'ms.global'):\n    pass\n"
    )
    assert len(faults(planted, staged)) == 5  # two attribute reads, two flags, one comparison
    assert faults("if spec.stages is not None and spec.stages.wide_answer:\n    pass\n", staged) == []
    assert faults("out.extra = dict(scores)\ncommunity.extra.get('rank')\n", staged) == []  # rows, not specs


def test_stage_code_lives_with_its_family():
    """Nothing outside ``retrieval/`` imports a family's modules: prompts, reply readers, the rating rounds
    and DRIFT's rounds are reached only through ``ModeSpec.stages``."""
    families = ("graphrag_ui.retrieval.ms", "graphrag_ui.retrieval.nano", "graphrag_ui.retrieval.lightrag")
    outside = {m: t for m, t in GRAPH.items() if not m.startswith("graphrag_ui.retrieval")}
    assert [f"{m} imports {t}" for m, ts in outside.items() for t in ts if t.startswith(families)] == []
    assert any(t.startswith(families) for t in GRAPH["graphrag_ui.retrieval.registry"])  # the check sees them


def test_every_spec_declares_its_stages_typed():
    assert "extra" not in {f.name for f in dataclasses.fields(ModeSpec)}
    for mode in mode_names():
        stages = get_mode(mode).stages
        assert stages is None or isinstance(stages, ModelStages), mode
        if stages is not None:
            assert stages.rounds is not None or stages.map_reduce is not None, mode
            assert stages.rounds is None or isinstance(stages.rounds, ModelRounds), mode
    ms_global, nano_global, drift = (get_mode(m).stages for m in ("ms.global", "nano.global", "ms.drift"))
    assert ms_global.map_reduce is MS_HOOKS and nano_global.map_reduce is NANO_HOOKS and drift.map_reduce is None
    assert ms_global.rounds.applies({"dynamic_community_selection": True})
    assert not ms_global.rounds.applies({"dynamic_community_selection": False})
    assert nano_global.rounds is None and not ms_global.rounds.on_request
    assert drift.rounds.on_request and drift.wide_answer and not ms_global.wide_answer


# --- the wiring ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample():
    return store.load(SAMPLES / "en" / "index")


@pytest.fixture()
def model(serve, monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path))  # the answer cache of this test alone
    url, script = serve()
    return LLMSettings(model="openai/gpt-4o-mini", api_base=url, timeout=30), script


def _chats(script) -> int:
    return sum(1 for r in script.requests if r["path"].endswith("/chat/completions"))


def test_ms_global_with_dynamic_selection_rates_then_maps(sample, model):
    settings, script = model
    result = run_query(sample, "ms.global", QUESTION, {"dynamic_community_selection": True}, llm_settings=settings)
    rated = [c for c in result.stages.calls if c.stage == "rate"]
    assert rated and all(c.ok for c in rated) and result.stages.ratings
    assert _chats(script) == len(rated)
    kept = {r.community_id for r in result.stages.ratings if r.kept}
    assert {c for b in result.stages.batches for c in b.community_ids} <= kept
    out, reply = mr.run_map_reduce(result, settings, final_answer=False)
    assert out.stages.status == DONE and reply is None
    assert [c.stage for c in out.stages.calls].count("map") == len(out.stages.batches)


def test_ms_global_without_dynamic_selection_asks_nothing_while_it_retrieves(sample, model):
    settings, script = model
    result = run_query(sample, "ms.global", QUESTION, {}, llm_settings=settings, model_stages=True)
    assert result.stages.status == NEEDS_MODEL and result.stages.calls == [] and _chats(script) == 0
    out, _ = mr.run_map_reduce(result, settings, final_answer=False)
    assert out.stages.status == DONE and out.stages.reduce_context


def test_nano_global_maps_through_its_declared_hooks(sample, model):
    settings, script = model
    result = run_query(sample, "nano.global", QUESTION, {}, llm_settings=settings, model_stages=True)
    assert result.stages.status == NEEDS_MODEL and _chats(script) == 0
    assert mr.hooks_of("nano.global") is NANO_HOOKS
    out, reply = mr.run_map_reduce(result, settings)
    assert out.stages.status == DONE and reply is not None and not reply.error and reply.text
    assert _chats(script) == len(out.stages.batches) + 1  # the maps, then the reduce


def test_ms_drift_rounds_run_only_when_asked(sample, model):
    settings, script = model
    params = {"drift_k_followups": 4, "primer_folds": 2, "n_depth": 1}
    stages = get_mode("ms.drift").stages
    start = run_query(sample, "ms.drift", QUESTION, params, llm_settings=settings)
    assert start.tree is None and stages.waits_for_request(start) and _chats(script) == 0
    seen: list[str] = []
    ran = run_query(
        sample,
        "ms.drift",
        QUESTION,
        params,
        llm_settings=settings,
        model_stages=True,
        on_progress=lambda what, done, total: seen.append(what),
    )
    assert ran.tree is not None and ran.tree.status == DONE and not stages.waits_for_request(ran)
    assert len(ran.tree.calls) == _chats(script) and ran.tree.calls[0].stage == "expand"
    assert seen[0] == "expansion" and "primer" in seen and "local searches 1" in seen
    assert ran.messages  # the reduce prompt, for the ordinary answer layer


NAME = "test.rounds"


def _plain(index, query, params, deps) -> Retrieval:
    return Retrieval(mode=NAME, query=query, params=params, stages=Stages())


def _rounds(index, query, params, deps, ask) -> Retrieval:
    out = _plain(index, query, params, deps)
    asked = [CallRequest("probe", f"probe {n}", [{"role": "user", "content": f"{query} #{n}"}]) for n in range(2)]
    out.stages.calls = ask("probing", asked)
    return out


def test_a_new_mode_with_rounds_is_driven_without_any_caller_knowing_it(sample, model, monkeypatch):
    settings, script = model
    spec = ModeSpec(NAME, "test", _plain, (), "a test-local mode that asks twice while it retrieves")
    spec = dataclasses.replace(spec, stages=ModelStages(rounds=ModelRounds(_rounds)))
    monkeypatch.setattr(registry, "get_mode", lambda mode: spec if mode == NAME else get_mode(mode))
    monkeypatch.setattr("graphrag_ui.services.query.get_mode", registry.get_mode)
    offline = run_query(sample, NAME, QUESTION, {})
    assert offline.stages.calls == [] and _chats(script) == 0
    result = run_query(sample, NAME, QUESTION, {}, llm_settings=settings)
    assert [c.label for c in result.stages.calls] == ["probe 0", "probe 1"] and all(c.ok for c in result.stages.calls)
    assert _chats(script) == 2
    again = run_query(sample, NAME, QUESTION, {}, llm_settings=settings)
    assert all(c.cached for c in again.stages.calls) and _chats(script) == 2  # through the answer cache
