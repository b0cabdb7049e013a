"""``nano.global``'s map-answer reading and reduce step, as nano-graphrag 0.0.8.2 does them.

Map answers (``convert_response_to_json`` + ``data.get("points", [])``): the text from the first
``{`` to the last ``}`` is parsed as JSON; no ``{...}`` or JSON that does not parse makes nano's
whole global query fail (an ``AssertionError`` / ``JSONDecodeError`` out of ``asyncio.gather``), so
``parse_map`` raises ``ValueError`` with one line saying so. Points without a ``description`` are
skipped, a missing ``score`` counts as 1. Whatever else would make nano raise later (a score that
is not a number, a point that is not an object but contains the word "description") raises here.

Reduce: points with score > 0, sorted by score descending (stable: batch order, then answer order),
cut by the description tokens at ``global_max_token_for_community_report`` (the same budget as a
map batch), then ``----Analyst {batch}----\\nImportance Score: {score}\\n{description}\\n`` blocks
joined by newlines. The score prints as the JSON gave it (``80`` vs ``80.0``), so the runner must
keep ``Point.score`` as ``parse_map`` returned it.
"""

from __future__ import annotations

import json
import numbers
import re
from collections.abc import Mapping
from typing import Any

from graphrag_ui.base import tokens
from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.core.stages import Point
from graphrag_ui.retrieval.nano.params import GLOBAL_TYPED
from graphrag_ui.retrieval.nano.prep import ENCODING
from graphrag_ui.retrieval.nano.prompts import reduce_messages
from graphrag_ui.retrieval.spec.answer_prompt import FAIL_RESPONSE
from graphrag_ui.retrieval.spec.schema import Params

# nano's QueryParam.global_special_community_map_llm_kwargs: the map call asks for a JSON object
MAP_LLM_KWARGS: dict[str, Any] = {"response_format": {"type": "json_object"}}
_JSON_BODY = re.compile(r"{.*}", re.DOTALL)
FAILS = msg("nano-graphrag 0.0.8.2 fails the whole global query on this answer")


def _one_line(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def parse_map(answer: str) -> list[tuple[str, float]]:
    """(description, score) pairs in answer order, exactly the points nano keeps from a map answer."""
    body = _JSON_BODY.search(answer or "")
    if body is None:
        raise ValueError(
            msg(
                "the map answer holds no JSON object ({answer}): {fails}",
                answer=repr(_one_line(answer or "")),
                fails=FAILS,
            )
        )
    try:
        data = json.loads(body.group(0))
    except json.JSONDecodeError as exc:
        raise ValueError(
            msg(
                "the map answer's JSON does not parse ({error}, char {pos}): {fails}",
                error=exc.msg,
                pos=exc.pos,
                fails=FAILS,
            )
        ) from None
    points = data.get("points", [])
    out: list[tuple[str, float]] = []
    try:
        for point in points:
            if "description" not in point:
                continue
            description, score = point["description"], point.get("score", 1)
            if not isinstance(score, numbers.Real):
                raise ValueError(
                    msg(
                        "a point's score {score} is not a number: {fails} (TypeError)",
                        score=_one_line(repr(score)),
                        fails=FAILS,
                    )
                )
            if not isinstance(description, str):
                if score > 0:
                    raise ValueError(
                        msg(
                            "a point's description {description} is not text: {fails} (TypeError)",
                            description=_one_line(repr(description)),
                            fails=FAILS,
                        )
                    )
                description = json.dumps(description, ensure_ascii=False)  # dropped anyway (score <= 0)
            out.append((description, score))
    except (TypeError, AttributeError) as exc:
        raise ValueError(
            msg("the map answer's points cannot be read ({error}): {fails}", error=_one_line(str(exc)), fails=FAILS)
        ) from None
    return out


def reduce_context(kept: list[Point]) -> str:
    """The analyst blocks nano joins into its reduce prompt."""
    return "\n".join(f"----Analyst {p.batch}----\nImportance Score: {p.score}\n{p.description}\n" for p in kept)


def reduce(points: list[Point], query: str, params: Mapping[str, Any] | Params) -> tuple[str, list[dict[str, str]]]:
    """Mark each point kept or dropped (and why); return the reduce context and messages.

    No point with a score above 0 gives ``("", [])``: nano answers its fail response without a call.
    """
    params = GLOBAL_TYPED.of(params)  # a Retrieval's recorded dict
    limit = params.global_max_token_for_community_report
    ordered = sorted(points, key=lambda p: p.batch)  # stable: each batch's answer order is kept
    positive = []
    for p in ordered:
        p.tokens = tokens.count(p.description, ENCODING)
        p.in_context, p.why = False, ""
        if p.score > 0:
            positive.append(p)
        else:
            p.dropped = msg("score {score} (nano keeps only scores above 0)", score=p.score)
    positive.sort(key=lambda p: p.score, reverse=True)
    running, over = 0, limit <= 0
    kept: list[Point] = []
    for rank, p in enumerate(positive, start=1):
        running += p.tokens
        over = over or running > limit  # a prefix cut: everything after the first overflow goes too
        if over:
            p.dropped = msg(
                "#{n} by score, over the reduce budget ({running}/{limit} tokens, global_max_token_for_community_report)",
                n=rank,
                running=running,
                limit=limit,
            )
            continue
        p.in_context, p.dropped = True, ""
        p.why = msg(
            "score {score}, #{n} of {count} points above 0, from analyst {batch}",
            score=p.score,
            n=rank,
            count=len(positive),
            batch=p.batch,
        )
        kept.append(p)
    if not kept:
        return "", []
    context = reduce_context(kept)
    return context, reduce_messages(context, query, params.response_type)


class NanoMapReduce:
    """The ``MapReduceHooks`` of ``nano.global`` (see ``graphrag_ui.retrieval.core.stages``).

    ``parse_map`` raises a plain ``ValueError`` (never ``MalformedAnswer``): nano gathers its map calls
    with ``asyncio.gather``, so one unreadable answer fails the whole query and nothing is reduced.
    """

    map_llm_kwargs = MAP_LLM_KWARGS
    fail_response = FAIL_RESPONSE  # no point above 0: answered without a model call, as nano does

    def parse_map(self, answer: str) -> list[tuple[str, float]]:
        return parse_map(answer)

    def reduce(
        self, points: list[Point], query: str, params: Mapping[str, Any] | Params
    ) -> tuple[str, list[dict[str, str]]]:
        return reduce(points, query, params)


HOOKS = NanoMapReduce()
