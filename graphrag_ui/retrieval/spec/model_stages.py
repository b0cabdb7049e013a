"""What a mode asks the model, declared on its ``ModeSpec`` as data that the query service drives.

A mode that makes no model call has ``ModeSpec.stages = None``. Otherwise ``ModelStages`` says which of
two kinds of stage it has; the generic drivers in ``graphrag_ui.model_calls`` run them (one model client, the
answer cache, concurrency, progress, a ``ModelCall`` recorded for every call) and no caller above the
retrieval ever names a mode:

- ``rounds``: calls between the retrieval's own steps (``ms.global``'s dynamic community selection rates
  reports before any batch exists; ``ms.drift`` asks its expansion, primer and rounds of local
  searches). The mode writes the prompts and reads the replies; it gets an ``Ask`` from the driver.
- ``map_reduce``: one call per batch of the finished retrieval, then a reduce (``ms.global``,
  ``nano.global``): the mode's ``MapReduceHooks`` read each map reply and write the reduce prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphrag_ui.retrieval.core.stages import MapReduceHooks, ModelCall

if TYPE_CHECKING:
    from graphrag_ui.index.model import Index
    from graphrag_ui.retrieval.core.deps import Deps
    from graphrag_ui.retrieval.core.result import Retrieval

Parse = Callable[[str], list[dict[str, Any]]]


@dataclass
class CallRequest:
    """One model call to make: what for, the exact messages, how to read the answer."""

    stage: str  # "rate" | "map" | "reduce" | "expand" | "primer" | "local" | "judge"
    label: str  # e.g. "batch 2", "community 14"
    messages: list[dict[str, str]]
    parse: Parse | None = None  # raises ValueError (one line) when the answer is unusable
    llm_kwargs: dict[str, Any] = field(default_factory=dict)


# (what these calls are, as progress names them: "expansion", "local searches 2"; the calls) -> one
# record per request, in request order; a failed call is a record that is not ok, never an exception
Ask = Callable[[str, Sequence[CallRequest]], list[ModelCall]]


def reason(exc: BaseException) -> str:
    """Why a reader rejected an answer: the exception's message as it was raised (a ``msg`` stays one)."""
    return exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)


def _always(_params: dict[str, Any]) -> bool:
    return True


def _never_ran(_result: Retrieval) -> bool:
    return False


@dataclass(frozen=True)
class ModelRounds:
    """Model calls a mode makes while it retrieves; ``run`` is the whole retrieval, asking through ``ask``.

    ``on_request``: the rounds run only when the caller asks for model stages (``run_query(model_stages=
    True)``: DRIFT's rounds are the costly part of its run, started by a button in the app); otherwise
    they are part of every retrieval with a model, like keyword extraction (through the answer cache,
    no progress). Without a model, or when ``applies(params)`` is false, the mode's plain ``func`` runs.
    ``ran(result)``: whether ``result`` came from the rounds (a page then shows them instead of a button).
    """

    run: Callable[[Index, str, dict[str, Any], Deps, Ask], Retrieval]
    applies: Callable[[dict[str, Any]], bool] = _always
    on_request: bool = False
    ran: Callable[[Retrieval], bool] = _never_ran


@dataclass(frozen=True)
class ModelStages:
    """A mode's model stages: rounds inside its retrieval, a map-reduce after it, or both."""

    rounds: ModelRounds | None = None
    map_reduce: MapReduceHooks | None = None
    wide_answer: bool = False  # its answer panel shows a run (DRIFT's question tree) that wants the page's width

    def waits_for_request(self, result: Retrieval) -> bool:
        """``result`` is the model-free start of rounds that run only when asked (DRIFT before its button)."""
        rounds = self.rounds
        return rounds is not None and rounds.on_request and rounds.applies(result.params) and not rounds.ran(result)
