"""Every parameter default equals the reference library's.

Three independent records are held against the modes' own defaults: the params the goldens were made
with (``tests/goldens/**``: nano's "defaults" cases record every value, GraphRAG's cases record the
factory's keyword arguments), the reference objects' fields (``reference_params.CATALOGUE``), and the
few library settings that live outside a parameter object. A default drifting from the reference
would make a golden pass only for the values it names; this fails first.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from graphrag_ui.retrieval.registry import MODE_MODULES
from graphrag_ui.retrieval.spec.param_intake import reference_of

GOLDENS = Path(__file__).resolve().parents[1] / "goldens"
EXTRA_MODULES = {"nano.global": "graphrag_ui.retrieval.nano.global_query"}

# Library settings outside the parameter objects (instance / storage configuration), as the releases
# have them: nano-graphrag 0.0.8.2 ``GraphRAG.query_better_than_threshold``; lightrag-hku 1.4.7 and
# 1.5.7 ``constants.DEFAULT_COSINE_THRESHOLD``, ``DEFAULT_RELATED_CHUNK_NUMBER``,
# ``DEFAULT_KG_CHUNK_PICK_METHOD``; GraphRAG's DRIFT runner seeds its shuffles with 0 in the goldens.
LIBRARY_SETTINGS = {
    "nano": {"query_better_than_threshold": 0.2},
    "lightrag": {"cosine_better_than_threshold": 0.2, "related_chunk_number": 5, "kg_chunk_pick_method": "VECTOR"},
}

# The explorer's own parameters (its recall choice and weights, the release picker): no reference has them.
EXPLORER_ONLY = {"recall", "w_ilike", "w_sim", "w_occ", "version", "seed"}


def _settled_specs():
    """Every mode at every release it follows, with its schema for that release."""
    for name, module in {**MODE_MODULES, **EXTRA_MODULES}.items():
        specs = {s.name: s for s in importlib.import_module(module).SPECS}
        if name not in specs:
            continue
        spec = specs[name]
        for version in spec.versions or ("",):
            yield spec.for_version(version) if version else spec, version


SETTLED = list(_settled_specs())


def _defaults(mode: str) -> dict:
    return next(spec.defaults() for spec, _ in SETTLED if spec.name == mode)


def _same(ours, theirs) -> bool:
    """Equal as the reference reads it: 0 and 0.0 alike, but a boolean is never a number."""
    if isinstance(ours, bool) or isinstance(theirs, bool):
        return type(ours) is type(theirs) and ours == theirs
    return ours == theirs


def _cases(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize(("spec", "version"), SETTLED, ids=[f"{s.name}-{v}" if v else s.name for s, v in SETTLED])
def test_every_default_equals_its_reference_field(spec, version):
    ref, _ = reference_of(spec, version)
    assert ref is not None, spec.name
    settings = LIBRARY_SETTINGS.get(spec.family, {})
    for param in spec.params:
        if param.name in ref.fields:
            theirs = ref.fields[param.name].default
            if param.name == "user_prompt":  # LightRAG's None: no extra instruction, the explorer's ""
                theirs = "" if theirs is None else theirs
        elif param.name in settings:
            theirs = settings[param.name]
        else:
            assert param.name in EXPLORER_ONLY, (spec.name, version, param.name, "has no reference default")
            continue
        assert _same(param.default, theirs), (spec.name, version, param.name, param.default, theirs)


NANO_FILES = {"cases.jsonl": "nano.local", "naive.jsonl": "nano.naive", "global.jsonl": "nano.global"}


@pytest.mark.parametrize(("file", "mode"), NANO_FILES.items())
def test_nano_goldens_made_with_defaults_recorded_the_modes_defaults(file, mode):
    defaults = _defaults(mode)
    recorded = [case["params"] for case in _cases(GOLDENS / "nano" / file) if case.get("name") == "defaults"]
    assert len(recorded) == 2  # one per corpus (en, zh)
    for params in recorded:
        assert params, "a defaults case records every value it was made with"
        for name, value in params.items():
            assert _same(defaults[name], value), (mode, name, defaults[name], value)


GRAPHRAG_RELEASES = ("graphrag-2", "graphrag-2.3", "graphrag-3")


@pytest.mark.parametrize("release", GRAPHRAG_RELEASES)
@pytest.mark.parametrize("file", ("cases.jsonl", "global_cases.jsonl"))
def test_graphrag_goldens_factory_arguments_are_the_modes_defaults(release, file):
    """A case made with no override records the factory's keyword arguments: they are GraphRAG's defaults."""
    checked = 0
    for case in _cases(GOLDENS / release / file):
        if case.get("params") != {} or "factory_params" not in case:
            continue
        spec = next(spec for spec, _ in SETTLED if spec.name == f"ms.{case['mode']}")
        defaults = spec.defaults()
        ref, _ = reference_of(spec)
        recorded = dict(case["factory_params"])
        for key in ("community_level", "data_max_tokens", "map_max_length", "reduce_max_length"):
            if key in case:
                recorded[key] = case[key]
        for name, value in recorded.items():
            ours = defaults[name] if name in defaults else ref.fields[name].default
            assert _same(ours, value), (release, spec.name, name, ours, value)
            checked += 1
    assert checked > 10, f"no {release} {file} case made with GraphRAG's defaults"


@pytest.mark.parametrize("release", ("graphrag-2", "graphrag-3"))
def test_drift_goldens_with_default_settings_ran_at_the_default_level(release):
    defaults = _defaults("ms.drift")
    cases = _cases(GOLDENS / release / "drift_cases.jsonl")
    plain = [case for case in cases if case["mode"] == "drift" and not case["settings"]]
    assert plain
    assert {case["community_level"] for case in plain} == {defaults["community_level"]}


def test_lightrag_goldens_name_only_parameters_the_modes_have():
    """LightRAG's goldens record only the overrides (``QueryParam(**params)``): the rest are the defaults above."""
    for release in ("lightrag-1.4.7", "lightrag-1.5.7"):
        version = release.split("-")[1]
        for case in _cases(GOLDENS / release / "cases.jsonl"):
            spec = next(s for s, v in SETTLED if s.name == f"lightrag.{case['mode']}" and v == version)
            assert set(case["params"]) <= {p.name for p in spec.params}, (release, case["mode"], case["params"])


MODE_SOURCES = sorted((Path(__file__).resolve().parents[2] / "graphrag_ui" / "retrieval").glob("*/**/*.py"))


def restated_fields(sources: list[Path], fields: set[str]) -> list[tuple[str, str]]:
    """(module, field) where a family module declares a reference field again as its own ``ParamSpec``."""
    declared = re.compile(r'ParamSpec\(\s*"([a-z_]+)"')
    return [
        (path.name, name)
        for path in sources
        if "core" not in path.parts
        for name in declared.findall(path.read_text(encoding="utf-8"))
        if name in fields
    ]


def test_a_reference_field_is_never_declared_again_as_a_slider():
    """A mode's parameter that is a field of its reference object comes from ``Reference.param``."""
    fields = {name for spec, version in SETTLED for name in reference_of(spec, version)[0].fields}
    shared = fields - {"response_type", "user_prompt"}  # the answer's wording: declared in core.schema
    assert not restated_fields(MODE_SOURCES, shared)
