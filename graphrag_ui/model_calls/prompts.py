"""Answer prompts by mode name, and the keyword-extraction prompt (our own wording).

A mode's answer prompt lives with its family (``retrieval/<family>/prompts.py``, an ``AnswerPrompt``
on its ``ModeSpec``); the modes fill ``Retrieval.messages`` with it. Here the answer layer finds it
by the mode's name (``build_messages``) for a retrieval that carries no messages, and keeps the
keyword-extraction request LightRAG's modes send before they search (``llm.keywords``).
"""

from __future__ import annotations

from typing import Any

from graphrag_ui.retrieval.registry import find_mode, mode_names
from graphrag_ui.retrieval.spec.answer_prompt import DEFAULT_RESPONSE_TYPE, FAIL_RESPONSE, AnswerPrompt

__all__ = [
    "DEFAULT_RESPONSE_TYPE",
    "FAIL_RESPONSE",
    "KEYWORDS_PROMPT",
    "answer_prompt",
    "build_messages",
    "is_keywords_prompt",
    "keywords_messages",
    "split_mode",
    "system_prompt",
    "templates",
]

KEYWORDS_PROMPT = """## Task
You pick search keywords for a retrieval system over a knowledge graph. Read the user's question and
return two lists:
- "high_level_keywords": the broad themes, intents and subject areas the question is about;
- "low_level_keywords": the concrete things it names: entities, people, places, organisations,
  products, proper nouns, technical terms.

## Rules
- Reply with a single JSON object with exactly those two keys, each an array of strings. Start with
  "{{" and end with "}}"; no code fences, no text before or after.
- Take keywords from the question; do not invent terms it does not suggest. Prefer meaningful
  multi-word phrases over single words, and list each keyword once.
- Write keywords in {language}; keep proper nouns in their original language.
- If the question has no real content (a greeting, a single filler word), return two empty arrays.

## Output shape (do not copy the placeholder values)
{{"high_level_keywords": ["<theme>"], "low_level_keywords": ["<named thing>"]}}

## Question
{query}

## JSON
"""


def split_mode(family: str, mode: str) -> tuple[str, str]:
    """Accept ``("lightrag", "local")`` as well as a registry name such as ``"lightrag.local"``."""
    if "." in mode:
        prefix, _, mode = mode.partition(".")
        family = family or prefix
    return family, mode


def templates() -> dict[str, dict[str, AnswerPrompt]]:
    """family -> mode -> answer prompt, for every registered mode that answers from one context."""
    out: dict[str, dict[str, AnswerPrompt]] = {}
    for name in mode_names():
        spec = find_mode(name)
        if spec is not None and spec.answer_prompt is not None:
            family, mode = split_mode("", name)
            out.setdefault(family, {})[mode] = spec.answer_prompt
    return out


def __getattr__(name: str) -> Any:
    """``TEMPLATES``: ``templates()``, built on first use (it imports every mode's module)."""
    if name == "TEMPLATES":
        return templates()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def answer_prompt(family: str, mode: str) -> AnswerPrompt:
    """The answer prompt of ``family.mode`` (its spec's), or a ValueError naming the modes that have one."""
    family, mode = split_mode(family, mode)
    spec = find_mode(f"{family}.{mode}")
    if spec is None or spec.answer_prompt is None:
        known = ", ".join(f"{f}.{m}" for f, modes in templates().items() for m in modes)
        raise ValueError(f"no answer prompt for {family}.{mode}; known: {known}")
    return spec.answer_prompt


def system_prompt(family: str, mode: str, context: str, **options: Any) -> str:
    """The filled system prompt of ``family.mode`` (``AnswerPrompt.system``'s options: response_type,
    user_prompt); with ``context=""`` it is what the mode charges against its budget."""
    return answer_prompt(family, mode).system(context, **options)


def build_messages(family: str, mode: str, context: str, query: str, **options: Any) -> list[dict[str, str]]:
    """``[system, *history, user]`` — the chat messages the answer call sends for ``family.mode``
    (``AnswerPrompt.messages``' options: response_type, user_prompt, history)."""
    return answer_prompt(family, mode).messages(context, query, **options)


def keywords_messages(query: str, language: str = "English") -> list[dict[str, str]]:
    """The keyword-extraction request: one user message, no system prompt (as LightRAG sends it)."""
    return [{"role": "user", "content": KEYWORDS_PROMPT.format(query=query, language=language)}]


def is_keywords_prompt(text: str) -> bool:
    """True for a keyword-extraction request (the test server uses this to pick its reply)."""
    return '"high_level_keywords"' in text and '"low_level_keywords"' in text
