"""How graphrag 3.3.0 reads DRIFT's model answers, malformed ones included.

- A primer answer (3.x) is structured output: graphrag_llm's ``structure_completion_response`` is
  ``PrimerResponse(**json.loads(text))`` (pydantic, lax: ``score`` 70, 70.0 or "70"; all three keys
  required; extra keys ignored). Any answer it cannot read raises, and ``gather`` fails the whole query
  (``read_primer``); 2.x reads it with ``json.loads`` alone (``read_primer_2x``: keys may be missing,
  types odd). ``DRIFTSearch._process_primer_results`` joins the intermediate answers with blank
  lines, concatenates the follow-ups (none at all: ``RuntimeError``) and averages the scores
  (``combine_primer``).
- An action answer (one local search) is read by ``try_parse_json_object`` (``global_search/parse``,
  without ``json_repair``); ``DriftAction.search`` takes ``response`` (None when missing: the question
  stays unanswered and is asked again in a later round), ``float(score)`` (``-inf`` when missing) and
  ``follow_up_queries`` (``[]``). A score ``float()`` rejects, or a reply that parses to no object, fails
  GraphRAG's whole query (``read_action``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.ms.global_search.parse import try_parse_json_object


class QueryFailed(ValueError):
    """GraphRAG raises here and the whole DRIFT query fails; the message says where and why."""


def _primer_model():
    from pydantic import BaseModel

    class PrimerResponse(BaseModel):  # the fields and types of graphrag 3.3.0's primer.PrimerResponse
        intermediate_answer: str
        score: int
        follow_up_queries: list[str]

    return PrimerResponse


_MODEL: list = []


def read_primer(text: str) -> dict[str, Any]:
    """``structure_completion_response(text, PrimerResponse).model_dump()``, or ``QueryFailed``."""
    from pydantic import ValidationError

    if not _MODEL:
        _MODEL.append(_primer_model())
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise QueryFailed(
            msg("a primer answer is not JSON ({error}): GraphRAG 3.x fails the query", error=str(exc))
        ) from None
    if not isinstance(parsed, dict):
        raise QueryFailed(msg("a primer answer is JSON but not an object: GraphRAG 3.x fails the query"))
    try:
        return _MODEL[0](**parsed).model_dump()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise QueryFailed(
            msg(
                "a primer answer does not fit GraphRAG's PrimerResponse ({where}: {error}): GraphRAG 3.x fails the query",
                where=where,
                error=first.get("msg", ""),
            )
        ) from None


def read_primer_2x(text: str) -> dict[str, Any]:
    """graphrag 2.x: ``json.loads(answer)``; ``_process_primer_results`` then needs an object."""
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise QueryFailed(
            msg("a primer answer is not JSON ({error}): GraphRAG 2.x fails the query", error=str(exc))
        ) from None
    if not isinstance(parsed, dict):
        raise QueryFailed(msg("a primer answer is JSON but not an object: GraphRAG 2.x fails the query"))
    return parsed


def combine_primer(answers: list[dict[str, Any]]) -> tuple[str, float, list[str]]:
    """(intermediate answer, score, follow-ups) of the first question, as ``_process_primer_results``
    (2.x answers may lack keys or carry odd types; where Python fails there, GraphRAG fails the query)."""
    if not any("intermediate_answer" in a for a in answers):
        raise QueryFailed(msg("no primer answer has an intermediate answer: GraphRAG fails the query (RuntimeError)"))
    try:
        answer = "\n\n".join(a["intermediate_answer"] for a in answers if "intermediate_answer" in a)
        follow_ups = [fu for a in answers for fu in a.get("follow_up_queries", [])]
        if not follow_ups:
            raise QueryFailed(msg("no primer answer has a follow-up question: GraphRAG fails the query (RuntimeError)"))
        score = sum(a.get("score", float("-inf")) for a in answers) / len(answers)
    except TypeError as exc:
        raise QueryFailed(
            msg("a primer answer has a value of the wrong type ({error}): GraphRAG fails the query", error=str(exc))
        ) from None
    return answer, score, follow_ups


@dataclass
class ActionAnswer:
    answer: Any  # the ``response`` value as GraphRAG keeps it (None: missing)
    score: float
    follow_ups: list[str] = field(default_factory=list)


def read_action(text: str) -> ActionAnswer:
    """``DriftAction.search``'s reading of one local-search answer."""
    _, parsed = try_parse_json_object(text)
    if not isinstance(parsed, dict):
        raise QueryFailed(msg("a local-search answer parses to no JSON object: GraphRAG fails the query"))
    parsed = dict(parsed)
    answer = parsed.pop("response", None)
    raw_score = parsed.pop("score", "-inf")
    try:
        score = float(raw_score)
    except (TypeError, ValueError):
        raise QueryFailed(
            msg(
                "a local-search answer has score {score}, which float() rejects: GraphRAG fails the query",
                score=repr(raw_score),
            )
        ) from None
    follow = parsed.pop("follow_up_queries", [])
    if isinstance(follow, (str, dict)):
        follow = list(follow)  # GraphRAG iterates it: one follow-up per character (per key)
    if not isinstance(follow, list) or not all(isinstance(f, str) for f in follow):
        raise QueryFailed(msg("a local-search answer lists follow-ups that are not text: GraphRAG fails the query"))
    return ActionAnswer(answer, score, follow)
