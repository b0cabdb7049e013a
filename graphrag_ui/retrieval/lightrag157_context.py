"""LightRAG 1.5.7 token control and context text: JSON lines, separators counted, references.

What changed from 1.4.7 (lightrag_context.py): items carry no ``id``; a list is measured as the
real rendered text ``"\\n".join(json.dumps(item))`` (separators count) and cut by 1.5.7's
``truncate_list_by_token_size`` (a token-offset cut, then whole items, then re-verified); chunks
are cut in two stages (``{"content"}`` lines, then the final ``{"reference_id", "content"}``
lines); file paths become a numbered reference list; the buffer is 200 tokens.

Counting is additive per line: o200k pre-tokenizes ``…"}`` + ``\\n`` as one piece that ends the
line, and every line starts a new piece with ``{"``, so ``tokens("\\n".join(lines[:k]))`` is the
sum of ``tokens(line + "\\n")`` over the first k-1 lines plus ``tokens(line k)``. Each line is
counted once (cached); only a cut that actually happens encodes text, and only up to the cut.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from graphrag_ui import tokens

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


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


@lru_cache(maxsize=200_000)
def line_tokens(line: str) -> tuple[int, int]:
    """(tokens of the line alone, tokens of the line followed by "\\n")."""
    return count(line), count(line + "\n")


def joined_tokens(lines: list[str]) -> int:
    """Tokens of ``"\\n".join(lines)`` from cached per-line counts (see module docstring)."""
    if not lines:
        return 0
    return sum(line_tokens(line)[1] for line in lines[:-1]) + line_tokens(lines[-1])[0]


def _cut_end(text: str, budget: int) -> int | None:
    """End char of 1.5.7's ``TiktokenTokenizer.truncate_by_token_limit(text, budget)``; None = not even
    one code point fits (1.5.7 then keeps nothing)."""
    enc = tokens.encoding(ENCODING)
    toks = enc.encode(text, disallowed_special=())
    if len(toks) <= budget:
        return len(text)
    _, offsets = enc.decode_with_offsets(toks)

    def boundary(k: int) -> int:
        return offsets[k] if k < len(toks) else len(text)

    k, step, last_end = min(len(toks), budget), 1, None
    while True:
        end = boundary(k)
        if end != last_end:
            if end > 0 and count(text[:end]) <= budget:
                return end
            last_end = end
        if k <= 1:
            break
        k = max(1, k - step)
        step *= 2
    return 1 if count(text[:1]) <= budget else None


def fit_lines(lines: list[str], budget: int) -> int:
    """How many leading lines 1.5.7's ``truncate_list_by_token_size(..., separator="\\n")`` keeps."""
    if budget <= 0 or not lines:
        return 0
    if joined_tokens(lines) <= budget:
        return len(lines)
    # only the text up to one line past the first prefix over budget decides the cut: its tokens
    # (and offsets) equal the full text's there, by the additivity above
    m, running = 0, 0
    while m < len(lines) and running <= budget:
        running += line_tokens(lines[m])[1]
        m += 1
    m = min(len(lines), m + 1)
    end = _cut_end("\n".join(lines[:m]), budget)
    if end is None:
        return 0
    k, chars = 0, 0
    for i, line in enumerate(lines[:m]):
        chars += (1 if i else 0) + len(line)
        if chars > end:
            break
        k = i + 1
    while k > 0 and joined_tokens(lines[:k]) > budget:
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


def fit_chunks(rows: list[dict[str, Any]], budget: int) -> int:
    """1.5.7's two-stage chunk cut: ``{"content"}`` lines first, then the rendered lines re-checked."""
    if budget <= 0 or not rows:
        return 0
    k = fit_lines([dumps({"content": row["content"]}) for row in rows], budget)
    while k > 0 and joined_tokens(chunk_lines(rows[:k])) > budget:
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


def kg_context(entity_lines: list[str], relation_lines: list[str], chunk_rows: list[dict], refs) -> str:
    return kg_head(entity_lines, relation_lines) + chunks_tail(chunk_lines(chunk_rows), refs)


def naive_context(chunk_rows: list[dict], refs) -> str:
    return chunks_tail(chunk_lines(chunk_rows), refs)
