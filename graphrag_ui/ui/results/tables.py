"""Turn a ``Retrieval``'s candidate lists into tables: what went in, and what was dropped and why.

The grids show the reasons (``why``, ``dropped``) in the UI language; ``candidate_rows`` by default,
and so the CSV download, keeps them in English as the retrieval wrote them: a CSV is a
record to diff, grep and compare with the CLI's JSON, whichever language the page was in.

After a parameter change the grids also say what moved (``Marks``): a row that entered the context
since the run compared with is marked new, a row that left it is listed with the dropped ones as
"was in before" — also when the new run no longer considered it at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.core import candidates
from graphrag_ui.retrieval.core.candidates import dropped_ids, in_context
from graphrag_ui.retrieval.core.result import KINDS, Candidate, Retrieval
from graphrag_ui.ui.shell.language import language_read_once, translate

# columns of the row data worth showing per kind, when present
_DATA_COLUMNS = {
    "entities": ["type", "description"],
    "relations": ["source", "target", "description", "keywords", "weight"],
    "communities": ["level", "title", "rating"],
    "chunks": ["document", "doc_id", "text"],
}
DATA_FIELDS = {name for names in _DATA_COLUMNS.values() for name in names}  # the row fields the grids may show
_PREVIEW = 300
ENTERED = msg("▲ new")
LEFT = msg("▼ was in before")
NOT_CONSIDERED = msg("not considered in this run (it was in the context of the run compared with)")


@dataclass
class Marks:
    """What moved since the run compared with, per kind: ids that entered, and the candidates that left."""

    entered: dict[str, set[str]] = field(default_factory=dict)
    left: dict[str, list[Candidate]] = field(default_factory=dict)  # as they were in the earlier run

    @classmethod
    def between(cls, before: Retrieval, after: Retrieval) -> Marks:
        marks = cls()
        for kind in KINDS:
            old = {c.id: c for c in in_context(before.candidates(kind))}  # a lazy tail stays unmade
            new = set(after.selected_ids(kind))
            marks.entered[kind] = new - old.keys()
            marks.left[kind] = [c for cid, c in old.items() if cid not in new]
        return marks


def _cell(value: object) -> object:
    """Table cells are plain text or numbers; long texts are shortened for the grid."""
    if isinstance(value, (int, float)) or value is None:
        return value
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= _PREVIEW else text[:_PREVIEW] + "…"


def _document(data: dict, titles: Callable[[str], str] | None) -> str:
    """A chunk's document by its name: the index's document title, else the file path the row carries."""
    doc_id = str(data.get("doc_id") or "")
    title = titles(doc_id) if titles and doc_id else ""
    return title or str(data.get("file_path") or "") or doc_id


@language_read_once
def candidate_rows(
    kind: str,
    items: list[Candidate],
    *,
    change: dict[str, str] | None = None,
    titles: Callable[[str], str] | None = None,
    translated: bool = False,
) -> pd.DataFrame:
    """One row per candidate, its reasons in the UI language when ``translated`` (translated here: a data
    frame keeps text, not messages), else as written; ``change`` maps a candidate id to its mark;
    ``titles`` names a chunk's document."""
    say = translate if translated else (lambda text: text)
    columns = ["order", "id", "label", "score", "rank", "tokens", "why"]
    extra = _DATA_COLUMNS.get(kind, [])
    rows = []
    for c in items:
        row = {
            "order": c.order,
            "id": c.id,
            "label": c.label,
            "score": None if c.score is None else round(float(c.score), 4),
            "rank": c.rank,
            "tokens": c.tokens,
            "why": say(c.why),
        }
        if change is not None:
            row = {"change": say(change[c.id]) if c.id in change else "", **row}
        for name in extra:
            if name == "document":
                if "doc_id" in c.data or "file_path" in c.data:
                    row["document"] = _document(c.data, titles)
            elif name in c.data:
                row[name] = _cell(c.data[name])
        if not c.in_context:
            row["dropped"] = say(c.dropped)
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=(["change"] if change is not None else []) + columns)
    return frame


def _change(kind: str, marks: Marks | None) -> dict[str, str] | None:
    """Candidate id -> its mark (new, was in before) against the run compared with; None: no comparison."""
    if marks is None:
        return None
    change = {cid: ENTERED for cid in marks.entered.get(kind, ())}
    change.update({c.id: LEFT for c in marks.left.get(kind, [])})
    return change


def kept_rows(
    result: Retrieval, kind: str, marks: Marks | None = None, titles: Callable[[str], str] | None = None
) -> pd.DataFrame:
    """The in-context rows in context order, those that entered since the run compared with marked new."""
    kept_items = in_context(result.candidates(kind))
    return candidate_rows(kind, kept_items, change=_change(kind, marks), titles=titles, translated=True)


def dropped_rows(
    result: Retrieval,
    kind: str,
    marks: Marks | None = None,
    titles: Callable[[str], str] | None = None,
    dropped_shown: int | None = None,
) -> tuple[pd.DataFrame, int]:
    """(the first ``dropped_shown`` dropped rows (None: all) with their reason, how many were dropped): the
    grid builds only the rows it shows (nano.local at 100k entities drops ~10⁵ relations).

    With ``marks``, every candidate that left the context leads, marked "was in before" (a candidate the new
    run did not consider at all is shown as the earlier run had it, with ``NOT_CONSIDERED`` as its reason)."""
    items = result.candidates(kind)
    change = _change(kind, marks)
    dropped_items = candidates.dropped_rows(items)  # a lazy section's rows are made for the ones shown only
    order: Sequence[int] = range(len(dropped_items))
    gone: list[Candidate] = []
    if marks is not None:
        left = marks.left.get(kind, [])
        ids = dropped_ids(items)
        moved = [i for i, cid in enumerate(ids) if cid in change]  # what left (or never entered) leads
        present = {ids[i] for i in moved} | {c.id for c in in_context(items)}  # a left row still here is dropped
        gone = [replace(c, in_context=False, dropped=NOT_CONSIDERED) for c in left if c.id not in present]
        if moved:
            order = moved + [i for i, cid in enumerate(ids) if cid not in change]
    n_dropped = len(order) + len(gone)
    first = n_dropped if dropped_shown is None else min(dropped_shown, n_dropped)
    shown = [dropped_items[i] for i in order[:first]] + gone[: max(first - len(order), 0)]
    return candidate_rows(kind, shown, change=change, titles=titles, translated=True), n_dropped


def dropped_count(
    result: Retrieval, kind: str, marks: Marks | None = None, dropped: int | None = None
) -> tuple[int, int]:
    """(how many rows ``dropped_rows`` lists, how many of them were in the context of the run compared with),
    without building a row: the closed list's label. ``dropped``: the result's own dropped count, when known."""
    items = result.candidates(kind)
    if dropped is None:
        dropped = len(items) - len(in_context(items))  # a lazy section's dropped tail is counted, not made
    left = marks.left.get(kind, []) if marks is not None else []
    if not left:
        return dropped, 0
    considered = set(candidates.ids(items))
    return dropped + sum(1 for c in left if c.id not in considered), len(left)


def counts(result: Retrieval) -> dict[str, tuple[int, int]]:
    """kind -> (in context, dropped)."""
    out = {}
    for kind in KINDS:
        items = result.candidates(kind)
        kept = len(in_context(items))  # a lazy section's dropped tail is counted, not made
        out[kind] = (kept, len(items) - kept)
    return out


def trace_frame(result: Retrieval, steps: dict[str, str] | None = None) -> pd.DataFrame:
    """One row per step; ``steps`` names the steps (``labels.TRACE_STEPS``) and the details are translated
    where a mode wrote them as messages."""
    names = steps or {}
    rows = [
        {
            "step": translate(names.get(s.name, s.name)),
            "detail": translate(s.detail),
            "in": s.n_in,
            "out": s.n_out,
            "ms": round(s.ms, 2),
        }
        for s in result.trace
    ]
    return pd.DataFrame(rows, columns=["step", "detail", "in", "out", "ms"])
