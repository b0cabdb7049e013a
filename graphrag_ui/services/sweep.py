"""Run one mode across a range of one parameter: what each step recalls, and when each item enters or leaves.

"What does top_k do here?" is answered by running the retrieval at every value (context only: no answer
and no map calls; LightRAG keywords are resolved once and reused, so every step sees the same ones)
and recording, per step, the items in the context and the tokens per section. An item *enters* at the
first step whose context holds it and *leaves* at the first later step whose context does not.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.gc_pause import paused_gc
from graphrag_ui.base.i18n import ReadTexts, msg
from graphrag_ui.base.timing import elapsed_ms, now
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.binding import binding
from graphrag_ui.retrieval.core.candidates import in_context
from graphrag_ui.retrieval.core.change import context_tokens
from graphrag_ui.retrieval.core.result import KINDS, Keywords, Retrieval
from graphrag_ui.retrieval.registry import get_mode
from graphrag_ui.retrieval.spec.schema import ParamSpec
from graphrag_ui.services.query import Prepared, prepare_query, resolve_keywords

MAX_STEPS = 200


@dataclass
class Step:
    value: Any
    counts: dict[str, int]  # kind -> items in the context
    tokens: int  # the whole context
    sections: dict[str, int]  # section -> tokens used
    ids: dict[str, list[str]]  # kind -> ids in the context, in context order
    ms: float  # the step's own time in this sweep (a summary step, run without ``on_step``, makes no context text)
    warnings: list[str] = field(default_factory=list)
    # the limits that cut something (``binding.binding``): kept as their reasons, worded when read (few steps are)
    binding: list[str] = ReadTexts()


@dataclass
class ItemSpan:
    kind: str
    id: str
    label: str
    present: list[bool]  # per step: in the context

    @property
    def enters(self) -> int | None:
        """Index of the first step whose context holds the item."""
        return next((i for i, here in enumerate(self.present) if here), None)

    @property
    def leaves(self) -> int | None:
        """Index of the first step after ``enters`` whose context no longer holds it (None: it stays)."""
        start = self.enters
        if start is None:
            return None
        return next((i for i in range(start + 1, len(self.present)) if not self.present[i]), None)


@dataclass
class Sweep:
    mode: str
    query: str
    param: str
    values: list[Any]
    steps: list[Step]
    items: list[ItemSpan]  # every item in some step's context, by kind then first appearance
    keywords: Keywords = field(default_factory=Keywords)
    params: dict[str, Any] = field(default_factory=dict)  # the parameters held fixed

    def retrieval(self, index: Index, step: int, llm_settings: Any = None) -> Retrieval:
        """Step ``step``'s whole ``Retrieval``, made when asked: a sweep keeps each step's summary only (``Step``;
        with no ``on_step`` its runs leave out what no summary reads, ``reuse.summaries``). The run at that value
        with the sweep's keywords: what ``on_step`` was given, and a single run returns."""
        value = self.values[step]
        keywords = self.keywords if get_mode(self.mode).uses_keywords else None  # as ``run_sweep`` passed them
        return prepare_query(
            index,
            self.mode,
            self.query,
            {**self.params, self.param: value},
            keywords=keywords,
            llm_settings=llm_settings,
        ).run()


def _unreadable(text: str) -> UserError:
    return UserError(
        msg("cannot read the sweep range {text!r}", text=text),
        fix=msg("write START:STOP:STEP (e.g. 5:80:5) or a list (5,10,20)"),
    )


def _too_many(text: str, n: Any) -> UserError:
    return UserError(
        msg("the sweep range {text!r} has {n} steps, more than {limit}", text=text, n=n, limit=MAX_STEPS),
        fix=msg("use a larger step"),
    )


def range_values(spec_type: str, start: Any, stop: Any, step: Any, text: str = "") -> list[Any]:
    """``start`` to ``stop`` (both included) by ``step``, checked before any list is built: finite
    numbers, ``step`` > 0, ``start`` ≤ ``stop``, at most ``MAX_STEPS`` values (a range of 10⁸ steps, or
    one whose step underflows, is refused here instead of filling the memory)."""
    text = text or f"{start}:{stop}:{step}"
    cast = int if spec_type == "int" else float
    ends = (start, stop, step)
    if not all(_finite(v) for v in ends):
        raise UserError(
            msg("the sweep range {text!r} holds a value that is not a finite number", text=text),
            fix=msg("write START:STOP:STEP with finite numbers (e.g. 5:80:5)"),
        )
    if step <= 0 or stop < start:
        raise UserError(
            msg("the sweep range {text!r} needs START ≤ STOP and a STEP above 0", text=text), fix=msg("e.g. 5:80:5")
        )
    with contextlib.suppress(OverflowError, ZeroDivisionError):  # a quotient past float's range: too many anyway
        count = (stop - start) // step if cast is int else math.floor((stop - start) / step + 1e-9)
        if math.isfinite(count) and count < MAX_STEPS:
            values = [cast(start + i * step) for i in range(int(count) + 1)]
            return [round(v, 10) for v in values] if cast is float else values
    raise _too_many(text, _steps_said(start, stop, step))


def _finite(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return isinstance(value, int) or math.isfinite(value)


def _steps_said(start: Any, stop: Any, step: Any) -> str:
    """How many steps a range has, said without building it (``∞`` past float's range)."""
    try:
        n = (stop - start) / step + 1
    except (OverflowError, ZeroDivisionError):
        return "∞"
    return f"{n:,.0f}" if math.isfinite(n) else "∞"


def parse_values(spec_type: str, text: str, spec: ParamSpec | None = None) -> list[Any]:
    """``5:80:5`` (start:stop:step, both ends included) or ``5,10,20``, as the parameter's type; every
    value finite and, with ``spec``, inside the parameter's bounds. Checked before any list is built."""
    cast = int if spec_type == "int" else float
    raw = text.strip()
    text = raw if len(raw) <= 60 else raw[:60] + "…"  # what messages quote
    if ":" in raw:
        parts = raw.split(":")
        if len(parts) != 3:
            raise _unreadable(text)
        try:
            start, stop, step = (cast(p) for p in parts)
        except ValueError:
            raise _unreadable(text) from None
        values = range_values(spec_type, start, stop, step, text)
    else:
        if raw.count(",") >= MAX_STEPS:
            raise _too_many(text, raw.count(",") + 1)
        try:
            values = [cast(p) for p in raw.split(",") if p.strip()]
        except ValueError:
            raise _unreadable(text) from None
        if not all(_finite(v) for v in values):
            raise UserError(
                msg("the sweep range {text!r} holds a value that is not a finite number", text=text),
                fix=msg("write START:STOP:STEP with finite numbers (e.g. 5:80:5)"),
            )
    if not values:
        raise UserError(msg("the sweep range {text!r} holds no value", text=text), fix=msg("e.g. 5:80:5"))
    if spec is not None:
        check_bounds(spec, values, text)
    return list(dict.fromkeys(values))


def check_bounds(spec: ParamSpec, values: list[Any], text: str) -> None:
    """Every value inside the parameter's own range (``ParamSpec.min``/``max``), or one line naming it."""
    low = spec.min if spec.min is not None else -math.inf
    high = spec.max if spec.max is not None else math.inf
    outside = next((v for v in values if not low <= v <= high), None)
    if outside is not None:
        raise UserError(
            msg(
                "the sweep range {text!r} reaches {value}, outside {name}'s range {low} to {high}",
                text=text,
                value=outside,
                name=spec.name,
                low=spec.min if spec.min is not None else "−∞",
                high=spec.max if spec.max is not None else "∞",
            ),
            fix=msg("sweep inside the parameter's range"),
        )


def sweepable(mode: str) -> list[str]:
    """The parameters of ``mode`` a sweep can vary: its numbers."""
    return [p.name for p in get_mode(mode).params if p.type in {"int", "float"}]


def run_sweep(
    index: Index,
    mode: str,
    query: str,
    params: dict[str, Any],
    param: str,
    values: list[Any],
    *,
    hl: list[str] | None = None,
    ll: list[str] | None = None,
    llm_settings: Any = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    on_step: Callable[[Any, Retrieval], None] | None = None,
) -> Sweep:
    """Run ``mode`` once per value of ``param`` (the other parameters as given); see the module docstring.

    ``on_step(value, retrieval)`` receives each step's whole ``Retrieval`` (the same a single run at that
    value returns), for callers that score or keep more than the ``Step`` summary; without it the steps are
    run for their summaries (``reuse.summaries``) and ``Sweep.retrieval`` makes a step's whole run when asked."""
    spec = get_mode(mode)
    known = {p.name: p for p in spec.params}
    if param not in known or known[param].type not in {"int", "float"}:
        raise UserError(
            msg("{mode} has no numeric parameter {param}", mode=mode, param=param),
            fix=msg("sweep one of: {names}", names=", ".join(sweepable(mode))),
        )
    values = [known[param].coerce(v) for v in values]
    keywords = None
    if spec.uses_keywords:
        keywords = resolve_keywords(index, query, hl, ll, llm_settings, [])
    steps: list[Step] = []
    labels: dict[str, dict[str, str]] = {kind: {} for kind in KINDS}  # kind -> id -> label, in order first met
    # the steps share the vector searches' rankings (reuse.shared) and the collector stays off between them;
    # the shared work is let go before the collector is back on (else its first pass walks all of it)
    run_at = _stepper(index, mode, query, params, param, keywords, llm_settings)
    summaries = reuse.summaries() if on_step is None else contextlib.nullcontext()
    with paused_gc(), reuse.shared(), summaries:
        first = _widest_first(run_at, values, known[param], cancelled)
        for i, value in enumerate(values):
            if cancelled is not None and cancelled():
                break
            if first is not None and value == first[0]:
                result, ms = first[1], first[2]
                first = None
            else:
                start = now()
                result = run_at(value)
                ms = elapsed_ms(start)
            steps.append(_step(value, result, ms, labels))
            if on_step is not None:
                on_step(value, result)
            if progress is not None:
                progress(i + 1, len(values))
        result = first = None  # the last step's rows hold shared work: let go with it
    values = [s.value for s in steps]
    return Sweep(mode, query, param, values, steps, _spans(steps, labels), keywords or Keywords(), dict(params))


def _stepper(
    index: Index,
    mode: str,
    query: str,
    params: dict[str, Any],
    param: str,
    keywords: Keywords | None,
    llm_settings: Any,
) -> Callable[[Any], Retrieval]:
    """The run at one value of ``param``: ``run_query`` with ``{**params, param: value}``, its intake done
    once, at the first value run (the same first error as that run), and each later step checking only its
    own value (``Prepared.at``): the question, the index and the other parameters do not change."""
    base: Prepared | None = None

    def run_at(value: Any) -> Retrieval:
        nonlocal base
        if base is None:
            base = prepare_query(
                index, mode, query, {**params, param: value}, keywords=keywords, llm_settings=llm_settings
            )
            return base.run()
        return base.at(param, value).run()

    return run_at


def _widest_first(
    run_at: Callable[[Any], Retrieval], values: list[Any], spec: ParamSpec, cancelled: Callable[[], bool] | None
) -> tuple[Any, Retrieval, float] | None:
    """An integer sweep's widest step, run before the others and kept for its turn: a top_k step below it
    then narrows its gathers (``reuse.prefixed``) instead of gathering again. None: a float or one value."""
    if spec.type != "int" or len(values) < 2 or (cancelled is not None and cancelled()):
        return None
    widest = max(values)
    start = now()
    result = run_at(widest)
    return widest, result, elapsed_ms(start)


def _spans(steps: list[Step], labels: dict[str, dict[str, str]]) -> list[ItemSpan]:
    """Every item in some step's context, by kind then first appearance (``labels`` holds each kind's items in
    the order met: by step, then context order within a step), with its presence per step read from the steps'
    ids once at the end (a step only lists its ids and labels the items it meets first)."""
    n, items = len(steps), []
    for kind in KINDS:
        present = {cid: [False] * n for cid in labels[kind]}
        for i, step in enumerate(steps):
            for cid in step.ids[kind]:
                present[cid][i] = True  # an id twice in one context is one presence
        items += [ItemSpan(kind, cid, label, present[cid]) for cid, label in labels[kind].items()]
    return items


def _step(value: Any, result: Retrieval, ms: float, labels: dict[str, dict[str, str]]) -> Step:
    """One step's summary: its ids per kind in context order; ``labels`` gets the label of each item met for the
    first time (``_spans`` reads the presence from the ids at the end: per item and step here cost a step ~40 µs)."""
    ids: dict[str, list[str]] = {}
    for kind in KINDS:
        shown = in_context(result.candidates(kind))  # a lazy section's dropped tail stays unmade
        ids[kind] = [c.id for c in shown]
        known = labels[kind]
        for c in shown:
            if c.id not in known:  # the first label met (an id twice in one context: its first)
                known[c.id] = c.label
    sections = {b.section: int(b.used) for b in result.budgets if b.section != "total"}
    counts = {k: len(v) for k, v in ids.items()}
    bound = [lim.said() for lim in binding(result)]  # the words made when read (``Step.binding``)
    return Step(value, counts, context_tokens(result), sections, ids, ms, list(result.warnings), bound)
