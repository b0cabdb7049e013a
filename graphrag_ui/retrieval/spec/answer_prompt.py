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


def fill(template: str, /, **fields: Any) -> str:
    """``template.format(**fields)`` for a template whose placeholders are plain names: its pieces are parsed
    once and joined (a sweep fills a prompt around a context of 10⁴–10⁵ characters at every step)."""
    pieces = _pieces(template)
    if pieces is None or not all(type(fields.get(name)) is str for name in pieces[1::2]):
        return template.format(**fields)
    out = list(pieces)
    out[1::2] = [fields[name] for name in pieces[1::2]]
    return "".join(out)


@functools.lru_cache(maxsize=64)
def _pieces(template: str) -> tuple[str, ...] | None:
    """The template as text, name, text, name, ..., text (None: a placeholder ``fill`` leaves to ``format``)."""
    texts, names = [""], []
    for text, name, spec, conversion in string.Formatter().parse(template):
        texts[-1] += text
        if name is None:
            continue
        if spec or conversion or not name.isidentifier():
            return None
        names.append(name)
        texts.append("")
    out = [texts[0]]
    for name, text in zip(names, texts[1:], strict=True):
        out += [name, text]
    return tuple(out)


def _literal(text: str) -> str:
    """``text`` as a template piece that ``str.format`` gives back unchanged."""
    return text.replace("{", "{{").replace("}", "}}")


def user_prompt_slot(user_prompt: str) -> str:
    """LightRAG's slot: "n/a" when there is no extra instruction, else the text after a blank line."""
    text = (user_prompt or "").strip()
    return f"\n\n{text}" if text else "n/a"


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
            # nano and GraphRAG have no slot for it; append it so the instruction is still honoured. It is
            # the analyst's text, not template: its braces ("cite {sources}") are kept as written
            template = template + "\n## Extra instructions from the user\n" + _literal(user_prompt.strip()) + "\n"
        return fill(template, **fields)

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
