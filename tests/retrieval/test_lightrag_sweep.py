"""LightRAG sweeps that reuse their work: a top_k step narrows the widest step's vector recall, global path
and edges; a budget step shares the search, its costs and kept rows; chunk candidates past the kept ones
are made on read. Every step is still the single run at its value (both releases, every mode), at the
edges too (top_k beyond the index, a budget of 0 or a few tokens), and a step whose top_k splits a group
of equal scores — whose tie notes a narrowed recall would change — makes that group's hits again."""

from __future__ import annotations

import sys
from functools import cache

import pytest

from graphrag_ui.embedding.embed import HashEmbedder, get_embedder
from graphrag_ui.index import store
from graphrag_ui.index.model import Relation
from graphrag_ui.retrieval.core.binding import binding
from graphrag_ui.retrieval.core.candidates import Candidates, in_context
from graphrag_ui.retrieval.core.recall import vector_topk
from graphrag_ui.retrieval.lightrag import explain, search
from graphrag_ui.services.query import run_query
from graphrag_ui.services.sweep import run_sweep
from tests.conftest import ROOT
from tests.retrieval.test_sweep_parity import comparable

sys.path.insert(0, str(ROOT / "scripts"))
from bench_retrieval import synthetic_cases  # noqa: E402
from make_synthetic_index import make_index  # noqa: E402

MODES = ("lightrag.local", "lightrag.global", "lightrag.hybrid", "lightrag.mix", "lightrag.naive")
VERSIONS = ("1.4.7", "1.5.7")
QUESTION = "How did the city respond to the flood?"


@cache
def _sample():
    return store.load(ROOT / "data" / "sample" / "en" / "index")


@cache
def _hashed():
    """A small synthetic index with hash vectors: many exact ties among the similarities."""
    return make_index(300, 900, 150, 0, HashEmbedder.dim, "hash")


def _steps(index, mode, question, fixed, param, values, **kw):
    steps = []
    sweep = run_sweep(index, mode, question, fixed, param, values, on_step=lambda v, r: steps.append((v, r)), **kw)
    assert [v for v, _ in steps] == values
    return sweep, steps


def _same_as_single(index, mode, question, fixed, param, steps, sweep, **kw):
    keywords = sweep.keywords if sweep.keywords.source else None
    for value, result in steps:
        alone = run_query(index, mode, question, {**fixed, param: value}, keywords=keywords, **kw)
        assert result.context == alone.context, f"{mode} {fixed} {param}={value}: the context differs"
        assert comparable(result) == comparable(alone), f"{mode} {fixed} {param}={value}: the Retrieval differs"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "param,values",
    [
        ("top_k", [1000, 1, 3, 60, 2, 20]),  # the widest beyond every list of the index, then narrower ones
        ("max_total_tokens", [0, 50, 900, 4000, 30000, 2000]),  # none, a few tokens, then room
    ],
)
def test_every_step_is_the_single_run_at_the_edges(mode, version, param, values):
    index = _sample()
    sweep, steps = _steps(index, mode, QUESTION, {"version": version}, param, values)
    _same_as_single(index, mode, QUESTION, {"version": version}, param, steps, sweep)


def _tied_case(index):
    """A question whose low-level keyword recall has a group of equal scores, its scores, and top_k values
    that split such a group and values that do not."""
    embedder = get_embedder(index.manifest.embedder)
    for question, hl, ll in synthetic_cases(index, 12):
        scores = [s for _, s in vector_topk(index.vectors["entities"], embedder.embed([", ".join(ll)])[0], 1000, 0.2)]
        split = [k for k in range(1, len(scores)) if scores[k - 1] == scores[k]]
        clean = [k for k in range(1, len(scores)) if scores[k - 1] != scores[k]]
        if split and clean:
            return question, hl, ll, scores, split[:2], clean[:3]
    raise AssertionError("no question of the synthetic index has tied similarities")


@pytest.mark.parametrize("version", VERSIONS)
def test_a_top_k_that_splits_equal_scores_notes_the_ties_of_its_own_list(version, monkeypatch):
    """The widest step recalls once; a narrower top_k takes its first hits, and when it cuts a group of equal
    scores (their tie notes name each other) makes that group's hits again, naming only the rows of the
    group within its own list. Every step is the single run."""
    index = _hashed()
    question, hl, ll, scores, split, clean = _tied_case(index)
    calls = []
    real = search.recall_entities
    monkeypatch.setattr(search, "recall_entities", lambda *a, **k: calls.append(k["top_k"]) or real(*a, **k))
    values = [len(scores) + 5, *split, *clean]
    fixed = {"version": version}
    sweep, steps = _steps(index, "lightrag.local", question, fixed, "top_k", values, hl=hl, ll=ll)
    assert calls == [len(scores) + 5]  # the clean and the split values were narrowed
    monkeypatch.setattr(search, "recall_entities", real)
    _same_as_single(index, "lightrag.local", question, fixed, "top_k", steps, sweep)
    tied = [c for v, r in steps if v in split for c in r.entities if "tied with" in str(c.why)]
    assert tied, "the split groups' tie notes are what the narrowing makes again"


def test_the_global_path_and_recall_run_once_in_a_top_k_sweep(monkeypatch):
    """Below the widest step, a top_k step cuts the widest one's relation hits and recall (the sample's
    similarities have no tie): one global path and one recall per sweep, each step still the single run."""
    index = _sample()
    made, recalled = [], []
    real_global, real_recall = search._global_path, search.recall_entities
    monkeypatch.setattr(search, "_global_path", lambda *a: made.append(a[3]) or real_global(*a))
    monkeypatch.setattr(search, "recall_entities", lambda *a, **k: recalled.append(1) or real_recall(*a, **k))
    sweep, steps = _steps(index, "lightrag.hybrid", QUESTION, {}, "top_k", [5, 40, 10, 20])
    assert made == [40] and recalled == [1]
    monkeypatch.setattr(search, "_global_path", real_global)
    monkeypatch.setattr(search, "recall_entities", real_recall)
    _same_as_single(index, "lightrag.hybrid", QUESTION, {}, "top_k", steps, sweep)


@pytest.mark.parametrize("version", VERSIONS)
def test_budget_steps_share_no_row_a_reader_may_change(version):
    """A budget step shares the search and the kept graph rows of an earlier step as copies (their row data
    read only, as ``reuse`` shares it): a reader that marks one step's rows changes no other step's."""
    index = _sample()
    fixed, values = {"version": version}, [2000, 4000, 8000, 16000]
    sweep, steps = _steps(index, "lightrag.hybrid", QUESTION, fixed, "max_total_tokens", values)
    for kind in ("entities", "relations"):
        rows = [getattr(r, kind)[0] for _, r in steps]
        assert len({c.id for c in rows}) == 1 and len({id(c) for c in rows}) == len(rows)
        rows[1].in_context, rows[1].dropped = False, "changed"
        assert all(c.in_context and not c.dropped for c in rows[2:])
        rows[1].in_context, rows[1].dropped = True, ""
    _same_as_single(index, "lightrag.hybrid", QUESTION, fixed, "max_total_tokens", steps, sweep)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "mode,params,said",
    [
        ("lightrag.mix", {"chunk_top_k": 3}, "beyond chunk_top_k 3"),
        ("lightrag.naive", {"max_total_tokens": 1400}, "over chunk budget"),
    ],
)
def test_dropped_chunks_are_made_on_read_and_say_why(mode, params, said, version):
    """A run makes its kept chunks; the cut, duplicate and unpicked ones are made when read, each with why it
    was dropped; counting, kept rows and binding limits make none of them."""
    result = run_query(_sample(), mode, QUESTION, {"version": version, **params})
    chunks = result.chunks
    assert isinstance(chunks, Candidates) and len(chunks) > len(chunks.head)
    kept = in_context(chunks)
    binding(result)
    assert kept and all(c.in_context and not c.dropped for c in kept) and chunks.tail_made == 0
    dropped = [c for c in chunks if not c.in_context]
    assert dropped and all(c.dropped and c.why for c in dropped)
    assert any(said in str(c.dropped) for c in dropped)


def test_a_merge_of_one_path_drops_its_own_repeats_as_the_merge_of_two_does():
    """One path ran (local or global mode): its list is merged whole when its keys are distinct, and a global
    list that prints one relation twice (two vector rows) still drops the second as a duplicate."""
    rel = Relation(id="r1", source="A", target="B", description="d")
    other = Relation(id="r2", source="A", target="C", description="d")
    hits = [
        search.RelationHit(rel, ("A", "B"), "global", 0, "g1"),
        search.RelationHit(other, ("A", "C"), "global", 1, "g2"),
        search.RelationHit(rel, ("B", "A"), "global", 2, "g3"),
    ]
    merged, dupes = search.round_robin([], hits, key=lambda h: h.key)
    assert merged == hits[:2] and [h.order for h in dupes] == [2]
    assert str(dupes[0].duplicate_of) == "round-robin: duplicate of global #1" and hits[2].duplicate_of == ""
    merged, dupes = search.round_robin(hits[:2], [], key=lambda h: h.key)
    assert merged == hits[:2] and merged is not hits and dupes == []


@pytest.mark.parametrize("mode", ["lightrag.hybrid", "lightrag.mix"])
def test_near_misses_are_made_once_per_search_and_cut_for_a_narrower_top(mode, monkeypatch):
    """The rows a threshold cut within top_k (near misses) are made once per search at the widest top asked:
    a narrower top_k takes those ranked within it, a budget step the same rows; each step lists its own
    copies, still the single run's."""
    from graphrag_ui.retrieval.lightrag import near_misses

    index, made = _sample(), []
    real = near_misses._rows
    monkeypatch.setattr(near_misses, "_rows", lambda *a: made.append((a[1], a[4])) or real(*a))
    fixed = {"cosine_better_than_threshold": 0.45}
    sweep, steps = _steps(index, mode, QUESTION, fixed, "top_k", [40, 3, 12, 40])
    tops = dict(made)  # once per searched table, at the widest top (the chunk search's is chunk_top_k 20)
    assert len(made) == len(tops) and tops["entities"] == tops["relations"] == 40
    said = [c for _, r in steps for k in ("entities", "relations") for c in r.candidates(k) if "cut by" in str(c.why)]
    assert said and len({id(c) for c in said}) == len(said)  # near misses present, no row shared by two steps
    monkeypatch.setattr(near_misses, "_rows", real)
    _same_as_single(index, mode, QUESTION, fixed, "top_k", steps, sweep)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mode", ["lightrag.local", "lightrag.hybrid"])
def test_local_relation_hits_past_the_token_cut_are_made_on_read(mode, version, monkeypatch):
    """The local path lists every edge of its entities; the kept ones are made as hits, the others when a
    reader asks for their rows (ids and reasons are read without them), each as the eager list made it."""
    made = []
    real = search._local_hit
    monkeypatch.setattr(search, "_local_hit", lambda edges, kept, i: made.append(i) or real(edges, kept, i))
    params = {"version": version, "top_k": 60, "max_relation_tokens": 300}
    r = run_query(_sample(), mode, QUESTION, params)
    local = [c for c in r.relations.head if c.data["path"] == "local"]
    before = len(set(made))  # the kept ones (and, in hybrid, those the merge found twice: it marks a copy)
    assert local and (before == len(local) if mode == "lightrag.local" else before >= len(local))
    binding(r), r.relations.tail.ids()  # counted and listed: still none made
    assert len(set(made)) == before
    rows = list(r.relations)  # read: every local edge's row, as a single eager run gives it
    assert before < len(set(made)) and len(set(made)) >= sum(c.data.get("path") == "local" for c in rows)
    monkeypatch.setattr(search, "_local_hit", real)
    assert comparable(r) == comparable(run_query(_sample(), mode, QUESTION, params))


@pytest.mark.parametrize("mode", ["lightrag.local", "lightrag.hybrid"])
def test_a_local_edge_hit_is_made_once_per_position_in_a_sweep(mode, monkeypatch):
    """A top_k step's edges are mostly the step before's, many at the same position: the hit there is the one
    already made (its reason numbers the position), not made again; each step is still the single run."""
    made = []

    class Counted(search.RelationHit):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append((self.relation.id, self.pair, self.order) if self.path == "local" else None)

    monkeypatch.setattr(search, "RelationHit", Counted)
    fixed = {"max_relation_tokens": 30000}
    sweep, steps = _steps(_sample(), mode, QUESTION, fixed, "top_k", [30, 5, 10, 20, 25])
    local = [h for h in made if h is not None]
    assert local and len(local) == len(set(local)), "an edge's hit at one position was made twice"
    assert sum(len(r.relations.head) for _, r in steps) > len(local)  # the steps share them
    monkeypatch.setattr(search, "RelationHit", search.RelationHit.__mro__[1])
    _same_as_single(_sample(), mode, QUESTION, fixed, "top_k", steps, sweep)


@pytest.mark.parametrize("version", VERSIONS)
def test_top_k_steps_copy_the_kept_rows_they_share_and_a_reader_changes_one_step(version, monkeypatch):
    """A kept entity or relation row at the same position and cost as in an earlier step is a copy of the row
    made there, not made again; a reader that marks one step's rows changes no other step's."""
    made = []
    real = explain.candidate
    monkeypatch.setattr(explain, "candidate", lambda *a: made.append(a[1]) or real(*a))
    fixed = {"version": version}
    sweep, steps = _steps(_sample(), "lightrag.local", QUESTION, fixed, "top_k", [30, 5, 10, 20, 25, 30])
    kept = sum(len(r.entities.head) + len(r.relations.head) for _, r in steps)
    assert 0 < len(made) < kept / 2, "the steps made their kept rows again"
    monkeypatch.setattr(explain, "candidate", real)
    for _, r in steps[1:3]:
        for c in [*r.entities.head, *r.relations.head]:
            c.in_context, c.dropped = False, "changed"
    assert all(c.in_context and not c.dropped for _, r in steps[3:] for c in [*r.entities.head, *r.relations.head])
    assert comparable(steps[-1][1]) == comparable(steps[0][1])  # top_k 30 twice: the same rows
    _same_as_single(_sample(), "lightrag.local", QUESTION, fixed, "top_k", steps[3:], sweep)
