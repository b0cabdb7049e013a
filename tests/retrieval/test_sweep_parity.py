"""A sweep's steps reuse work (the vector rankings, ``retrieval.core.reuse``) and still return, at every
value, exactly the ``Retrieval`` a single run at that value returns: the same context byte for byte, the
same candidates in the same order with the same reasons, drops, scores and tokens, the same warnings.
Every mode × every parameter ``sweepable`` names, on both samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_ui.index import store
from graphrag_ui.retrieval.registry import get_mode, mode_names
from graphrag_ui.retrieval.spec.schema import ParamSpec
from graphrag_ui.services.query import run_query
from graphrag_ui.services.sweep import run_sweep, sweepable

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = {
    "en": (ROOT / "data" / "sample" / "en" / "index", "How did the city respond to the flood?"),
    "zh": (ROOT / "data" / "sample" / "zh" / "index", "城市如何应对洪水？"),
}


def versions(mode: str) -> list[str | None]:
    """Every release a mode follows (None: the index's own), each swept on its own."""
    return list(get_mode(mode).versions) or [None]


CASES = [
    (lang, mode, version, param)
    for lang in SAMPLES
    for mode in mode_names()
    for version in versions(mode)
    for param in sweepable(mode)
]


@pytest.fixture(scope="module")
def indexes():
    return {lang: store.load(path) for lang, (path, _question) in SAMPLES.items()}


def values_of(spec: ParamSpec) -> list:
    """Below, at and above the default, inside the bounds; the range's ends too."""
    lo = spec.min if spec.min is not None else 0
    hi = spec.max if spec.max is not None else (spec.default or 1) * 4
    d = spec.default if spec.default is not None else lo
    raw = [d, lo + (d - lo) / 2, d + (hi - d) / 4, lo, hi] if spec.type == "float" else [d, d // 2, d * 2, lo, d + 1]
    out = []
    for v in raw:
        v = min(max(v, lo), hi)
        v = round(v, 6) if spec.type == "float" else int(v)
        if v not in out:
            out.append(v)
    return out


def comparable(result) -> dict:
    """Everything a Retrieval says, without the clock (timings and the trace's milliseconds)."""
    data = result.to_dict()
    data.pop("timings_ms")
    for step in data["trace"]:
        step.pop("ms")
    return data


@pytest.mark.parametrize("lang,mode,version,param", CASES, ids=[f"{a}-{b}-{c or 'index'}-{d}" for a, b, c, d in CASES])
def test_every_step_is_the_single_run_at_its_value(indexes, lang, mode, version, param):
    index, question = indexes[lang], SAMPLES[lang][1]
    spec = next(p for p in get_mode(mode).params if p.name == param)
    values = values_of(spec)
    steps = []
    fixed = {"version": version} if version else {}
    sweep = run_sweep(index, mode, question, fixed, param, values, on_step=lambda v, r: steps.append((v, r)))
    assert [v for v, _ in steps] == sweep.values == values
    for value, result in steps:
        alone = run_query(
            index, mode, question, {**fixed, param: value}, keywords=sweep.keywords if sweep.keywords.source else None
        )
        assert result.context == alone.context, f"{mode} {param}={value}: the context differs"
        assert comparable(result) == comparable(alone), f"{mode} {param}={value}: the Retrieval differs"


def summary(sweep) -> tuple:
    """What a sweep tells of its steps (``Step`` but its clock, the items' spans)."""
    steps = [(s.value, s.counts, s.tokens, s.sections, s.ids, s.warnings, s.binding) for s in sweep.steps]
    return steps, [(i.kind, i.id, i.label, i.present) for i in sweep.items]


@pytest.mark.parametrize("lang,mode,version,param", CASES, ids=[f"{a}-{b}-{c or 'index'}-{d}" for a, b, c, d in CASES])
def test_a_sweep_read_for_its_summaries_tells_what_its_whole_runs_tell(indexes, lang, mode, version, param):
    """Without ``on_step`` the steps run for their summaries (``reuse.summaries``: no answer messages, LightRAG's
    kept graph rows as ids and labels, its chunk picks without their reasons): every step's summary and every
    item's span are those of the sweep whose steps are whole runs."""
    index, question = indexes[lang], SAMPLES[lang][1]
    spec = next(p for p in get_mode(mode).params if p.name == param)
    fixed = {"version": version} if version else {}
    values = values_of(spec)
    bare = run_sweep(index, mode, question, fixed, param, values)
    whole = run_sweep(index, mode, question, fixed, param, values, on_step=lambda v, r: None)
    assert summary(bare) == summary(whole)


def test_naive_top_k_steps_read_top_k_when_chunk_top_k_is_0(indexes):
    """lightrag.naive's top_k steps under a chunk_top_k are one run made once (``reuse.whole``); with
    chunk_top_k 0 top_k is what the search reads, so each step is its own run — and still a single run's."""
    index, question = indexes["en"], SAMPLES["en"][1]
    steps = []
    run_sweep(
        index, "lightrag.naive", question, {"chunk_top_k": 0}, "top_k", [1, 2, 40], on_step=lambda v, r: steps.append(r)
    )
    assert [len(r.selected_ids("chunks")) for r in steps][:2] == [1, 2]
    for value, result in zip([1, 2, 40], steps, strict=True):
        alone = run_query(index, "lightrag.naive", question, {"chunk_top_k": 0, "top_k": value})
        assert comparable(result) == comparable(alone)


def test_steps_made_once_are_copies(indexes):
    """A step given a copy of an earlier step's run (``reuse.whole``) shares nothing a reader may change."""
    index, question = indexes["en"], SAMPLES["en"][1]
    steps = []
    run_sweep(index, "lightrag.naive", question, {}, "top_k", [5, 10], on_step=lambda v, r: steps.append(r))
    first, second = steps
    assert first.params["top_k"] == 5 and second.params["top_k"] == 10 and first.context == second.context
    first.chunks[0].in_context = False
    first.warnings.append("changed")
    first.messages[0]["content"] = "changed"
    assert second.chunks[0].in_context and "changed" not in second.warnings
    assert second.messages[0]["content"] != "changed"


def test_the_widest_step_runs_once(indexes, monkeypatch):
    """An integer sweep runs its widest step first (the narrower ones cut its gathers) and keeps that
    run for its turn: one retrieval per value, not one more."""
    from graphrag_ui.services.query import Prepared

    index, question = indexes["en"], SAMPLES["en"][1]
    ran = []
    real = Prepared.run

    def counted(self, **kwargs):
        ran.append(self.intake.params["top_k"])
        return real(self, **kwargs)

    monkeypatch.setattr(Prepared, "run", counted)
    steps = []
    run_sweep(index, "nano.local", question, {}, "top_k", [2, 8, 4], on_step=lambda v, r: steps.append((v, r)))
    assert ran == [8, 2, 4]
    assert [v for v, _ in steps] == [2, 8, 4]
    alone = run_query(index, "nano.local", question, {"top_k": 8})
    assert comparable(steps[1][1]) == comparable(alone)


def test_chunk_similarities_are_worked_out_once_per_sweep(indexes, monkeypatch):
    """LightRAG's VECTOR chunk pick meets the same chunks at every top_k step: each chunk's similarity to
    the question is computed once in a sweep (and the steps are still the single runs, above)."""
    from graphrag_ui.retrieval.lightrag import chunks

    index, question = indexes["en"], SAMPLES["en"][1]
    seen: list[str] = []
    real = chunks.f16_vector
    monkeypatch.setattr(chunks, "f16_vector", lambda idx, cid: seen.append(cid) or real(idx, cid))
    run_sweep(index, "lightrag.local", question, {}, "top_k", [2, 4, 8, 16])
    assert seen and len(seen) == len(set(seen))


def test_drift_steps_over_what_its_primer_does_not_read_are_one_primer(indexes, monkeypatch):
    """Without a model ms.drift is its primer, which reads four of its parameters: a sweep over another one
    (a local search's) runs the primer once and gives each step its own copy; a sweep over one it reads
    (drift_k_followups) runs it at every step."""
    from graphrag_ui.retrieval.ms.drift_search import search

    index, question = indexes["en"], SAMPLES["en"][1]
    ran = []
    real = search.primer_stage
    monkeypatch.setattr(search, "primer_stage", lambda *a, **k: ran.append(1) or real(*a, **k))
    steps = []
    param = "local_search_top_k_mapped_entities"
    run_sweep(index, "ms.drift", question, {}, param, [5, 10, 20], on_step=lambda v, r: steps.append(r))
    assert len(ran) == 1 and [r.params[param] for r in steps] == [5, 10, 20]
    first, second = steps[0], steps[1]
    assert first.communities and first.context == second.context
    first.communities[0].in_context = not first.communities[0].in_context
    first.communities[0].dropped = "changed"
    first.warnings.append("changed")
    first.messages[0]["content"] = "changed"
    assert second.communities[0].in_context != first.communities[0].in_context
    assert second.communities[0].dropped != "changed" and "changed" not in second.warnings
    assert second.messages[0]["content"] != "changed"
    ran.clear()
    run_sweep(index, "ms.drift", question, {}, "drift_k_followups", [5, 10, 20])
    assert len(ran) == 3


def test_a_stage_is_kept_from_its_second_step(indexes, monkeypatch):
    """A stage whose inputs a sweep does not change (nano.local's recall in a budget sweep) runs at the first
    two steps and is replayed after; in a top_k sweep, whose stages' inputs change at every step, what a step
    copies is only the rows in its context made at an earlier step (``nano.recall.Ranked``): never a dropped row."""
    from graphrag_ui.retrieval.core import reuse
    from graphrag_ui.retrieval.nano import local_query

    index, question = indexes["en"], SAMPLES["en"][1]
    ran = []
    real = local_query.recall
    monkeypatch.setattr(local_query, "recall", lambda *a: ran.append(1) or real(*a))
    kept = []
    real_copied = reuse.copied
    monkeypatch.setattr(reuse, "copied", lambda item: kept.append(1) or real_copied(item))
    param = "local_max_token_for_local_context"
    run_sweep(index, "nano.local", question, {}, param, [500, 1000, 2000, 4000])
    assert len(ran) == 2
    kept.clear()
    steps = []
    run_sweep(index, "nano.local", question, {}, "top_k", [3, 6], on_step=lambda v, r: steps.append(r))
    in_context = sum(len(r.selected_ids(kind)) for r in steps for kind in ("entities", "relations"))
    assert 0 < len(kept) <= in_context


def test_owned_values_are_kept_from_the_second_step_and_never_shared():
    """``reuse.owned``: made at the first two steps with a key (the first unkept), then the kept value's own
    copy at each later one; outside a sweep it is simply made."""
    from graphrag_ui.retrieval.core import reuse

    made = []

    def make():
        made.append(1)
        return [len(made)]

    assert reuse.owned(("k",), make, list) == [1] and len(made) == 1
    with reuse.shared():
        steps = [reuse.owned(("k",), make, list) for _ in range(4)]
        other = reuse.owned(("other",), make, list)
    assert len(made) == 4 and steps == [[2], [3], [3], [3]] and other == [4]
    steps[2].append("changed")
    assert steps[3] == [3] and steps[1] is not steps[3]
