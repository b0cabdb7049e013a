"""A test-local map-reduce mode, ``test.global``: a pure batcher of community reports and its hooks.

It stands in for ``ms.global``/``nano.global`` where a test checks the runner, the CLI or the views
rather than a reference's exact text: reports in index order, ``per_batch`` to a batch, a map prompt
asking for JSON points; the hooks read JSON points (a non-JSON answer becomes GraphRAG-style fallback,
or fails with ``strict``) and reduce best-first within a token budget, dropping score 0.
"""

from __future__ import annotations

import json

from graphrag_ui.base import tokens
from graphrag_ui.retrieval import registry
from graphrag_ui.retrieval.core.result import Candidate, Retrieval
from graphrag_ui.retrieval.core.stages import Batch, MalformedAnswer, Point, Stages
from graphrag_ui.retrieval.spec.model_stages import ModelStages
from graphrag_ui.retrieval.spec.schema import ModeSpec, ParamSpec

NAME = "test.global"
MAP_SYSTEM = 'Answer with JSON {"points": [{"description": "...", "score": 0-100}]} from these reports:\n'


class Hooks:
    """A reference-like reader and reducer: JSON points, score 0 dropped, best first within a budget."""

    map_llm_kwargs = {"response_format": {"type": "json_object"}}
    fail_response = "I am sorry but I am unable to answer this question given the provided data."

    def __init__(self, strict: bool = False, budget: int = 10_000) -> None:
        self.strict = strict  # True: a non-JSON answer fails the query (nano-graphrag's assert)
        self.budget = budget

    def parse_map(self, answer: str) -> list[tuple[str, float]]:
        try:
            data = json.loads(answer)
        except json.JSONDecodeError:
            if self.strict:
                raise ValueError("the map answer is not JSON") from None
            raise MalformedAnswer("the map answer is not JSON", [("", 0.0)]) from None
        return [(p["description"], float(p.get("score", 1))) for p in data.get("points", []) if "description" in p]

    def reduce(self, points: list[Point], query: str, params: dict) -> tuple[str, list[dict[str, str]]]:
        used, parts = 0, []
        for p in sorted(points, key=lambda p: -p.score):
            p.tokens = len(p.description.split())
            if p.score <= 0:
                p.dropped = "score 0"
            elif used + p.tokens > self.budget:
                p.dropped = f"over the reduce budget ({self.budget} tokens)"
            else:
                used += p.tokens
                p.in_context, p.why = True, f"score {p.score:g}"
                parts.append(f"----Analyst {p.batch}----\nImportance Score: {p.score:g}\n{p.description}\n")
        context = "\n".join(parts)
        return context, [{"role": "system", "content": "Reduce these:\n" + context}, {"role": "user", "content": query}]


def build(index, query: str, params: dict, deps) -> Retrieval:
    """Batches of ``per_batch`` reports in index order, each with its map prompt; no model call."""
    reports = [c for c in index.communities if c.report]
    per = int(params["per_batch"])
    batches, candidates = [], []
    for n, start in enumerate(range(0, len(reports), per)):
        group = reports[start : start + per]
        rows = [f"{c.id}|{c.title}|{' '.join(c.report.split())[:300]}" for c in group]
        context = "id|title|content\n" + "\n".join(rows) + "\n"
        messages = [{"role": "system", "content": MAP_SYSTEM + context}, {"role": "user", "content": query}]
        batches.append(Batch(n, [c.id for c in group], context, tokens.count(context), 8000, messages))
        candidates += [
            Candidate(c.id, c.title, {"level": c.level}, len(candidates), f"report in map batch {n}") for c in group
        ]
    return Retrieval(mode=NAME, query=query, params=params, communities=candidates, stages=Stages(batches=batches))


SPECS = [
    ModeSpec(
        NAME,
        "test",
        build,
        (ParamSpec("per_batch", "int", 3, "reports per map batch", min=1, max=50, step=1),),
        "test-local map-reduce mode",
        stages=ModelStages(map_reduce=Hooks()),
    )
]


def register(monkeypatch) -> None:
    """Make ``test.global`` a known mode for this test (undone by ``monkeypatch``)."""
    monkeypatch.setitem(registry.MODE_MODULES, NAME, __name__)
    registry._module_specs.cache_clear()
