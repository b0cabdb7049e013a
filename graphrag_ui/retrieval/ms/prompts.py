"""GraphRAG's prompts in our own wording: the answer of local and basic search, and the multi-call
searches' (global map, reduce, relevance rating; DRIFT's expansion, primer, local and reduce).

Like every answer prompt (``retrieval.core.answer_prompt``), each template keeps the placeholders of the GraphRAG prompt it stands in
for, and each message list has GraphRAG's shape (the filled system prompt, then the question as the
user message), so the model sees the same pieces in the same places: the answer prompts get
``context_data`` and ``response_type``, the map prompt gets
``context_data`` and ``max_length``, the reduce prompt ``report_data``, ``response_type`` and
``max_length``, the rating prompt ``description`` and ``question``. The JSON the map and rating prompts
ask for is the JSON GraphRAG parses (``points`` of ``description``/``score``; ``reason``/``rating``).
"""

from __future__ import annotations

from graphrag_ui.retrieval.spec.answer_prompt import ROLE, AnswerPrompt

_LOCAL_ANSWER = f"""## Role
{ROLE}

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

_BASIC_ANSWER = f"""## Role
{ROLE}

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

# the answer prompts of local search and basic search (GraphRAG's LOCAL_SEARCH_SYSTEM_PROMPT, BASIC_SEARCH_SYSTEM_PROMPT)
LOCAL = AnswerPrompt(_LOCAL_ANSWER, "context_data")
BASIC = AnswerPrompt(_BASIC_ANSWER, "context_data")

_MAP = """## Role
You are an analyst reading a batch of community reports from a knowledge graph to help answer a
question.

## Task
List the key points the data tables below hold for the user's question. Give each point a
description (a full answer to part of the question, supported by the reports, citing them as
[Data: Reports (report ids)] with at most 5 ids per reference and "+more" when there are more) and
an importance score from 0 to 100 (0: the point does not help answer the question). If the tables
hold nothing relevant, return a single point with score 0. Never invent facts. Keep all points
together within {max_length} words.

## Reply format
Reply with one JSON object and nothing else:
{{"points": [{{"description": "<point, with its data references>", "score": <integer 0-100>}}]}}

## Data tables
{context_data}
"""

_REDUCE = """## Role
You are an analyst who writes the final answer from the key points other analysts drew from the
community reports of a knowledge graph.

## Task
Merge the analysts' reports below into one answer to the user's question. They are listed by
importance, most important first. Drop what does not bear on the question, keep the data references
the points carry ([Data: Reports (ids)], at most 5 ids per reference, "+more" when there are more)
and never invent anything. If the reports do not answer the question, say so. Stay within
{max_length} words.

## Target length and format
{response_type}

## Analyst reports
{report_data}

Write in Markdown, with sections and commentary suited to the length and format asked for above.
"""

_RATE = """## Role
You decide whether a piece of information helps answer a question, even in part.

## Information
{description}

## Question
{question}

## Task
Rate how relevant the information is to the question, from 0 (not at all) to 5 (directly answers
it). Reply with one JSON object and nothing else:
{{"reason": "<what you considered>", "rating": <integer 0-5>}}
"""

# GraphRAG's canned answer when no map point scored above 0 (it makes no reduce call then).
NO_DATA_ANSWER = "I can't answer this question: no community report held anything relevant to it.[no-data]"


def _messages(system: str, query: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": query}]


def map_messages(context_data: str, query: str, max_length: int) -> list[dict[str, str]]:
    """One map call: the batch's report table in the system prompt, the question as the user turn."""
    return _messages(_MAP.format(context_data=context_data, max_length=max_length), query)


def reduce_messages(report_data: str, query: str, response_type: str, max_length: int) -> list[dict[str, str]]:
    """The reduce call: the ranked analyst points in the system prompt, the question as the user turn."""
    system = _REDUCE.format(report_data=report_data, response_type=response_type, max_length=max_length)
    return _messages(system, query)


def rate_messages(description: str, query: str) -> list[dict[str, str]]:
    """One relevance rating of a community report (dynamic community selection)."""
    return _messages(_RATE.format(description=description, question=query), query)


# --- DRIFT search (GraphRAG ``drift_search/primer.py``): both calls send ONE user message, as GraphRAG
# sends its prompt string as the whole request; the pieces GraphRAG fills in (the question, the template
# report's full_content, the fold's reports joined by blank lines) are placed whole and unchanged.

_HYDE = """## Task
Write a hypothetical answer to this question: {query}

Shape the answer like the template report below: the same sections, the same kind of headings and the
same length. Do not name any entity that the question does not already name.

## Template report
{template}
"""

_PRIMER = """## Role
You are an analyst reasoning over a knowledge graph whose edges are free-text descriptions. You start
from summaries of the communities most relevant to a question.

## Question
{query}

## Top-ranked community summaries
{community_reports}

## Task
Reply with one JSON object and nothing else, with these keys:
- "intermediate_answer": a markdown answer from these summaries, as detailed as they are, starting with
  a heading that says how it relates to the question;
- "score": an integer from 0 (poor, unfocused) to 100 (answers the whole question);
- "follow_up_queries": a list of at least five follow-up questions (one subject each, no compound
  questions) that would refine the answer.
"""


def hyde_messages(query: str, template: str) -> list[dict[str, str]]:
    """DRIFT's query expansion (HyDE): a hypothetical answer shaped like one report (``expand_query``)."""
    return [{"role": "user", "content": _HYDE.format(query=query, template=template)}]


def primer_messages(query: str, community_reports: str) -> list[dict[str, str]]:
    """One DRIFT primer call over a fold of top-ranked reports (``DRIFTPrimer.decompose_query``)."""
    return [{"role": "user", "content": _PRIMER.format(query=query, community_reports=community_reports)}]


_DRIFT_LOCAL = """## Role
You answer questions about the data tables below, which come from a knowledge graph.

## Data tables
{context_data}

## Task
Answer the user's question from these tables, in this shape: {response_type}. Cite the records you use
as [Data: <table> (record ids)], at most 5 ids per reference and "+more" when there are more. If the
tables do not hold the answer, say so; never invent facts.

Then rate from 0 to 100 how well your answer serves the overall research question: {global_query}
and suggest up to {followups} follow-up questions that would explore it further.

## Reply format
Reply with one JSON object and nothing else (the score and follow-ups only in their own keys):
{{"response": "<your markdown answer, not an answer to the overall question>", "score": <integer 0-100>,
"follow_up_queries": ["<question>", ...]}}
"""

_DRIFT_REDUCE = """## Role
You combine the answers gathered while exploring a knowledge graph into one answer.

## Gathered answers
{context_data}

## Task
Answer the user's question from these answers, in this shape: {response_type}. Be specific and keep
their data references ([Data: ...], at most 5 ids per reference, "+more" beyond). Mark anything that
rests on general knowledge rather than the answers. If they do not hold the answer, say so.
"""


def drift_local_messages(
    context_data: str, query: str, global_query: str, followups: int, response_type: str
) -> list[dict[str, str]]:
    """One DRIFT local-search step (``LocalSearch.search`` with ``drift_query``): the step's local context,
    the user's question and the follow-up count in the system prompt, the step's question as the user turn."""
    system = _DRIFT_LOCAL.format(
        context_data=context_data, response_type=response_type, global_query=global_query, followups=followups
    )
    return _messages(system, query)


def drift_reduce_messages(context_data: str, query: str, response_type: str) -> list[dict[str, str]]:
    """DRIFT's reduce (``DRIFTSearch._reduce_response``): the answers list in the system prompt."""
    return _messages(_DRIFT_REDUCE.format(context_data=context_data, response_type=response_type), query)
