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

from graphrag_ui.base.i18n import Msg, Reason, msg
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
    text: Msg  # what the analyst reads
    binding: bool = True


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


def _family(mode: str) -> str:
    return mode.split(".", 1)[0]


def limits(result: Retrieval) -> list[Limit]:
    """Per section with candidates: each limit that cut some (binding), then the count limit that cut
    none while another limit did or the section kept fewer than the count (not binding)."""
    out: list[Limit] = []
    for kind in KINDS:
        items = result.candidates(kind)
        if not items:
            continue
        count_param, threshold_param, stops = _COUNT_PARAMS.get(
            (result.mode, kind), _COUNT_PARAMS.get((_family(result.mode), kind), ("", "", False))
        )
        threshold = result.params.get(threshold_param) if threshold_param else None
        reclassify = _family(result.mode) == "nano"  # its count and threshold cut the same search's list
        cut = {THRESHOLD: 0, COUNT: 0, BUDGET: 0}
        classes: dict[Any, str] = {}  # a reason's template -> its class, in this section
        for reason, score, n in dropped_reasons(items):  # a lazy tail by its reasons' templates, no row made
            # limit_class by its template: a Reason stays data (a sweep reads 10³ of them a step)
            root = reason.template if type(reason) is Reason and reason.template != _NOTES else _root(reason)
            cls = classes.get(root)
            if cls is None:
                cls = classes[root] = _class_of(root)
            if cls == COUNT and reclassify and _below(score, threshold):
                cls = THRESHOLD  # beyond the count and below the threshold: the threshold cut it too
            if cls:
                cut[cls] += n
        name = _KIND_NAMES[kind]
        passed = len(items) - cut[THRESHOLD]
        if cut[THRESHOLD]:
            text = msg(
                "{kind}: threshold {threshold} binding, {n} candidates cut",
                kind=name,
                threshold=_shown(threshold),
                n=cut[THRESHOLD],
            )
            out.append(Limit(kind, THRESHOLD, cut[THRESHOLD], passed, text))
        count = result.params.get(count_param) if count_param else None
        if cut[COUNT]:
            text = msg(
                "{kind}: {param} {value} binding, {n} candidates cut",
                kind=name,
                param=count_param or "top_k",
                value=_shown(count),
                n=cut[COUNT],
            )
            out.append(Limit(kind, COUNT, cut[COUNT], passed - cut[COUNT], text))
        elif stops and isinstance(count, int) and passed >= count:  # the mode lists no candidate beyond it
            text = msg("{kind}: {param} {value} binding, reached", kind=name, param=count_param, value=count)
            out.append(Limit(kind, COUNT, 0, passed, text))
        elif count is not None:
            text = _not_binding(name, count_param, count, passed, threshold, cut)
            out.append(Limit(kind, COUNT, 0, passed, text, binding=False))
        if cut[BUDGET]:
            text = msg("{kind}: budget binding, {n} candidates cut", kind=name, n=cut[BUDGET])
            out.append(Limit(kind, BUDGET, cut[BUDGET], passed - cut[COUNT] - cut[BUDGET], text))
    return out


def _not_binding(name: Msg, param: str, value: Any, passed: int, threshold: Any, cut: dict[str, int]) -> Msg:
    if cut[THRESHOLD]:
        return msg(
            "{kind}: {param} {value} is not binding: {n} candidates pass the threshold {threshold}",
            kind=name,
            param=param,
            value=_shown(value),
            n=passed,
            threshold=_shown(threshold),
        )
    return msg(
        "{kind}: {param} {value} is not binding: {n} candidates in all",
        kind=name,
        param=param,
        value=_shown(value),
        n=passed,
    )


def _below(score: Any, threshold: Any) -> bool:
    return isinstance(score, (int, float)) and isinstance(threshold, (int, float)) and score < threshold


def _shown(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def binding(result: Retrieval) -> list[Limit]:
    """Only the limits that cut something."""
    return [lim for lim in limits(result) if lim.binding]
