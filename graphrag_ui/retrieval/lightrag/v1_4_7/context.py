"""LightRAG 1.4.7 token control and context text: budgets, truncation, the exact context string.

1.4.7 measures every item as ``json.dumps(item, ensure_ascii=False)`` with tiktoken o200k_base and
keeps the longest prefix whose *summed* item counts fit the budget (no separators counted). An
item's JSON starts with ``{"id": N`` (its 1-based position), so its count is split into the count
of ``{"id": N`` plus the count of the rest; the rest is counted once per index and cached. The split
is exact: tiktoken encodes each pre-token separately and ``N`` is always a pre-token of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from typing import Any, NamedTuple

from graphrag_ui.base import tokens
from graphrag_ui.index import cache as index_cache
from graphrag_ui.index.lightrag_precount import (
    ENCODING,
    dumps,
    rest_text,
    stored_tokens,
)
from graphrag_ui.index.model import Index

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


@lru_cache(maxsize=256)
def query_tokens(query: str) -> int:
    """``count(query)``, kept per question: a sweep's steps (and an evaluation's configs) count the same one."""
    return count(query)


@lru_cache(maxsize=256)
def slot_tokens(value: str) -> int:
    """Extra tokens a template slot costs when filled with ``value`` (0 for "")."""
    return count(": " + value + "\n\n") - count(": \n\n")


def system_overhead(kind: str, response_type: str, user_prompt: str) -> int:
    """1.4.7's system-prompt token count for the budget (response_type falls back as 1.4.7 does)."""
    return (
        SYS_PROMPT_TOKENS_EMPTY[kind] + slot_tokens(response_type or "Multiple Paragraphs") + slot_tokens(user_prompt)
    )


class ItemPart(NamedTuple):
    """An item's JSON after its ``{"id": N`` head (``rest_text``), its tokens alone (``alone``: what the
    truncation charges besides the head) and inside the KG context's array, followed by "," (``inside``) or,
    as the last item, by "]\n" (``last``): a pure function of the item's fields, so a sweep's steps that
    print the same item at other positions share it (a named tuple: made in half the time of a frozen
    dataclass, ~10² a query)."""

    rest: str
    alone: int
    inside: int
    last: int


@dataclass
class TokenCache:
    """Per-index token counts of stored texts, keyed by the exact text counted.

    ``rest`` maps the id-less rest of an item's JSON to its count; the same rest followed by ","
    or "]\n" (the item inside the KG context's JSON array) differs only in its last pre-token, so
    those counts are derived from it (``tokens.with_suffix``) instead of encoding the item again.
    """

    rest: dict[str, int] = field(default_factory=dict)
    # (suffix, key, value, … of every field but the id: ``fields_key``) -> tokens: the tuple hashes from the
    # strings' cached hashes, so an item met before costs a dict lookup instead of rebuilding its JSON text
    by_fields: dict[tuple, int] = field(default_factory=dict)
    chunk: dict[tuple, int] = field(default_factory=dict)
    id_prefix: dict[tuple[str, int], int] = field(default_factory=dict)
    parts: dict[tuple, ItemPart] = field(default_factory=dict)  # ``fields_key(item, None)`` -> the item's part
    id_heads: tuple[list[str], list[int]] = field(default_factory=lambda: ([], []))  # ``_id_heads``


def fields_key(item: dict, head: Any) -> tuple:
    """``(head, key, value, key, value, …)`` of every field of ``item`` but its id: flat, so the collector
    stops tracking a key of strings and numbers on its first look (a tuple of (key, value) pairs stayed
    tracked: ~500 a query, which made the young collection that promotes them 3–5 ms at 10k entities)."""
    pairs = iter(item.items())
    first = next(pairs, None)
    if first is not None and first[0] == "id":
        return (head, *chain.from_iterable(pairs))
    return (head, *chain.from_iterable(pair for pair in item.items() if pair[0] != "id"))


def cache_for(index: Index) -> TokenCache:
    return index_cache.kept(index, "lightrag.v1_4_7.tokens", TokenCache)


def id_tokens(cache: TokenCache, position: int, lead: str = "") -> int:
    """Tokens of ``{"id": N`` (``lead`` = "[" or " " when the item sits inside the JSON array)."""
    key = (lead, position)
    if key not in cache.id_prefix:
        cache.id_prefix[key] = count(lead + '{"id": ' + str(position))
    return cache.id_prefix[key]


_SUFFIXES = ("", ",", "]\n")


def _rest_tokens(cache: TokenCache, item: dict, which: int, row: Any = None) -> int:
    key = fields_key(item, which)  # built ~10³ times per query
    try:
        return cache.by_fields[key]
    except KeyError:
        pass
    except TypeError:  # a field value that does not hash (a list): count from the text
        return _rest_tokens_of_text(cache, item, which, row)
    cache.by_fields[key] = counted = _rest_tokens_of_text(cache, item, which, row)
    return counted


def _rest_tokens_of_text(cache: TokenCache, item: dict, which: int, row: Any) -> int:
    rest = rest_text(item)
    alone = _alone(cache, rest, row)
    return tokens.with_suffix(rest, alone, _SUFFIXES[which], ENCODING) if which else alone


def _alone(cache: TokenCache, rest: str, row: Any) -> int:
    """Tokens of an item's ``rest`` text: kept per index, else the count ``row`` kept at import, else counted."""
    alone = cache.rest.get(rest)
    if alone is None:
        alone = stored_tokens(row, rest)
        if alone is None:
            alone = count(rest)
        cache.rest[rest] = alone
    return alone


def entity_tokens(cache: TokenCache, item: dict, row: Any = None) -> int:
    """What 1.4.7's truncation charges for one entity or relation item (``row``: the Entity or Relation
    printed, whose import-time counts are looked up first)."""
    return id_tokens(cache, item["id"]) + _rest_tokens(cache, item, 0, row)


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


def chunk_tokens(cache: TokenCache, row: dict, chunk: Any = None) -> int:
    """Tokens of a chunk row as 1.4.7 measures it (the row's keys and values, in order); ``chunk``: the
    Chunk printed, whose import-time counts are looked up first."""
    key = tuple(row.items())
    if key not in cache.chunk:
        text = dumps(row)
        stored = stored_tokens(chunk, text)
        cache.chunk[key] = count(text) if stored is None else stored
    return cache.chunk[key]


def prefix_fit(costs: list[int], budget: int) -> int:
    """How many leading items fit: 1.4.7's ``truncate_list_by_token_size`` (budget <= 0 keeps none)."""
    if budget <= 0:
        return 0
    fit = getattr(costs, "fit", None)  # costs counted when read (``graph_tail.LazyCosts``): its own loop
    if fit is not None:
        return fit(budget)
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
    return kg_context_text(dumps(entities), dumps(relations), dumps(chunks))


def kg_context_text(entities: str, relations: str, chunks: str) -> str:
    """``kg_context`` from its three JSON arrays as text (a sweep keeps them per kept items)."""
    return _KG_TEMPLATE.format(entities=entities, relations=relations, chunks=chunks)


def naive_context(chunks: list[dict]) -> str:
    return naive_context_text(dumps(chunks))


def naive_context_text(chunks: str) -> str:
    """``naive_context`` from its JSON array as text (a sweep joins it from each chunk's encoded part)."""
    return "\n---Document Chunks(DC)---\n\n```json\n" + chunks + "\n```\n\n"


_EMPTY_KG: list[int] = []


def _empty_kg() -> int:
    """Tokens of the KG template with its three arrays empty, less two empty arrays (counted once)."""
    if not _EMPTY_KG:
        _EMPTY_KG.append(count(kg_context([], [], [])) - 2 * count("[]\n"))
    return _EMPTY_KG[0]


def kg_tokens_for_budget(cache: TokenCache, entities: list[dict], relations: list[dict]) -> int:
    """Tokens of the KG context with an empty chunk list: what 1.4.7 charges before chunks.

    The empty template is counted once; each array adds its cached per-item counts.
    """
    return _empty_kg() + array_tokens(cache, entities) + array_tokens(cache, relations)


def item_part(cache: TokenCache, item: dict, row: Any = None) -> ItemPart:
    """The item's part, kept per index by its fields (a sweep's steps and the next queries print it again);
    ``row``: the Entity or Relation printed, whose import-time counts are looked up first."""
    key = fields_key(item, None)
    try:
        found = cache.parts.get(key)
    except TypeError:  # a field value that does not hash (a list): made each time
        return _part(cache, item, row)
    if found is None:
        found = cache.parts[key] = _part(cache, item, row)
    return found


def _part(cache: TokenCache, item: dict, row: Any) -> ItemPart:
    """The item's rest text made once, its count looked up once, and the two suffixed counts from it (as
    ``_rest_tokens`` gives them with suffix 0, 1 and 2)."""
    rest = rest_text(item)
    alone = _alone(cache, rest, row)
    inside, last = tokens.with_suffixes(rest, alone, _SUFFIXES[1:], ENCODING)
    return ItemPart(rest, alone, inside, last)


def array_of(cache: TokenCache, parts: list[ItemPart]) -> tuple[int, str]:
    """``array_tokens`` and ``dumps`` of the items whose parts are ``parts`` (numbered 1, 2, …): ``json.dumps``
    joins a list's items with ", ", and an item's JSON is its ``{"id": N`` head then its rest."""
    if not parts:
        return count("[]\n"), "[]"
    heads = _id_heads(cache, len(parts))[0]
    items = [head + part.rest for head, part in zip(heads, parts, strict=False)]  # heads: as many or more
    return array_total(cache, parts), "[" + ", ".join(items) + "]"


def array_total(cache: TokenCache, parts: list[ItemPart]) -> int:
    """``array_of``'s tokens alone (what a sweep's summary step reads: it prints no context)."""
    if not parts:
        return count("[]\n")
    summed = _id_heads(cache, len(parts))[1]
    return parts[-1].last - parts[-1].inside + summed[len(parts) - 1] + sum([part.inside for part in parts])


def _id_heads(cache: TokenCache, n: int) -> tuple[list[str], list[int]]:
    """The heads ``{"id": 1``, ``{"id": 2``, … of an array's first ``n`` items and the running sums of their
    tokens inside it (the first after "[", the others after ", "), kept per index and grown as needed."""
    heads, summed = cache.id_heads
    for i in range(len(heads), n):
        heads.append(f'{{"id": {i + 1}')
        summed.append((summed[-1] if summed else 0) + id_tokens(cache, i + 1, " " if i else "["))
    return heads, summed


def kg_part(
    cache: TokenCache, entities: list[ItemPart], relations: list[ItemPart], printed: bool = True
) -> tuple[int, str, str]:
    """``kg_tokens_for_budget`` and the entity and relation arrays' JSON, from the items' parts (``printed=False``:
    the tokens alone, the arrays "")."""
    if not printed:
        return _empty_kg() + array_total(cache, entities) + array_total(cache, relations), "", ""
    ent_tokens, ent_json = array_of(cache, entities)
    rel_tokens, rel_json = array_of(cache, relations)
    return _empty_kg() + ent_tokens + rel_tokens, ent_json, rel_json
