"""LightRAG 1.4.7 token control and context text: budgets, truncation, the exact context string.

1.4.7 measures every item as ``json.dumps(item, ensure_ascii=False)`` with tiktoken o200k_base and
keeps the longest prefix whose *summed* item counts fit the budget (no separators counted). An
item's JSON starts with ``{"id": N`` (its 1-based position), so its count is split into the count
of ``{"id": N`` plus the count of the rest; the rest is counted once per index and cached. The split
is exact: tiktoken encodes each pre-token separately and ``N`` is always a pre-token of its own.
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui import tokens
from graphrag_ui.index.model import Index

ENCODING = "o200k_base"  # LightRAG's TiktokenTokenizer("gpt-4o-mini")
BUFFER_TOKENS = 100  # 1.4.7's fixed safety buffer in the chunk budget
# Tokens (o200k_base) of 1.4.7's answer templates with every slot empty (history, context,
# response_type, user_prompt), measured from the lightrag-hku 1.4.7 wheel:
#   PROMPTS["rag_response"] -> 345, PROMPTS["naive_rag_response"] -> 285.
# Both templates put response_type and user_prompt after ": " and before a blank line, so a filled
# template costs EMPTY + slot(response_type) + slot(user_prompt) exactly (see ``slot_tokens``); with
# the defaults ("Multiple Paragraphs", no user prompt) that is 348 and 288.
SYS_PROMPT_TOKENS_EMPTY = {"kg": 345, "naive": 285}
FAIL_RESPONSE_147 = "Sorry, I'm not able to provide an answer to that question.[no-context]"


def count(text: str) -> int:
    return tokens.count(text, ENCODING)


def slot_tokens(value: str) -> int:
    """Extra tokens a template slot costs when filled with ``value`` (0 for "")."""
    return count(": " + value + "\n\n") - count(": \n\n")


def system_overhead(kind: str, response_type: str, user_prompt: str) -> int:
    """1.4.7's system-prompt token count for the budget (response_type falls back as 1.4.7 does)."""
    return (
        SYS_PROMPT_TOKENS_EMPTY[kind] + slot_tokens(response_type or "Multiple Paragraphs") + slot_tokens(user_prompt)
    )


@dataclass
class TokenCache:
    """Per-index token counts of stored texts (the id-less rest of each item's JSON).

    ``rest`` maps an item key to [rest, rest + ",", rest + "]\n"] counts (-1 = not counted yet):
    the first is what truncation charges, the other two are the item inside the KG context's JSON
    array (followed by the next item, or closing the array).
    """

    rest: dict[tuple, list[int]] = field(default_factory=dict)
    chunk: dict[tuple, int] = field(default_factory=dict)
    id_prefix: dict[tuple[str, int], int] = field(default_factory=dict)


_CACHES: dict[int, tuple[weakref.ref, TokenCache]] = {}


def cache_for(index: Index) -> TokenCache:
    held = _CACHES.get(id(index))
    if held is not None and held[0]() is index:
        return held[1]
    cache = TokenCache()
    _CACHES[id(index)] = (weakref.ref(index), cache)
    return cache


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _rest(item: dict) -> str:
    """JSON of ``item`` after its ``{"id": N`` head (the head is counted separately)."""
    text = _dumps(item)
    return text[text.index(",") :]


def id_tokens(cache: TokenCache, position: int, lead: str = "") -> int:
    """Tokens of ``{"id": N`` (``lead`` = "[" or " " when the item sits inside the JSON array)."""
    key = (lead, position)
    if key not in cache.id_prefix:
        cache.id_prefix[key] = count(lead + '{"id": ' + str(position))
    return cache.id_prefix[key]


def entity_item(position: int, name: str, etype: str, description: str) -> dict:
    return {"id": position, "entity": name, "type": etype, "description": description}


def relation_item(position: int, a: str, b: str, description: str) -> dict:
    return {"id": position, "entity1": a, "entity2": b, "description": description}


def _item_key(item: dict) -> tuple:
    return tuple((k, v) for k, v in item.items() if k != "id")


_SUFFIXES = ("", ",", "]\n")


def _rest_tokens(cache: TokenCache, item: dict, which: int) -> int:
    counts = cache.rest.setdefault(_item_key(item), [-1, -1, -1])
    if counts[which] < 0:
        counts[which] = count(_rest(item) + _SUFFIXES[which])
    return counts[which]


def entity_tokens(cache: TokenCache, item: dict) -> int:
    """What 1.4.7's truncation charges for one entity or relation item."""
    return id_tokens(cache, item["id"]) + _rest_tokens(cache, item, 0)


relation_tokens = entity_tokens


def array_tokens(cache: TokenCache, items: list[dict]) -> int:
    """Tokens of ``json.dumps(items)`` followed by a newline, from cached per-item counts.

    Exact because every cut falls on a pre-token boundary: ``[{"id": 1`` | ``, "entity": …"},`` |
    `` {"id": 2`` | … | ``…"}]\n`` (the closing bracket and the newline join the last item's tail).
    """
    if not items:
        return count("[]\n")
    total = 0
    for i, item in enumerate(items):
        total += id_tokens(cache, item["id"], "[" if i == 0 else " ")
        total += _rest_tokens(cache, item, 2 if i == len(items) - 1 else 1)
    return total


def chunk_tokens(cache: TokenCache, row: dict) -> int:
    """Tokens of a chunk row as 1.4.7 measures it (the row's keys and values, in order)."""
    key = tuple(row.items())
    if key not in cache.chunk:
        cache.chunk[key] = count(_dumps(row))
    return cache.chunk[key]


def prefix_fit(costs: list[int], budget: int) -> int:
    """How many leading items fit: 1.4.7's ``truncate_list_by_token_size`` (budget <= 0 keeps none)."""
    if budget <= 0:
        return 0
    total = 0
    for i, cost in enumerate(costs):
        total += cost
        if total > budget:
            return i
    return len(costs)


_KG_TEMPLATE = (
    "-----Entities(KG)-----\n\n```json\n{entities}\n```\n\n"
    "-----Relationships(KG)-----\n\n```json\n{relations}\n```\n\n"
    "-----Document Chunks(DC)-----\n\n```json\n{chunks}\n```\n\n"
)


def kg_context(entities: list[dict], relations: list[dict], chunks: list[dict]) -> str:
    """1.4.7's KG context: three JSON arrays on one line each under ``-----X(KG)-----`` headers."""
    return _KG_TEMPLATE.format(entities=_dumps(entities), relations=_dumps(relations), chunks=_dumps(chunks))


def naive_context(chunks: list[dict]) -> str:
    return "\n---Document Chunks(DC)---\n\n```json\n" + _dumps(chunks) + "\n```\n\n"


_EMPTY_KG: list[int] = []


def kg_tokens_for_budget(cache: TokenCache, entities: list[dict], relations: list[dict]) -> int:
    """Tokens of the KG context with an empty chunk list: what 1.4.7 charges before chunks.

    The empty template is counted once; each array adds its cached per-item counts.
    """
    if not _EMPTY_KG:
        _EMPTY_KG.append(count(kg_context([], [], [])) - 2 * count("[]\n"))
    return _EMPTY_KG[0] + array_tokens(cache, entities) + array_tokens(cache, relations)
