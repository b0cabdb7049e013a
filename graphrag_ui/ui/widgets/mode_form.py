"""The mode form Explore and Compare share: the mode, its reference release, the mode's parameter widgets,
the link's parameters it does not know, and LightRAG's keywords.

``prefix`` keeps one form's widgets apart from another's (Compare's sides: ``a_`` and ``b_``; every
widget is bound to the URL under its key). Explore lays the form out with headings and help in the
sidebar; Compare packs it into each side's expander (``compact``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import streamlit as st

from graphrag_ui.retrieval.registry import get_mode, mode_names
from graphrag_ui.retrieval.spec.schema import ModeSpec
from graphrag_ui.services.readiness import ModeReadiness
from graphrag_ui.ui.results import mode_marks
from graphrag_ui.ui.shell.escape import md_escape
from graphrag_ui.ui.shell.language import t, translate
from graphrag_ui.ui.shell.runner import split_keywords
from graphrag_ui.ui.widgets import params as param_widgets


@dataclass
class ModeForm:
    """What the form says to run: the mode, its schema (for the picked release) and the values set."""

    mode: str
    spec: ModeSpec
    values: dict[str, Any]
    unknown: list[tuple[str, str]]  # (the link's parameter, what the reference calls near it)
    hl: list[str] | None = None
    ll: list[str] | None = None


def pick_mode(
    index: Any,
    prefix: str = "",
    *,
    title: str = "",
    default: int = 0,
    marks: dict[str, ModeReadiness] | None = None,
) -> tuple[str, ModeSpec]:
    """The mode picker (``title`` before its label; ``marks``: the readiness note under it) and, for a mode
    that follows several releases, the release picker; returns the mode and its schema for that release."""
    label = t("Retrieval mode")
    mode = st.selectbox(
        f"{title} · {label}" if title else label,
        mode_names(),
        index=default,
        key=f"{prefix}mode",
        bind="query-params",
        placeholder=t("Choose an option"),
    )
    if marks is not None:
        mode_marks.picker_note(marks)
    return mode, param_widgets.version_picker(get_mode(mode), index, prefix=prefix)


def mode_settings(
    mode: str, spec: ModeSpec, prefix: str = "", *, compact: bool = False, on_change: Callable | None = None
) -> ModeForm:
    """The mode's parameter widgets, the link's reference fields and (modes that use them) the keywords.

    ``compact`` leaves out the headings, the mode's summary and the keywords' help, and warns about the
    link's unknown parameters at once; otherwise the page does (``warn_unknown``) where it shows notices.
    ``on_change``: every widget's callback (see ``current``).
    """
    if not compact:
        st.subheader(t("Parameters"))
        st.caption(translate(spec.summary))
    values = param_widgets.parameter_widgets(spec, prefix=prefix, on_change=on_change)
    linked, unknown = param_widgets.url_reference_fields(spec, prefix=prefix)
    values.update(linked)
    form = ModeForm(mode, spec, values, unknown)
    if compact:
        warn_unknown(form)
    if spec.uses_keywords:
        if not compact:
            st.subheader(t("Keywords (LightRAG)"))
        how = (
            None
            if compact
            else t("Comma-separated. Leave both empty to let the model (or the offline extractor) choose.")
        )
        form.hl = split_keywords(
            st.text_input(
                t("High-level keywords"), key=f"{prefix}hl", bind="query-params", help=how, on_change=on_change
            )
        )
        form.ll = split_keywords(
            st.text_input(
                t("Low-level keywords"), key=f"{prefix}ll", bind="query-params", help=how, on_change=on_change
            )
        )
    return form


def current(form: ModeForm, prefix: str = "") -> ModeForm:
    """``form`` as its widgets stand now: what a part of the page that reruns alone after a move (its
    widgets drawn on the last full run, their callback rerunning only that part) must run with."""
    values = param_widgets.current_values(form.spec, form.values, prefix)
    if not form.spec.uses_keywords:
        return replace(form, values=values)
    hl = split_keywords(st.session_state.get(f"{prefix}hl", ""))
    ll = split_keywords(st.session_state.get(f"{prefix}ll", ""))
    return replace(form, values=values, hl=hl, ll=ll)


def warn_unknown(form: ModeForm) -> None:
    """One warning per parameter the link named that neither the mode nor its reference knows."""
    for key, fix in form.unknown:
        st.warning(
            t(
                "The link's parameter {param} names nothing {mode} or its reference knows ({fix}); it was left out.",
                param=md_escape(key),
                mode=form.mode,
                fix=fix,
            )
        )
