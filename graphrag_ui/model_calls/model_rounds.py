"""The driver of a mode's model rounds: the calls it makes while it retrieves (``ModelStages.rounds``).

The mode writes the prompts, reads the replies and decides what comes next
(``retrieval.core.model_stages``); this module only hands it an ``ask`` that sends each batch of
requests through ``map_reduce.call_many`` — one model client, the answer cache, at most
``MAP_CONCURRENCY`` calls at once, every call timed and recorded as a ``ModelCall``, progress reported as
``on_progress(what, done, total)``. Nothing here knows which mode it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from graphrag_ui.index.model import Index
from graphrag_ui.model_calls import map_reduce
from graphrag_ui.retrieval.core.deps import Deps
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.retrieval.core.stages import ModelCall
from graphrag_ui.retrieval.spec.model_stages import CallRequest
from graphrag_ui.retrieval.spec.schema import ModeSpec

Progress = Callable[[str, int, int], None]  # (what the calls are, calls done, calls in this batch)


def wants_rounds(spec: ModeSpec, params: dict[str, Any], settings: Any, model_stages: bool) -> bool:
    """Whether ``spec``'s rounds run for this query: it has rounds for these parameters, a model is
    configured, and the rounds are part of every retrieval or the caller asked for model stages."""
    rounds = spec.stages.rounds if spec.stages is not None else None
    if rounds is None or not rounds.applies(params) or not getattr(settings, "configured", False):
        return False
    return model_stages or not rounds.on_request


def retrieve_with_model(
    spec: ModeSpec,
    index: Index,
    query: str,
    params: dict[str, Any],
    deps: Deps,
    settings: Any,
    *,
    model_stages: bool = False,
    call_many: Callable[..., list[ModelCall]] | None = None,
    use_cache: bool = True,
    on_progress: Progress | None = None,
) -> Retrieval:
    """``spec``'s retrieval with its rounds run through ``settings``' model when ``wants_rounds``; its plain
    retrieval otherwise. Rounds that are part of every retrieval go through the answer cache without
    progress (as keyword extraction does); rounds run on request follow ``use_cache`` and ``on_progress``."""
    if not wants_rounds(spec, params, settings, model_stages):
        return spec.func(index, query, params, deps)
    assert spec.stages is not None and spec.stages.rounds is not None
    rounds = spec.stages.rounds
    send = call_many or map_reduce.call_many

    def ask(what: str, requests: Sequence[CallRequest]) -> list[ModelCall]:
        if not rounds.on_request:
            return send(list(requests), settings)
        progress = None if on_progress is None else (lambda done, total, _call: on_progress(what, done, total))
        return send(list(requests), settings, use_cache=use_cache, on_progress=progress)

    return rounds.run(index, query, params, deps, ask)
