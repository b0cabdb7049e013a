"""Each mode's parameters are declared once and read as typed attributes (issue 25, item 2).

The slider schema (``ModeSpec.params``), the reference-object intake and the typed object retrieval
reads (``ModeSpec.typed``) all come from one declaration; a ``Retrieval`` still records the plain
resolved dict, so exports, JSON and URLs are what they were.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.retrieval.registry import MODE_MODULES, get_mode
from graphrag_ui.retrieval.spec.param_intake import reference_of
from graphrag_ui.retrieval.spec.schema import PY_TYPES, Params
from graphrag_ui.services.query import run_query

ROOT = Path(__file__).resolve().parents[2]
RETRIEVAL = ROOT / "graphrag_ui" / "retrieval"
QUESTION = "How did the city respond to the flood?"


def _settled():
    for name, module in MODE_MODULES.items():
        spec = {s.name: s for s in importlib.import_module(module).SPECS}[name]
        for version in spec.versions or ("",):
            yield spec.for_version(version) if version else spec


SETTLED = list(_settled())
IDS = [f"{s.name}-{s.defaults().get('version', '')}" for s in SETTLED]


@pytest.mark.parametrize("spec", SETTLED, ids=IDS)
def test_the_typed_parameters_are_the_schema_frozen_and_typed(spec):
    defaults = spec.defaults()
    typed = spec.typed(defaults)
    assert isinstance(typed, Params)
    assert [f.name for f in dataclasses.fields(typed)] == [p.name for p in spec.params]
    assert typed.as_dict() == defaults and list(typed.as_dict()) == list(defaults)
    for f, p in zip(dataclasses.fields(typed), spec.params, strict=True):
        assert f.type is PY_TYPES[p.type], (spec.name, p.name)
    assert spec.typed(typed) is typed  # typed parameters pass through
    if spec.params:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(typed, spec.params[0].name, defaults[spec.params[0].name])
    with pytest.raises(AttributeError):
        typed.no_such_parameter  # noqa: B018 - a misspelt read fails, it never reads as None


def test_a_dict_settles_on_its_release_and_a_name_left_out_takes_its_default():
    spec = get_mode("lightrag.mix")
    newer = spec.typed({"version": "1.5.7", "top_k": 7})
    assert (newer.version, newer.top_k, newer.chunk_top_k) == ("1.5.7", 7, 20)
    assert type(newer) is not type(spec.typed({"version": "1.4.7"}))
    assert get_mode("ms.global").typed({"data_max_tokens": 5}).response_type == "Multiple Paragraphs"


def test_every_reference_field_a_mode_reads_is_declared_once():
    """No ``ParamSpec("<field>", …)`` restates a field of a reference object anywhere in retrieval (the
    answer's ``response_type`` and ``user_prompt`` included): each slider comes from ``Reference.param``."""
    fields = {name for spec in SETTLED for name in reference_of(spec, spec.defaults().get("version", ""))[0].fields}
    declared = re.compile(r'ParamSpec\(\s*"([a-z_]+)"')
    restated = [
        (path.name, name)
        for path in RETRIEVAL.rglob("*.py")
        if path.name != "reference_params.py"
        for name in declared.findall(path.read_text(encoding="utf-8"))
        if name in fields
    ]
    assert not restated


def test_retrieval_reads_no_parameter_by_a_string_key():
    """Retrieval reads ``params.top_k``; a ``params["top_k"]`` or ``params.get("top_k")`` is a read the
    typed object would have caught (binding and change compare recorded dicts by a variable name)."""
    by_key = re.compile(r"""params(\[|\.get\()\s*["']""")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in RETRIEVAL.rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if by_key.search(line) and not line.lstrip().startswith(("#", "``"))
    ]
    assert not [f for f in found if "spec/schema.py" not in f], found


@pytest.fixture(scope="module")
def index():
    return store.load(ROOT / "data" / "sample" / "en" / "index")


@pytest.mark.parametrize(
    ("mode", "given"),
    [
        ("nano.local", {"top_k": 12}),
        ("lightrag.mix", {"version": "1.5.7", "top_k": "9"}),
        ("ms.local", {}),
        ("ms.global", {"shuffle_data": "false"}),
        ("ms.drift", {}),
    ],
)
def test_a_retrieval_records_the_resolved_dict_as_before(index, mode, given):
    """The mode types the resolved dict at its entry; what it records is still the plain resolved dict,
    in schema order and with the defaults' own values (``min_community_rank`` stays the int 0)."""
    spec = get_mode(mode)
    resolved = spec.resolve(given, index)
    result = run_query(index, mode, QUESTION, dict(given))
    assert type(result.params) is dict
    assert json.dumps(result.params) == json.dumps(resolved)
    if "min_community_rank" in resolved:
        assert result.params["min_community_rank"] == 0 and type(result.params["min_community_rank"]) is int
