"""Work that the steps of a sweep share: a vector search's full ranking, made once and cut per step.

A sweep (``graphrag_ui.services.sweep``) runs one mode at many values of one parameter with the same question.
Inside ``shared()`` the vector searches keep what they computed — the similarity of every row and the
complete order the reference's sort puts them in — keyed by the table and the exact query vector, so
the next step asks only for a cut of that order: ``top_k`` and a similarity threshold are then a slice
and a stopping point, never another product over the table nor another sort.

Only what is provably the same is reused: ``np.argsort(scores)[-k:][::-1]`` is the last ``k`` of the one
full argsort of the same scores (the cosine search keeps the widest top asked, ``recall._Ranked``: the
first ``k`` of the top ``K`` of one argsort), and LanceDB's top ``k`` by (distance, row) is the first ``k`` of
the widest step's top in that total order (its distances are per row, so any subset of rows gives the same
bits; a step wider than the one kept searches again). Outside ``shared()`` nothing is kept and every search
runs as before.

Stages above the searches share through ``once``, ``replayed`` and ``prefixed`` with keys naming every
input they read: nano.local's gathers (``nano.local_gather``); LightRAG's whole search, a top_k step's
recall and global path cut from a wider step's (``lightrag.search``), each hit's costs and lines, the kept
items' context parts, its chunk picks and rows, its entity/relation rows, the local path's edges and each
chunk's similarity to the question (``lightrag.stages``, ``lightrag.v1_4_7``/``v1_5_7.pipeline``, ``lightrag.chunks``);
LightRAG's near misses, made once per searched table at the widest top (``lightrag.near_misses``), naive's rows
and its context per kept length, and the local path's relation hits kept as fields until read
(``lightrag.lazy_hits``), each made once per edge and position, each kept graph row copied from the step that
made it at that position and cost (``lightrag.search``, ``lightrag.explain``); nano.naive's ranked chunks and nano.local's ranked entities, searched once and cut per
step (``nano.naive_rows``, ``nano.recall``); ms.local's entity hits, their reasons and columns, its report matching, its Entities
rows, its relationship filter and table per entity prefix, its text units and its kept rows' candidates (``ms.local_search``). A parameter the keys hold (a threshold) gives a new key: a full run.
What follows LightRAG's entity and relation cut is kept per kept hits (``lightrag.after_cut``).
A whole run is kept by ``whole`` when its key proves a step the same run: lightrag.naive's top_k steps under a
chunk_top_k (``lightrag.retrieve``), ms.drift's steps over a parameter its model-free primer does not read
(``ms.drift_search.search``). Row data (``Candidate.data``) is shared read only, as in ``replayed``.
Inside ``summaries()`` (a sweep read for its ``Step`` summaries) a mode may leave out what no summary reads:
nano.local prints no context, keeps its kept relations, sources and reports as one ``SummaryRow`` per item and
sweep, and makes no reason for a recalled entity or a near miss (``nano.local_query``, ``nano.recall``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

import numpy as np

from graphrag_ui.retrieval.core.result import KINDS, Retrieval

_MEMO: ContextVar[dict[tuple, Any] | None] = ContextVar("graphrag_ui_shared_work", default=None)


@contextlib.contextmanager
def shared() -> Iterator[dict[tuple, Any]]:
    """A scope whose vector searches keep their rankings for the next step (nested scopes share the outer one)."""
    outer = _MEMO.get()
    if outer is not None:
        yield outer
        return
    memo: dict[tuple, Any] = {}
    token = _MEMO.set(memo)
    try:
        yield memo
    finally:
        _MEMO.reset(token)
        memo.clear()


def active() -> bool:
    return _MEMO.get() is not None


_SUMMARY: ContextVar[bool] = ContextVar("graphrag_ui_summary_steps", default=False)


@contextlib.contextmanager
def summaries() -> Iterator[None]:
    """A scope whose runs are read only for their summary (``services.sweep.Step``: the context's items, budgets,
    limits and warnings): a mode may leave out what no summary reads (the answer's messages). The whole run is
    made again when a caller asks for it (``Sweep.retrieval``)."""
    token = _SUMMARY.set(True)
    try:
        yield
    finally:
        _SUMMARY.reset(token)


def summary_only() -> bool:
    """Whether this run is a sweep's summary step: inside ``summaries()`` and a ``shared()`` scope, whose memo
    holds the rows a summary step shares with the others (``SummaryRow``, ``summary_row``)."""
    return _SUMMARY.get() and active()


class SummaryRow:
    """A kept row as a summary step reads it (``services.sweep.Step``: its id and label, in the context): one
    per item and sweep, shared by every summary step that keeps it (no reader of a summary step changes a row;
    ``Sweep.retrieval`` makes a step's whole ``Candidate`` rows). nano.local's kept relations, sources, reports."""

    __slots__ = ("id", "label")
    in_context = True

    def __init__(self, id: str, label: str) -> None:  # noqa: A002  (``Candidate``'s names)
        self.id, self.label = id, label


def summary_row(held: dict[str, SummaryRow], key: str, label: Callable[[], str]) -> SummaryRow:
    """The ``SummaryRow`` of ``key`` held in ``held`` (one per item and sweep), made with ``label()`` when first met."""
    found = held.get(key)
    if found is None:
        found = held[key] = SummaryRow(key, label())
    return found


def kept(kind: str, table: Any, query: np.ndarray, make: Callable[[], Any], *extra: Any) -> Any:
    """``make()`` once per (kind, table, query vector, extra) inside ``shared()``; the table is held with
    its value so that its id cannot be recycled by another table while the scope lasts."""
    memo = _MEMO.get()
    if memo is None:
        return make()
    q = np.ascontiguousarray(query)
    key = (kind, id(table), q.dtype.str, q.shape, q.tobytes(), *extra)
    found = memo.get(key)
    if found is None or found[0] is not table:
        found = memo[key] = (table, make())
    return found[1]


def once(key: tuple, make: Callable[[], Any]) -> Any:
    """``make()`` once per ``key`` inside ``shared()`` (the key names every input ``make`` reads; the index by
    its id, which cannot be recycled while the sweep holding it runs); the value is shared: read only."""
    memo = _MEMO.get()
    if memo is None:
        return make()
    found = memo.get(key)
    if found is None:
        found = memo[key] = make()
    return found


def of_objects(name: str, objects: tuple, make: Callable[[], Any]) -> Any:
    """``make()`` once per ``objects`` (by identity) inside ``shared()``, as ``kept`` is per table: the objects
    are held with the value, so their ids name no other while the scope lasts; the value is shared: read only."""
    memo = _MEMO.get()
    if memo is None:
        return make()
    key = (name, *map(id, objects))
    found = memo.get(key)
    if found is None or not all(a is b for a, b in zip(found[0], objects, strict=True)):
        found = memo[key] = (objects, make())
    return found[1]


def owned(key: tuple, make: Callable[[], Any], fresh: Callable[[Any], Any]) -> Any:
    """``make()`` for a caller that changes what it gets: inside ``shared()`` the second step with the same
    ``key`` keeps a value and each later one gets ``fresh(kept)`` (its own copy); the first step gets its
    own ``make()`` unkept (as ``replayed``: most keys of a sweep are met once). Outside ``shared()``, ``make()``."""
    memo = _MEMO.get()
    if memo is None:
        return make()
    found = memo.get(key)
    if found is None:
        memo[key] = _MET_ONCE
        return make()
    if found is _MET_ONCE:
        found = memo[key] = (make(),)
    return fresh(found[0])


def replayed(key: tuple, out: Retrieval, run: Callable[[], Any]) -> Any:
    """``run()`` — a stage that appends candidates, budgets and warnings to ``out`` and returns a value —
    inside ``shared()``: the second step with the same ``key`` keeps copies of what the stage appended, and
    each later one gets copies of those, in the same order, and the same value. The first step only runs it:
    most keys of a sweep are met once (every stage of a top_k step, a budget's own section), and copying
    what no step replays cost as much as the replays saved. Outside ``shared()`` it is ``run()``."""
    memo = _MEMO.get()
    if memo is None:
        return run()
    found = memo.get(key)
    if found is None:
        memo[key] = _MET_ONCE
        return run()
    if found is _MET_ONCE:
        before = [len(out.candidates(kind)) for kind in KINDS], len(out.budgets), len(out.warnings)
        value = run()
        added = {kind: [copied(c) for c in out.candidates(kind)[n:]] for kind, n in zip(KINDS, before[0], strict=True)}
        memo[key] = (value, added, [copied(b) for b in out.budgets[before[1] :]], out.warnings[before[2] :])
        return value
    value, added, budgets, warnings = found
    for kind, cands in added.items():
        out.candidates(kind).extend(copied(c) for c in cands)
    out.budgets.extend(copied(b) for b in budgets)
    out.warnings.extend(warnings)
    return value


_MET_ONCE = object()  # ``replayed``: a key run once, nothing kept yet


def whole(key: tuple, out: Retrieval, run: Callable[[], Any]) -> Retrieval:
    """``run()`` — which fills ``out`` as a whole retrieval — once per ``key`` inside ``shared()`` (the key names
    every input the run reads); a later step with the same key is given a copy of what that run made, its
    own mode, question and parameters kept. Outside ``shared()`` it is ``run()``."""
    memo = _MEMO.get()
    if memo is None:
        run()
        return out
    found = memo.get(key)
    if found is None:
        run()
        memo[key] = found = _filled(Retrieval(out.mode, out.query, out.params), out)
    return _filled(out, found)


def _filled(out: Retrieval, made: Retrieval) -> Retrieval:
    """``out`` holding copies of what ``made`` holds (not its mode, question, parameters or timings)."""
    for kind in KINDS:
        setattr(out, kind, [copied(c) for c in made.candidates(kind)])
    out.keywords = copied(made.keywords)
    out.budgets = [copied(b) for b in made.budgets]
    out.trace = [copied(t) for t in made.trace]
    out.context, out.warnings = made.context, list(made.warnings)
    out.messages = [dict(m) for m in made.messages]
    out.vector_search = dict(made.vector_search)
    out.stages, out.tree = made.stages, made.tree  # None here: the runs kept whole ask no model
    return out


def copied(item: Any) -> Any:
    """A shallow copy of a plain dataclass (a Candidate, a Budget): ``copy.copy`` without its reduce protocol
    (its fields' dict copied whole and set: a sweep copies 10²–10³ kept rows a step, and this is ~40% quicker
    than filling the new object's own dict)."""
    new = _NEW(type(item))
    new.__dict__ = item.__dict__.copy()
    return new


_NEW = object.__new__  # a module name: looked up without the attribute read each copy


def prefixed(name: str, index_id: int, hits: tuple, make: Callable[[], Any], narrow: Callable[[Any, int], Any]) -> Any:
    """A gather over the recalled items ``hits`` (ids in recall order), once per ``hits`` inside ``shared()``;
    when a wider gather of the same ``name`` holds ``hits`` as its first items (a top_k step below one
    already run), ``narrow(wider, len(hits))`` derives it instead (the caller proves that equal)."""
    memo = _MEMO.get()
    if memo is None:
        return make()
    key = (name, index_id, hits)
    found = memo.get(key)
    if found is not None:
        return found
    wider = memo.setdefault((name, index_id, "by hits"), [])
    for their_hits, gathered in wider:
        if len(their_hits) > len(hits) and their_hits[: len(hits)] == hits:
            found = narrow(gathered, len(hits))
            break
    else:
        found = make()
        wider.append((hits, found))
    memo[key] = found
    return found
