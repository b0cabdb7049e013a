"""Support without markers: each sentence's best-supporting context items by overlap of normalised words.

nano-graphrag's prompts ask for no citations, and models skip them in other modes too; for such a
sentence this offline estimate scores every context item by the share of the sentence's words (each
weighted by how rare it is across the context, an IDF) that the item holds. English words are
lower-cased, stop words dropped and a plural ``s`` cut; Chinese is cut into words by jieba (single
characters and function words dropped); of equal scores the smaller item comes first. It is an estimate and is always labelled so — never mixed with
what the answer cites.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from functools import lru_cache

from graphrag_ui.citations.model import Estimate, Item

MIN_SCORE = 0.35  # below this share of the sentence's weighted words an item is no support
TOP = 3  # items kept per sentence
MAX_TEXT = 20_000  # characters of one item or sentence read (a reply and a context row are bounded)

_STOP = frozenset(
    """a an the and or but if then than of to in on at by for with from as into onto over under about after
    before between during through is are was were be been being has have had do does did not no nor so such
    that this these those it its it's he she they them his her their there here which who whom whose what when
    where why how i you we us our your my me all any both each few more most other some own same too very can
    will would should could may might must shall also only just even still yet again further once one two
    according context retrieved question answer data table tables report reports entity entities relevant
    relevance relationship relationships information mentioned described provided based""".split()
)
_CN_STOP = frozenset(
    "的 了 是 在 和 与 及 或 也 都 就 而 并 被 把 对 从 向 为 以 于 之 其 这 那 一个 我们 你们 他们 她们 它们 以及 因此 但是 所以 并且 因为 如果 这个 那个 没有 根据 问题 回答 上下文".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*|\d+(?:[.,]\d+)*|[\u4e00-\u9fff]+")


@lru_cache(maxsize=1)
def _jieba():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


def words(text: str) -> list[str]:
    """Normalised words of ``text`` (English and Chinese)."""
    return list(_words(text[:MAX_TEXT]))


@lru_cache(maxsize=8192)  # context items recur from question to question; jieba is the slow part
def _words(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for token in _WORD.findall(text):
        if "\u4e00" <= token[0] <= "\u9fff":
            out.extend(w for w in _jieba().lcut(token) if len(w) > 1 and w not in _CN_STOP)
            continue
        word = token.lower().replace("’", "'").removesuffix("'s").strip("'-")
        if word in _STOP or len(word) < 2:
            continue
        if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word.replace(",", ""))
    return tuple(out)


class Overlap:
    """Scores sentences against a fixed set of items (their words are read once)."""

    def __init__(self, texts: dict[Item, str]) -> None:
        self.items = {item: set(words(text)) for item, text in texts.items()}
        df = Counter(w for ws in self.items.values() for w in ws)
        n = max(1, len(self.items))
        self.idf = {w: math.log(1 + n / (1 + c)) for w, c in df.items()}
        self.unseen = math.log(1 + n)  # a word no item holds weighs as the rarest
        # a word in more than a quarter of the items cannot single one out: an item must share a rarer one
        self.specific = {w for w, c in df.items() if c <= max(2, n // 4)}

    def best(self, sentence: str, top: int = TOP, min_score: float = MIN_SCORE) -> list[Estimate]:
        ws = set(words(sentence))
        if not ws:
            return []
        weight = {w: self.idf.get(w, self.unseen) for w in ws}
        total = sum(weight.values())
        scored = []
        for item, item_words in self.items.items():
            shared = ws & item_words
            if shared & self.specific:
                score = sum(weight[w] for w in shared) / total
                if score >= min_score:
                    scored.append((-round(score, 3), len(item_words), item))
        scored.sort(key=lambda s: (s[0], s[1], s[2].kind, s[2].item_id))  # ties: the smaller, more specific item
        return [Estimate(item.kind, item.item_id, -score) for score, _n, item in scored[:top]]
