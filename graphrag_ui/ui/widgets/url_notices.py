"""Nothing silent: every value a link carries that the view cannot use becomes a notice.

Streamlit's URL binding (``bind="query-params"``) drops a value its widget cannot take (an unknown
index or mode, ``top_k=0``, ``abc``) and shows the default without a word, and it does so while the
widget is drawn. So the frame keeps the query parameters as they were before any widget drew
(``remember_url``), and after the widgets are drawn each check compares what the link said with what
the view uses: the notice names the value, why it cannot be used and what was used instead.

A notice stays until the link's key comes back with a usable value (the analyst changed it), its key
is no longer on the page (another mode), or another page checks its own keys. Notices are English
``msg`` texts with the link's values as data; they are shown in the UI language, Markdown-escaped.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import LANGUAGES, msg
from graphrag_ui.retrieval.registry import get_mode, mode_names
from graphrag_ui.retrieval.spec.schema import VERSION_PARAM, ModeSpec, cut_text, suggestion
from graphrag_ui.ui.shell.escape import md_escape
from graphrag_ui.ui.shell.language import language, translate
from graphrag_ui.ui.widgets import question
from graphrag_ui.ui.widgets.params import widget_key

RAW_KEY = "_url_raw"  # this run's query parameters, read before any widget drew
READ_BY_FRAME = "_url_read_by_frame"  # set by the frame's reading, taken by the first fragment that looks
STORE_KEY = "_url_notices"  # (page, key) -> Notice
FRAME = ""  # the page name of the frame's own checks (index, language): shown on every page
VECTOR_ENGINES = ("local", "server")
_SHOWN_CHOICES = 6  # an index list longer than this is cut with "…"
LINK_VALUE_CHARS = 2000  # a link's value is kept to this many characters: no usable value is longer
SHOWN_VALUE_CHARS = 120  # and a notice quotes at most this many of them


@dataclass(frozen=True)
class Notice:
    key: str  # the URL key the notice is about
    text: str  # a msg: the link's value, why it cannot be used, what was used instead


# --- pure checks (tests call these with plain dicts) ------------------------------------------------


def _cut(raw: object) -> str:
    """The link's value as a notice quotes it: whole when short, else its start and how long it was."""
    text = str(raw)
    if len(text) == LINK_VALUE_CHARS + 1 and text.endswith("…"):  # already cut when the link was read
        return msg("{start}… (more than {n} characters)", start=text[:SHOWN_VALUE_CHARS], n=LINK_VALUE_CHARS)
    return cut_text(text, SHOWN_VALUE_CHARS)


def _listed(names: Iterable[str]) -> str:
    names = list(names)
    head = ", ".join(names[:_SHOWN_CHOICES])
    return head + (", …" if len(names) > _SHOWN_CHOICES else "")


def index_notice(raw: str, choices: Sequence[str], used: str) -> Notice | None:
    """The link's ``index`` when this app has no index of that name (``used``: the label of the one opened)."""
    if raw in choices:
        return None
    if raw.startswith("path:"):
        text = msg(
            "The link's index={raw} is an index folder registered on the machine the link was made on; it is "
            "not registered on this machine, so {used} was opened instead. To open it here, copy or mount "
            "that folder on this machine and add it on the Index page (Open folder).",
            raw=_cut(raw),
            used=used,
        )
    else:
        text = msg(
            "The link's index={raw} is not an index of this app (it has: {known}), so {used} was opened "
            "instead. Pick an index in the sidebar or add its folder on the Index page.",
            raw=_cut(raw),
            known=_listed(choices),
            used=used,
        )
    return Notice("index", text)


def language_notice(raw: str, used: str) -> Notice | None:
    if raw in LANGUAGES:
        return None
    text = msg(
        "The link's lang={raw} is not a language of this app ({known}), so {used} is shown instead.",
        raw=_cut(raw),
        known=", ".join(LANGUAGES),
        used=LANGUAGES.get(used, used),
    )
    return Notice("lang", text)


def mode_notice(key: str, raw: str, used: str) -> Notice | None:
    modes = mode_names()
    if raw in modes:
        return None
    text = msg(
        "The link's {key}={raw} is not a retrieval mode ({fix}), so {used} was used instead.",
        key=key,
        raw=_cut(raw),
        fix=suggestion(raw, set(modes)),
        used=used,
    )
    return Notice(key, text)


def version_notice(key: str, raw: str, spec: ModeSpec, used: str) -> Notice | None:
    if raw in spec.versions:
        return None
    text = msg(
        "The link's {key}={raw} is not a release {mode} follows ({versions}), so {used} was used instead.",
        key=key,
        raw=_cut(raw),
        mode=spec.name,
        versions=", ".join(spec.versions),
        used=used,
    )
    return Notice(key, text)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
        except (TypeError, ValueError):
            return False
    return a == b


def param_notices(spec: ModeSpec, prefix: str, raw: Mapping[str, str], used: Mapping[str, Any]) -> list[Notice]:
    """Each parameter the link sets for ``spec`` that its schema refuses, or that its control did not take."""
    out = []
    for param in spec.params:
        key = widget_key(spec, param, prefix)
        if param.name == VERSION_PARAM or param.type == "str" or key not in raw:
            continue
        value = used.get(key, param.default)
        shown = "true" if value is True else "false" if value is False else value
        instead = (
            msg("the default {used} was used instead", used=shown)
            if _same(value, param.default)
            else msg("{used} was used instead", used=shown)
        )
        try:
            wanted = param.coerce(raw[key])
        except UserError as exc:
            out.append(
                Notice(
                    key,
                    msg(
                        "The link's {key}={raw} cannot be used: {why}; {instead}.",
                        key=key,
                        raw=_cut(raw[key]),
                        why=exc.message,
                        instead=instead,
                    ),
                )
            )
            continue
        if not _same(wanted, value):
            text = msg(
                "The link's {key}={raw} could not be set on its control; {instead}.",
                key=key,
                raw=_cut(raw[key]),
                instead=instead,
            )
            out.append(Notice(key, text))
    return out


def vectors_notice(raw: str, on_server: bool) -> Notice | None:
    if raw not in VECTOR_ENGINES:
        text = msg(
            "The link's vectors={raw} is not a vector search of this app (local or server), so the local "
            "search was used instead.",
            raw=_cut(raw),
        )
        return Notice("vectors", text)
    if raw == "server" and not on_server:
        text = msg(
            "The link's vectors=server asks the chroma server to search, but this index has no server "
            "collections, so its vectors were searched locally."
        )
        return Notice("vectors", text)
    return None


def side_checks(prefix: str, raw: Mapping[str, str], used: Mapping[str, Any]) -> tuple[set[str], list[Notice]]:
    """The keys a page side owns (its mode, version and parameters) and the notices about them."""
    mode_key = f"{prefix}mode"
    keys, notices = {mode_key}, []
    mode = used.get(mode_key)
    if mode_key in raw:
        notices += [n for n in [mode_notice(mode_key, raw[mode_key], str(mode))] if n]
    if mode not in mode_names():
        return keys, notices
    spec = get_mode(mode)
    if spec.versions:
        version_key = f"{prefix}{spec.family}_{VERSION_PARAM}"
        keys.add(version_key)
        version = used.get(version_key) or spec.versions[0]
        if version_key in raw:
            notices += [n for n in [version_notice(version_key, raw[version_key], spec, str(version))] if n]
        spec = spec.for_version(version if version in spec.versions else spec.versions[0])
    keys |= {widget_key(spec, p, prefix) for p in spec.params}
    notices += param_notices(spec, prefix, raw, used)
    return keys, notices


# --- Streamlit glue ---------------------------------------------------------------------------------


def remember_url() -> None:
    """The frame's first step on every run: the link's values before any widget takes or drops them."""
    st.session_state[RAW_KEY] = {key: _bounded(st.query_params.get(key)) for key in st.query_params}
    st.session_state[READ_BY_FRAME] = True


def read_url_again() -> None:
    """A fragment's first step (Explore's settings and results): on a rerun of the fragment alone the frame
    did not run, so the link is read here, as the frame would have; on a full run the frame's reading
    (before the page's widgets drew) stands."""
    if not st.session_state.pop(READ_BY_FRAME, False):
        remember_url()
        st.session_state.pop(READ_BY_FRAME, None)


def _bounded(value: str | None) -> str | None:
    """A value past ``LINK_VALUE_CHARS`` is kept cut (its notice says so): a link is not a way to make every
    check of the page read a megabyte."""
    if value is None or len(value) <= LINK_VALUE_CHARS:
        return value
    return value[:LINK_VALUE_CHARS] + "…"


def _raw() -> dict[str, str]:
    return dict(st.session_state.get(RAW_KEY) or {})


def _store() -> dict[tuple[str, str], Notice]:
    return st.session_state.setdefault(STORE_KEY, {})


def _update(page: str, keys: set[str], found: list[Notice], raw: Mapping[str, str]) -> None:
    """Keep ``page``'s notices: new ones in, and out those whose key the link now sets usably or the page lost."""
    store = _store()
    fresh = {n.key: n for n in found}
    for where, key in list(store):
        if where == page and (key not in keys or key in raw) and key not in fresh:
            del store[(where, key)]
        elif page != FRAME and where not in (page, FRAME):  # another page's notices end when this one checks
            del store[(where, key)]
    for key, notice in fresh.items():
        store[(page, key)] = notice


def check_frame(choices: Sequence[str], index_label: str) -> None:
    """The frame's keys: the index picker and the language switch (drawn before any page)."""
    raw = _raw()
    found = []
    if "index" in raw:
        found.append(index_notice(raw["index"], list(choices), index_label))
    if "lang" in raw:
        found.append(language_notice(raw["lang"], language()))
    _update(FRAME, {"index", "lang"}, [n for n in found if n], raw)


def frame_notices() -> list[str]:
    return [translate(n.text) for (page, _), n in _store().items() if page == FRAME]


def url_notices(page: str, prefixes: Sequence[str] = ("",), on_server: bool = False) -> list[str]:
    """What the link asked of this page that it could not use, each in one line in the UI language.

    Call it after the page's widgets are drawn (their values are what was used). ``prefixes``: one per
    side of the page (Explore ``""``, Compare ``"a_"`` and ``"b_"``); ``on_server``: whether the open
    index has chroma server collections (Explore's ``vectors``). The question notice comes first.
    """
    raw = _raw()
    used = st.session_state
    keys: set[str] = set()
    found: list[Notice] = []
    for prefix in prefixes:
        side_keys, side_notices = side_checks(prefix, raw, used)
        keys |= side_keys
        found += side_notices
    if "" in prefixes:
        keys.add("vectors")
        if "vectors" in raw:
            found += [n for n in [vectors_notice(raw["vectors"], on_server)] if n]
    _update(page, keys, found, raw)
    lines = [translate(text) for text in question.notices()]
    return lines + [translate(n.text) for (where, _), n in _store().items() if where == page]


def show(lines: Iterable[str]) -> None:
    for line in lines:
        st.warning(md_escape(line), icon=":material/link_off:")


def show_url_notices(page: str, prefixes: Sequence[str] = ("",), on_server: bool = False) -> None:
    """``url_notices`` drawn as warnings (the one call a page makes after its widgets)."""
    show(url_notices(page, prefixes, on_server))
