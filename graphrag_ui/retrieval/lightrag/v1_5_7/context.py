"""LightRAG 1.5.7 token control and context text: JSON lines, separators counted, references.

What changed from 1.4.7 (v1_4_7/context.py): items carry no ``id``; a list is measured as the
real rendered text ``"\\n".join(json.dumps(item))`` (separators count) and cut by 1.5.7's
``truncate_list_by_token_size`` (a token-offset cut, then whole items, then re-verified); chunks
are cut in two stages (``{"content"}`` lines, then the final ``{"reference_id", "content"}``
lines); file paths become a numbered reference list; the buffer is 200 tokens.

Counting is additive per line: o200k pre-tokenizes ``…"}`` + ``\\n`` as one piece that ends the
line, and every line starts a new piece with ``{"``, so ``tokens("\\n".join(lines[:k]))`` is the
sum of ``tokens(line + "\\n")`` over the first k-1 lines plus ``tokens(line k)``. Each line is
counted once (cached); only a cut that actually happens encodes text, and only up to the cut.
A chunk's final line is never encoded: it costs its ``{"content"}`` line (counted for the first cut)
plus what its ``"reference_id"`` field adds, which does not depend on the content
(``reference_field_tokens``) — a query meets new chunks, and their second encoding was half its time.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Callable
from functools import lru_cache
from itertools import accumulate
from typing import Any

from graphrag_ui.base import tokens

ENCODING = "o200k_base"
BUFFER_TOKENS = 200  # 1.5.7: "reserved for reference list and safety buffer"
# Tokens (o200k_base) of 1.5.7's answer templates with every slot empty, measured from the
# lightrag-hku 1.5.7 wheel: PROMPTS["rag_response"] -> 557, PROMPTS["naive_rag_response"] -> 549.
# response_type sits in " in {response_type}.\n\n" and user_prompt in ": {user_prompt}\n\n\n", so a
# filled template costs EMPTY + the two slot deltas exactly (checked against the wheel for plain,
# Chinese, padded and multi-line values).
SYS_PROMPT_TOKENS_EMPTY = {"kg": 557, "naive": 549}
UNKNOWN_SOURCE = "unknown_source"
_KG_HEAD = "\nKnowledge Graph Data (Entity):\n\n```json\n{entities}\n```\n\nKnowledge Graph Data (Relationship):\n\n```json\n{relations}\n```\n"
_CHUNKS_TAIL = (
    "\nDocument Chunks (Each entry has a reference_id refer to the `Reference Document List`; the optional "
    "`content_headings` field gives the chunk's heading path within its source document, e.g. "
    "`Section 1 → Subsection 1.2`):\n\n```json\n{chunks}\n```\n\n"
    "Reference Document List (Each entry starts with a [reference_id] that corresponds to entries in the "
    "Document Chunks):\n\n```\n{references}\n```\n\n"
)


def count(text: str) -> int:
    return tokens.count(text, ENCODING)


@lru_cache(maxsize=256)
def query_tokens(query: str) -> int:
    """``count(query)``, kept per question: a sweep's steps (and an evaluation's configs) count the same one."""
    return count(query)


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


@lru_cache(maxsize=200_000)
def line_tokens(line: str) -> tuple[int, int]:
    """(tokens of the line alone, tokens of the line followed by "\n").

    The newline joins only the line's last pre-token (its trailing run of punctuation, with one
    leading space if there is one), so the second count re-encodes just that tail.
    """
    alone = count(line)
    return alone, tokens.with_suffix(line, alone, "\n", ENCODING)


def joined_tokens(lines: list[str]) -> int:
    """Tokens of ``"\n".join(lines)`` from cached per-line counts (see module docstring)."""
    if not lines:
        return 0
    return sum(line_tokens(line)[1] for line in lines[:-1]) + line_tokens(lines[-1])[0]


class Joined:
    """``"\n".join(lines)`` seen through per-line counts: its token count for any prefix of lines, and
    the char offset of any token, encoding only the line that holds it (tokens never cross a line end)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        counts = [line_tokens(line) for line in lines]
        self.sizes = [c[1] for c in counts[:-1]] + [counts[-1][0]]  # each line with its separator
        self.alone = [c[0] for c in counts]
        self.token_start = list(accumulate(self.sizes, initial=0))
        self.char_start = list(accumulate((len(line) + 1 for line in lines), initial=0))
        self.total = self.token_start[-1]
        self.length = self.char_start[-1] - 1
        self._pieces: dict[int, tuple[str, list[int]]] = {}

    def tokens_of_lines(self, k: int) -> int:
        """Tokens of ``"\n".join(lines[:k])``."""
        return self.token_start[k - 1] + self.alone[k - 1] if k else 0

    def _piece(self, i: int) -> tuple[str, list[int]]:
        if i not in self._pieces:
            text = self.lines[i] + ("\n" if i < len(self.lines) - 1 else "")
            enc = tokens.encoding(ENCODING)
            self._pieces[i] = (text, enc.decode_with_offsets(enc.encode(text, disallowed_special=()))[1])
        return self._pieces[i]

    def boundary(self, k: int) -> int:
        """Char offset where token ``k`` starts (the text's length past the last token)."""
        if k >= self.total:
            return self.length
        i = bisect_right(self.token_start, k) - 1
        return self.char_start[i] + self._piece(i)[1][k - self.token_start[i]]

    def prefix_tokens(self, end: int) -> int:
        """Tokens of the text's first ``end`` chars, encoded on their own."""
        i = bisect_right(self.char_start, end) - 1
        local = end - self.char_start[i]
        return self.token_start[i] + (count(self._piece(i)[0][:local]) if local else 0)


def _cut_end(joined: Joined, budget: int) -> int | None:
    """End char of 1.5.7's ``TiktokenTokenizer.truncate_by_token_limit(text, budget)`` for a text over
    budget: the largest sampled token boundary whose prefix re-encodes within budget, trying
    k = budget, budget-1, budget-3, budget-7, ...; None = not even one code point fits."""
    k, step, last_end = min(joined.total, budget), 1, None
    while True:
        end = joined.boundary(k)
        if end != last_end:
            if end > 0 and joined.prefix_tokens(end) <= budget:
                return end
            last_end = end
        if k <= 1:
            break
        k = max(1, k - step)
        step *= 2
    return 1 if count(joined.lines[0][:1]) <= budget else None


def fit_lines(lines: list[str], budget: int, joined_of: Callable[[list[str]], Joined] | None = None) -> int:
    """How many leading lines 1.5.7's ``truncate_list_by_token_size(..., separator="\n")`` keeps
    (``joined_of(lines)``: their ``Joined``, which a sweep keeps with the encodings of its cuts)."""
    if budget <= 0 or not lines:
        return 0
    joined = (joined_of or Joined)(lines)
    if joined.total <= budget:
        return len(lines)
    end = _cut_end(joined, budget)
    if end is None:
        return 0
    k = bisect_right(joined.char_start, end + 1) - 1  # lines whose text (without separator) ends by `end`
    while k > 0 and joined.tokens_of_lines(k) > budget:
        k -= 1
    return k


def entity_line(name: str, etype: str, description: str) -> str:
    return dumps({"entity": name, "type": etype, "description": description})


def relation_line(a: str, b: str, description: str) -> str:
    return dumps({"entity1": a, "entity2": b, "description": description})


def references(file_paths: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """1.5.7's reference list: paths numbered by count (desc), then first appearance; and each
    chunk's reference id ("" for an unknown path)."""
    counts: dict[str, int] = {}
    for path in file_paths:
        if path and path != UNKNOWN_SOURCE:
            counts[path] = counts.get(path, 0) + 1
    first = {p: i for i, p in reversed(list(enumerate(file_paths)))}
    ordered = sorted(counts, key=lambda p: (-counts[p], first[p]))
    ids = {p: str(i + 1) for i, p in enumerate(ordered)}
    return [(ids[p], p) for p in ordered], [ids.get(p, "") for p in file_paths]


def chunk_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The chunk lines exactly as 1.5.7 renders them (reference ids from these rows only)."""
    _, ref_ids = references([row["file_path"] for row in rows])
    return [dumps({"reference_id": rid, "content": row["content"]}) for rid, row in zip(ref_ids, rows, strict=True)]


def content_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The ``{"content"}`` lines 1.5.7's first chunk cut measures."""
    return [dumps({"content": row["content"]}) for row in rows]


_CONTENT_HEAD = '{"'  # the first piece of a ``{"content": …}`` line


@lru_cache(maxsize=1024)
def reference_field_tokens(rid: str) -> int:
    """Tokens that ``{"reference_id": "<rid>", `` in front of ``"content": …}`` adds to ``{"content": …}``.

    o200k pre-tokenizes a text piece by piece (a regex), and encodes each piece alone. In both lines the
    piece before ``content`` is a punctuation run that stops at its first letter — ``{"`` in one, `` "`` in
    the other — so from ``content`` on both split into the same pieces whatever the content is; in front, the
    field's pieces (``{"``, ``reference``, ``_id``, ``":``, `` "``, the digits, ``",``, `` "``; `` "",`` for
    an empty id) are those of the field alone. So the difference is ``tokens('{"reference_id": "<rid>", "')``
    less ``tokens('{"')``. ``rid`` is what ``references`` gives: ASCII digits or "" (tests/retrieval check
    the identity on every golden chunk and on odd contents)."""
    return count('{"reference_id": ' + dumps(rid) + ', "') - count(_CONTENT_HEAD)


def chunk_line_tokens(contents: list[str], rows: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """``line_tokens`` of each of ``chunk_lines(rows)`` without rendering them: each row's ``{"content"}`` line
    (``contents``, its counts cached by the first cut) plus its reference field (``reference_field_tokens``;
    an id that is not ASCII digits, which ``references`` never gives, is rendered and counted)."""
    _, ref_ids = references([row["file_path"] for row in rows])
    out = []
    for line, rid, row in zip(contents, ref_ids, rows, strict=True):
        if rid == "" or (rid.isascii() and rid.isdigit()):
            alone, with_newline = line_tokens(line)
            extra = reference_field_tokens(rid)
            out.append((alone + extra, with_newline + extra))
        else:
            out.append(line_tokens(dumps({"reference_id": rid, "content": row["content"]})))
    return out


def chunks_joined_tokens(contents: list[str], rows: list[dict[str, Any]]) -> int:
    """``joined_tokens(chunk_lines(rows))`` from the rows' ``{"content"}`` lines (``chunk_line_tokens``)."""
    if not rows:
        return 0
    counts = chunk_line_tokens(contents, rows)
    return sum(c[1] for c in counts[:-1]) + counts[-1][0]


def fit_chunks(
    rows: list[dict[str, Any]],
    budget: int,
    contents: list[str] | None = None,
    joined_of: Callable[[list[str]], Joined] | None = None,
) -> int:
    """1.5.7's two-stage chunk cut: ``{"content"}`` lines first, then the rendered lines re-checked (counted
    from the content lines: ``chunks_joined_tokens``; ``contents``: the first stage's lines, a sweep keeps them
    per rows)."""
    if budget <= 0 or not rows:
        return 0
    contents = contents if contents is not None else content_lines(rows)
    k = fit_lines(contents, budget, joined_of)
    while k > 0 and chunks_joined_tokens(contents[:k], rows[:k]) > budget:
        k -= 1
    return k


def system_overhead(kind: str, response_type: str, user_prompt: str) -> int:
    """Tokens 1.5.7 charges for its answer template (KG: the prompt's text; naive: its "n/a" slot)."""
    rt = response_type or "Multiple Paragraphs"
    slot = user_prompt if kind == "kg" else ("\n\n" + user_prompt if user_prompt else "n/a")
    rt_cost = count(" in " + rt + ".\n\n") - count(" in .\n\n")
    up_cost = count(": " + slot + "\n\n\n") - count(": \n\n\n")
    return SYS_PROMPT_TOKENS_EMPTY[kind] + rt_cost + up_cost


def kg_head(entity_lines: list[str], relation_lines: list[str]) -> str:
    return _KG_HEAD.format(entities="\n".join(entity_lines), relations="\n".join(relation_lines))


def chunks_tail(lines: list[str], refs: list[tuple[str, str]]) -> str:
    ref_text = "\n".join(f"[{rid}] {path}" for rid, path in refs)
    return _CHUNKS_TAIL.format(chunks="\n".join(lines), references=ref_text)


_EMPTY: dict[str, int] = {}


def kg_tokens_for_budget(entity_lines: list[str], relation_lines: list[str]) -> int:
    """Tokens of the KG context with no chunks and no references (what 1.5.7 charges before chunks).

    The empty template is counted once. A filled section is "```json" "\n" + each line with its
    "\n" + "```" where the empty one has "```json" "\n\n" "```", so each non-empty section adds its
    lines' cached "line + \n" counts plus tokens("\n") minus tokens("\n\n").
    """
    if not _EMPTY:
        _EMPTY["kg"] = count(kg_head([], []) + chunks_tail([], []))
        _EMPTY["swap"] = count("\n") - count("\n\n")
    total = _EMPTY["kg"]
    for lines in (entity_lines, relation_lines):
        if lines:
            total += sum(line_tokens(line)[1] for line in lines) + _EMPTY["swap"]
    return total
