"""What a change of parameters did to a retrieval: the items that entered or left each kind, and the
tokens per section before and after — the one line an analyst reads after moving a slider.

Items are compared by id among those *in the context* (a candidate that stayed a dropped candidate did
not enter anything). Sections are the ``Budget`` rows the mode reports, by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.i18n import Msg, joined, listed, msg, pmsg
from graphrag_ui.retrieval.core.result import KINDS, Retrieval, section_label

# "+4 entities", "−1 relation": the kind's noun by count
KIND_NOUNS: dict[str, tuple[Msg, Msg]] = {
    "entities": (pmsg("counted", "entity"), pmsg("counted", "entities")),
    "relations": (pmsg("counted", "relation"), pmsg("counted", "relations")),
    "communities": (pmsg("counted", "community"), pmsg("counted", "communities")),
    "chunks": (pmsg("counted", "chunk"), pmsg("counted", "chunks")),
}


@dataclass
class KindChange:
    kind: str
    before: int  # items in the context before
    after: int
    entered: list[str] = field(default_factory=list)  # ids, in the new context order
    left: list[str] = field(default_factory=list)  # ids, in the old context order


@dataclass
class SectionTokens:
    section: str
    before: int | None  # None: the section did not exist in that run
    after: int | None


@dataclass
class Change:
    params: list[tuple[str, Any, Any]]  # (name, before, after) of every parameter that differs
    kinds: list[KindChange]
    tokens_before: int
    tokens_after: int
    sections: list[SectionTokens]  # every section whose tokens differ

    @property
    def moved(self) -> bool:
        """Whether anything in the context changed (items or tokens)."""
        return any(k.entered or k.left for k in self.kinds) or self.tokens_before != self.tokens_after

    def entered(self, kind: str) -> set[str]:
        return set(next(k.entered for k in self.kinds if k.kind == kind))

    def left(self, kind: str) -> set[str]:
        return set(next(k.left for k in self.kinds if k.kind == kind))


def context_tokens(result: Retrieval) -> int:
    """Tokens of the whole context: the mode's ``total`` budget when it has one, else the sections' sum."""
    total = next((b.used for b in result.budgets if b.section == "total"), None)
    return int(total if total is not None else sum(b.used for b in result.budgets))


def _sections(result: Retrieval) -> dict[str, int]:
    return {b.section: int(b.used) for b in result.budgets if b.section != "total"}


def diff(before: Retrieval, after: Retrieval) -> Change:
    """What ``after`` has that ``before`` had not, and the reverse, per kind and per section."""
    if before.mode != after.mode:  # another mode has other parameters: the mode is what changed
        params = [("mode", before.mode, after.mode)]
    else:
        names = list(dict.fromkeys([*before.params, *after.params]))
        params = [
            (n, before.params.get(n), after.params.get(n)) for n in names if before.params.get(n) != after.params.get(n)
        ]
    kinds = []
    for kind in KINDS:
        old, new = before.selected_ids(kind), after.selected_ids(kind)
        old_set, new_set = set(old), set(new)
        kinds.append(
            KindChange(
                kind, len(old), len(new), [i for i in new if i not in old_set], [i for i in old if i not in new_set]
            )
        )
    a, b = _sections(before), _sections(after)
    sections = [SectionTokens(s, a.get(s), b.get(s)) for s in dict.fromkeys([*a, *b]) if a.get(s) != b.get(s)]
    return Change(params, kinds, context_tokens(before), context_tokens(after), sections)


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "—" if value is None else str(value)


def _count(sign: str, n: int, kind: str) -> Msg:
    one, many = KIND_NOUNS[kind]
    return msg("{sign}{n} {noun}", sign=sign, n=n, noun=one if n == 1 else many)


def summary(change: Change) -> str:
    """``top_k 20 → 30: +4 entities, +2 chunks, −1 community; tokens 4,210 → 5,030 (Sources 3,100 → 3,800)``."""
    moves = [
        msg("mode {before} → {after}", before=a, after=b) if name == "mode" else f"{name} {_value(a)} → {_value(b)}"
        for name, a, b in change.params
    ]
    items = []
    for k in change.kinds:
        if k.entered:
            items.append(_count("+", len(k.entered), k.kind))
        if k.left:
            items.append(_count("−", len(k.left), k.kind))
    what = listed(*items) if items else msg("the same items")
    tokens = msg("tokens {before} → {after}", before=f"{change.tokens_before:,}", after=f"{change.tokens_after:,}")
    if change.sections:
        shown = listed(
            *(
                msg(
                    "{section} {before} → {after}",
                    section=section_label(s.section),
                    before=_value(s.before),
                    after=_value(s.after),
                )
                for s in change.sections[:4]
            )
        )
        tokens = msg("{tokens} ({sections})", tokens=tokens, sections=shown)
    head = msg("{moves}: {what}", moves=listed(*moves), what=what) if moves else what
    return joined(head, tokens)
