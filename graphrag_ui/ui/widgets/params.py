"""Sidebar widgets generated from a mode's parameter schema (adding a mode never touches the UI)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.retrieval.registry import get_mode, mode_names
from graphrag_ui.retrieval.spec.param_intake import reference_of
from graphrag_ui.retrieval.spec.schema import VERSION_PARAM, ModeSpec, ParamSpec, suggestion
from graphrag_ui.ui.shell.labels import CHOICES, label
from graphrag_ui.ui.shell.language import in_this_language, t, translate
from graphrag_ui.ui.widgets import ranges

RESYNC = "_url_resync"  # widgets seeded from a link's spelling they cannot read: written back to the URL next run
PENDING = "_param_pending"  # widget key -> value another view asked for (a sweep step): set before the widget draws


def ask_value(key: str, value: Any) -> None:
    """Have the widget ``key`` take ``value`` on the next full run (a widget drawn elsewhere, e.g. the
    sidebar seen from a fragment, cannot be assigned from there: its next draw would keep the old value)."""
    st.session_state.setdefault(PENDING, {})[key] = value


def widget_key(spec: ModeSpec, param: ParamSpec, prefix: str = "") -> str:
    """URL-safe key; per family, so switching nano → ms does not carry nano's top_k over."""
    return f"{prefix}{spec.family}_{param.name}"


def url_form(value: Any) -> str:
    """How the widgets write ``value`` into the URL (a link spelt this way is read by the widget itself)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _from_link(param: ParamSpec, key: str) -> Any:
    """The link's value for a widget about to draw for the first time, when the schema accepts it.

    The schema reads what the CLI reads (``1``/``yes`` for true, ``4321.0`` for a whole number); a widget
    reads only its own spelling and would drop the rest without a word. Such a value is put in the
    session first, and the URL gets the widget's spelling on the next run. A value the schema refuses
    is left to the widget to drop: ``url_notices`` then names it.
    """
    if key in st.session_state or key not in st.query_params:
        return None
    raw = st.query_params.get(key)
    try:
        value = param.coerce(raw)
    except UserError:
        return None
    if raw != url_form(value):
        st.session_state[key] = value
        st.session_state.setdefault(RESYNC, set()).add(key)
    return value


def _resync(key: str) -> None:
    """Assign a link-seeded value again (one run later): Streamlit then writes it into the URL; a value
    asked for by ``ask_value`` is assigned here, before the widget draws."""
    asked = st.session_state.get(PENDING)
    if asked and key in asked:
        st.session_state[key] = asked.pop(key)
    pending = st.session_state.get(RESYNC)
    if pending and key in pending:
        pending.discard(key)
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def _widget(
    param: ParamSpec, key: str, disabled: bool, mode: str = "", index: Any = None, on_change: Callable | None = None
) -> Any:
    """The parameter keeps the reference's name as its label; its help is in the UI language."""
    _resync(key)
    linked = _from_link(param, key)
    common = {"key": key, "help": translate(param.help), "bind": "query-params", "disabled": disabled}
    if on_change is not None:
        common["on_change"] = on_change
    if param.type == "bool":
        return st.toggle(param.name, value=bool(param.default), **common)
    if param.type == "choice":
        options = list(param.choices)
        return st.selectbox(
            param.name,
            options,
            index=options.index(param.default),
            placeholder=t("Choose an option"),
            format_func=in_this_language(lambda value: label(CHOICES, value) if param.name == "recall" else value),
            **common,
        )
    if param.type == "str":
        return st.text_input(param.name, value=str(param.default), **common)
    is_int = param.type == "int"
    cast = int if is_int else float
    low = cast(param.min if param.min is not None else 0)
    high = cast(param.max if param.max is not None else max(param.default * 4, 1))
    step = cast(param.step if param.step is not None else (1 if is_int else 0.05))
    how = ranges.kind(param)
    if how == "ladder":
        keep = (param.default, st.session_state.get(key, linked))
        bottom, top = ranges.bounds(param, ranges.index_cap(param, mode, index), keep)
        common["help"] = t(
            "{help} Round steps that grow with the value; a link may set any whole number from {low} to {high}.",
            help=translate(param.help),
            low=low,
            high=high,
        )
        options = ranges.ladder(bottom, top, int(step), keep)
        return st.select_slider(param.name, options=options, value=int(param.default), **common)
    if how == "slider":
        return st.slider(param.name, min_value=low, max_value=high, value=cast(param.default), step=step, **common)
    return st.number_input(param.name, min_value=low, max_value=high, value=cast(param.default), step=step, **common)


def version_picker(spec: ModeSpec, index: Any, prefix: str = "") -> ModeSpec:
    """For a mode that follows several releases: pick one (default: the release that wrote ``index``)
    and return the mode with that release's parameter schema; other modes come back unchanged."""
    if not spec.versions:
        return spec
    options = list(spec.versions)
    default = spec.default_version(index)
    key = f"{prefix}{spec.family}_{VERSION_PARAM}"
    if st.session_state.get(key) not in options:
        st.session_state.pop(key, None)
    chosen = st.selectbox(
        t("Reference version"),
        options,
        index=options.index(default),
        key=key,
        help=t(
            "Which release of the reference library this mode reproduces, byte for byte. Default: the "
            "release that wrote the index (1.4.7 for built and sample indexes).",
        ),
        bind="query-params",
        placeholder=t("Choose an option"),
    )
    return spec.for_version(chosen)


def parameter_widgets(
    spec: ModeSpec,
    prefix: str = "",
    disabled: bool = False,
    index: Any = None,
    on_change: Callable | None = None,
) -> dict[str, Any]:
    """One widget per parameter; returns name -> value in the reference's own field names.

    The ``version`` of a versioned mode is chosen beside the mode (``version_picker``); here it is
    carried as the value the picked schema stands for. ``index`` (default: the one the frame opened)
    bounds the counts (``top_k`` ≤ its rows, see ``ranges``). ``on_change``: each widget's callback
    (Explore's reruns only its results: ``current_values`` reads the moved value there).
    """
    index = index if index is not None else st.session_state.get("_index")
    values = {}
    for param in spec.params:
        if param.name == VERSION_PARAM:
            values[param.name] = param.default
            continue
        values[param.name] = _widget(param, widget_key(spec, param, prefix), disabled, spec.name, index, on_change)
    return values


def current_values(spec: ModeSpec, drawn: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``drawn`` (what ``parameter_widgets`` returned on the last full run) with each widget's value as the
    session holds it now: a part of the page that reruns alone after a move reads the moved value here."""
    values = dict(drawn)
    for param in spec.params:
        key = widget_key(spec, param, prefix)
        if param.name != VERSION_PARAM and key in st.session_state:
            values[param.name] = st.session_state[key]
    return values


def url_reference_fields(spec: ModeSpec, prefix: str = "") -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Fields of the mode's reference parameter object that a link carries beside its widgets.

    ``lightrag_max_entity_tokens`` on ``lightrag.naive`` has no widget: it still goes to the retrieval,
    which names it as ignored (or hands it to the answer layer). Returns those fields and, for a name
    neither the mode nor its reference knows, (URL key, suggestion). Parameters of the family's other
    modes are left alone: they stay in the link when the mode changes.
    """
    lead = f"{prefix}{spec.family}_"
    own = {p.name for p in spec.params}
    version = str(spec.defaults().get(VERSION_PARAM, ""))
    ref, _ = reference_of(spec, version)
    known = ref.known_names() if ref else set()
    siblings = family_param_names(spec.family)
    fields: dict[str, str] = {}
    unknown: list[tuple[str, str]] = []
    for key in st.query_params:
        name = key[len(lead) :] if key.startswith(lead) else ""
        if not name or name in own:
            continue
        if name in known:
            fields[name] = st.query_params[key]
        elif name not in siblings:
            unknown.append((key, suggestion(name, own | known)))
    return fields, unknown


def family_param_names(family: str) -> set[str]:
    """Every parameter name of every mode (and release) of ``family``."""
    names: set[str] = set()
    for mode in mode_names():
        spec = get_mode(mode)
        if spec.family != family:
            continue
        for version in spec.versions or ("",):
            names |= {p.name for p in (spec.for_version(version) if version else spec).params}
    return names
