"""How GraphRAG reads a map answer (``GlobalSearch._parse_search_response``), malformed ones included.

``try_parse_json_object`` first tries the answer as JSON; if that fails (or gives an empty value) it
keeps the outermost ``{...}``, undoes doubled braces and quoted lists, blanks backslashes and line
breaks, strips a Markdown fence and tries again. GraphRAG then hands a still-broken text to the
``json_repair`` package. Plain prose (no brace or bracket) comes back from it as no object, as here;
broken JSON it may patch into points — we do not ship json_repair, so such an answer counts as
unreadable (docs/differences/ms.md).
The points are ``points[*]`` with both ``description`` and ``score`` (``int(score)``). What GraphRAG
does with an unusable answer is kept exactly: no JSON object or no ``points`` list → one point with
score 0; a score ``int()`` rejects → the batch gives no points; any other fault → one point with score 0.
"""

from __future__ import annotations

import json
import re
from typing import Any

from graphrag_ui.base.i18n import msg

_OBJECT = re.compile(r"\{(.*)\}", re.DOTALL)


class Unreadable(ValueError):
    """The answer needs ``json_repair`` to be read (GraphRAG guesses; we say so)."""


def try_parse_json_object(text: str) -> tuple[str, Any]:
    """``graphrag.query.llm.text_utils.try_parse_json_object`` up to its ``json_repair`` step."""
    result = None
    try:
        result = json.loads(text)
    except json.JSONDecodeError:
        pass
    if result:
        return text, result
    match = _OBJECT.search(text)
    text = "{" + match.group(1) + "}" if match else text
    text = (
        text.replace("{{", "{")
        .replace("}}", "}")
        .replace('"[{', "[{")
        .replace('}]"', "}]")
        .replace("\\", " ")
        .replace("\\n", " ")
        .replace("\n", " ")
        .replace("\r", "")
        .strip()
    )
    if text.startswith("```json"):
        text = text[len("```json") :]
    if text.endswith("```"):
        text = text[: len(text) - len("```")]
    try:
        return text, json.loads(text)
    except json.JSONDecodeError:
        if "{" not in text and "[" not in text:
            return text, {}  # json_repair finds no object in plain prose: GraphRAG ends with {} too
        raise Unreadable(msg("not JSON even after GraphRAG's clean-up; GraphRAG would try json_repair")) from None


NO_POINT = [("", 0)]  # GraphRAG's stand-in for an unusable answer: one empty point, score 0


def read_points(answer: str) -> tuple[list[tuple[Any, int]], str]:
    """(points, problem): the points GraphRAG reduces from this answer, and what was wrong ("" if nothing)."""
    try:
        text, parsed = try_parse_json_object(answer)
    except Unreadable as exc:
        return list(NO_POINT), exc.args[0]  # the message as raised (a Msg)
    if parsed == {}:
        return list(NO_POINT), msg("no JSON object in the answer")
    try:
        elements = json.loads(text).get("points")
    except AttributeError:
        return list(NO_POINT), msg("JSON {type}, not an object", type=type(parsed).__name__)
    if not elements or not isinstance(elements, list):
        return list(NO_POINT), msg("no non-empty 'points' list")
    try:
        points = [
            (element["description"], int(element["score"]))
            for element in elements
            if "description" in element and "score" in element
        ]
    except ValueError:
        return [], msg("a score is not an integer: GraphRAG skips the whole batch")
    except Exception as exc:  # GraphRAG's map call catches everything else the same way
        return list(NO_POINT), msg("a point is malformed ({type})", type=type(exc).__name__)
    return points, ""
