"""nano.local's dropped Relationships are columns made into candidates on read (``core.candidates``): every
reader gets the rows, order and reasons the eager list gave — checked against a gather written edge by
edge from the graph, as nano-graphrag does it — and a run read only for its counts, kept rows, limits and
first dropped rows makes none of the tail."""

from __future__ import annotations

import copy
import json
import pickle
import sys
from dataclasses import replace
from functools import cache

import pytest

from graphrag_ui.base.i18n import msg, translate
from graphrag_ui.citations.items import context_items
from graphrag_ui.embedding.embed import HashEmbedder
from graphrag_ui.evaluation.gold import Question
from graphrag_ui.evaluation.metrics import evaluate
from graphrag_ui.index import store
from graphrag_ui.retrieval.core import binding, change, compare, reuse
from graphrag_ui.retrieval.core.candidates import Candidates, dropped_ids, dropped_rows, in_context
from graphrag_ui.retrieval.core.result import KINDS, Candidate, Retrieval
from graphrag_ui.retrieval.nano.prep import prepared
from graphrag_ui.services.query import run_query
from graphrag_ui.ui.results import tables
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from make_synthetic_index import make_index  # noqa: E402


@cache
def _index(name: str):
    if name == "synthetic":
        return make_index(600, 2400, 300, 3, HashEmbedder.dim, "hash")
    return store.load(ROOT / "data" / "sample" / name / "index")


def _question(name: str) -> str:
    if name == "synthetic":
        index = _index(name)
        hub = max(index.entities, key=lambda e: index.graph.degree(e.name))
        return f"What do we know about {hub.name} and {hub.description[:60]}?"
    return {"en": "How did the city respond to the flood?", "zh": "林晓在青川市做了什么训练？"}[name]


def _eager(index, result: Retrieval, limit: int) -> list[tuple]:
    """The Relationships section as nano-graphrag builds it, edge by edge: every edge of a recalled entity once
    (first entity wins), sorted by (edge degree, weight) descending, cut at the first running total over the
    budget; each row with the reasons written out in full."""
    names = [c.label for c in result.entities if c.in_context]
    first: dict[tuple[str, str], tuple] = {}
    for n, name in enumerate(names):
        for _u, nbr in index.graph.edges(name):
            pair = tuple(sorted((name, nbr)))
            rel = index.relation_by_id.get(index.graph.edges[name, nbr]["id"])
            if pair not in first and rel is not None:
                rank = index.graph.degree(pair[0]) + index.graph.degree(pair[1])
                first[pair] = (rank, rel.weight, pair, rel, n)
    rows = sorted(first.values(), key=lambda r: (r[0], r[1]), reverse=True)
    out, running = [], 0
    cut = False
    for pos, (rank, weight, (a, b), rel, n) in enumerate(rows):
        cost = prepared(index).relation_tokens(rel)
        running += cost
        cut = cut or limit <= 0 or running > limit
        why = msg(
            "edge degree {degree}, weight {weight}, touches entity #{n} {name}",
            degree=rank,
            weight=float(weight),
            n=n + 1,
            name=names[n],
        )
        dropped = (
            msg("over budget (section Relationships: {running}/{limit} tokens)", running=running, limit=limit)
            if cut
            else ""
        )
        data = {"source": a, "target": b, "description": rel.description, "weight": weight}
        out.append((rel.id, f"{a} — {b}", data, pos, why, None, float(rank), not cut, dropped, cost))
    return out


def _row(c: Candidate) -> tuple:
    return (c.id, c.label, c.data, c.order, c.why, c.score, c.rank, c.in_context, c.dropped, c.tokens)


CASES = [
    ("synthetic", 20, 4000),
    ("synthetic", 5, 300),
    ("synthetic", 1, 0),
    ("synthetic", 40, 64000),
    ("en", 60, 200),
    ("en", 5, 4000),
    ("zh", 60, 100),
]


def _run(name: str, top_k: int, limit: int, mode: str = "nano.local") -> Retrieval:
    """A run, its timings zeroed (two runs of the same question compare equal)."""
    budget = "local_max_token_for_local_context" if mode == "nano.local" else "max_relation_tokens"
    params = {"top_k": top_k, budget: limit}
    result = run_query(_index(name), mode, _question(name), params)
    result.trace = [replace(step, ms=0.0) for step in result.trace]
    result.timings_ms = {}
    return result


@pytest.mark.parametrize(("name", "top_k", "limit"), CASES)
def test_every_row_and_reason_is_the_one_built_edge_by_edge(name: str, top_k: int, limit: int) -> None:
    result = _run(name, top_k, limit)
    want = _eager(_index(name), result, limit)
    assert isinstance(result.relations, Candidates) and len(result.relations) == len(want)
    assert [_row(c) for c in result.relations] == want  # made on read, in order, each reason's text
    for c, w in zip(result.relations, want, strict=True):
        assert translate(c.why, "zh") == translate(w[4], "zh") and translate(c.dropped, "zh") == translate(w[8], "zh")
    assert result.budgets[-1].used == max([w[9] for w in want if w[7]] and [sum(w[9] for w in want if w[7])] or [0])


def _eager_twin(result: Retrieval) -> Retrieval:
    """The same run with its lazy sections as plain lists of the same rows."""
    twin = copy.copy(result)
    for kind in KINDS:
        setattr(twin, kind, [reuse.copied(c) for c in result.candidates(kind)])
    return twin


def _readers(result: Retrieval, before: Retrieval, index) -> list:
    marks = tables.Marks.between(before, result)
    question = Question("q", result.query, evidence=["no such text anywhere", result.relations[-1].data["description"]])
    out = [
        json.loads(result.to_json()),
        pickle.loads(pickle.dumps(result)).to_dict(),
        copy.deepcopy(result).to_dict(),
        Retrieval.from_dict(result.to_dict()).to_dict(),
        tables.counts(result),
        [lim.text for lim in binding.limits(result)],
        [result.selected_ids(kind) for kind in KINDS],
        change.summary(change.diff(before, result)),
        compare.overlap(before, result),
        evaluate(index, result, question).items,
    ]
    for kind in KINDS:
        out.append(tables.candidate_rows(kind, result.candidates(kind)).to_csv())
        for shown in (300, 3, None):
            for m in (None, marks):
                kept = tables.kept_rows(result, kind, m)
                dropped, n = tables.dropped_rows(result, kind, m, None, shown)
                out.append((kept.to_csv(), dropped.to_csv(), n))
    return out


READERS = [(*case, "nano.local") for case in CASES[:3] + CASES[4:5]] + [
    ("synthetic", 20, 1000, "lightrag.hybrid"),
    ("synthetic", 3, 0, "lightrag.local"),
    ("en", 40, 300, "lightrag.hybrid"),
    ("zh", 40, 300, "lightrag.global"),
]


@pytest.mark.parametrize(("name", "top_k", "limit", "mode"), READERS)
def test_every_reader_gets_what_the_eager_list_gives(name: str, top_k: int, limit: int, mode: str) -> None:
    before = _run(name, top_k + 1, limit + 50, mode)
    lazy = _run(name, top_k, limit, mode)  # read by every reader before anything made its tail
    eager = _eager_twin(_run(name, top_k, limit, mode))
    assert lazy == eager and eager == lazy
    assert _readers(lazy, before, _index(name)) == _readers(eager, before, _index(name))


def test_a_run_read_for_counts_kept_rows_and_limits_makes_no_dropped_row() -> None:
    before = _run("synthetic", 21, 1000)
    result = _run("synthetic", 20, 1000)
    rels = result.relations
    assert isinstance(rels, Candidates) and len(rels.tail) > 400 and rels.tail_made == 0
    tables.counts(result)
    binding.limits(result)
    [result.selected_ids(kind) for kind in KINDS]
    change.diff(before, result)
    marks = tables.Marks.between(before, result)  # the page marks what moved since the run before
    compare.overlap(before, result)
    context_items(result)
    for kind in KINDS:
        tables.kept_rows(result, kind, marks)
        tables.dropped_rows(result, kind, marks, None, 300)
    assert before.relations.tail_made == 0  # the earlier run: only its kept rows were read
    assert 0 < rels.tail_made <= 300 < len(rels.tail)  # the grid's first dropped rows only
    cut = next(lim.cut for lim in binding.limits(result) if lim.kind == "relations" and lim.limit == binding.BUDGET)
    assert cut == len(rels.tail)  # every tail row counted by its reason


def test_the_lazy_section_reads_as_a_list() -> None:
    result = _run("synthetic", 10, 2000)
    rels = result.relations
    plain = [reuse.copied(c) for c in rels]
    assert rels == plain and plain == rels and not (rels != plain) and len(rels) == len(plain)
    assert rels[-1] == plain[-1] and rels[-1] is rels[len(rels) - 1]  # a row is made once
    assert rels[3:9] == plain[3:9] and rels[::-500] == plain[::-500] and list(reversed(rels)) == plain[::-1]
    with pytest.raises(IndexError):
        rels[len(rels)]
    assert repr(rels) == repr(plain) and rels + rels == plain + plain and [] + rels == plain == rels + []
    assert type(pickle.loads(pickle.dumps(rels))) is list and pickle.loads(pickle.dumps(rels)) == plain
    assert in_context(rels) == [c for c in plain if c.in_context]
    assert list(dropped_rows(rels)) == [c for c in plain if not c.in_context]
    assert dropped_ids(rels) == [c.id for c in plain if not c.in_context]
    extra = Candidate("x", "x", {}, len(rels), "why", in_context=False, dropped="dropped")
    made = rels.tail_made
    rels.append(extra)  # a mode appending after the tail (LightRAG's near misses): the tail stays columns
    assert rels.tail_made == made and rels == [*plain, extra] and rels[-1] is extra and rels[len(plain)] is extra
    assert list(dropped_rows(rels)) == [c for c in [*plain, extra] if not c.in_context]
    assert dropped_ids(rels)[-1] == "x" and in_context(rels) == [c for c in plain if c.in_context]


@pytest.mark.parametrize(
    ("mode", "limit"), [("lightrag.hybrid", 1000), ("lightrag.local", 0), ("lightrag.global", 20000)]
)
def test_lightrag_s_tail_is_cut_where_the_running_total_passes_the_budget(mode: str, limit: int) -> None:
    result = _run("synthetic", 20, limit, mode)
    rels = result.relations
    assert isinstance(rels, Candidates) and rels.tail_made == 0
    running, kept = 0, 0
    for c in rels:
        if str(c.dropped).startswith("round-robin: duplicate of"):
            assert c.tokens == 0 and not c.in_context
            continue
        running += c.tokens
        if c.in_context:
            assert c.dropped == "" and c.order == kept
            kept += 1
        else:
            assert c.dropped == f"over max_relation_tokens {limit} ({running})"
            assert translate(c.dropped, "zh") == translate(
                msg("over max_relation_tokens {limit} ({running})", limit=limit, running=running), "zh"
            )
    assert kept == len(result.selected_ids("relations")) and (limit > 0 or kept == 0)
    assert [c.order for c in rels] == list(range(len(rels)))
