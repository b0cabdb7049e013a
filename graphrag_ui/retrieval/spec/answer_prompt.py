"""An answer prompt (our own wording) and how it is filled: the shape every family's answer prompts share.

Each family keeps its templates in its own ``prompts`` module and hands one ``AnswerPrompt`` to each
mode that answers from one context. A template keeps the *placeholders* of the reference prompt it
stands in for, so the answer sees the same pieces the reference would send: every template fills its
context slot (``context_data``, or ``content_data`` for naive modes) and ``response_type``; one with a
``user_prompt`` slot (LightRAG's) gets "n/a" when the user gave no extra instruction, the others get
the instruction appended, so it is still honoured.
"""

from __future__ import annotations

import functools
import string
from dataclasses import dataclass
from typing import Any

DEFAULT_RESPONSE_TYPE = "Multiple Paragraphs"

# Returned instead of an answer when a mode found no context at all (no model call is made).
FAIL_RESPONSE = "I can't answer this question: the index returned no context for it.[no-context]"

# the role every answer prompt of ours opens with
ROLE = (
    "You are an analyst answering a question from a knowledge base that was built as a graph of "
    "entities and relationships over a set of source documents."
)


def user_prompt_slot(user_prompt: str) -> str:
    """LightRAG's slot: "n/a" when there is no extra instruction, else the text after a blank line."""
    text = (user_prompt or "").strip()
    return f"\n\n{text}" if text else "n/a"


@functools.lru_cache(maxsize=64)
def _pieces(template: str) -> tuple[tuple[str, str], ...] | None:
    """``template`` as (literal text, field name) pieces (``""``: none after the last literal), or None when a
    field is more than a plain name (a format spec, a conversion, an index): ``str.format`` fills those."""
    out = []
    for literal, name, spec, conversion in string.Formatter().parse(template):
        if name is not None and (spec or conversion or not name.isidentifier()):
            return None
        out.append((literal, name or ""))
    return tuple(out)


def filled(template: str, fields: dict[str, Any]) -> str:
    """``template.format(**fields)``, the template read once: a sweep fills its answer prompt at every step, and
    ``str.format`` parsing the template again cost 3 µs of each fill (the joins of its pieces 0.5 µs)."""
    pieces = _pieces(template)
    if pieces is None:
        return template.format(**fields)
    parts = []
    for literal, name in pieces:
        parts.append(literal)
        if name:
            value = fields[name]
            parts.append(value if type(value) is str else format(value, ""))
    return "".join(parts)


@dataclass(frozen=True)
class AnswerPrompt:
    """One answer template and the name of its context placeholder."""

    template: str
    slot: str  # "context_data" | "content_data"

    def system(self, context: str, *, response_type: str = DEFAULT_RESPONSE_TYPE, user_prompt: str = "") -> str:
        """The filled system prompt; with ``context=""`` it is what a mode charges against its budget."""
        template = self.template
        fields = {self.slot: context, "response_type": response_type or DEFAULT_RESPONSE_TYPE}
        if "{user_prompt}" in template:
            fields["user_prompt"] = user_prompt_slot(user_prompt)
        elif user_prompt.strip():
            # nano and GraphRAG have no slot for it; append it so the instruction is still honoured
            template = template + "\n## Extra instructions from the user\n" + user_prompt.strip() + "\n"
        return filled(template, fields)

    def messages(
        self,
        context: str,
        query: str,
        *,
        response_type: str = DEFAULT_RESPONSE_TYPE,
        user_prompt: str = "",
        history: list[dict] | None = None,
    ) -> list[dict[str, str]]:
        """``[system, *history, user]`` — the chat messages the answer call sends."""
        system = self.system(context, response_type=response_type, user_prompt=user_prompt)
        turns = [{"role": str(m["role"]), "content": str(m["content"])} for m in (history or [])]
        return [{"role": "system", "content": system}, *turns, {"role": "user", "content": query}]
