"""LightRAG's answer prompts (``rag_response``, ``naive_rag_response``) in our own wording.

Each keeps the placeholders of the lightrag-hku prompt it stands in for (``context_data`` or
``content_data``, ``response_type``, ``user_prompt``) and asks for LightRAG's references list, so the
answer cites as LightRAG's does; ``retrieve`` fills the one of the mode that ran (after seed 001's
fall back to naive).
"""

from __future__ import annotations

from graphrag_ui.retrieval.spec.answer_prompt import ROLE, AnswerPrompt

_KG_ANSWER = f"""## Role
{ROLE}

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

_NAIVE_ANSWER = f"""## Role
{ROLE}

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

KG = AnswerPrompt(_KG_ANSWER, "context_data")
NAIVE = AnswerPrompt(_NAIVE_ANSWER, "content_data")
# LightRAG's mode -> its answer prompt (bypass sends the bare question: none)
ANSWER = {"local": KG, "global": KG, "hybrid": KG, "mix": KG, "naive": NAIVE}
