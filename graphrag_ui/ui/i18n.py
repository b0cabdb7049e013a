"""The old way package messages reached Chinese, kept only while they move to ``graphrag_ui.i18n.msg``.

A message the package still writes as plain English is matched against ``messages_zh.MESSAGES`` and
``reasons_zh.REASONS`` (keyed by the English template) at display time. ``graphrag_ui.i18n.translate``
calls ``legacy_tr`` for such text (installed by ``graphrag_ui/ui/__init__.py``). Every message marked
with ``msg`` is translated by the gettext catalogue instead; this module goes once none is left.
"""

from __future__ import annotations

import functools
import re

from graphrag_ui.ui.messages_zh import MESSAGES
from graphrag_ui.ui.reasons_zh import REASONS

# every package text with its Chinese: messages (warnings, errors, help) and the tables' reasons
ZH_TEXTS = {**MESSAGES, **REASONS}
# placeholders whose values are index data (entity names, ids, stored values): never translated
_DATA_FIELDS = frozenset({"name", "names", "pair", "cid", "raw"})

_FIELD = re.compile(r"\{(\w+)(?:[:!][^}]*)?\}")


def fields(template: str) -> set[str]:
    """The placeholder names of a template (``{n:,}`` -> ``n``)."""
    return set(_FIELD.findall(template))


def template_pattern(template: str) -> re.Pattern[str]:
    """A regex matching every text the template can produce; each placeholder is a named group."""
    parts, seen, pos = [], set(), 0
    for m in _FIELD.finditer(template):
        parts.append(re.escape(template[pos : m.start()]))
        name = m.group(1)
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        pos = m.end()
    parts.append(re.escape(template[pos:]))
    return re.compile("".join(parts) + r"\Z", re.S)


@functools.cache
def _message_patterns() -> list[tuple[re.Pattern[str], str]]:
    """(English pattern, Chinese template) for parameterised messages, most literal text first."""
    templated = [(en, zh) for en, zh in ZH_TEXTS.items() if fields(en)]
    templated.sort(key=lambda pair: -len(_FIELD.sub("", pair[0])))
    return [(template_pattern(en), zh) for en, zh in templated]


def legacy_tr(text: str, lang: str = "en") -> str:
    """A package message still written as plain English, matched against the old tables (migration)."""
    if lang == "en" or not text:
        return text
    return _translate(text)[0]


_ENGLISH_PHRASE = re.compile(r"[A-Za-z]{2,}[^A-Za-z]+[A-Za-z]{2,}")


@functools.lru_cache(maxsize=65536)
def _translate(text: str) -> tuple[str, bool]:
    """(Chinese, whether no English phrase is left untranslated) for one package text.

    A template's placeholders match lazily, so a text built from parts (``local #3 ({why})`` holding
    ``…; tied with …``) may match several templates; the first one whose values all translate wins,
    else the first that matched, else the parts joined with "; " (longest head first)."""
    exact = ZH_TEXTS.get(text)
    if exact is not None:
        return exact, True
    partial = None
    for pattern, zh in _message_patterns():
        match = pattern.match(text)
        if match:
            out, ok = _fill(zh, match.groupdict())
            if ok:
                return out, True
            partial = partial or out
    error = _user_error_text(text)
    if error is not None and error[1]:
        return error
    partial = partial or (error[0] if error else None)
    cut = text.rfind("; ")
    while cut > 0:  # parts the package joined with "; "
        (head, head_ok), (tail, tail_ok) = _translate(text[:cut]), _translate(text[cut + 2 :])
        if head_ok and tail_ok:
            return head + "；" + tail, True
        if partial is None and (head != text[:cut] or tail != text[cut + 2 :]):
            partial = head + "；" + tail
        cut = text.rfind("; ", 0, cut)
    if partial is not None:
        return partial, False
    return text, not _ENGLISH_PHRASE.search(text)  # a number, a name or one reference word needs none


def _user_error_text(text: str) -> tuple[str, bool] | None:
    """``where: what — fix`` as ``str(UserError)`` writes it (a model error carried as text): what and
    fix translated, where kept. The first split whose parts all translate, else the first that changed
    something (a provider's own words inside stay English), else None."""
    head, sep, fix = text.partition(" — ")
    fix_zh, fix_ok = _translate(fix) if sep else (fix, False)
    if fix_zh == fix:
        return None
    first = None
    candidates = [("", head)]  # no where: the whole head is the what
    cut = head.find(": ")
    while cut > 0 and "; " not in head[:cut]:  # a where is one path or name, never joined notes
        candidates.append((head[:cut] + ": ", head[cut + 2 :]))
        cut = head.find(": ", cut + 1)
    for where, what in candidates:
        what_zh, ok = _translate(what)
        if what_zh != what:
            if ok and fix_ok:
                return f"{where}{what_zh} — {fix_zh}", True
            first = first or f"{where}{what_zh} — {fix_zh}"
    return (first, False) if first else None


def _fill(template: str, values: dict[str, str]) -> tuple[str, bool]:
    done = {name: (value, True) if name in _DATA_FIELDS else _translate(value) for name, value in values.items()}
    return _FIELD.sub(lambda m: done[m.group(1)][0], template), all(ok for _, ok in done.values())
