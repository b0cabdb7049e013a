"""DRIFT's model rounds (``ms.drift``): the expansion, the primer folds, each round's local searches.

``loop.run_loop`` does the search; this module turns its ``ask(stage, requests)`` into the query
service's ``Ask``: each stage's requests become ``CallRequest``s (GraphRAG asks its primer and local
calls for JSON; the reply is read by ``answers`` before it is cached), named for progress ("expansion",
"primer", "local searches 2"), and every record lands in ``Retrieval.tree.calls`` (label = the call's
purpose, as the tree's nodes name it). The reduce call is not made here: the loop leaves its prompt as
the Retrieval's ``messages`` and the ordinary answer layer sends it, streamed, like any mode's answer.

A primer answer GraphRAG cannot read fails the call (so it is never cached) and then the run, with
GraphRAG's reason; a local answer GraphRAG reads as "no answer" is cached like any other, since
GraphRAG carries on with it.
"""

from __future__ import annotations

from typing import Any

from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import ModelCall
from graphrag_ui.retrieval.ms.drift_search import answers, loop
from graphrag_ui.retrieval.ms.drift_search.params import TYPING
from graphrag_ui.retrieval.spec.model_stages import Ask, CallRequest

JSON_OBJECT = {"response_format": {"type": "json_object"}}  # GraphRAG asks its primer and local calls for JSON


def _read_primer(raw: str) -> list[dict[str, Any]]:
    return [answers.read_primer(raw)]


def _read_primer_2x(raw: str) -> list[dict[str, Any]]:
    return [answers.read_primer_2x(raw)]


def _read_action(raw: str) -> list[dict[str, Any]]:
    read = answers.read_action(raw)
    return [{"answer": read.answer, "score": read.score, "follow_up_queries": read.follow_ups}]


PARSERS = {"primer": _read_primer, "local": _read_action}
EMPTY = "the model returned an empty answer"  # the driver's error for an empty reply (llm.map_reduce.call_model)
STAGE_NAMES = {"expand": "expansion", "primer": "primer", "local": "local searches"}


def ran(result: Retrieval) -> bool:
    """A result of these rounds carries the question tree; the model-free start has none."""
    return result.tree is not None


def run(index: Index, query: str, params: dict[str, Any], deps: Deps, ask: Ask) -> Retrieval:
    """The whole DRIFT run, each stage's calls made through ``ask``."""
    calls: list[ModelCall] = []
    rounds = [0]

    def ask_stage(stage: str, requests: list[loop.Request]) -> list[str | None]:
        if stage == "local":
            rounds[0] += 1
        name = f"{STAGE_NAMES[stage]} {rounds[0]}" if stage == "local" else STAGE_NAMES[stage]
        parse = (
            _read_primer_2x
            if stage == "primer" and TYPING.typed(params).version.startswith("2.")
            else PARSERS.get(stage)
        )
        made = [
            CallRequest(stage, r.label, r.messages, parse, JSON_OBJECT if stage in PARSERS else {}) for r in requests
        ]
        records = ask(name, made)
        calls.extend(records)
        # a reply the reader rejected still goes back: the loop fails the run with GraphRAG's reason;
        # an empty expansion is GraphRAG's "" (it then ranks by the question)
        return [r.raw if (r.ok or r.raw or (stage == "expand" and r.error == EMPTY)) else None for r in records]

    result = loop.run_loop(index, query, params, deps, ask_stage)
    if result.tree is not None:
        result.tree.calls = calls
    return result
