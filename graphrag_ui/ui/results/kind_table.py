"""One kind's tables (entities, relations, communities or chunks): what went in, what was dropped, why.

Readable at 1280×800 without scrolling sideways: the grid holds what, why (and why dropped), the
numbers and, for kept rows, one short field of the kind (type, document, weight, level, rating) in fixed widths that add up to the results'
width, and shows 12 rows; long texts (description, chunk text, keywords) and fields the label repeats
(source, target, title) are read by selecting a row, which shows it whole below the table (a grid of
a few rows wraps its reasons on three lines instead). Numbers that do not apply show "—" (a relation
picked by rank has no similarity), rows are numbered from 1 in the order the mode found them, chunks
are named by their document. Each grid keeps its key from run to run, so its sort survives a
slider move.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import pandas as pd
import streamlit as st

from graphrag_ui.base import csv_cells
from graphrag_ui.index.model import Index
from graphrag_ui.retrieval.core.result import Retrieval
from graphrag_ui.ui.results import derived, row_marks, tables
from graphrag_ui.ui.results.row_marks import RowMark
from graphrag_ui.ui.results.tables import Marks
from graphrag_ui.ui.shell.language import language, t

TALL_ROW = 72  # px: three wrapped lines of a reason
ROW = 35  # px: one line
WRAP_AFTER = 36  # characters of the longest reason before rows grow (a medium column holds ~36)
FEW = 5  # a grid of this many rows or fewer wraps its reasons (it fits tall)
GRID_ROWS = 12  # rows a grid shows before it scrolls
SHOWN = ("change", "#", "label", "why", "dropped", "score", "rank", "tokens")
SHORT_FIELDS = ("type", "document", "weight", "level", "rating")  # the one short field of each kind
OPEN = "1"  # a dropped list's value in the link while it is open
_SHADOW = "_open:"  # session key prefix: whether a dropped list is open, kept while another view is shown
DROPPED_SHOWN = 300  # rows of the dropped grid; at 100k entities nano.local drops 3·10⁴ relations


def column_config() -> dict:
    """Headers of the app's own columns in the UI language; the reference's row fields keep their names
    (a copy: the caller adds its mark columns)."""
    return dict(_column_config(language()))


@functools.lru_cache(maxsize=8)
def _column_config(shown_in: str) -> dict:
    """Built once per UI language (``shown_in``, the cache key): 14 column objects and their translations took
    ~1.4 ms on every grid of every move. Streamlit copies a column's config before changing it."""
    cc = st.column_config
    return {
        "change": cc.TextColumn("Δ", width=64, help=t("what moved since the run compared with")),
        "#": cc.NumberColumn(t("#"), width=48, help=t("order in which the mode found the item")),
        "label": cc.TextColumn(t("label"), width=180, help=t("select a row to read it whole")),
        "score": cc.NumberColumn(
            t("score"),
            format="%.4f",
            width=70,
            help=t("similarity or the reference's score; — where the mode picked the item by rank, not by score"),
        ),
        "rank": cc.NumberColumn(
            t("rank"), width=60, help=t("degree or the reference's rank; — where the mode has none")
        ),
        "tokens": cc.NumberColumn(t("tokens"), width=60, help=t("tokens this row adds to the context")),
        "why": cc.TextColumn(t("Why selected"), width=190),
        "dropped": cc.TextColumn(t("why dropped"), width=190),
        "document": cc.TextColumn(t("document"), width=160),
        "type": cc.TextColumn("type", width=110),
        "weight": cc.NumberColumn("weight", width=60),
        "level": cc.NumberColumn("level", width=50),
        "rating": cc.NumberColumn("rating", width=60),
        "text": cc.TextColumn(t("text"), width="large"),
    }


def _shown(frame: pd.DataFrame) -> pd.DataFrame:
    """The grid's frame: ``#`` from 1, and always the mark column (a grid whose columns change from one
    run to the next forgets its sort)."""
    frame = frame.copy()
    frame.insert(0, "#", frame["order"] + 1 if not frame.empty else pd.Series(dtype="int64"))
    if "change" not in frame.columns:
        frame.insert(0, "change", "")
    return frame


def _order(frame: pd.DataFrame, marked: list[str] = ()) -> list[str]:
    """Kept rows lead with what and why, dropped rows with why dropped, what and why considered; then the
    numbers, and for kept rows the kind's short field. Row marks (``marked``, from ``row_marks``) come right
    after ``change``; columns not listed are not drawn, except unknown short mark columns, kept after them."""
    dropped = "dropped" in frame.columns
    lead = ["change", "dropped", "label", "why"] if dropped else ["change", "#", "label", "why"]
    head = [c for c in lead if c in frame.columns]
    rest = [c for c in (*SHOWN, *SHORT_FIELDS) if c in frame.columns and c not in head]
    if dropped:  # two reasons take the room of the order and the short field (both in the selected row)
        rest = [c for c in rest if c not in ("#", *SHORT_FIELDS)]
    known = {*SHOWN, *SHORT_FIELDS, *tables.DATA_FIELDS, "order", "id", "doc_id", "file_path"}
    marks = [c for c in marked if c in frame.columns]
    marks += [c for c in frame.columns if c not in known and c not in marks]  # e.g. another mark column
    return head[:1] + marks + head[1:] + rest


def _row_height(frame: pd.DataFrame) -> int:
    longest = 0
    for name in ("why", "dropped"):
        if name in frame.columns and not frame.empty:
            longest = max(longest, int(frame[name].astype(str).str.len().max()))
    return TALL_ROW if longest > WRAP_AFTER and len(frame) <= FEW else ROW


def _height(frame: pd.DataFrame, row: int) -> int:
    """Header and up to ``GRID_ROWS`` rows (a grid of 10⁴ dropped rows scrolls inside this)."""
    return ROW + row * max(min(len(frame), GRID_ROWS), 1) + 3


def _grid(frame: pd.DataFrame, key: str, full: Callable[[str], dict] | None = None, marks: list[RowMark] = ()) -> None:
    """One grid; a selected row is shown whole below it (``full``: id -> the row's untruncated data);
    ``marks``: columns from the row-mark hook (``row_marks``)."""
    shown = row_marks.add_columns(_shown(frame), list(marks))
    config = column_config()
    config.update({m.column: st.column_config.TextColumn(m.header, help=m.help, width="medium") for m in marks})
    picked = st.dataframe(
        shown,
        hide_index=True,
        width="stretch",
        key=key,
        column_order=_order(shown, [m.column for m in marks]),
        column_config=config,
        row_height=(row_height := _row_height(shown)),
        height=_height(shown, row_height),
        placeholder="—",
        on_select="rerun",
        selection_mode="single-row",
    )
    rows = picked.selection.rows if picked is not None else []
    if rows and rows[0] < len(shown):
        row = shown.iloc[rows[0]]
        _details(row, (full(str(row.get("id", ""))) if full else None) or {}, config)


def _details(row: pd.Series, data: dict, headers: dict) -> None:
    """The selected row whole: every field as text, long ones untruncated (index text is data, never markup)."""
    with st.container(border=True):
        for name, value in row.items():
            value = data.get(name, value)  # the grid shortens long texts; the row's own data does not
            if name == "order" or value is None or (isinstance(value, float) and pd.isna(value)) or value == "":
                continue
            st.caption(headers.get(name, {}).get("label") or name)
            st.text(str(value))


def dropped_key(key: str, kind: str) -> str:
    """The URL key that keeps a kind's dropped list open: ``dropped_entities`` on Explore's results."""
    return f"dropped_{kind}" if key == "main" else f"{key}_dropped_{kind}"


def kind_table(
    index: Index, result: Retrieval, kind: str, key: str, marks: Marks | None = None, *, csv: bool = False
) -> None:
    """The kept grid and the dropped list; ``csv``: the section's CSV download below them (Explore's and
    Compare's results offer every section's CSV in the Context view instead: a download button is a new
    element on every run, one more for the browser to redraw on each move)."""
    titles = _titles(index)

    def full(item_id: str) -> dict:  # looked up when a row is picked, not built for 10⁵ candidates each run
        return next((c.data for c in result.candidates(kind) if c.id == item_id), {})

    kept = tables.kept_rows(result, kind, marks, titles)
    n_dropped, were_in = tables.dropped_count(result, kind, marks, derived.counts(result)[kind][1])
    st.caption(_counts_line(len(kept), n_dropped, were_in))
    if kept.empty:
        st.info(t("Nothing in this section."))
    else:
        _grid(kept, f"{key}_{kind}_kept", full, row_marks.marks_for(result, kind))
    if n_dropped:
        _dropped_list(result, kind, key, marks, titles, full, n_dropped, csv_below=csv)
    if csv:
        csv_download(index, result, kind, key, t("Download CSV"))


def csv_download(index: Index, result: Retrieval, kind: str, key: str, text: str) -> None:
    """A button that downloads every candidate of ``kind``, kept and dropped, with its reasons in English."""
    titles = _titles(index)

    def rows() -> bytes:  # made on click: a large index has 10⁴ dropped relations
        frame = tables.candidate_rows(kind, result.candidates(kind), titles=titles)  # reasons in English (see tables)
        return csv_cells.text(frame).encode("utf-8")  # no cell a spreadsheet runs as a formula

    st.download_button(
        text,
        rows,
        file_name=f"{kind}.csv",
        mime="text/csv",
        key=f"{key}_{kind}_csv",
        icon=":material/download:",
        on_click="ignore",
    )


def _counts_line(kept: int, n_dropped: int, were_in: int) -> str:
    """How many rows are in the context and how many were dropped, in one caption: a slider move changes
    one element here, not a caption and the dropped list's label (each changed element costs the browser)."""
    line = t("In the context") + f": {kept:,}"
    if n_dropped:
        line += " · " + t("Considered but dropped") + f": {n_dropped:,}"
    if were_in:
        line += " · " + t("{n} of them were in the context before", n=f"{were_in:,}")
    return line


def _dropped_list(
    result: Retrieval,
    kind: str,
    key: str,
    marks: Marks | None,
    titles: Callable[[str], str],
    full: Callable[[str], dict],
    n_dropped: int,
    csv_below: bool = False,
) -> None:
    """The dropped rows, one click away: an expander whose rows are built only while it is open (a closed
    list costs neither the frame nor the grid on a slider move), open in the link (``dropped_entities=1``).
    Its label never changes (the counts are in the line above), so a move redraws no label here."""
    title = t("Considered but dropped")
    url_key = dropped_key(key, kind)
    kept_open = _SHADOW + url_key  # the widget's own state goes while another view is shown: this stays
    if kept_open not in st.session_state:  # a first visit: as the link says
        st.session_state[kept_open] = st.query_params.get(url_key) == OPEN
    st.session_state[url_key] = st.session_state[kept_open]
    with st.expander(title, key=url_key, on_change=_keep_in_link, args=(url_key,)) as box:
        if not box.open:
            return
        dropped, _ = tables.dropped_rows(result, kind, marks, titles, DROPPED_SHOWN)
        if n_dropped > DROPPED_SHOWN:
            counts = {"shown": DROPPED_SHOWN, "n": f"{n_dropped:,}"}
            st.caption(
                t(  # DRIFT's local steps: the section's CSV is below its own table
                    "The first {shown} of {n} dropped rows (those that moved first, then in the order the mode "
                    "found them); the CSV below holds every row.",
                    **counts,
                )
                if csv_below
                else t(
                    "The first {shown} of {n} dropped rows (those that moved first, then in the order the mode "
                    "found them); the section's CSV in the Context view holds every row.",
                    **counts,
                )
            )
        _grid(dropped, f"{key}_{kind}_dropped", full)


def _keep_in_link(url_key: str) -> None:
    """The list's state in the link, written here and never removed while another view is shown (Streamlit's
    own binding drops a key whose widget is not drawn: Budget and back lost it)."""
    st.session_state[_SHADOW + url_key] = bool(st.session_state.get(url_key))
    if st.session_state.get(url_key):
        st.query_params[url_key] = OPEN
    else:
        st.query_params.pop(url_key, None)


def _titles(index: Index) -> Callable[[str], str]:
    documents = index.document_by_id

    def title(doc_id: str) -> str:
        doc = documents.get(doc_id)
        return doc.title if doc is not None else ""

    return title
