"""Prompt texts and message builders for answers and keyword extraction (our own wording).

Each template keeps the *placeholders* of the reference it stands in for, so the answer sees the same
pieces the reference would send: nano-graphrag and GraphRAG local fill ``context_data`` and
``response_type``; LightRAG's KG modes add ``user_prompt`` (its "n/a" slot when empty) and send the
conversation history as messages; naive modes call their context ``content_data``.

This module is the bottom layer: retrieval modes import it to fill ``Retrieval.messages`` and to size
their budgets (``system_prompt(..., context="")``), so it imports nothing else of the package.
"""

from __future__ import annotations

FAMILIES = ("nano", "lightrag", "ms")
DEFAULT_RESPONSE_TYPE = "Multiple Paragraphs"

# Returned instead of an answer when a mode found no context at all (no model call is made).
FAIL_RESPONSE = "I can't answer this question: the index returned no context for it.[no-context]"

_ROLE = (
    "You are an analyst answering a question from a knowledge base that was built as a graph of "
    "entities and relationships over a set of source documents."
)

_NANO_LOCAL = f"""## Role
{_ROLE}

## Task
Answer the user's question using the data tables below. Summarise what they say that bears on the
question, and bring in general knowledge only where it clearly helps. If the tables do not hold the
answer, say so plainly; never make facts up.

## Answer length and format
{{response_type}}

## Data tables
{{context_data}}

Reply in the format and length asked for above, organised with Markdown headings and sections where useful.
"""

_NANO_NAIVE = f"""## Role
{_ROLE}

## Task
Answer the user's question using the document excerpts below. If they do not hold the answer, say
so plainly; never make facts up.

## Answer length and format
{{response_type}}

## Document excerpts
{{content_data}}

Reply in the format and length asked for above, organised with Markdown headings and sections where useful.
"""

_LIGHTRAG_KG = f"""## Role
{_ROLE}

## What to do
1. Read the context: entities and relationships from the knowledge graph, and document chunks, each
   chunk carrying a reference_id that points into the reference document list.
2. Answer only from that context. If it does not contain the answer, say that you don't know; do not
   fill gaps with outside knowledge.
3. Keep track of which chunks support each statement.
4. Write in the language of the user's question, in Markdown, shaped as: {{response_type}}.
5. End with a "### References" section listing at most 5 supporting documents as "* [n] Document
   Title" (n is the reference_id), and write nothing after it.
6. Extra instructions from the user: {{user_prompt}}

## Context
{{context_data}}
"""

_LIGHTRAG_NAIVE = f"""## Role
{_ROLE}

## What to do
1. Read the context: document chunks, each carrying a reference_id that points into the reference
   document list.
2. Answer only from those chunks. If they do not contain the answer, say that you don't know; do not
   fill gaps with outside knowledge.
3. Keep track of which chunks support each statement.
4. Write in the language of the user's question, in Markdown, shaped as: {{response_type}}.
5. End with a "### References" section listing at most 5 supporting documents as "* [n] Document
   Title" (n is the reference_id), and write nothing after it.
6. Extra instructions from the user: {{user_prompt}}

## Context
{{content_data}}
"""

_MS_LOCAL = f"""## Role
{_ROLE}

## Task
Answer the user's question from the data tables below (entities, relationships, community reports,
source text units), summarising everything relevant in them. If you don't know the answer, say so;
do not invent anything. Back each important point with the records it rests on, written as
[Data: <table> (record ids)], with at most 5 ids per reference followed by "+more" when there are more.

## Target length and format
{{response_type}}

## Data tables
{{context_data}}

Write in Markdown, with sections and commentary suited to the length and format asked for above.
"""

_MS_BASIC = f"""## Role
{_ROLE}

## Task
Answer the user's question from the source text table below, summarising everything relevant in it.
If you don't know the answer, say so; do not invent anything. Back each important point with the
rows it rests on, written as [Data: Sources (record ids)], with at most 5 ids per reference followed
by "+more" when there are more.

## Target length and format
{{response_type}}

## Data tables
{{context_data}}

Write in Markdown, with sections and commentary suited to the length and format asked for above.
"""

# family -> mode -> (template, name of its context placeholder)
TEMPLATES: dict[str, dict[str, tuple[str, str]]] = {
    "nano": {"local": (_NANO_LOCAL, "context_data"), "naive": (_NANO_NAIVE, "content_data")},
    "lightrag": {
        "local": (_LIGHTRAG_KG, "context_data"),
        "global": (_LIGHTRAG_KG, "context_data"),
        "hybrid": (_LIGHTRAG_KG, "context_data"),
        "mix": (_LIGHTRAG_KG, "context_data"),
        "naive": (_LIGHTRAG_NAIVE, "content_data"),
    },
    "ms": {"local": (_MS_LOCAL, "context_data"), "basic": (_MS_BASIC, "context_data")},
}

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


def user_prompt_slot(user_prompt: str) -> str:
    """LightRAG's slot: "n/a" when there is no extra instruction, else the text after a blank line."""
    text = (user_prompt or "").strip()
    return f"\n\n{text}" if text else "n/a"


def system_prompt(
    family: str,
    mode: str,
    context: str,
    *,
    response_type: str = DEFAULT_RESPONSE_TYPE,
    user_prompt: str = "",
) -> str:
    """The filled system prompt; with ``context=""`` it is what a mode charges against its budget."""
    family, mode = split_mode(family, mode)
    try:
        template, slot = TEMPLATES[family][mode]
    except KeyError:
        known = ", ".join(f"{f}.{m}" for f, modes in TEMPLATES.items() for m in modes)
        raise ValueError(f"no answer prompt for {family}.{mode}; known: {known}") from None
    fields = {slot: context, "response_type": response_type or DEFAULT_RESPONSE_TYPE}
    if family == "lightrag":
        fields["user_prompt"] = user_prompt_slot(user_prompt)
    elif user_prompt.strip():
        # nano and GraphRAG have no slot for it; append it so the instruction is still honoured
        template = template + "\n## Extra instructions from the user\n" + user_prompt.strip() + "\n"
    return template.format(**fields)


def build_messages(
    family: str,
    mode: str,
    context: str,
    query: str,
    *,
    response_type: str = DEFAULT_RESPONSE_TYPE,
    user_prompt: str = "",
    history: list[dict] | None = None,
) -> list[dict[str, str]]:
    """``[system, *history, user]`` — the chat messages the answer call sends for this mode."""
    system = system_prompt(family, mode, context, response_type=response_type, user_prompt=user_prompt)
    turns = [{"role": str(m["role"]), "content": str(m["content"])} for m in (history or [])]
    return [{"role": "system", "content": system}, *turns, {"role": "user", "content": query}]


def keywords_messages(query: str, language: str = "English") -> list[dict[str, str]]:
    """The keyword-extraction request: one user message, no system prompt (as LightRAG sends it)."""
    return [{"role": "user", "content": KEYWORDS_PROMPT.format(query=query, language=language)}]


def is_keywords_prompt(text: str) -> bool:
    """True for a keyword-extraction request (the test server uses this to pick its reply)."""
    return '"high_level_keywords"' in text and '"low_level_keywords"' in text
