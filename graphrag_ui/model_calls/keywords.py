"""High-level / low-level keywords for LightRAG modes: from the user, the cache, the model, or offline.

Order of precedence: keywords the user typed (either list given -> both used as given, as LightRAG
does) > a cached extraction > a model call > the offline extractor. The offline extractor needs no
model: low-level keywords are the index's entity names and aliases found in the question
(case-insensitive, Chinese included) plus its proper-noun phrases; high-level keywords are the
question's remaining content words. Importing this module is fast: litellm loads only for a model
call and jieba only for a question that contains Chinese.
"""

from __future__ import annotations

import ast
import json
import logging
import re
from typing import TYPE_CHECKING, Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.index import cache as index_cache
from graphrag_ui.model_calls.prompts import KEYWORDS_PROMPT, keywords_messages
from graphrag_ui.model_client.cache import LLMCache, args_hash, default_cache
from graphrag_ui.model_client.settings import LLMSettings
from graphrag_ui.retrieval.core.result import Keywords

if TYPE_CHECKING:
    from graphrag_ui.index.model import Index

log = logging.getLogger(__name__)

SAME_LANGUAGE = "the same language as the question"
OFFLINE_NOTICE = msg(
    "No language model is configured: keywords were extracted offline from the question and the index's entity names."
)

# ---------------------------------------------------------------- parsing a model's reply

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.S)
_HL_KEYS = ("high_level_keywords", "high_level", "hl_keywords", "hl")
_LL_KEYS = ("low_level_keywords", "low_level", "ll_keywords", "ll")


def _first_object(text: str) -> str | None:
    """The first balanced ``{...}`` in ``text`` (quotes respected), or None."""
    start = text.find("{")
    while start != -1:
        depth, quote, escaped = 0, "", False
        for i in range(start, len(text)):
            ch = text[i]
            if quote:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return text[start : i + 1]
        start = text.find("{", start + 1)
    return None


def _load_object(raw: str) -> dict[str, Any] | None:
    attempts = (
        lambda s: json.loads(s),
        lambda s: json.loads(re.sub(r",\s*([}\]])", r"\1", s)),  # trailing commas
        lambda s: ast.literal_eval(s),  # Python-style single quotes
        lambda s: json.loads(s.replace("'", '"')),
    )
    for attempt in attempts:
        try:
            value = attempt(raw)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def _normalise(value: Any) -> list[str]:
    if isinstance(value, str):
        value = re.split(r"[\n,;，；、]+", value)
    if not isinstance(value, (list, tuple)):
        return []
    out: list[str] = []
    seen: set[str] = set()
    for item in value:
        if not isinstance(item, str):
            continue
        word = item.strip().strip("\"'")
        if word and word.lower() not in seen:
            seen.add(word.lower())
            out.append(word)
    return out


def parse_keywords(text: str) -> tuple[list[str], list[str]] | None:
    """(hl, ll) from a model reply in any of the usual messy forms; None when there is no such object."""
    text = _THINK.sub("", text or "")
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        raw = _first_object(candidate)
        data = _load_object(raw) if raw else None
        if data is None:
            continue
        hl_key = next((k for k in _HL_KEYS if k in data), None)
        ll_key = next((k for k in _LL_KEYS if k in data), None)
        if hl_key is None and ll_key is None:
            continue
        return _normalise(data.get(hl_key)), _normalise(data.get(ll_key))
    return None


# ---------------------------------------------------------------- offline extraction

_UNIT = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W_\u3400-\u9fff\uf900-\ufaff]+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
MAX_NAME_UNITS = 24

_EN_STOP = set(
    """a an the and or but if then else of to in on at by for with from into onto about over under between
    among through during before after above below up down out off again further than too very so such
    is are was were be been being am do does did doing have has had having will would shall should can
    could may might must i me my we our you your he him his she her it its they them their this that
    these those what which who whom whose when where why how all any both each few more most other some
    no nor not only own same just also there here tell describe explain give show list please know
    about does did much many something anything thing things kind way ways get make made""".split()
)
_ZH_STOP = set(
    "的 了 是 在 和 与 及 或 吗 呢 吧 啊 什么 怎么 怎样 如何 哪些 哪个 哪里 谁 为什么 有 有哪些 请 一下 这个 那个 这些 那些 之间".split()
)
_ZH_DROP_FLAGS = ("x", "u", "p", "c", "r", "y", "e", "o", "w", "d", "m", "q", "uj", "ul", "uz", "ug", "uv", "ud")


def _units(text: str) -> list[tuple[str, int, int]]:
    """Lower-cased matching units with their spans: Latin/digit words, and single CJK characters."""
    return [(m.group(0).lower(), m.start(), m.end()) for m in _UNIT.finditer(text)]


class _Catalog:
    """Lower-cased unit tuples of every entity name and alias -> the name to use as a keyword."""

    def __init__(self, index: Index) -> None:
        self.lookup: dict[tuple[str, ...], str] = {}
        self.name_words: set[str] = set()  # Latin words that occur inside some name ("flood" of "Great Flood")
        self.max_len = 0
        for entity in index.entities:
            display = entity.name.strip().strip('"').strip()
            for text in (entity.name, *entity.aliases):
                key = tuple(u for u, _, _ in _units(str(text)))
                if key and len(key) <= MAX_NAME_UNITS:
                    self.lookup.setdefault(key, display)
                    self.max_len = max(self.max_len, len(key))
                self.name_words.update(u for u in key if len(u) > 3 and u.isascii() and u not in _EN_STOP)

    def find(self, text: str) -> list[tuple[int, int, str]]:
        """Non-overlapping (start, end, name) matches, longest first, returned in question order."""
        units = _units(text)
        found: list[tuple[int, int, int, str]] = []
        for i in range(len(units)):
            for n in range(min(self.max_len, len(units) - i), 0, -1):
                name = self.lookup.get(tuple(u for u, _, _ in units[i : i + n]))
                if name is not None:
                    found.append((n, units[i][1], units[i + n - 1][2], name))
                    break
        taken: list[tuple[int, int, str]] = []
        for _, start, end, name in sorted(found, key=lambda f: (-f[0], f[1])):
            if all(end <= s or start >= e for s, e, _ in taken):
                taken.append((start, end, name))
        return sorted(taken)


def catalog(index: Index) -> _Catalog:
    """The lookup for ``index``, built once per index object (``index.cache``)."""
    return index_cache.kept(index, "keywords.catalog", lambda: _Catalog(index))


def _jieba_words(text: str) -> list[tuple[str, str]]:
    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)
    return [(p.word.strip(), p.flag) for p in jieba.posseg.cut(text) if p.word.strip()]


def _chinese_words(text: str) -> tuple[list[str], list[str]]:
    """(noun phrases, other content words): runs of nouns merge ("静息"+"心率"), verbs etc. stay apart."""
    phrases: list[str] = []
    words: list[str] = []
    run: list[tuple[str, str]] = []

    def close() -> None:
        if any(f.startswith("n") or f == "eng" for _, f in run):
            phrase = "".join(
                w if not (i and w.isascii() and run[i - 1][0].isascii()) else " " + w for i, (w, _) in enumerate(run)
            )
            if len(phrase) > 1:
                phrases.append(phrase)
        else:
            words.extend(w for w, _ in run if len(w) > 1)
        run.clear()

    for word, flag in _jieba_words(text):
        if word in _ZH_STOP or word.lower() in _EN_STOP:
            close()
            continue
        if flag.startswith("n") or flag in ("eng", "vn", "b"):
            run.append((word, flag))
            continue
        close()
        if not flag.startswith(_ZH_DROP_FLAGS) and len(word) > 1:
            words.append(word)
    close()
    return phrases, words


def _latin_words(text: str) -> tuple[list[str], list[str]]:
    """(proper-noun phrases, other content words) of a non-Chinese stretch of text."""
    phrases, words, run = [], [], []
    tokens = re.findall(r"[^\W_][\w'.-]*[^\W_]|[^\W_]", text)
    for token in tokens:
        if token[0].isupper() and token.lower() not in _EN_STOP:
            run.append(token)
            continue
        if run:
            phrases.append(" ".join(run))
            run = []
        if token.lower() not in _EN_STOP and len(token) > 2 and not token.isdigit():
            words.append(token.lower())
    if run:
        phrases.append(" ".join(run))
    return phrases, words


def offline_keywords(query: str, index: Index | None = None) -> Keywords:
    """Keywords with no model: catalog matches and proper nouns (ll), remaining content words (hl)."""
    names = catalog(index) if index is not None else None
    matches = names.find(query) if names is not None else []
    ll = [name for _, _, name in matches]
    hl: list[str] = []
    # the stretches of the question not covered by a catalog match
    rest, pos = [], 0
    for start, end, _ in matches:
        rest.append(query[pos:start])
        pos = end
    rest.append(query[pos:])
    for piece in rest:
        if not piece.strip():
            continue
        if _CJK.search(piece):
            phrases, words = _chinese_words(piece)
            ll.extend(phrases)
            hl.extend(words)
        else:
            phrases, words = _latin_words(piece)
            ll.extend(phrases)
            hl.extend(words)
            if names is not None:  # a word that is part of an entity name also counts as concrete
                ll.extend(w for w in words if w in names.name_words)
    ll = _normalise(ll)
    lowered = {w.lower() for w in ll if w not in hl}
    hl = [w for w in _normalise(hl) if w.lower() not in lowered]
    return Keywords(hl=hl, ll=ll, source="offline")


# ---------------------------------------------------------------- the entry point


def _unparsable(text: str) -> str:
    """Why a keyword reply could not be used, quoting it (truncated)."""
    from graphrag_ui.model_client.replies import preview

    shown = preview(text, 80)
    if not text.strip():
        return msg("The model's keyword reply was empty")
    raw = _first_object(_THINK.sub("", text))
    if raw and _load_object(raw) is not None:
        return msg(
            "The model's keyword JSON has no high_level_keywords or low_level_keywords ({shown})", shown=repr(shown)
        )
    return msg("The model's keyword reply was not JSON ({shown})", shown=repr(shown))


def keywords_key(query: str, settings: LLMSettings, language: str) -> str:
    return args_hash(kind="keywords", query=query, language=language, model=settings.identity(), prompt=KEYWORDS_PROMPT)


def extract_keywords(
    query: str,
    *,
    index: Index | None = None,
    settings: LLMSettings | None = None,
    user_hl: list[str] | None = None,
    user_ll: list[str] | None = None,
    use_cache: bool = True,
    cache: LLMCache | None = None,
    language: str = SAME_LANGUAGE,
    warnings: list[str] | None = None,
) -> Keywords:
    """Keywords for a LightRAG query. Notices (offline use, a failed model call) go to ``warnings``."""
    notes = warnings if warnings is not None else []
    user_hl, user_ll = _normalise(user_hl or []), _normalise(user_ll or [])
    if user_hl or user_ll:
        return Keywords(hl=user_hl, ll=user_ll, source="user")
    if settings is None or not settings.configured:
        notes.append(OFFLINE_NOTICE)
        return offline_keywords(query, index)

    store = (cache or default_cache()) if use_cache else None
    key = keywords_key(query, settings, language)
    if store is not None:
        hit = store.get(key)
        if hit is not None:
            return Keywords(hl=_normalise(hit.get("hl")), ll=_normalise(hit.get("ll")), source="cache")

    from graphrag_ui.model_client import client, replies
    from graphrag_ui.model_client.errors import LLMError

    try:
        reply = client.call(keywords_messages(query, language), settings, response_format={"type": "json_object"})
    except LLMError as exc:
        notes.append(
            msg(
                "Keyword extraction by the model failed ({error}); offline keywords were used instead.",
                error=exc.message,
            )
        )
        return offline_keywords(query, index)
    parsed = parse_keywords(reply.text)
    if parsed is None:
        notes.append(
            msg("{text}; offline keywords were used instead (nothing was cached).", text=_unparsable(reply.text))
        )
        return offline_keywords(query, index)
    hl, ll = parsed
    if not hl and not ll:
        notes.append(
            msg("The model's keyword reply named no keywords ({text}).", text=repr(replies.preview(reply.text, 80)))
        )
    if store is not None and (hl or ll) and reply.finish_reason != "length":
        store.put(key, "keywords", settings.model, {"hl": hl, "ll": ll})
    return Keywords(hl=hl, ll=ll, source="llm")
