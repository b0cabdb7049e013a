"""An answer cut into sentences with their offsets, so each citation names the sentence that made it.

A sentence ends at ``. ! ?`` before a space or the line's end, at ``。！？`` (Chinese needs no space) and
at every line end. Markdown headings, rules and code fences are not claims and are left out; a piece
holding only markers (``… sluice. [Data: Entities (1)]``) belongs to the sentence before it.
"""

from __future__ import annotations

import bisect
import re

_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+|(?<=[。！？])[\"'”’」』）)]*\s*")
_SKIP_LINE = re.compile(r"^\s*(?:#{1,6}\s|```|~~~|[-*_]{3,}\s*$|\|?\s*:?-{3,})")
_LEAD = re.compile(r"^\s*(?:[-*+•·]\s+|\d{1,3}[.)]\s+|>\s*)*")
_WORDY = re.compile(r"[A-Za-z0-9\u4e00-\u9fff]")


def split(text: str, until: int | None = None, markers: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text[:until]``; ``markers`` are spans that carry no words."""
    stop = len(text) if until is None else until
    spans: list[tuple[int, int]] = []
    offset = 0
    fence = False
    for line in text[:stop].splitlines(keepends=True):
        base, offset = offset, offset + len(line)
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence or _SKIP_LINE.match(line) or not line.strip():
            continue
        lead = _LEAD.match(line)
        pos = base + (lead.end() if lead else 0)
        body_end = base + len(line.rstrip())
        for cut in _END.finditer(text, pos, body_end):
            if cut.start() > pos:
                spans.append((pos, cut.start()))
            pos = cut.end()
        if pos < body_end:
            spans.append((pos, body_end))
    return _merge_marker_only(text, spans, markers or [])


def _merge_marker_only(
    text: str, spans: list[tuple[int, int]], markers: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    marks = sorted(markers)
    out: list[tuple[int, int]] = []
    k = 0
    for start, end in spans:
        while k < len(marks) and marks[k][1] <= start:
            k += 1
        words = list(text[start:end])
        j = k
        while j < len(marks) and marks[j][0] < end:
            for i in range(max(marks[j][0], start), min(marks[j][1], end)):
                words[i - start] = " "
            j += 1
        if out and not _WORDY.search("".join(words)):
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def sentence_at(spans: list[tuple[int, int]], pos: int) -> int | None:
    """Index of the sentence holding offset ``pos`` (or the last one before it); ``spans`` are sorted."""
    at = bisect.bisect_right(spans, (pos, float("inf"))) - 1
    return at if at >= 0 else None
