"""nano-graphrag's prompts in our own wording: the answer of local and naive search, global search's map and reduce.

Like every answer prompt (``retrieval.core.answer_prompt``), each template keeps the placeholders of the nano-graphrag 0.0.8.2 prompt it
stands in for (``local_rag_response``: ``context_data`` and ``response_type``; ``naive_rag_response``:
``content_data``; ``global_map_rag_points``: ``context_data``; ``global_reduce_rag_response``:
``report_data`` and ``response_type``), and each message list has nano's shape: the filled system
prompt, then the question as the user message (nano calls ``best_model_func(query, system_prompt=…)``
for both). The JSON the map prompt asks for is the JSON nano parses (``points`` of
``description``/``score``).
"""

from __future__ import annotations

from graphrag_ui.retrieval.spec.answer_prompt import ROLE, AnswerPrompt, fill

_MAP = f"""## Role
{ROLE}

## Task
The table below holds community reports, each with its rating and its importance in the index. List
the key points in them that help answer the user's question. Use only what the reports say; when
they hold nothing that helps, give a single point saying so with score 0. Never make facts up.

## Reply format
A single JSON object and nothing else:
{{{{"points": [{{{{"description": "<one complete point>", "score": <0-100>}}}}]}}}}
"score" is an integer from 0 (no help for this question) to 100 (essential to the answer).

## Community reports
{{context_data}}
"""

_REDUCE = f"""## Role
{ROLE}

## Task
Several analysts each read part of the community reports and wrote key points for the user's
question; their points are below, the most important first. Merge them into one answer: keep what
bears on the question, drop the rest, and explain the main points and what follows from them. If the
points do not hold the answer, say so plainly; never make facts up.

## Answer length and format
{{response_type}}

## Analyst points
{{report_data}}

Reply in the format and length asked for above, organised with Markdown headings and sections where useful.
"""

_LOCAL_ANSWER = f"""## Role
{ROLE}

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

_NAIVE_ANSWER = f"""## Role
{ROLE}

## Task
Answer the user's question using the document excerpts below. If they do not hold the answer, say
so plainly; never make facts up.

## Answer length and format
{{response_type}}

## Document excerpts
{{content_data}}

Reply in the format and length asked for above, organised with Markdown headings and sections where useful.
"""

# the answer prompts of local_query and naive_query (nano's local_rag_response, naive_rag_response)
LOCAL = AnswerPrompt(_LOCAL_ANSWER, "context_data")
NAIVE = AnswerPrompt(_NAIVE_ANSWER, "content_data")


def _messages(system: str, query: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": query}]


def map_messages(context_data: str, query: str) -> list[dict[str, str]]:
    """One map call: the batch's report table in the system prompt, the question as the user turn."""
    return _messages(fill(_MAP, context_data=context_data), query)


def reduce_messages(report_data: str, query: str, response_type: str) -> list[dict[str, str]]:
    """The reduce call: the analyst points in the system prompt, the question as the user turn."""
    return _messages(fill(_REDUCE, report_data=report_data, response_type=response_type), query)
