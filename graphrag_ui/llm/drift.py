"""DRIFT's model calls (``ms.drift``): the expansion, the primer folds, each round's local searches.

``retrieval.ms.drift_search.loop.run_loop`` does everything else; it receives ``ask`` from here, which
sends each stage's requests through ``map_reduce.call_many`` — the answer cache, at most
``MAP_CONCURRENCY`` calls at once, every call timed and recorded — and hands back the answers. The
records land in ``Retrieval.tree.calls`` (label = the call's purpose, as the tree's nodes name it), so a
second run of the same question costs nothing and shows where the time and tokens went. The reduce
call is not made here: the loop leaves its prompt as the Retrieval's ``messages`` and the ordinary
answer layer sends it, streamed, like any mode's answer.

A primer answer GraphRAG cannot read fails the call (so it is never cached) and then the run, with
GraphRAG's reason; a local answer GraphRAG reads as "no answer" is cached like any other, since
GraphRAG carries on with it. Without a model nothing is called: the model-free retrieval is returned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphrag_ui.index.model import Index
from graphrag_ui.llm.map_reduce import CallRequest, call_many
from graphrag_ui.llm_client.settings import LLMSettings
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import ModelCall
from graphrag_ui.retrieval.ms.drift_search import answers, loop
from graphrag_ui.retrieval.ms.drift_search.search import primer_stage

JSON_OBJECT = {"response_format": {"type": "json_object"}}  # GraphRAG asks its primer and local calls for JSON
Progress = Callable[[str, int, int], None]  # (stage label, calls done, calls in the stage)


def _read_primer(raw: str) -> list[dict[str, Any]]:
    return [answers.read_primer(raw)]


def _read_primer_2x(raw: str) -> list[dict[str, Any]]:
    return [answers.read_primer_2x(raw)]


def _read_action(raw: str) -> list[dict[str, Any]]:
    read = answers.read_action(raw)
    return [{"answer": read.answer, "score": read.score, "follow_up_queries": read.follow_ups}]


PARSERS = {"primer": _read_primer, "local": _read_action}
EMPTY = "the model returned an empty answer"  # map_reduce.call_model's error for an empty reply
STAGE_NAMES = {"expand": "expansion", "primer": "primer", "local": "local searches"}


def run_drift(
    index: Index,
    query: str,
    params: dict[str, Any],
    deps: Deps,
    settings: LLMSettings,
    *,
    use_cache: bool = True,
    on_progress: Progress | None = None,
) -> Retrieval:
    """The whole DRIFT run with ``settings``' model; the model-free retrieval when none is configured."""
    if not settings.configured:
        return primer_stage(index, query, params, deps)
    calls: list[ModelCall] = []
    rounds = [0]

    def ask(stage: str, requests: list[loop.Request]) -> list[str | None]:
        if stage == "local":
            rounds[0] += 1
        name = f"{STAGE_NAMES[stage]} {rounds[0]}" if stage == "local" else STAGE_NAMES[stage]
        parse = (
            _read_primer_2x
            if stage == "primer" and str(params.get("version", "")).startswith("2.")
            else PARSERS.get(stage)
        )
        made = [
            CallRequest(stage, r.label, r.messages, parse, JSON_OBJECT if stage in PARSERS else {}) for r in requests
        ]
        progress = None if on_progress is None else (lambda done, total, _call: on_progress(name, done, total))
        records = call_many(made, settings, use_cache=use_cache, on_progress=progress)
        calls.extend(records)
        # a reply the reader rejected still goes back: the loop fails the run with GraphRAG's reason;
        # an empty expansion is GraphRAG's "" (it then ranks by the question)
        return [r.raw if (r.ok or r.raw or (stage == "expand" and r.error == EMPTY)) else None for r in records]

    result = loop.run_loop(index, query, params, deps, ask)
    if result.tree is not None:
        result.tree.calls = calls
    return result
