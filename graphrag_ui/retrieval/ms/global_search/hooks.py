"""``ms.global``'s map-reduce hooks: read a map answer and build the reduce stage as GraphRAG does.

Reduce (``GlobalSearch._reduce_response``): every point of every batch ("analyst" = batch number + 1),
points with score 0 dropped; none left → GraphRAG's canned no-data answer without a model call;
otherwise sorted by score, descending (stable: batch order, then answer order on ties), each written
``----Analyst N----\\nImportance Score: S\\n<description>`` and added while the running total of
their cl100k tokens stays within ``data_max_tokens`` (the first point that does not fit ends the list),
joined with blank lines into the reduce prompt's ``report_data``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphrag_ui.base.i18n import joined, msg
from graphrag_ui.retrieval.core.stages import MalformedAnswer, Point
from graphrag_ui.retrieval.ms.global_search.params import TYPED
from graphrag_ui.retrieval.ms.global_search.parse import read_points
from graphrag_ui.retrieval.ms.prompts import NO_DATA_ANSWER, reduce_messages
from graphrag_ui.retrieval.ms.text import count_text
from graphrag_ui.retrieval.spec.schema import Params


def score_text(score: float) -> str:
    """GraphRAG prints the ``int()`` it parsed."""
    return str(int(score)) if float(score).is_integer() else str(score)


class MsGlobalHooks:
    """What the map-reduce runner calls for ``ms.global`` (see ``graphrag_ui.retrieval.core.stages``)."""

    # GraphRAG asks for a JSON object on every map call (3.x: response_format_json_object=True; 2.x: json=True)
    map_llm_kwargs = {"response_format": {"type": "json_object"}}
    fail_response = NO_DATA_ANSWER

    def parse_map(self, answer: str) -> list[tuple[str, float]]:
        points, problem = read_points(answer)
        if problem:
            goes_on = msg("GraphRAG goes on with {fallback}", fallback=_fallback_words(points))
            raise MalformedAnswer(joined(problem, goes_on), points)
        return [(str(d), float(s)) for d, s in points]

    def reduce(
        self, points: list[Point], query: str, params: Mapping[str, Any] | Params
    ) -> tuple[str, list[dict[str, str]]]:
        params = TYPED.of(params)  # a Retrieval's recorded dict
        limit = params.data_max_tokens
        for p in points:
            p.in_context, p.why, p.dropped, p.tokens = False, "", "", 0
        scored = [p for p in points if p.score > 0]
        for p in points:
            if p.score <= 0:
                p.dropped = (
                    msg("score 0 (the analyst found nothing relevant)")
                    if p.score == 0
                    else msg("score {score}", score=f"{p.score:g}")
                )
        if not scored:
            return "", []
        ranked = sorted(scored, key=lambda p: p.score, reverse=True)
        blocks: list[str] = []
        total = 0
        full = False
        for n, p in enumerate(ranked, start=1):
            block = f"----Analyst {p.batch + 1}----\nImportance Score: {score_text(p.score)}\n{p.description}"
            p.tokens = count_text(block)
            if full or total + p.tokens > limit:
                full = True
                p.dropped = msg(
                    "over the reduce budget (data_max_tokens {limit}: {used} used, this point {tokens})",
                    limit=f"{limit:,}",
                    used=f"{total:,}",
                    tokens=f"{p.tokens:,}",
                )
                continue
            total += p.tokens
            blocks.append(block)
            p.in_context = True
            p.why = msg(
                "score {score}, #{n} of {count} scored points", score=score_text(p.score), n=n, count=len(ranked)
            )
        text = "\n\n".join(blocks)
        messages = reduce_messages(text, query, params.response_type, params.reduce_max_length)
        return text, messages


def _fallback_words(points: list) -> str:
    if not points:
        return msg("no points from this batch")
    return msg("one empty point with score 0 (dropped at reduce)")


HOOKS = MsGlobalHooks()
