"""Offline extractor: entities and relations with no LLM, for users who have none.

English: runs of capitalised words (with connectors such as "of"), acronyms, and repeated abstract
nouns; a word that is capitalised only because it opens a sentence is dropped unless the corpus
also capitalises it mid-sentence. Chinese: ``jieba.posseg`` tags nr (person), ns (place), nt
(organisation), nz (other proper noun) and nouns repeated in the chunk. Relations link entities
mentioned in the same sentence of a chunk; descriptions are the sentences that mention them.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from graphrag_ui.index.builder import stopwords as sw
from graphrag_ui.index.builder.records import EntityRecord, Extraction, RelationRecord

_LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
_WORD = re.compile(f"[{_LATIN}][{_LATIN}0-9]*(?:['’.&-][{_LATIN}0-9]+)*")
_GAPS = (" ", "' ", "’ ")  # inside a name: a space, or a plural possessive ("Fishers' Cooperative")
_CJK = re.compile(r"[\u3400-\u9fff]")
_BOUNDARY = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+|(?<=[。！？；])|\n+")
_JIEBA_TYPES = {
    "nr": "person",
    "nrfg": "person",
    "nrt": "person",
    "ns": "location",
    "nt": "organization",
    "nz": "other",
}
MAX_PER_SENTENCE = 8  # pairs grow quadratically; beyond this a sentence is a list, not a statement
MAX_SENTENCES = 2  # sentences kept per entity and chunk as its description


@dataclass
class Mention:
    key: str
    name: str
    type: str
    start: int
    end: int


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``, blanks trimmed ("Dr." and "J." do not end one)."""
    raw: list[tuple[int, int]] = []
    pos = 0
    for match in _BOUNDARY.finditer(text):
        piece = text[pos : match.start()]
        last = piece.rsplit(None, 1)[-1].rstrip(".").lower() if piece.strip() else ""
        if piece.endswith(".") and (last in sw.ABBREVIATIONS or len(last) == 1):
            continue  # "Dr. Smith", "J. Smith": keep going
        raw.append((pos, match.start()))
        pos = match.end()
    raw.append((pos, len(text)))
    spans = []
    for start, end in raw:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            spans.append((start, end))
    return spans


def sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in sentence_spans(text)]


def _joins(left: list[re.Match]) -> bool:
    """May a connector extend this run? "Bank of", "City Council of" yes; "Elena Petrova of" no."""
    last = left[-1].group().lower()
    return len(left) == 1 or last in sw.ORG_WORDS or last in sw.PLACE_LAST or last in sw.EVENT_WORDS


def _base(word: str) -> str:
    return word[:-2] if word.endswith(("'s", "’s")) else word


class OfflineExtractor:
    """Built once per corpus (it learns which words are capitalised mid-sentence), then per chunk."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.mid_caps: set[str] = set()
        self.lowercase: set[str] = set()  # words the corpus also writes in lower case: not name-only words
        for text in texts:
            for sentence in sentences(text):
                for i, m in enumerate(_WORD.finditer(sentence)):
                    if m.group()[0].islower():
                        self.lowercase.add(_base(m.group()))
                    elif i > 0:
                        self.mid_caps.add(_base(m.group()))
        self._jieba = None

    # ---- English -------------------------------------------------------------------------
    def _english(self, sentence: str) -> list[Mention]:
        words = list(_WORD.finditer(sentence))
        long_words = [w.group() for w in words if len(w.group()) > 1]
        if len(long_words) >= 4 and sum(w.isupper() for w in long_words) >= 0.7 * len(long_words):
            return []  # an ALL-CAPS headline: every word looks like a name; its names recur in the body
        mentions: list[Mention] = []
        i = 0
        while i < len(words):
            if not words[i].group()[0].isupper():
                i += 1
                continue
            j = i + 1  # extend the run over capitalised words and inner connectors
            while j < len(words) and self._gap_ok(sentence, words[j - 1], words[j]):
                w = words[j].group()
                if w[0].isupper():
                    j += 1
                elif (
                    w in sw.CONNECTORS
                    and j + 1 < len(words)
                    and words[j + 1].group()[0].isupper()
                    and words[j + 1].group().lower() not in sw.PERSON_TITLES
                    and sentence[words[j].end() : words[j + 1].start()] == " "
                    and _joins(words[i:j])
                ):
                    j += 2
                else:
                    break
            mentions.extend(self._run(sentence, words, i, j))
            i = max(j, i + 1)
        return mentions

    @staticmethod
    def _gap_ok(sentence: str, left: re.Match, right: re.Match) -> bool:
        gap = sentence[left.end() : right.start()]
        return gap in _GAPS or (gap == ". " and left.group().lower() in sw.ABBREVIATIONS)  # "Dr. Bob Jones"

    def _run(self, sentence: str, words: list[re.Match], i: int, j: int) -> list[Mention]:
        """The mention (if any) made by capitalised words ``words[i:j]``."""
        run = [w.group() for w in words[i:j]]
        start = i
        while run and (run[0].lower() in sw.ENGLISH or run[0] in sw.CONNECTORS or run[0] in sw.ACRONYMS):
            run, start = run[1:], start + 1
        if start == 0 and run and run[0] not in self.mid_caps and not run[0].isupper():
            run, start = run[1:], start + 1  # capitalised only because it opens the sentence
        titled = len(run) > 1 and run[0].lower().rstrip(".") in sw.PERSON_TITLES
        if titled:
            run, start = run[1:], start + 1  # "Mayor Brigid O'Neill" is Brigid O'Neill, a person
        while run and (run[-1].lower() in sw.ENGLISH or run[-1] in sw.CONNECTORS):
            run = run[:-1]
        if not run:
            return []
        run[-1] = _base(run[-1])
        if len(run) == 1 and (
            len(run[0]) < 2
            or run[0].lower() in sw.ENGLISH
            or run[0] in sw.ACRONYMS
            or run[0].lower() in sw.PERSON_TITLES
        ):
            return []
        first, last = words[start], words[start + len(run) - 1]
        name = sentence[first.start() : last.start()] + run[-1]
        before = (sentence[: first.start()].split()[-1:] or [""])[0].strip(".,").lower()
        after = (sentence[last.end() :].split()[:1] or [""])[0].strip(".,").lower()
        etype = "person" if titled else self._english_type(run, before, after)
        return [Mention(name.lower(), name, etype, first.start(), first.start() + len(name))]

    def _english_type(self, run: list[str], before: str, after: str) -> str:
        lower = [w.lower().strip(".") for w in run]
        for k, word in enumerate(lower[1:], start=1):
            if word in sw.CONNECTORS:  # "Harbor District of Riverton": the head says what it is
                lower = lower[:k]
                break
        if lower[-1] in sw.ORG_WORDS or lower[0] in {"university", "bank", "ministry", "department"}:
            return "organization"
        if lower[-1] in sw.PLACE_LAST or lower[0] in sw.PLACE_FIRST:
            return "location"
        if lower[-1] in sw.EVENT_WORDS or lower[0] in sw.EVENT_WORDS:
            return "event"
        if before in sw.PERSON_TITLES or after in sw.PERSON_VERBS:
            return "person"
        if len(run) == 1 and run[0].isupper() and len(run[0]) <= 6:
            return "organization"  # acronyms: NASA, IBM
        if len(run) == 1 and before in sw.PLACE_PREPOSITIONS:
            return "location"
        if 2 <= len(run) <= 3 and all(
            w[0].isupper() and w[1:].islower() and w.lower() not in self.lowercase for w in run
        ):
            return "person"  # "Elspeth Marrin": title-case words the text never writes in lower case
        return "other"

    @staticmethod
    def _concepts(sentence: str, counts: Counter) -> list[Mention]:
        out = []
        for m in _WORD.finditer(sentence):
            word = m.group()
            if word.islower() and word.endswith(sw.NOUN_SUFFIXES) and len(word) >= 6 and counts[word] >= 2:
                out.append(Mention(word, word, "concept", m.start(), m.end()))
        return out

    # ---- Chinese -------------------------------------------------------------------------
    def _posseg(self):
        if self._jieba is None:
            import jieba
            import jieba.posseg

            jieba.setLogLevel(logging.WARNING)
            self._jieba = jieba.posseg
        return self._jieba

    def _chinese(self, text: str, spans: list[tuple[int, int]]) -> list[tuple[list[Mention], list]]:
        """Mentions and verb spans per sentence, from one jieba pass over the whole chunk."""
        pairs, pos, located = self._posseg().lcut(text), 0, []
        for pair in pairs:
            located.append((pos, pair.word, pair.flag))
            pos += len(pair.word)
        noun_counts = Counter(word for _, word, flag in located if flag == "n")
        out: list[tuple[list[Mention], list]] = [([], []) for _ in spans]
        starts = [s for s, _ in spans]
        for start, word, flag in located:
            if len(word) < 2 or word in sw.CHINESE or not _CJK.search(word):
                continue
            i = bisect_right(starts, start) - 1
            if i < 0 or start + len(word) > spans[i][1]:
                continue
            base = spans[i][0]
            etype = _JIEBA_TYPES.get(flag)
            if flag == "nr" and not (word[0] in sw.SURNAMES or word.startswith(sw.COMPOUND_SURNAMES)):
                etype = None  # "nr" without a surname is usually an ordinary word (安静, 顾问)
            if etype is None and flag == "n" and noun_counts[word] >= 2:
                etype = "concept"
            if etype:
                out[i][0].append(Mention(word, word, etype, start - base, start - base + len(word)))
            elif flag.startswith("v"):
                out[i][1].append((start - base, start - base + len(word), word))
        return out

    # ---- one chunk -----------------------------------------------------------------------
    def extract(self, text: str) -> Extraction:
        """Entity and relation records of one chunk."""
        spans = sentence_spans(text)
        word_counts = Counter(m.group() for m in _WORD.finditer(text))
        chinese = self._chinese(text, spans) if _CJK.search(text) else [([], []) for _ in spans]
        per_sentence: list[tuple[str, list[Mention], list[tuple[int, int, str]]]] = []
        for (start, end), (zh, verbs) in zip(spans, chinese, strict=True):
            sentence = text[start:end]
            mentions = self._english(sentence) + self._concepts(sentence, word_counts) + zh
            mentions.sort(key=lambda m: m.start)
            per_sentence.append((sentence, mentions, verbs))
        self._attach_short_forms(per_sentence)
        return self._records(per_sentence)

    @staticmethod
    def _attach_short_forms(per_sentence: list) -> None:
        """'Smith' or 'Alice' alone means 'Alice Smith' when only one such full name is in the chunk."""
        full = {m.key: m for _, ms, _ in per_sentence for m in ms if " " in m.name}
        parts: dict[str, set[str]] = {}
        for key, m in full.items():
            for part in (m.name.split()[0], m.name.split()[-1]):
                parts.setdefault(part.lower(), set()).add(key)
        for _, ms, _ in per_sentence:
            for m in ms:
                owners = parts.get(m.key, set()) if " " not in m.name else set()
                if len(owners) == 1:
                    owner = full[next(iter(owners))]
                    m.key, m.name, m.type = owner.key, owner.name, owner.type

    @staticmethod
    def _records(per_sentence: list) -> Extraction:
        result = Extraction()
        first: dict[str, Mention] = {}
        types: dict[str, Counter] = {}
        said: dict[str, list[str]] = {}
        mentions: Counter = Counter()
        pairs: dict[tuple[str, str], list] = {}  # (key a, key b) -> [sentences, strength, keywords]
        for sentence, ms, verbs in per_sentence:
            for m in ms:
                first.setdefault(m.key, m)
                types.setdefault(m.key, Counter())[m.type] += 1
                mentions[m.key] += 1
                if sentence not in said.setdefault(m.key, []):
                    said[m.key].append(sentence)
            distinct: list[Mention] = []
            for m in ms:
                if all(d.key != m.key for d in distinct):
                    distinct.append(m)
            distinct = distinct[:MAX_PER_SENTENCE]
            for a_i, a in enumerate(distinct):
                for b in distinct[a_i + 1 :]:
                    pair = pairs.get((a.key, b.key)) or pairs.get((b.key, a.key))
                    if pair is None:
                        pairs[(a.key, b.key)] = [[sentence], 1.0, _between(sentence, a, b, verbs)]
                        continue
                    pair[1] += 1.0
                    if sentence not in pair[0] and len(pair[0]) < MAX_SENTENCES:
                        pair[0].append(sentence)
        for key, m in first.items():
            description = _join(said[key][:MAX_SENTENCES])
            result.entities.append(EntityRecord(m.name, _best_type(types[key]), description, [], mentions[key]))
        for (a, b), (said_both, strength, words) in pairs.items():
            desc = _join(said_both)
            result.relations.append(RelationRecord(first[a].name, first[b].name, desc, ", ".join(words), strength))
        return result


def _join(parts: list[str]) -> str:
    """Sentences as one text: a space after Latin punctuation, nothing after Chinese (。！？)."""
    out = parts[0] if parts else ""
    for part in parts[1:]:
        out += part if out.endswith(("。", "！", "？", "；")) else " " + part
    return out


def _best_type(votes: Counter) -> str:
    ranked = sorted(votes.items(), key=lambda kv: (kv[0] == "other", -kv[1]))
    return ranked[0][0]


def _between(sentence: str, a: Mention, b: Mention, verbs: list[tuple[int, int, str]]) -> list[str]:
    """Up to three content words between two mentions: the relation's keywords."""
    lo, hi = (a.end, b.start) if a.start <= b.start else (b.end, a.start)
    zh = [w for s, e, w in verbs if s >= lo and e <= hi]
    en = [
        m.group()
        for m in _WORD.finditer(sentence, lo, max(lo, hi))
        if m.group().islower() and m.group() not in sw.ENGLISH and len(m.group()) >= 3
    ]
    seen: list[str] = []
    for w in zh + en:
        if w not in seen:
            seen.append(w)
    return seen[:3]
