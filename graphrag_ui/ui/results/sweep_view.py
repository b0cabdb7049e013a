"""The Sweep view: run the mode across one parameter's range, chart what each step recalls, mark where
each item enters and leaves, and show any step's run with one click.

The sweep runs in a background thread (context only: no answer, no map calls; the LightRAG keywords of
the shown run are reused for every step), while this view polls its progress; the page stays usable.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.result import KINDS, Retrieval
from graphrag_ui.retrieval.registry import get_mode
from graphrag_ui.retrieval.spec.schema import ParamSpec
from graphrag_ui.services.sweep import Sweep, check_bounds, range_values, run_sweep
from graphrag_ui.ui.shell.escape import shown_error
from graphrag_ui.ui.shell.labels import KIND_LABELS, label
from graphrag_ui.ui.shell.language import error_text, t, translate
from graphrag_ui.ui.widgets.params import ask_value

DEFAULT_STEPS = 16


@dataclass
class Job:
    """One sweep running (or run) in the background for this view."""

    signature: str
    total: int
    done: int = 0
    sweep: Sweep | None = None
    error: Exception | None = None
    cancelled: bool = False
    thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()


def numeric_params(mode: str, version: str | None) -> list[ParamSpec]:
    spec = get_mode(mode)
    if version and spec.versions:
        spec = spec.for_version(version)
    return [p for p in spec.params if p.type in {"int", "float"}]


def default_range(param: ParamSpec, current: Any, items: int = 0) -> tuple[float, float, float]:
    """Start, stop and step around the parameter's bounds: a count (``top_k``…) up to the index's ``items``,
    a token budget up to 4× its current value."""
    low = float(param.min if param.min is not None else 0)
    high = float(param.max if param.max is not None else max(float(current) * 4, 1))
    if param.max is None or high - low > 40 * max(float(current), 1):
        high = max(float(current) * 4, low + 1)
    if items and param.type == "int" and ("top_k" in param.name or param.name == "k"):
        high = max(min(high, float(items)), low + 1)
    step = (high - low) / DEFAULT_STEPS
    if param.type == "int":
        step = max(1, round(step))
        return int(low), int(high), int(step)
    return low, high, round(step, 4) or 0.01


def _values(param: ParamSpec, start: float, stop: float, step: float) -> list[Any]:
    """The swept values, checked before any list is built (finite, bounded, at most MAX_STEPS)."""
    values = range_values(param.type, start, stop, step)
    check_bounds(param, values, f"{start:g}:{stop:g}:{step:g}")
    return values


def _start(job: Job, index: Index, result: Retrieval, param: str, values: list[Any]) -> None:
    def work() -> None:
        try:
            job.sweep = run_sweep(
                index,
                result.mode,
                result.query,
                {k: v for k, v in result.params.items() if k != param},
                param,
                values,
                hl=list(result.keywords.hl) or None,
                ll=list(result.keywords.ll) or None,
                progress=lambda done, total: setattr(job, "done", done),
                cancelled=lambda: job.cancelled,
            )
        except Exception as exc:  # noqa: BLE001 - shown as one line in the view
            job.error = exc

    job.thread = threading.Thread(target=work, name="sweep", daemon=True)
    job.thread.start()


def sweep_view(index: Index, result: Retrieval, key: str, widget_keys: dict[str, str]) -> None:
    """The controls, the progress while running, then the chart, the items and the step picker.

    ``widget_keys`` maps a parameter name to the key of its sidebar widget (to show a step's run)."""
    params = numeric_params(result.mode, result.params.get("version"))
    if not params:
        st.info(t("This mode has no numeric parameter to sweep."))
        return
    names = [p.name for p in params]
    c1, c2, c3, c4 = st.columns([3, 2, 2, 2], vertical_alignment="bottom")
    name = c1.selectbox(t("Parameter"), names, key=f"{key}_sweep_param", placeholder=t("Choose an option"))
    param = params[names.index(name)]
    items = max(len(index.entities), len(index.chunks))
    low, high, step = default_range(param, result.params.get(name, param.default), items)
    number = {"step": 1 if param.type == "int" else 0.01, "format": "%d" if param.type == "int" else "%.2f"}
    start = c2.number_input(t("from"), value=low, key=f"{key}_sweep_{name}_from", **number)
    stop = c3.number_input(t("to"), value=high, key=f"{key}_sweep_{name}_to", **number)
    every = c4.number_input(t("step"), value=step, key=f"{key}_sweep_{name}_step", **number)
    job_key = f"{key}_sweep_job"
    job: Job | None = st.session_state.get(job_key)
    signature = repr((result.mode, result.query, sorted(result.params.items()), name, start, stop, every))
    if st.button(t("Run the sweep"), key=f"{key}_sweep_run", type="primary", disabled=bool(job and job.running)):
        try:
            values = _values(param, start, stop, every)
        except UserError as exc:
            st.error(shown_error(exc))
            return
        job = Job(signature, len(values))
        st.session_state[job_key] = job
        _start(job, index, result, name, values)
    if job is None:
        st.caption(
            t(
                "Runs {mode} once per value of the parameter (context only, no model calls) and charts what "
                "each step puts into the context.",
                mode=result.mode,
            )
        )
        return
    _progress(job, key)
    if job.sweep is not None and not job.running:
        if job.signature != signature:
            st.caption(t("These are the results of the last sweep; run it again for the settings above."))
        _results(job.sweep, key, widget_keys)


def _progress(job: Job, key: str) -> None:
    """While the thread runs, a small part of the view polls it (nothing else reruns); when it ends, the
    page runs once more to draw the results."""
    polling = job.running

    def poll() -> None:
        if job.running:
            text = t("Sweep: {done} of {total} steps", done=job.done, total=job.total)
            st.progress(job.done / max(job.total, 1), text=text)
            if st.button(t("Stop"), key=f"{key}_sweep_stop"):
                job.cancelled = True
        elif polling:
            st.rerun()  # finished while polling: draw the results
        elif job.error is not None:
            message = error_text(job.error) if isinstance(job.error, UserError) else repr(job.error)
            st.error(t("The sweep failed: {error}", error=message))

    st.fragment(poll, run_every=0.3 if polling else None)()


def sweep_frame(sweep: Sweep) -> pd.DataFrame:
    """One row per step and kind: the items in the context (long form, for the chart)."""
    rows = []
    for step in sweep.steps:
        for kind in KINDS:
            rows.append({"value": step.value, "what": label(KIND_LABELS, kind), "n": step.counts[kind]})
    return pd.DataFrame(rows)


def _results(sweep: Sweep, key: str, widget_keys: dict[str, str]) -> None:
    import altair as alt

    if not sweep.steps:
        st.info(t("The sweep was stopped before its first step."))
        return
    items = sweep_frame(sweep)
    tokens = pd.DataFrame({"value": [s.value for s in sweep.steps], "tokens": [s.tokens for s in sweep.steps]})
    pick = alt.selection_point(fields=["value"], name="step", on="click", nearest=True, empty=False)
    base = alt.Chart(items).encode(x=alt.X("value:Q", title=sweep.param))
    lines = base.mark_line(point=True).encode(
        y=alt.Y("n:Q", title=t("items in the context")),
        color=alt.Color("what:N", title=None, legend=alt.Legend(orient="bottom")),
        tooltip=[alt.Tooltip("value:Q", title=sweep.param), alt.Tooltip("what:N", title=t("kind")), "n:Q"],
    )
    rule = base.mark_rule(color="#bbb").encode(opacity=alt.condition(pick, alt.value(1), alt.value(0))).add_params(pick)
    token_chart = (
        alt.Chart(tokens)
        .mark_area(opacity=0.35, line=True)
        .encode(x=alt.X("value:Q", title=sweep.param), y=alt.Y("tokens:Q", title=t("tokens")))
        .properties(height=110, width="container")
    )
    layers = lines + rule
    changes = binding_changes(sweep)
    if not changes.empty:  # where the set of binding limits changes: a dashed mark, the limits in its tooltip
        marks = alt.Chart(changes).mark_rule(color="#e15759", strokeDash=[4, 3], size=2)
        layers += marks.encode(
            x="value:Q",
            tooltip=[alt.Tooltip("value:Q", title=sweep.param), alt.Tooltip("binding:N", title=t("binding"))],
        )
    # two charts, each as wide as its column (a vconcat kept its own width and ran past the column)
    chart = layers.properties(height=220, width="container")
    event = st.altair_chart(chart, width="stretch", on_select="rerun", key=f"{key}_sweep_chart")
    st.altair_chart(token_chart, width="stretch", key=f"{key}_sweep_tokens")
    clicked = _clicked_value(event)
    values = sweep.values
    chosen = st.select_slider(
        t("Step"), values, value=clicked if clicked in values else values[0], key=f"{key}_sweep_step_pick"
    )
    target = widget_keys.get(sweep.param)
    if target is not None:
        st.button(
            t("Show the run at {name}={value}", name=sweep.param, value=chosen),
            key=f"{key}_sweep_show",
            on_click=_show_step,
            args=(target, chosen, key),
            icon=":material/open_in_new:",
        )
    _steps_table(sweep, key)
    _items_table(sweep, key)


def steps_frame(sweep: Sweep) -> pd.DataFrame:
    """One row per step: the value, the items per kind in the context and its tokens."""
    rows = []
    for step in sweep.steps:
        row = {sweep.param: step.value}
        row.update({label(KIND_LABELS, kind): step.counts[kind] for kind in KINDS})
        row[t("tokens")] = step.tokens
        row[t("binding")] = "; ".join(translate(text) for text in step.binding) or "—"
        rows.append(row)
    return pd.DataFrame(rows)


def binding_changes(sweep: Sweep) -> pd.DataFrame:
    """The steps whose binding limits differ from the step before (the first step counts when any binds)."""
    rows, before = [], None
    for step in sweep.steps:
        kinds = [_limit_key(text) for text in step.binding]
        if kinds != before and (before is not None or kinds):
            rows.append({"value": step.value, "binding": "; ".join(translate(x) for x in step.binding) or "—"})
        before = kinds
    return pd.DataFrame(rows, columns=["value", "binding"])


def _limit_key(text: Any) -> str:
    """A binding limit without its counts (a step that cuts 12 instead of 11 binds the same limit)."""
    values = getattr(text, "values", {})
    return f"{getattr(text, 'template', text)}|{values.get('kind', '')}|{values.get('param', '')}"


def _steps_table(sweep: Sweep, key: str) -> None:
    st.caption(t("Items and tokens per step"))
    st.dataframe(steps_frame(sweep), hide_index=True, width="stretch", key=f"{key}_sweep_steps")


def _clicked_value(event: Any) -> Any:
    try:
        picked = event.selection.get("step") or []
        return picked[0]["value"] if picked else None
    except (AttributeError, KeyError, IndexError, TypeError):
        return None


def _show_step(widget_key: str, value: Any, key: str) -> None:
    """Set the sidebar's parameter to the step's value (on the next full run) and open the tables of that run."""
    ask_value(widget_key, value)
    st.session_state[f"{key}_show"] = "entities"
    st.session_state[f"{key}_sweep_rerun_app"] = True


def rerun_if_a_step_was_shown(key: str) -> None:
    """The step's button ran in the views' fragment, which then draws the tables: the whole page must run
    again for the sidebar to take the step's value (and the run to be the step's)."""
    if st.session_state.pop(f"{key}_sweep_rerun_app", False):
        st.rerun(scope="app")


def _items_table(sweep: Sweep, key: str) -> None:
    rows = []
    for item in sweep.items:
        enters = sweep.values[item.enters] if item.enters is not None else None
        leaves = sweep.values[item.leaves] if item.leaves is not None else None
        rows.append(
            {
                "kind": label(KIND_LABELS, item.kind),
                "label": item.label,
                "enters": enters,
                "leaves": leaves,
                "steps": sum(item.present),
            }
        )
    st.caption(t("When each item enters and leaves the context"))
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        width="stretch",
        key=f"{key}_sweep_items",
        placeholder="—",
        column_config={
            "kind": t("kind"),
            "label": t("label"),
            "enters": st.column_config.NumberColumn(t("enters at"), help=t("first value whose context holds it")),
            "leaves": st.column_config.NumberColumn(
                t("leaves at"), help=t("first later value whose context no longer holds it; — it stays")
            ),
            "steps": st.column_config.NumberColumn(t("steps in"), help=t("how many steps hold it")),
        },
    )
