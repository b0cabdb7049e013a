"""What about a question (or the index it asks) makes a retrieval unreliable, said once for every mode:
an empty index, a question without words or too long to embed sharply, a script no entity name uses.
``services.query`` adds these notes to every retrieval's warnings."""

from __future__ import annotations

import unicodedata

from graphrag_ui.base.i18n import listed, msg
from graphrag_ui.index.model import Index

LONG_QUESTION_CHARS = 2000


def _script(ch: str) -> str:
    """The Unicode script of a letter, from its name ("LATIN", "CJK", "DEVANAGARI", ...)."""
    if ch.isascii():
        return "LATIN"
    name = unicodedata.name(unicodedata.normalize("NFKC", ch)[:1] or ch, "")
    return name.split(" ", 1)[0] if name else ""


SCRIPT_NAMES = {"CJK": msg("Chinese characters"), "LATIN": msg("Latin script")}  # the rest: "Cyrillic script"


def _scripts(text: str) -> set[str]:
    return {_script(ch) for ch in set(text) if ch.isalpha()} - {""}


def name_scripts(index: Index) -> set[str]:
    """Scripts used by entity names and aliases; computed once per entity list (cached on the index)."""
    cached = getattr(index, "_name_scripts", None)
    if cached is not None and cached[0] is index.entities and cached[1] == len(index.entities):
        return cached[2]
    chars: set[str] = set()
    for entity in index.entities:
        chars.update(entity.name)
        for alias in entity.aliases or []:
            chars.update(alias)
    scripts = _scripts("".join(chars))
    index._name_scripts = (index.entities, len(index.entities), scripts)  # type: ignore[attr-defined]
    return scripts


def question_warnings(index: Index, query: str, by_name: bool = True) -> list[str]:
    """What about the question or the index makes this retrieval unreliable, said once for every mode
    (the script of the question only for modes that match names, ``by_name``)."""
    notes = []
    if not index.entities and not index.chunks:
        notes.append(msg("the index is empty (0 entities, 0 chunks): there is nothing to retrieve"))
    if not any(ch.isalnum() for ch in query):
        notes.append(
            msg(
                "the question has no words (only spaces, punctuation or symbols): name matching finds nothing "
                "and its embedding carries no meaning, so whatever is recalled is arbitrary"
            )
        )
    elif len(query) > LONG_QUESTION_CHARS:
        notes.append(
            msg(
                "the question is {n} characters long: its embedding is an average over all of it, so "
                "recall by similarity is blurred; ask a shorter question",
                n=f"{len(query):,}",
            )
        )
    if index.entities and by_name:
        foreign = sorted(_scripts(query) - name_scripts(index))
        if foreign and len(foreign) == len(_scripts(query)):
            written = listed(*(SCRIPT_NAMES.get(s) or msg("{name} script", name=s.title()) for s in foreign))
            notes.append(
                msg(
                    "the question is written in {written}, which no entity name in this index uses: name "
                    "matching cannot find anything, only the embedding can relate it to the index",
                    written=written,
                )
            )
    return notes
