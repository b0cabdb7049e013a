"""No dead end on a similarity threshold.

A reference's threshold (nano's ``query_better_than_threshold``, LightRAG's
``cosine_better_than_threshold``) was tuned for other embedders; under the app's embedder a plain
question can score just below it and the context comes out empty. When that happens the empty
state names the best candidate's score against the threshold and offers one click that sets the
threshold just below that score for this view: the widget is URL-bound, so the link reproduces it,
and the default stays the reference's. The offer is made only when a retrieval at the suggested
value really puts something into the context.
"""

from __future__ import annotations

import math
from typing import Any

import streamlit as st

from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.result import KINDS, Retrieval
from graphrag_ui.retrieval.spec.schema import ModeSpec, ParamSpec
from graphrag_ui.ui.results import derived
from graphrag_ui.ui.shell.language import t
from graphrag_ui.ui.shell.runner import retrieve
from graphrag_ui.ui.widgets.params import widget_key

NEARLY_EMPTY = 2  # this many items in the context or fewer counts as a dead end
OFF_TOPIC = 0.75  # a best score under 3/4 of the threshold: the index seems to be about something else


def threshold_param(spec: ModeSpec) -> ParamSpec | None:
    """The mode's similarity threshold, if it has one."""
    return next((p for p in spec.params if p.type == "float" and "threshold" in p.name), None)


def kept_total(result: Retrieval) -> int:
    return sum(kept for kept, _ in derived.counts(result).values())  # every run asks: once per result


def just_below(score: float) -> float:
    """The largest two-decimal value strictly below ``score`` (the slider's step is 0.01)."""
    value = math.floor(score * 100) / 100
    return round(value - 0.01 if value >= score else value, 2)


def best_below(result: Retrieval, threshold: float, probe: Retrieval | None = None) -> float | None:
    """The best score under ``threshold``: from the rows dropped by it, else from a run without it."""
    dropped = [
        c.score
        for kind in KINDS
        for c in result.candidates(kind)
        if not c.in_context and c.score is not None and "threshold" in (c.dropped or "") and c.score < threshold
    ]
    if dropped:
        return float(max(dropped))
    if probe is None:
        return None
    scores = [
        c.score
        for kind in KINDS
        for c in probe.candidates(kind)
        if c.in_context and c.score is not None and c.score < threshold
    ]
    return float(max(scores)) if scores else None


def _set(key: str, value: float) -> None:
    """The button's callback: the threshold's widget is drawn on full runs only (Explore reruns just its
    results after a move), so the whole page reruns and the slider and the link show the new value."""
    st.session_state[key] = value
    st.rerun()


def offer_lower_threshold(
    index: Index,
    index_key: str,
    spec: ModeSpec,
    result: Retrieval,
    values: dict[str, Any],
    hl: list[str] | None,
    ll: list[str] | None,
    prefix: str = "",
) -> bool:
    """Show the score-vs-threshold line and the one-click action; False when this is no threshold dead end."""
    param = threshold_param(spec)
    if param is None or kept_total(result) > NEARLY_EMPTY:
        return False
    current = float(values[param.name])
    best = best_below(result, current)
    if best is None:
        floor = param.min if param.min is not None else -1.0
        probe = retrieve(index, index_key, spec.name, result.query, {**values, param.name: floor}, hl, ll)
        best = best_below(result, current, probe)
    if best is None:
        return False
    lower = just_below(best)
    after = retrieve(index, index_key, spec.name, result.query, {**values, param.name: lower}, hl, ll)
    gained = kept_total(after)
    if gained <= kept_total(result):
        return False
    st.info(
        t(
            "The best candidate scores {best}, below {name} {threshold}, so (almost) nothing reached "
            "the context. Just below that score, {n} items would. The default stays the reference's.",
            best=f"{best:.3f}",
            name=param.name,
            threshold=f"{current:g}",
            n=gained,
        ),
        icon=":material/tune:",
    )
    if best < current * OFF_TOPIC:
        st.caption(
            t(
                "The best score is far below the threshold: this index may not be about the question (its "
                "language or its subject); lowering the threshold then brings in what is least unlike it.",
            )
        )
    st.button(
        t("Set {name} to {value} for this view", name=param.name, value=f"{lower:.2f}"),
        key=f"{prefix}threshold_rescue",
        on_click=_set,
        args=(widget_key(spec, param, prefix), lower),
        icon=":material/south:",
    )
    return True
