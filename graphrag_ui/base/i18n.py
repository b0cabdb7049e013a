"""Messages that any layer writes in English and the UI shows in the reader's language (gettext).

The package writes every user-facing text — an error's what and fix, a warning, a table row's
reason, a parameter's help — with ``msg(template, **values)``. The result *is* the English text (a
``str``: printed, logged, serialised to JSON and compared exactly as before) and also remembers its
template and values, so ``translate`` can look the template up in the gettext catalogue
(``graphrag_ui/locales/<language>/LC_MESSAGES/graphrag_ui.po``) and fill the translation with the same
values. A value that is itself a ``Msg`` is translated too; any other value (an entity name, a
number, a path) is data and stays as it is.

A candidate's reason is written with ``lmsg`` instead: the same template and values kept as data
(``Reason``) and formatted only when read (a retrieval explains 10⁴–10⁵ candidates, a reader looks at a few).

Babel extracts the templates from the calls of ``msg``, ``lmsg``, ``t`` and ``pt`` (``make translations``); a
test fails on any template the catalogue lacks or marks fuzzy. Reference parameter and field names
inside templates stay as the references spell them.
"""

from __future__ import annotations

import functools
import gettext
from pathlib import Path
from typing import Any

DOMAIN = "graphrag_ui"
LOCALES = Path(__file__).resolve().parents[1] / "locales"
LANGUAGES = {"en": "English", "zh": "简体中文"}
_GETTEXT_LANGUAGE = {"zh": "zh_CN"}  # UI code -> catalogue folder
_CONTEXT_SEP = "\x04"  # gettext's msgctxt separator


class Msg(str):
    """English text that keeps the template and values it was made from (see ``msg``)."""

    template: str
    values: dict[str, Any]
    context: str | None = None  # gettext's msgctxt (``pmsg``)

    def __reduce__(self) -> tuple:  # pickle keeps the template (Streamlit's caches)
        return (_restore, (str(self), self.template, self.values, self.context))

    def __copy__(self) -> Msg:  # immutable, like str: ``asdict`` copies every reason of a Retrieval
        return self

    def __deepcopy__(self, memo: dict) -> Msg:
        return self


def _restore(text: str, template: str, values: dict[str, Any], context: str | None) -> Msg:
    out = Msg(text)
    out.template, out.values = template, values
    if context is not None:
        out.context = context
    return out


def msg(template: str, /, **values: Any) -> Msg:
    """``template.format(**values)`` that can be translated later; mark every user-facing text with it."""
    out = Msg(template.format_map(values) if values else template)  # a retrieval makes 10⁴–10⁵ of them
    out.template, out.values = template, values
    return out


class Reason:
    """A message kept as data — its template and values — and formatted (``msg``) only when first read.

    A retrieval explains every candidate (10⁴–10⁵ at 100k entities) and a sweep repeats that per step,
    while a reader looks at a few: ``Candidate.why`` and ``dropped`` hold a ``Reason`` and give its
    ``Msg`` when read (``result.Candidate``), which is then kept here (steps share their reasons)."""

    __slots__ = ("template", "values", "_text")
    context = None  # as ``Msg``: no msgctxt

    def __init__(self, template: str, values: dict[str, Any]) -> None:
        self.template, self.values, self._text = template, values, None

    def text(self) -> Msg:
        """The ``Msg`` this reason reads as (made once): a value that is a ``Reason`` becomes its ``Msg``."""
        out = self._text
        if out is None:
            values = {k: v.text() if type(v) is Reason else v for k, v in self.values.items()}
            out = self._text = msg(self.template, **values)
        return out

    def __str__(self) -> str:
        return str(self.text())

    def __format__(self, spec: str) -> str:
        return format(str(self.text()), spec)

    def __eq__(self, other: object) -> bool:
        return self.text() == (other.text() if type(other) is Reason else other)

    def __contains__(self, part: str) -> bool:
        return part in self.text()

    def __hash__(self) -> int:
        return hash(str(self.text()))

    def __reduce__(self) -> tuple:
        return (Reason, (self.template, self.values))


class ReadText:
    """A field kept as given — text or a ``Reason`` (``lmsg``: data until read) — and read as text, the ``Msg``
    the reason formats to (``Reason.text``, made once): a candidate's ``why``/``dropped``, a limit's words."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self  # a dataclass field's default: the descriptor itself (``__set__`` takes it as "")
        value = obj.__dict__[self.slot]
        return value.text() if type(value) is Reason else value

    def __set__(self, obj: Any, value: str | Reason) -> None:
        obj.__dict__[self.slot] = "" if value is self else value


class ReadTexts:
    """A list field kept as given — texts and ``Reason``s — and read as a new list of texts (``ReadText``'s
    list): a sweep step's binding limits, said by few of the thousands of steps an evaluation runs."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return ()  # a dataclass field's default: none (immutable, so shared safely)
        return [v.text() if type(v) is Reason else v for v in obj.__dict__[self.slot]]

    def __set__(self, obj: Any, values: Any) -> None:
        obj.__dict__[self.slot] = values


def lmsg(template: str, /, **values: Any) -> Reason:
    """``msg`` kept as data until read (``Reason``): for a candidate's ``why`` and ``dropped``."""
    return Reason(template, values)


def pmsg(context: str, template: str, /, **values: Any) -> Msg:
    """``msg`` for an English text that needs two translations (gettext's ``msgctxt``)."""
    out = msg(template, **values)
    out.context = context
    return out


def joined(*parts: str) -> str:
    """Parts of one message (a reason and its notes) joined with "; ", each translated on its own."""
    kept = [p for p in parts if p]
    if not kept:
        return ""
    out = kept[0]
    for part in kept[1:]:
        if type(out) is Reason or type(part) is Reason:  # a reason among the parts: the whole stays one
            out = lmsg("{first}; {then}", first=out, then=part)
        else:
            out = msg("{first}; {then}", first=out, then=part)
    return out


def listed(*parts: str) -> str:
    """Items of one list joined with ", ", each translated on its own (Chinese lists use "，")."""
    kept = [p for p in parts if p]
    if not kept:
        return ""
    out = kept[0]
    for part in kept[1:]:
        out = msg("{first}, {then}", first=out, then=part)
    return out


@functools.cache
def _catalogue(lang: str) -> gettext.NullTranslations:
    code = _GETTEXT_LANGUAGE.get(lang)
    if code is None:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=LOCALES, languages=[code])


def translate(text: Any, lang: str = "en") -> Any:
    """``text`` in ``lang``: a ``Msg`` (or ``Reason``) by its catalogue entry (values translated in turn);
    anything else as is."""
    if type(text) is Reason:
        text = text.text()
    if lang == "en" or not isinstance(text, Msg):
        return text
    template = template_in(text, lang)
    if not text.values:
        return template
    return template.format(
        **{k: translate(v, lang) if isinstance(v, (Msg, Reason)) else v for k, v in text.values.items()}
    )


def template_in(text: Msg, lang: str) -> str:
    """The template of the message ``text`` in ``lang`` (its catalogue entry), values not filled in."""
    if lang == "en":
        return text.template
    catalogue = _catalogue(lang)
    if text.context is None:
        return catalogue.gettext(text.template)
    return catalogue.pgettext(text.context, text.template)


def t(template: str, lang: str = "en", **values: Any) -> str:
    """A UI text in ``lang``: ``translate(msg(template, **values), lang)``."""
    return translate(msg(template, **values), lang)


def pt(context: str, template: str, lang: str = "en", **values: Any) -> str:
    """``t`` for an English text with two meanings (``msgctxt``)."""
    return translate(pmsg(context, template, **values), lang)


def error_text(exc: Exception, lang: str) -> str:
    """An error in ``lang``: a ``UserError``'s what and fix translated, its where (a path, a name) kept."""
    what = getattr(exc, "what", None)
    if lang == "en" or what is None:
        return str(exc)
    where, fix = getattr(exc, "where", ""), getattr(exc, "fix", "")
    head = translate(what, lang) if not where else f"{where}: {translate(what, lang)}"
    return f"{head} — {translate(fix, lang)}" if fix else head
