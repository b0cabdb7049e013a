"""Which limits bound a run, and which did not: read from the reasons its candidates were dropped.

"Why did the sweep flatten from top_k 20 to 80?" — because the similarity threshold cut the candidates
first; "why did relations vanish when I raised the entity count?" — because the relation budget became
the limit. Every mode already says why each dropped candidate was dropped (``Candidate.dropped``, a
``Msg`` whose template names the limit); this module groups those reasons per section into limits that
cut something (binding) and the count limits that cut nothing (not binding), so the run line, the
Budget view and each sweep step can say it. Pure: it reads a ``Retrieval`` and nothing else.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from graphrag_ui.base.i18n import Msg, ReadText, Reason, lmsg, msg
from graphrag_ui.retrieval.core.candidates import dropped_reasons
from graphrag_ui.retrieval.core.result import KINDS, Retrieval

THRESHOLD, COUNT, BUDGET = "threshold", "count", "budget"
# how a dropped reason's template starts -> the kind of limit that cut the candidate
_CLASSES = (
    ("below threshold", THRESHOLD),
    ("after the first score below threshold", THRESHOLD),
    ("below cosine_better_than_threshold", THRESHOLD),
    ("beyond top_k", COUNT),
    ("beyond chunk_top_k", COUNT),
    ("over budget", BUDGET),
    ("reverted", BUDGET),
)
# per mode (or family) and kind: the parameter that caps the count, the similarity threshold (if any), and
# whether the candidate list stops at the count (then a full list means the count was reached)
_COUNT_PARAMS = {
    ("nano.local", "entities"): ("top_k", "query_better_than_threshold", False),
    ("nano.naive", "chunks"): ("top_k", "query_better_than_threshold", False),
    ("lightrag", "entities"): ("top_k", "cosine_better_than_threshold", True),
    ("lightrag", "relations"): ("top_k", "cosine_better_than_threshold", True),
    ("lightrag", "chunks"): ("chunk_top_k", "cosine_better_than_threshold", False),
    ("ms.local", "entities"): ("top_k_mapped_entities", "", True),
    ("ms.local", "relations"): ("top_k_relationships", "", False),
    ("ms.basic", "chunks"): ("k", "", True),
}
_KIND_NAMES = {
    "entities": msg("Entities"),
    "relations": msg("Relations"),
    "communities": msg("Communities"),
    "chunks": msg("Chunks"),
}


@dataclass(frozen=True)
class Limit:
    """One limit of one section in one run: ``cut`` candidates dropped by it (0: it did not bind)."""

    kind: str  # entities | relations | communities | chunks
    limit: str  # THRESHOLD | COUNT | BUDGET
    cut: int
    passed: int  # candidates that got past it (in the context or cut later)
    # what the analyst reads: kept as a ``Reason`` and worded when read (a sweep's steps read few of them)
    text: Msg = ReadText()
    binding: bool = True

    def said(self) -> str | Reason:
        """``text`` as kept: a ``Reason`` not yet worded (a sweep step keeps it so: ``sweep.Step.binding``)."""
        return self.__dict__["_text"]


_NOTES = "{first}; {then}"  # a reason with notes (``i18n.joined``)


def _root(reason: Any) -> str:
    """The template of the reason's first part (a reason with notes is ``{first}; {then}``)."""
    while isinstance(reason, (Msg, Reason)) and reason.template == _NOTES:
        reason = reason.values.get("first")
    return getattr(reason, "template", None) or str(reason or "")


def limit_class(reason: Any) -> str:
    """THRESHOLD, COUNT, BUDGET or "" (a reason that is no limit: a duplicate, a filter)."""
    return _class_of(_root(reason))


@functools.lru_cache(maxsize=1024)
def _class_of(root: str) -> str:
    """A reason template's class, once per template: a sweep classifies thousands of drops per step."""
    return next((cls for start, cls in _CLASSES if root.startswith(start)), "")


# a reason as stored -> its class, by the reason's type (``dropped_reasons`` gives a ``Reason``, a ``Msg`` or a
# template): the template read without a call when it is one (a sweep classifies 10²–10³ drops a step)
_TEMPLATED = (Reason, Msg)


def _class_here(reason: Any, classes: dict[str, str]) -> str:
    kind = type(reason)
    if kind is str:
        root = reason
    elif kind in _TEMPLATED and reason.template != _NOTES:
        root = reason.template
    else:
        root = _root(reason)
    cls = classes.get(root)
    if cls is None:
        cls = classes[root] = _class_of(root)
    return cls


def _family(mode: str) -> str:
    return mode.split(".", 1)[0]


@functools.lru_cache(maxsize=256)
def _section(mode: str, kind: str) -> tuple[str, str, bool, bool]:
    """(count parameter, threshold parameter, whether the list stops at the count, whether a count drop below
    the threshold is the threshold's) of one section of ``mode``: once per mode and kind."""
    count_param, threshold_param, stops = _COUNT_PARAMS.get(
        (mode, kind), _COUNT_PARAMS.get((_family(mode), kind), ("", "", False))
    )
    return count_param, threshold_param, stops, _family(mode) == "nano"  # nano: one search's list cut by both


def limits(result: Retrieval, *, binding_only: bool = False) -> list[Limit]:
    """Per section with candidates: each limit that cut some (binding), then the count limit that cut
    none while another limit did or the section kept fewer than the count (not binding; left out with
    ``binding_only``)."""
    out: list[Limit] = []
    params = result.params
    for kind in KINDS:
        items = result.candidates(kind)
        total = len(items)
        if not total:
            continue
        count_param, threshold_param, stops, reclassify = _section(result.mode, kind)
        threshold = params.get(threshold_param) if threshold_param else None
        reclassify = reclassify and isinstance(threshold, (int, float))
        cut = {THRESHOLD: 0, COUNT: 0, BUDGET: 0, "": 0}
        classes: dict[str, str] = {}  # a reason's template -> its class, in this section
        for reason, score, n in dropped_reasons(items):  # a lazy tail by its reasons' templates, no row made
            cls = _class_here(reason, classes)  # by its template: a Reason stays data
            if cls == COUNT and reclassify and isinstance(score, (int, float)) and score < threshold:
                cls = THRESHOLD  # beyond the count and below the threshold: the threshold cut it too
            cut[cls] += n
        _section_limits(out, kind, count_param, stops, params, threshold, cut, total, binding_only)
    return out


def _section_limits(
    out: list[Limit],
    kind: str,
    count_param: str,
    stops: bool,
    params: dict[str, Any],
    threshold: Any,
    cut: dict[str, int],
    n: int,
    binding_only: bool,
) -> None:
    """One section's limits from its counts (``limits``), added to ``out``; their words kept as data until read."""
    name = _KIND_NAMES[kind]
    passed = n - cut[THRESHOLD]
    if cut[THRESHOLD]:
        text = lmsg(
            "{kind}: threshold {threshold} binding, {n} candidates cut",
            kind=name,
            threshold=_shown(threshold),
            n=cut[THRESHOLD],
        )
        out.append(_limit(kind, THRESHOLD, cut[THRESHOLD], passed, text))
    count = params.get(count_param) if count_param else None
    if cut[COUNT]:
        text = lmsg(
            "{kind}: {param} {value} binding, {n} candidates cut",
            kind=name,
            param=count_param or "top_k",
            value=_shown(count),
            n=cut[COUNT],
        )
        out.append(_limit(kind, COUNT, cut[COUNT], passed - cut[COUNT], text))
    elif stops and isinstance(count, int) and passed >= count:  # the mode lists no candidate beyond it
        text = lmsg("{kind}: {param} {value} binding, reached", kind=name, param=count_param, value=count)
        out.append(_limit(kind, COUNT, 0, passed, text))
    elif count is not None and not binding_only:
        text = _not_binding(name, count_param, count, passed, threshold, cut)
        out.append(_limit(kind, COUNT, 0, passed, text, False))
    if cut[BUDGET]:
        text = lmsg("{kind}: budget binding, {n} candidates cut", kind=name, n=cut[BUDGET])
        out.append(_limit(kind, BUDGET, cut[BUDGET], passed - cut[COUNT] - cut[BUDGET], text))


def _limit(kind: str, limit: str, cut: int, passed: int, text: Reason, binding: bool = True) -> Limit:
    """``Limit(kind, limit, cut, passed, text, binding)`` with its fields set as one dict (a frozen dataclass's
    ``__init__`` sets each through ``object.__setattr__``: twice the time, 2–4 limits every sweep step)."""
    made = _NEW(Limit)
    made.__dict__.update(kind=kind, limit=limit, cut=cut, passed=passed, _text=text, binding=binding)
    return made


_NEW = object.__new__


def _not_binding(name: Msg, param: str, value: Any, passed: int, threshold: Any, cut: dict[str, int]) -> Reason:
    if cut[THRESHOLD]:
        return lmsg(
            "{kind}: {param} {value} is not binding: {n} candidates pass the threshold {threshold}",
            kind=name,
            param=param,
            value=_shown(value),
            n=passed,
            threshold=_shown(threshold),
        )
    return lmsg(
        "{kind}: {param} {value} is not binding: {n} candidates in all",
        kind=name,
        param=param,
        value=_shown(value),
        n=passed,
    )


def _shown(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def binding(result: Retrieval) -> list[Limit]:
    """Only the limits that cut something."""
    return limits(result, binding_only=True)
