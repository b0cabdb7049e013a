"""The Evaluate page's question set: the open index's bundled gold set, or a file the analyst uploads.

An upload is bounded (``MAX_UPLOAD_MB``), must be UTF-8 JSON lines or a JSON array, and is read by
``evaluation.formats`` in the format the analyst picks (or told by its fields). A line that cannot be
read is named (line number, what is wrong) and either skipped — the page lists every skipped line — or
the whole file is refused, as the analyst chooses. The set read is kept in the session (``loaded``) for
the Evaluate page and for Explore's gold marks (``gold_view``), with the index it was loaded for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.evaluation.formats import FORMATS, load_questions, read_questions
from graphrag_ui.evaluation.gold import QuestionSet
from graphrag_ui.ui.shell import state
from graphrag_ui.ui.shell.escape import md_escape, shown_error
from graphrag_ui.ui.shell.language import in_this_language, t, translate
from graphrag_ui.ui.widgets import url_choice
from graphrag_ui.ui.widgets.uploader_text import relabel_uploaders

MAX_UPLOAD_MB = 16
UPLOAD_TYPES = ["jsonl", "json"]
LOADED = "_eval_set"  # session: the Loaded set
BUNDLED = "bundled"
UPLOAD = "upload"
BAD_LINES = {"skip": msg("skip them (each is listed)"), "refuse": msg("refuse the whole file")}
SOURCES = {BUNDLED: msg("the index's bundled set"), UPLOAD: msg("a file of mine")}
FORMAT_NAMES = {"auto": msg("told by its fields")}  # the other formats keep their own names
BUNDLED_FILE = "questions.jsonl"


@dataclass
class Loaded:
    """A question set read for one index, and where it came from (``bundled`` or the file's name)."""

    index_key: str
    origin: str
    questions: QuestionSet


def bundled_path(index_key: str) -> Path | None:
    """The gold set shipped with a bundled sample (``data/sample/<lang>/questions.jsonl``), if there is one."""
    folder = state.SAMPLES.get(index_key)
    path = folder / BUNDLED_FILE if folder else None
    return path if path is not None and path.is_file() else None


def read_upload(name: str, data: bytes, fmt: str = "auto", on_bad: str = "skip") -> QuestionSet:
    """An uploaded question file as a set, or one ``UserError`` saying what is wrong and what to do."""
    if len(data) > MAX_UPLOAD_MB * 1024 * 1024:
        raise UserError(
            msg("the file is {size} bytes, more than {limit} MB", size=f"{len(data):,}", limit=MAX_UPLOAD_MB),
            where=name,
            fix=msg("keep a subset of its questions in a smaller file"),
        )
    if b"\x00" in data:
        raise UserError(msg("this looks like a binary file, not JSON lines"), where=name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(
            msg("not UTF-8 text (byte {n})", n=exc.start), where=name, fix=msg("save the file as UTF-8")
        ) from None
    return read_questions(text, name, fmt=fmt, on_bad=on_bad)


def loaded(index_key: str) -> Loaded | None:
    """The set loaded in this session for ``index_key`` (a set of another index does not apply)."""
    found = st.session_state.get(LOADED)
    return found if isinstance(found, Loaded) and found.index_key == index_key else None


def load_bundled(index_key: str) -> Loaded | None:
    """Read (once per session) and keep the bundled set of ``index_key``; None when it has none."""
    current = loaded(index_key)
    if current is not None and current.origin == BUNDLED:
        return current
    path = bundled_path(index_key)
    if path is None:
        return None
    kept = Loaded(index_key, BUNDLED, load_questions(path, on_bad="refuse"))  # ours: a bad line is our bug
    st.session_state[LOADED] = kept
    return kept


def set_picker(index_key: str) -> Loaded | None:
    """The set controls (source, upload, format, bad lines) and what they loaded, said in one line."""
    sources = [BUNDLED, UPLOAD] if bundled_path(index_key) else [UPLOAD]
    url_choice.seed("ev_source", sources, sources[0])
    source = st.segmented_control(
        t("Question set"),
        sources,
        key="ev_source",
        required=True,
        format_func=in_this_language(lambda s: translate(SOURCES[s])),
    )
    url_choice.sync("ev_source", source)
    if source == UPLOAD or len(sources) == 1:
        return _upload(index_key)
    try:
        current = load_bundled(index_key)
    except UserError as exc:
        st.error(shown_error(exc))
        return None
    if current is not None:
        summary(current)
    return current


def _upload(index_key: str) -> Loaded | None:
    relabel_uploaders(MAX_UPLOAD_MB, UPLOAD_TYPES)
    c1, c2 = st.columns(2)
    url_choice.seed("ev_fmt", FORMATS, FORMATS[0])
    url_choice.seed("ev_bad", list(BAD_LINES), "skip")
    fmt = c1.selectbox(
        t("Format"),
        FORMATS,
        key="ev_fmt",
        format_func=in_this_language(lambda f: translate(FORMAT_NAMES[f]) if f in FORMAT_NAMES else f),
        placeholder=t("Choose an option"),
    )
    on_bad = c2.radio(
        t("Lines that cannot be read"),
        list(BAD_LINES),
        key="ev_bad",
        horizontal=True,
        format_func=in_this_language(lambda b: translate(BAD_LINES[b])),
    )
    url_choice.sync("ev_fmt", fmt)
    url_choice.sync("ev_bad", on_bad)
    upload = st.file_uploader(
        t("Questions (JSON lines or a JSON array, UTF-8, ≤ {mb} MB)", mb=MAX_UPLOAD_MB),
        type=UPLOAD_TYPES,
        key="ev_file",
        max_upload_size=MAX_UPLOAD_MB,
        help=t(
            "One question per line: id, question, and any of answer, evidence, evidence_docs, "
            "evidence_chunks, evidence_entities (see docs/evaluation.md); MultiHop-RAG, HotpotQA / 2Wiki "
            "and GraphRAG-Bench files are read as they are.",
        ),
    )
    if upload is None:
        current = loaded(index_key)
        if current is not None and current.origin != BUNDLED:
            summary(current)
            return current
        st.caption(t("Upload a question file to evaluate this index against it."))
        return None
    origin = f"{upload.name}:{upload.file_id}:{fmt}:{on_bad}"
    current = loaded(index_key)
    if current is None or current.origin != origin:
        try:
            current = Loaded(index_key, origin, read_upload(upload.name, upload.getvalue(), fmt, on_bad))
        except UserError as exc:
            st.error(shown_error(exc))
            return None
        st.session_state[LOADED] = current
    summary(current)
    return current


def summary(current: Loaded) -> None:
    """How many questions and gold items were read, and each skipped line with what is wrong with it."""
    qs = current.questions
    items = sum(len(q.gold()) for q in qs.questions)
    st.caption(
        t(
            "{name}: {n} questions, {items} gold items (format: {fmt})",
            name=md_escape(qs.name),
            n=len(qs.questions),
            items=items,
            fmt=qs.source_format,
        )
    )
    if qs.skipped:
        st.warning(
            t("{n} lines could not be read and were skipped; each is listed below.", n=len(qs.skipped)),
            icon=":material/rule:",
        )
        frame = pd.DataFrame(
            [{"line": p.line, "what": translate(p.what)} for p in qs.skipped], columns=["line", "what"]
        )
        st.dataframe(
            frame,
            hide_index=True,
            width="stretch",
            key="ev_skipped",
            column_config={"line": t("line"), "what": t("what is wrong")},
        )
