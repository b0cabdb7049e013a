"""Messages that any layer writes in English and the UI shows in the reader's language (gettext).

The package writes every user-facing text — an error's what and fix, a warning, a table row's
reason, a parameter's help — with ``msg(template, **values)``. The result *is* the English text (a
``str``: printed, logged, serialised to JSON and compared exactly as before) and also remembers its
template and values, so ``translate`` can look the template up in the gettext catalogue
(``graphrag_ui/locales/<language>/LC_MESSAGES/graphrag_ui.po``) and fill the translation with the same
values. A value that is itself a ``Msg`` is translated too; any other value (an entity name, a
number, a path) is data and stays as it is.

Babel extracts the templates from the calls of ``msg``, ``t`` and ``pt`` (``make translations``); a
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
    """``text`` in ``lang``: a ``Msg`` by its catalogue entry (values translated in turn); anything else as is."""
    if lang == "en" or not isinstance(text, Msg):
        return text
    template = template_in(text, lang)
    if not text.values:
        return template
    return template.format(**{k: translate(v, lang) if isinstance(v, Msg) else v for k, v in text.values.items()})


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
