"""The Evaluate page's plan: which modes, which reference releases, and one parameter's range.

Every choice is in the URL (``ev_modes``, ``ev_<family>_versions``, ``ev_param``, ``ev_from``/``ev_to``/
``ev_step``), so a link reopens the same evaluation. A link value the page cannot use (a mode the app
does not have, a parameter none of the chosen modes has, a range bound that is not a number) is named in
a notice with what was used instead, never dropped silently. A mode without the chosen parameter runs
once at its defaults, and the page says so (``EvalPlan.notes``).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.evaluation.plan import EvalPlan
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.registry import FIRST_COMPARISON, get_mode, mode_names, reference_name
from graphrag_ui.retrieval.spec.schema import suggestion
from graphrag_ui.services.sweep import MAX_STEPS, parse_values
from graphrag_ui.ui.shell.escape import md_escape, shown_error
from graphrag_ui.ui.shell.language import in_this_language, t, translate
from graphrag_ui.ui.widgets import url_choice, url_notices

DEFAULT_PARAM = "top_k"
DEFAULT_RANGE = (5.0, 30.0, 5.0)
NONE = ""  # no parameter: each mode once, at its defaults
NOTICES = "_ev_url_notices"  # session: (widget key, the value the notice is about) -> notice


def numeric_params(modes: list[str]) -> dict[str, str]:
    """Name -> type ("int" / "float") of every numeric parameter of ``modes``, the most shared first."""
    counts: dict[str, int] = {}
    types: dict[str, str] = {}
    for mode in modes:
        for p in get_mode(mode).params:
            if p.type in {"int", "float"}:
                counts[p.name] = counts.get(p.name, 0) + 1
                types.setdefault(p.name, p.type)
    return {name: types[name] for name in sorted(counts, key=lambda n: (-counts[n], n))}


def _remember(key: str, used: Any, text: str) -> None:
    st.session_state.setdefault(NOTICES, {})[key] = (used, text)


def _link_modes() -> None:
    """Before the mode picker first draws: keep the link's known modes, and a notice for each unknown one."""
    if "ev_modes" in st.session_state or "ev_modes" not in st.query_params:
        return
    raw = st.query_params.get_all("ev_modes")
    known = [m for m in dict.fromkeys(raw) if m in mode_names()]
    unknown = [m for m in raw if m not in mode_names()]
    st.session_state["ev_modes"] = known
    if unknown:
        text = msg(
            "The link's ev_modes={raw} is not a retrieval mode ({fix}); it was left out.",
            raw=unknown[0],
            fix=suggestion(unknown[0], set(mode_names())),
        )
        _remember("ev_modes", known, text)


def _link_value(key: str) -> str | None:
    """The link's value of ``key`` as it was before any widget of this run took or dropped it."""
    raw = (st.session_state.get(url_notices.RAW_KEY) or {}).get(key)
    return None if raw is None else str(raw)


def _link_choice(key: str, options: list[str], used: str) -> None:
    """A link's value for a picker that the picker did not take: named, with what was used instead."""
    raw = _link_value(key)
    if raw is not None and raw not in options:
        text = msg(
            "The link's {key}={raw} is not a parameter of the chosen modes ({fix}); {used} was used instead.",
            key=key,
            raw=raw,
            fix=suggestion(raw, set(o for o in options if o)),
            used=used or "-",
        )
        _remember(key, used, text)


def _link_number(key: str, used: float) -> None:
    raw = _link_value(key)
    if raw is None:
        return
    try:
        same = float(raw) == float(used)
    except ValueError:
        same = False
    if not same:
        text = msg("The link's {key}={raw} cannot be used here; {used} was used instead.", key=key, raw=raw, used=used)
        _remember(key, used, text)


def show_notices() -> None:
    """Each link notice while its control still holds what was used in the link's place."""
    kept = st.session_state.get(NOTICES, {})
    for key, (used, text) in list(kept.items()):
        if st.session_state.get(key) != used:
            del kept[key]  # the analyst changed it: the notice is over
            continue
        st.warning(md_escape(translate(text)), icon=":material/link_off:")


def plan_picker(index: Index) -> tuple[EvalPlan | None, str]:
    """The plan controls; returns the plan (None when it cannot run, said on the page) and its signature."""
    _link_modes()
    st.session_state.setdefault("ev_modes", list(FIRST_COMPARISON))
    modes = st.multiselect(
        t("Modes"),
        mode_names(),
        key="ev_modes",
        bind="query-params",
        placeholder=t("Choose one or more modes"),
    )
    versions = _versions(modes, index)
    params = numeric_params(modes)
    options = [NONE, *params]
    default = DEFAULT_PARAM if DEFAULT_PARAM in params else NONE
    url_choice.seed("ev_param", options, default)
    c1, c2, c3, c4 = st.columns([3, 2, 2, 2], vertical_alignment="bottom")
    name = c1.selectbox(
        t("Parameter range"),
        options,
        key="ev_param",
        format_func=in_this_language(lambda n: n or t("none (each mode at its defaults)")),
        placeholder=t("Choose an option"),
    )
    url_choice.sync("ev_param", name)
    _link_choice("ev_param", options, name)
    is_int = params.get(name) == "int"
    number: dict[str, Any] = {"step": 1.0 if is_int else 0.01, "format": "%g", "bind": "query-params"}
    low, high, step = DEFAULT_RANGE
    start = c2.number_input(t("from"), value=low, key="ev_from", disabled=not name, **number)
    stop = c3.number_input(t("to"), value=high, key="ev_to", disabled=not name, **number)
    every = c4.number_input(t("step"), value=step, key="ev_step", disabled=not name, **number)
    for key, value in (("ev_from", start), ("ev_to", stop), ("ev_step", every)):
        _link_number(key, value)
    aliases = _aliases(modes, name) if name else {}
    signature = repr((modes, sorted(versions.items()), name, start, stop, every, sorted(aliases.items())))
    if not modes:
        st.info(t("Choose at least one mode to evaluate."))
        return None, signature
    values: list[Any] = []
    if name and every > 0 and stop >= start and (stop - start) / every + 1 > MAX_STEPS:
        # said before the range is spelt out: parse_values builds its list before it counts it
        n = (stop - start) / every + 1
        st.error(
            t(
                "{n} steps are more than {limit}: use a larger step",
                n=f"{n:,.0f}" if n < 1e9 else f"{n:.2g}",
                limit=MAX_STEPS,
            )
        )
        return None, signature
    if name:
        text = f"{int(start)}:{int(stop)}:{int(every)}" if is_int else f"{start}:{stop}:{every}"
        try:
            values = parse_values(params[name], text)
        except UserError as exc:
            st.error(shown_error(exc))
            return None, signature
    plan = EvalPlan(list(modes), param=name, values=values, versions=versions, param_names=aliases)
    try:
        configs = plan.check(index)  # every value against each mode's schema, before anything runs
    except UserError as exc:
        st.error(shown_error(exc))
        return None, signature
    for note in plan.notes:
        st.caption(md_escape(translate(note)))
    st.caption(t("{n} settings per question", n=len(configs)))
    return plan, signature


def _aliases(modes: list[str], name: str) -> dict[str, str]:
    """For each chosen mode without ``name``: which of its own numbers the range sweeps (``ms.local``'s
    ``top_k_mapped_entities`` for ``top_k``), or none (it runs once, at its defaults). The CLI's ``--as``."""
    lacking = [m for m in modes if name not in numeric_params([m]) and numeric_params([m])]
    if not lacking:
        return {}
    out = {}
    columns = st.columns(min(len(lacking), 3))
    for i, mode in enumerate(lacking):
        own = list(numeric_params([mode]))
        key = f"ev_as_{mode}"
        url_choice.seed(key, [NONE, *own], NONE)
        chosen = columns[i % len(columns)].selectbox(
            t("{mode} has no {param}; it sweeps", mode=mode, param=name),
            [NONE, *own],
            key=key,
            format_func=in_this_language(lambda n: n or t("nothing (runs at its defaults)")),
            placeholder=t("Choose an option"),
        )
        url_choice.sync(key, chosen)
        if chosen:
            out[mode] = chosen
    return out


def _versions(modes: list[str], index: Index) -> dict[str, list[str]]:
    """One release picker per reference family among ``modes`` that follows several releases."""
    out: dict[str, list[str]] = {}
    families: dict[str, list[str]] = {}
    for mode in modes:
        spec = get_mode(mode)
        if spec.versions:
            families.setdefault(spec.family, []).append(mode)
    for family, members in families.items():
        spec = get_mode(members[0])
        options = list(spec.versions)
        key = f"ev_{family}_versions"
        kept = st.session_state.get(key)
        if kept is not None and not set(kept) <= set(options):
            st.session_state[key] = [v for v in kept if v in options]
        st.session_state.setdefault(key, [spec.default_version(index)])
        chosen = st.multiselect(
            t("{reference} releases", reference=reference_name(family)),
            options,
            key=key,
            bind="query-params",
            placeholder=t("Choose one or more releases"),
        )
        for mode in members:
            out[mode] = list(chosen) or [spec.default_version(index)]
    return out
