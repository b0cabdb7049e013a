"""Compare two retrievals of one question: overlap per kind and what only one side recalled."""

from __future__ import annotations

from dataclasses import dataclass

from graphrag_ui.retrieval.core.candidates import in_context
from graphrag_ui.retrieval.core.result import KINDS, Retrieval


@dataclass
class KindOverlap:
    kind: str
    left: int
    right: int
    shared: int
    jaccard: float | None  # |A ∩ B| / |A ∪ B|; None when both sides are empty (nothing to agree on)
    only_left: list[str]  # labels, in the left side's context order
    only_right: list[str]


def _labels(result: Retrieval, kind: str) -> dict[str, str]:
    return {c.id: c.label for c in in_context(result.candidates(kind))}


def overlap(left: Retrieval, right: Retrieval) -> list[KindOverlap]:
    """Per kind, compare the items that made it into each context (by id)."""
    rows = []
    for kind in KINDS:
        a, b = _labels(left, kind), _labels(right, kind)
        shared = a.keys() & b.keys()
        union = a.keys() | b.keys()
        rows.append(
            KindOverlap(
                kind=kind,
                left=len(a),
                right=len(b),
                shared=len(shared),
                jaccard=None if not union else len(shared) / len(union),
                only_left=[label for key, label in a.items() if key not in b],
                only_right=[label for key, label in b.items() if key not in a],
            )
        )
    return rows
