"""Properties every retrieval mode in the registry must keep, whatever the question and parameters.

* no section exceeds its budget (``Budget.used <= Budget.limit``);
* truncation keeps order: in-context items appear in the order they were found in;
* dedup keys hold: no id twice among a kind's in-context items; LightRAG relations unique by
  unordered pair;
* every parameter works at its minimum, maximum and default (each choice, both booleans);
* an empty index, a question of only spaces or punctuation, a 20,000-character question and one in a
  script no entity uses each give a valid Retrieval with a warning, never an exception.

Indexes: a small synthetic index (power-law graph, communities, hash vectors), the golden fixtures
of each family imported with our importers, and an empty index built in code.
"""

from __future__ import annotations

import json
import sys
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphrag_ui.embedding.embed import HashEmbedder
from graphrag_ui.index.model import VECTOR_KINDS, Index, Manifest, VectorTable
from graphrag_ui.retrieval.core.result import KINDS, Retrieval
from graphrag_ui.retrieval.registry import get_mode, mode_names
from graphrag_ui.retrieval.spec.schema import ParamSpec
from graphrag_ui.services.query import run_query
from tests.conftest import GOLDENS, ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from make_synthetic_index import make_index  # noqa: E402

MODES = mode_names()
# a mode that follows several releases (LightRAG 1.4.7 | 1.5.7) is checked under each of them
VARIANTS = [
    pytest.param(mode, version, id=f"{mode}@{version}" if version else mode)
    for mode in MODES
    for version in (get_mode(mode).versions or ("",))
]
INDEXES = ("synthetic", "nano-en", "lightrag-zh", "lightrag-zh-1.5", "graphrag-en")
QUICK = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


@cache
def index_named(name: str) -> Index:
    if name == "synthetic":
        return make_index(300, 900, 150, 7, HashEmbedder.dim, "hash")
    if name == "empty":
        return empty_index()
    from graphrag_ui.index.importers import lightrag, ms_graphrag, nano_graphrag

    if name == "nano-en":
        return nano_graphrag.import_dir(GOLDENS / "nano" / "en", embedder="hash")
    if name == "lightrag-zh":
        return lightrag.import_dir(GOLDENS / "lightrag-1.4.7" / "zh", embedder="hash")
    if name == "lightrag-zh-1.5":
        return lightrag.import_dir(GOLDENS / "lightrag-1.5.7" / "zh", embedder="hash")
    return ms_graphrag.import_dir(GOLDENS / "graphrag-3" / "en", embedder="hash")


def spec_of(mode: str, version: str):
    spec = get_mode(mode)
    return spec.for_version(version) if version else spec


def versioned(params: dict, version: str) -> dict:
    return {**params, "version": version} if version else params


def empty_index() -> Index:
    """0 entities, 0 chunks, empty vector tables of the hash embedder's width."""
    manifest = Manifest(source="build", embedder="hash", dimension=HashEmbedder.dim)
    vectors = {k: VectorTable([], np.zeros((0, HashEmbedder.dim), np.float32)) for k in VECTOR_KINDS}
    return Index(manifest, [], [], [], [], [], vectors=vectors)


def check(result: Retrieval, index: Index, mode: str) -> None:
    """The invariants, with messages that name the mode and the item.

    A section whose fixed part (a header, the system prompt) cannot fit its limit reports no limit and
    says so in a warning; every enforced limit holds.
    """
    assert isinstance(result, Retrieval) and isinstance(result.context, str)
    assert result.mode == mode
    for budget in result.budgets:
        assert budget.used >= 0, f"{mode}: section {budget.section} uses {budget.used} tokens"
        if budget.limit is not None:
            assert budget.used <= budget.limit, f"{mode}: section {budget.section} {budget.used} > {budget.limit}"
    for kind in KINDS:
        items = result.candidates(kind)
        kept = [c for c in items if c.in_context]
        orders = [c.order for c in kept]
        assert orders == sorted(orders) and len(set(orders)) == len(orders), f"{mode} {kind}: order {orders}"
        ids = [c.id for c in kept]
        assert len(ids) == len(set(ids)), f"{mode} {kind}: duplicate ids in context {ids}"
        for c in items:
            assert c.in_context == (c.dropped == ""), f"{mode} {kind} {c.id}: in_context={c.in_context} {c.dropped!r}"
            assert c.tokens >= 0
    if mode.startswith("lightrag."):
        pairs = [frozenset((c.data["entity1"], c.data["entity2"])) for c in result.relations if c.in_context]
        assert len(pairs) == len(set(pairs)), f"{mode}: a relation pair twice in context"
    if not result.context:
        assert all(not c.in_context for kind in KINDS for c in result.candidates(kind))
    again = Retrieval.from_dict(json.loads(result.to_json()))
    assert again.context == result.context and again.selected_ids("entities") == result.selected_ids("entities")


# ------------------------------------------------------------------ hypothesis: questions, params, keywords


def param_strategy(p: ParamSpec) -> st.SearchStrategy:
    if p.type == "int":
        return st.integers(int(p.min if p.min is not None else 0), int(p.max if p.max is not None else 1000))
    if p.type == "float":
        lo = p.min if p.min is not None else -1.0
        return st.floats(lo, p.max if p.max is not None else lo + 10, allow_nan=False)
    if p.type == "bool":
        return st.booleans()
    if p.type == "choice":
        return st.sampled_from(p.choices)
    return st.sampled_from([p.default, "", "Bullet Points", "用中文回答"])


@st.composite
def cases(draw, index: Index, mode: str, version: str):
    spec = spec_of(mode, version)
    names = [e.name for e in index.entities[:200]] or ["nothing"]
    words = st.sampled_from(names) | st.sampled_from(["what", "how", "关系", "数据", "and", "?", " "])
    text = st.lists(words, max_size=6).map(" ".join) | st.text(max_size=60)
    query = draw(text)
    optional = {p.name: param_strategy(p) for p in spec.params if p.name != "version"}
    params = versioned(draw(st.fixed_dictionaries({}, optional=optional)), version)
    keyword_lists = st.lists(st.sampled_from(names) | st.text(min_size=1, max_size=12), max_size=3)
    hl, ll = draw(keyword_lists), draw(keyword_lists)
    return query, params, hl, ll


@pytest.mark.parametrize("index_name", INDEXES)
@pytest.mark.parametrize(("mode", "version"), VARIANTS)
def test_invariants_hold_for_any_question_and_parameters(mode, version, index_name):
    index = index_named(index_name)

    @QUICK
    @given(cases(index, mode, version))
    def run(case):
        query, params, hl, ll = case
        result = run_query(index, mode, query, params, hl=hl or None, ll=ll or None)
        if params.get("text_unit_prop", 0.5) + params.get("community_prop", 0.15) > 1:
            assert any("GraphRAG refuses" in w for w in result.warnings)
        check(result, index, mode)

    run()


# ------------------------------------------------------------------ every parameter at min, max, default


def extremes(p: ParamSpec) -> list:
    if p.type in {"int", "float"}:
        return [v for v in (p.min, p.max, p.default) if v is not None]
    if p.type == "bool":
        return [True, False]
    if p.type == "choice":
        return list(p.choices)
    return [p.default, ""]


# known bugs found by this sweep, (mode, parameter, value) -> reason; each flips (strict) once fixed
KNOWN: dict[tuple[str, str, object], str] = {}


def sweep() -> list:
    cases = []
    for mode in MODES:
        for version in get_mode(mode).versions or ("",):
            at = f"@{version}" if version else ""
            for p in spec_of(mode, version).params:
                if p.name == "version":
                    continue
                for value in dict.fromkeys(extremes(p)):
                    reason = KNOWN.get((mode, p.name, value))
                    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                    case_id = f"{mode}{at}-{p.name}={value!r}"
                    cases.append(pytest.param(mode, version, p.name, value, marks=marks, id=case_id))
    return cases


def _sweep_query(index: Index) -> str:
    return f"How is {index.entities[3].name} related to {index.entities[40].name}?"


@pytest.mark.parametrize(("mode", "version", "name", "value"), sweep())
def test_every_parameter_at_its_min_max_and_default(mode, version, name, value):
    index = index_named("synthetic")
    spec = spec_of(mode, version)
    params = versioned({name: value}, version)
    result = run_query(index, mode, _sweep_query(index), params, hl=["trade"], ll=[index.entities[3].name])
    assert result.params[name] == next(p for p in spec.params if p.name == name).coerce(value)
    check(result, index, mode)


@pytest.mark.parametrize(("mode", "version"), VARIANTS)
def test_all_parameters_at_their_min_or_max_together(mode, version):
    index = index_named("synthetic")
    spec = spec_of(mode, version)
    for bound in ("min", "max"):
        params = versioned({p.name: getattr(p, bound) for p in spec.params if getattr(p, bound) is not None}, version)
        if mode == "ms.local" and bound == "max":
            params["community_prop"] = 1.0 - params["text_unit_prop"]  # GraphRAG refuses shares above 1
        result = run_query(index, mode, _sweep_query(index), params, hl=["trade"], ll=[index.entities[3].name])
        check(result, index, mode)


# ------------------------------------------------------------------ hostile inputs: a warning, never an exception

LONG = ("the harbour and the kelp forest and the research station " * 400)[:20_000]
HOSTILE = {
    "only spaces": "     ",
    "only punctuation": "?!…,;:-- «» ()。，？",
    "emoji": "🚀🌈🔥🤖",
    "20,000 characters": LONG,
    "Devanagari": "नमस्ते दुनिया, यह क्या है?",
}


@pytest.mark.parametrize("what", list(HOSTILE))
@pytest.mark.parametrize("index_name", ["synthetic", "nano-en", "lightrag-zh", "lightrag-zh-1.5"])
@pytest.mark.parametrize(("mode", "version"), VARIANTS)
def test_hostile_questions_give_a_warning_not_an_exception(mode, version, index_name, what):
    index = index_named(index_name)
    assert len(LONG) == 20_000
    result = run_query(index, mode, HOSTILE[what], versioned({}, version))
    check(result, index, mode)
    if what == "Devanagari" and not any(p.name == "recall" for p in get_mode(mode).params):
        # a mode that matches no names is not hindered by the question's script: no warning repeats there
        assert not any("written in" in w for w in result.warnings), (mode, result.warnings)
        return
    assert result.warnings, f"{mode} on {index_name}: no warning for a question of {what}"


@pytest.mark.parametrize(("mode", "version"), VARIANTS)
@pytest.mark.parametrize("question", ["Who runs the institute?", "", "   ", "跑步数据"])
def test_empty_index_gives_an_empty_context_and_a_warning(mode, version, question):
    index = index_named("empty")
    result = run_query(index, mode, question, versioned({}, version), hl=["x"] if question == "" else None)
    check(result, index, mode)
    assert result.context == "" and all(not result.candidates(k) for k in KINDS)
    assert any("index is empty" in w for w in result.warnings)


def test_empty_index_without_any_vector_table():
    index = empty_index()
    index.vectors = {}
    for mode in MODES:
        for version in get_mode(mode).versions or ("",):
            result = run_query(index, mode, "anything at all", versioned({}, version))
            check(result, index, mode)
            assert result.context == "" and result.warnings


def test_script_warning_only_when_no_entity_uses_the_script():
    from graphrag_ui.services.query import question_warnings

    zh = index_named("lightrag-zh")
    assert not any("written in" in w for w in question_warnings(zh, "吴雨桐的跑步数据"))
    assert any("written in Devanagari" in w for w in question_warnings(zh, HOSTILE["Devanagari"]))
    assert not any("written in" in w for w in question_warnings(zh, "Tell me about 吴雨桐"))  # mixed: Han is known
    assert not any("written in" in w for w in question_warnings(zh, HOSTILE["Devanagari"], by_name=False))


# ------------------------------------------------------------------ known bugs (owners: the LightRAG modes)


def _tiny_total(mode: str, version: str) -> Retrieval:
    index = index_named("synthetic")
    query = _sweep_query(index)
    params = versioned({"max_total_tokens": 0}, version)
    return run_query(index, mode, query, params, hl=["trade"], ll=[index.entities[3].name])


LIGHTRAG_BUDGETED = [v for v in VARIANTS if v.values[0].startswith("lightrag.") and v.values[0] != "lightrag.bypass"]


@pytest.mark.parametrize(("mode", "version"), LIGHTRAG_BUDGETED)
def test_lightrag_chunk_budget_limit_is_never_negative(mode, version):
    chunks = [b for b in _tiny_total(mode, version).budgets if b.section == "chunks" and b.limit is not None]
    assert chunks and all(b.limit >= 0 for b in chunks)


@pytest.mark.parametrize(("mode", "version"), LIGHTRAG_BUDGETED)
def test_lightrag_total_budget_is_not_exceeded(mode, version):
    result = _tiny_total(mode, version)
    total = next(b for b in result.budgets if b.section == "total")
    if total.limit is None:  # the fixed parts alone exceed max_total_tokens: said, not shown as a limit
        assert any("max_total_tokens" in w for w in result.warnings)
    else:
        assert total.used <= total.limit
