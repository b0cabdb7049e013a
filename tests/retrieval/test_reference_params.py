"""Reference parameter objects in: strict values, the catalogue against the modes, the intake rules,
the Python API, the answer layer and a shared link (the batch replay is test_reference_params_batch)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.model_calls.answer import messages_for
from graphrag_ui.retrieval.registry import MODE_MODULES, get_mode, mode_names
from graphrag_ui.retrieval.spec.param_intake import complete_turns, reference_of, take
from graphrag_ui.retrieval.spec.reference_params import CATALOGUE, CONTEXT, MODEL
from graphrag_ui.retrieval.spec.schema import ParamSpec, parse_bool, parse_int
from graphrag_ui.services.query import run_query
from tests.support.ui_fixtures import plain

ROOT = Path(__file__).resolve().parents[2]
EN = ROOT / "data" / "sample" / "en" / "index"
# modes built but maybe not registered yet (nano.global waits for the map-reduce runner)
EXTRA_MODULES = {"nano.global": "graphrag_ui.retrieval.nano.global_query"}


def every_spec():
    for name, module in {**MODE_MODULES, **EXTRA_MODULES}.items():
        specs = {s.name: s for s in importlib.import_module(module).SPECS}
        if name in specs:
            yield specs[name]


# ------------------------------------------------------------------ strict values


@pytest.mark.parametrize(
    ("raw", "value"),
    [("true", True), ("TRUE", True), ("Yes", True), ("on", True), ("1", True), (1, True), (True, True)]
    + [("false", False), ("No", False), ("OFF", False), ("0", False), (0, False), (False, False), (" off ", False)],
)
def test_booleans_take_only_the_usual_words(raw, value):
    assert parse_bool("flag", raw) is value


@pytest.mark.parametrize("raw", ["abc", "", "tru", "2", 2, None, 0.5, [], "y"])
def test_any_other_boolean_is_one_clear_line(raw):
    with pytest.raises(UserError) as err:
        parse_bool("local_community_single_one", raw)
    text = str(err.value)
    assert "\n" not in text and "local_community_single_one" in text and "true or false" in text


@pytest.mark.parametrize(("raw", "value"), [(3, 3), ("3", 3), (" 3 ", 3), (2.0, 2), ("2.0", 2), ("-1", -1)])
def test_whole_numbers(raw, value):
    assert parse_int("top_k", raw) == value


@pytest.mark.parametrize("raw", [2.7, "2.7", "many", True, "nan", float("inf"), None, [3]])
def test_fractions_and_junk_are_refused_not_truncated(raw):
    with pytest.raises(UserError) as err:
        parse_int("top_k", raw)
    assert "top_k expects a whole number" in str(err.value)


def test_param_spec_coerce_is_strict():
    spec = ParamSpec("flag", "bool", False, "")
    with pytest.raises(UserError):
        spec.coerce("abc")  # used to become False
    assert ParamSpec("n", "int", 1, "", 0, 10).coerce("4.0") == 4
    with pytest.raises(UserError):
        ParamSpec("x", "float", 1.0, "").coerce("nan")


# ------------------------------------------------------------------ the catalogue against the modes


def test_every_mode_names_the_reference_object_it_follows():
    for spec in every_spec():
        assert spec.reference, f"{spec.name} names no reference parameter object"
        for version in spec.versions or ("",):
            ref, ref_mode = reference_of(spec, version)
            assert ref_mode in ref.reads
            if version:
                assert version in ref.title


def test_every_field_a_reference_mode_acts_on_is_a_parameter_of_the_mode():
    """Else the intake refuses it: a mode landing without one of its reference's parameters fails here."""
    for spec in every_spec():
        for version in spec.versions or ("",):
            settled = spec.for_version(version) if version else spec
            own = {p.name for p in settled.params}
            ref, ref_mode = reference_of(spec, version)
            own_aliases = {a for a, target in ref.aliases.items() if target in own}
            for name in ref.reads[ref_mode]:
                fld = ref.fields[name]
                if fld.side in (CONTEXT, MODEL) and not fld.note and not fld.fixed:
                    assert name in own or name in own_aliases, (spec.name, version, name)


def test_catalogue_titles_and_versions():
    assert set(CATALOGUE) == {
        "nano",
        "lightrag-1.4.7",
        "lightrag-1.5.7",
        "graphrag.local",
        "graphrag.global",
        "graphrag.basic",
        "graphrag.drift",
    }
    assert (
        "history_turns" in CATALOGUE["lightrag-1.4.7"].fields
        and "history_turns" not in CATALOGUE["lightrag-1.5.7"].fields
    )
    assert "include_references" in CATALOGUE["lightrag-1.5.7"].fields
    assert CATALOGUE["lightrag-1.5.7"].reads["bypass"] == {"mode", "stream", "conversation_history"}


# ------------------------------------------------------------------ the intake rules


def test_answer_side_fields_go_to_the_answer_layer():
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    intake = take(get_mode("lightrag.naive"), {"version": "1.5.7", "stream": "yes", "conversation_history": history})
    assert intake.answer == {"stream": True, "conversation_history": history}
    assert intake.warnings == []


def test_lightrag_147_sends_only_the_last_history_turns():
    history = [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "q2"},
        {"role": "assistant", "content": "a2"},
    ]
    spec = get_mode("lightrag.local")
    default = take(spec, {"version": "1.4.7", "conversation_history": history})
    assert default.answer["conversation_history"] == []  # history_turns defaults to 0 in 1.4.7
    assert any("history_turns=0" in w for w in default.warnings)
    one = take(spec, {"version": "1.4.7", "conversation_history": history, "history_turns": 1})
    assert one.answer["conversation_history"] == history[2:]
    assert "history_turns" not in one.answer
    assert complete_turns([{"role": "assistant", "content": "a"}, {"role": "user", "content": "q"}], 1) == [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a"},
    ]
    bypass = take(get_mode("lightrag.bypass"), {"version": "1.4.7", "conversation_history": history})
    assert bypass.answer["conversation_history"] == history  # bypass sends the history as is


@pytest.mark.parametrize(
    ("mode", "params", "fragment"),
    [
        (
            "lightrag.naive",
            {"version": "1.4.7", "model_func": "my.module.llm"},
            "model_func='my.module.llm' is not supported",
        ),
        ("lightrag.local", {"mode": "naive"}, "asks for another LightRAG mode"),
        ("ms.local", {"top_k_entities": 5, "top_k_mapped_entities": 6}, "name the same parameter"),
        ("ms.local", {"conversation_history": [{"role": "user", "content": "x"}]}, "not supported by ms.local"),
        ("lightrag.naive", {"conversation_history": "not json"}, "conversation_history expects a JSON list"),
        ("lightrag.naive", {"conversation_history": [{"role": "user"}]}, "list of {role, content}"),
        ("nano.local", {"toP_k": 3}, "did you mean top_k?"),
        (
            "lightrag.naive",
            {"version": "1.5.7", "history_turns": 3},
            "1.5.7 QueryParam has no such field",
        ),  # 1.5.7 dropped it
    ],
)
def test_refusals_are_one_clear_line(mode, params, fragment):
    with pytest.raises(UserError) as err:
        take(get_mode(mode), params)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_aliases_and_keywords():
    intake = take(get_mode("ms.local"), {"top_k_entities": 4, "chat_model_id": "gpt-4o"})
    assert intake.params["top_k_mapped_entities"] == 4
    assert intake.warnings == [
        "chat_model_id is not used by ms.local; which configured model GraphRAG uses; the explorer uses its own model settings"
    ]
    kw = take(get_mode("lightrag.hybrid"), {"hl_keywords": ["a"], "ll_keywords": "b, c"})
    assert (kw.hl, kw.ll) == (["a"], ["b", "c"])
    assert take(get_mode("lightrag.hybrid"), {"hl_keywords": [], "ll_keywords": []}).hl is None


# ------------------------------------------------------------------ the Python API and the answer layer


@pytest.fixture(scope="module")
def sample():
    from graphrag_ui.index import store

    return store.load(EN)


def test_python_api_takes_a_whole_query_param(sample):
    base = run_query(sample, "lightrag.naive", "Lantern Festival", {"top_k": 5})
    full = run_query(
        sample,
        "lightrag.naive",
        "Lantern Festival",
        {"mode": "naive", "top_k": 5, "max_entity_tokens": 6000, "stream": True, "conversation_history": []},
    )
    assert full.context == base.context
    assert "max_entity_tokens is not used by lightrag.naive; LightRAG ignores it too" in full.warnings
    assert full.answer_options == {"stream": True, "conversation_history": []}
    with pytest.raises(UserError, match="did you mean max_total_tokens"):
        run_query(sample, "lightrag.naive", "Lantern Festival", {"max_total_token": 5})


def test_conversation_history_reaches_the_answer_messages(sample):
    history = [{"role": "user", "content": "earlier"}, {"role": "assistant", "content": "reply"}]
    result = run_query(
        sample, "lightrag.naive", "Lantern Festival", {"version": "1.5.7", "conversation_history": history}
    )
    messages = messages_for(result)
    assert (
        messages[0]["role"] == "system" and messages[1:3] == history and messages[-1]["content"] == "Lantern Festival"
    )
    assert messages_for(result, history=[]) == [messages[0], messages[-1]]  # an explicit history wins


# ------------------------------------------------------------------ a shared link


def test_a_link_carries_reference_fields_beside_the_widgets(app):
    at = app(index="sample:en", mode="lightrag.naive", q="Lantern Festival", lightrag_max_entity_tokens="5000")
    assert not at.exception
    shown = [plain(w.value) for w in at.warning]
    assert "max_entity_tokens is not used by lightrag.naive; LightRAG ignores it too" in shown
    typo = app(index="sample:en", mode="lightrag.naive", q="Lantern Festival", lightrag_top_kk="3")
    assert not typo.exception
    assert any("lightrag_top_kk" in plain(w.value) and "did you mean top_k?" in plain(w.value) for w in typo.warning)


def test_every_registered_mode_is_in_the_sweep():
    assert set(mode_names()) <= {spec.name for spec in every_spec()}
    assert sys.modules.get("graphrag_ui.retrieval.spec.param_intake") is not None
