"""A question tree as plain data: DRIFT's state graph (``ms.drift``), carried on ``Retrieval.tree``.

Nodes are questions — the user's, each follow-up — in the order the reference adds them (its ids),
each with its depth, its answer and score, the round it was run in and the model call that answered
it; edges say "asked as a follow-up of". A follow-up asked twice is one node with two edges, as in
GraphRAG's graph (actions are equal by their question). Each local-search step keeps its whole
explained retrieval (``local``: a ``Retrieval.to_dict()`` of ``ms.local``). Model calls are the
``ModelCall`` records map-reduce modes use; without a model the tree holds only the question and the
note says what needs one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.retrieval.core.stages import NEEDS_MODEL, ModelCall


@dataclass
class QuestionNode:
    id: int  # position in the reference's graph (its serialize() id)
    query: str
    depth: int  # 0: the user's question; 1: the primer's follow-ups; 2: theirs; ...
    answer: Any = None  # None: not answered (never run, or run without a usable answer)
    score: float | None = None
    round: int | None = None  # the round (1-based) that last ran it; 0: the primer
    runs: int = 0  # GraphRAG asks an unanswered question again in a later round
    call: str = ""  # label of the model call that answered it (``Retrieval.tree.calls``)
    follow_ups: list[str] = field(default_factory=list)
    local: dict[str, Any] | None = None  # the explained ms.local retrieval of its last run


@dataclass
class QuestionEdge:
    source: int
    target: int


@dataclass
class QuestionTree:
    status: str = NEEDS_MODEL
    note: str = ""
    expansion: str = ""
    seed: int | None = None  # the seed of the template draw and the rounds' shuffles
    nodes: list[QuestionNode] = field(default_factory=list)
    edges: list[QuestionEdge] = field(default_factory=list)
    rounds: list[list[int]] = field(default_factory=list)  # node ids run in each round, in run order
    calls: list[ModelCall] = field(default_factory=list)
    reduce_context: str = ""
    reduce_messages: list[dict[str, str]] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> QuestionTree:
        data = dict(data)
        data["nodes"] = [QuestionNode(**n) for n in data.get("nodes", [])]
        data["edges"] = [QuestionEdge(**e) for e in data.get("edges", [])]
        data["calls"] = [ModelCall(**c) for c in data.get("calls", [])]
        return cls(**data)
