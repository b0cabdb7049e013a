"""Index: open, import, build and re-embed indexes; statistics of the open one."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from graphrag_ui.embed import DEFAULT_EMBEDDER
from graphrag_ui.errors import UserError
from graphrag_ui.i18n import msg, t, translate
from graphrag_ui.ui import index_ops, state
from graphrag_ui.ui.escape import md_escape, shown, shown_error
from graphrag_ui.ui.labels import COLUMNS, EXTRACTORS, STATISTICS, label
from graphrag_ui.ui.page import open_page
from graphrag_ui.ui.uploader_text import relabel_uploaders

lang, index, index_key = open_page("index", require_index=False)
try:  # the operator's limits (graphrag_ui.access, docs/deploying.md): never from the URL or this page
    access = index_ops.operator_access(state.app_home())
except UserError as exc:
    st.error(shown_error(exc, lang))
    st.stop()
writes = access.writes_allowed(st.get_option("server.address"))
WRITES_OFF = t(
    "Import, build and re-embed are off: other machines can reach this server and its operator has not "
    "turned them on (GRAPHRAG_UI_WRITE_ACTIONS=on, see docs/deploying.md).",
    lang,
)


def progress_bar(title: str):
    """One st.status box for the whole job; inside it a bar per stage with counts, rate and time left."""
    from graphrag_ui.progress import StageClock

    box = st.status(title, expanded=True)
    bars: dict[str, object] = {}
    clock = StageClock()

    def update(stage: str, done: int, total: int) -> None:
        rate, eta = clock.tick(stage, done, total)
        if stage not in bars:
            bars[stage] = box.progress(0.0)
        text = t(
            "{stage}: {done}/{total} · {rate} · {eta} left",
            lang,
            stage=translate(stage, lang),
            done=done,
            total=total,
            rate=rate,
            eta=eta,
        )
        bars[stage].progress(min(done / total, 1.0) if total else 1.0, text=text)

    return update, box


def finish(label: str, folder: Path, detail: str = "") -> None:
    """Register the new index and open it (the sidebar picker takes it on the rerun)."""
    key = state.register_index(label, folder)  # a label naming another folder gets "-2": say the one listed
    listed = state.choice_label(key, lang)
    message = t("Ready: {label} is open now (and listed in the sidebar picker).", lang, label=md_escape(listed))
    state.open_index_next_run(key, message + (f" {detail}" if detail else ""))
    st.rerun()


def confirm_replace(name: str, key: str) -> bool:
    """A box naming the index a new one of this name would replace (no box while the name is free)."""
    try:
        there = index_ops.existing(index_ops.indexes_home(state.app_home()) / index_ops.safe_name(name))
    except UserError:
        return False
    return bool(there) and st.checkbox(
        t("Replace the index already there: {what}", lang, what=shown(there, lang)), key=key
    )


def counted(counts: dict[str, int]) -> str:
    """``58 entities, 212 relations, …`` in the UI language."""
    return ", ".join(t("{n} {kind}", lang, n=v, kind=label(STATISTICS, k, lang)) for k, v in counts.items())


flash = state.pop_flash()
if flash:
    st.success(flash, icon=":material/check_circle:")


tab_stats, tab_open, tab_import, tab_build, tab_reembed = st.tabs(
    [
        t("Index statistics", lang),
        t("Open folder", lang),
        t("Import", lang),
        t("Build from documents", lang),
        t("Re-embed", lang),
    ]
)
with tab_stats:
    if index is not None:
        m = index.manifest
        where = index_ops.vector_location(index)
        facts = st.columns(4)  # plain text, not st.metric: a metric box cuts "LightRAG ≤ 1.1 layout" short
        for column, (name, value) in zip(
            facts,
            [
                (t("Source system", lang), translate(index_ops.source_version(index), lang)),
                (t("Embedder", lang), f"{m.embedder} ({m.dimension})"),
                (t("Tokenizer", lang), m.tokenizer),
                (t("Vectors live in", lang), t("local (chroma in the folder)", lang) if where == "local" else where),
            ],
            strict=True,
        ):
            column.caption(name)
            column.markdown(f"**{value}**")
        found, missing, ready = index_ops.import_report(index, lang)
        st.caption(t("What the index holds", lang))
        st.markdown("\n".join(f"- {line}" for line in found))
        if missing:
            st.caption(t("What it lacks", lang))
            st.markdown("\n".join(f"- {line}" for line in missing))
        st.caption(t("Which modes can run on it", lang))
        st.dataframe(
            ready,
            hide_index=True,
            width="stretch",
            column_config={"mode": t("mode", lang), "status": t("status", lang), "why": t("why", lang)},
        )
        counts, histogram, sizes = index_ops.statistics(index)
        counts["what"] = [label(STATISTICS, w, lang) for w in counts["what"]]
        c1, c2 = st.columns(2)
        headers = {name: label(COLUMNS, name, lang) for name in ("what", "count", "community", "members", "level")}
        c1.dataframe(counts, hide_index=True, width="stretch", column_config=headers)
        c2.caption(t("Degree histogram: entities per degree", lang))
        c2.bar_chart(histogram, x="degree", y="entities", x_label=t("degree", lang), y_label=t("entities", lang))
        st.caption(t("Community sizes", lang))
        st.dataframe(sizes, hide_index=True, width="stretch", column_config={**headers, "title": t("title", lang)})
with tab_open:
    folder = st.text_input(t("Index folder (made by build, import or reembed)", lang), key="open_path")
    if st.button(t("Open", lang), key="open_btn") and folder:
        try:
            path = access.source(folder)  # outside the allowed folders: one line, whether it exists or not
            if not (path / "manifest.json").is_file():
                raise UserError(
                    msg("no manifest.json here — this is not an index folder (import a source folder instead)"),
                    where=str(path),
                )
            finish(path.name, path)
        except UserError as exc:
            st.error(shown_error(exc, lang))
with tab_import:
    kind = st.selectbox(
        t("Source kind", lang),
        ["auto", "nano", "lightrag", "msgraphrag"],
        key="imp_kind",
        format_func=lambda k: t("auto (detect)", lang) if k == "auto" else k,
        placeholder=t("Choose an option", lang),
    )
    src = st.text_input(t("Source folder (working dir / GraphRAG output)", lang), key="imp_src")
    name = st.text_input(t("Name of the new index", lang), key="imp_name")
    choice = st.selectbox(
        t("Embedder that made the source vectors", lang),
        index_ops.EMBEDDER_CHOICES,
        key="imp_emb",
        format_func=lambda e: {
            "unknown": t("unknown (re-embed after the import)", lang),
            "litellm": t("litellm:<model> (your own embedding model)", lang),
        }.get(e, e),
        placeholder=t("Choose an option", lang),
    )
    model = (
        st.text_input(t("Embedding model (litellm name, e.g. text-embedding-3-small)", lang), key="imp_emb_model")
        if choice == "litellm"
        else ""
    )
    replace = writes and confirm_replace(name or index_ops.source_name(src), "imp_replace")
    if not writes:
        st.info(WRITES_OFF)
    elif st.button(t("Import", lang), key="imp_btn", type="primary"):
        from graphrag_ui.index.importers.command import import_source, import_warnings

        box = None
        try:
            out = index_ops.indexes_home(state.app_home()) / index_ops.safe_name(name or index_ops.source_name(src))
            index_ops.check_replace(out, replace)
            update, box = progress_bar(t("Importing…", lang))
            chosen = index_ops.chosen_embedder(choice, model)
            found, imported = import_source(kind, src, out, chosen, update, guard=access, replace=replace)
            box.update(state="complete")
            warned = "".join(
                t(" — warning: {warning}", lang, warning=shown(w, lang)) for w in import_warnings(imported)
            )
            finish(
                out.name, out, t("detected {found}", lang, found=found) + " · " + counted(imported.counts()) + warned
            )
        except UserError as exc:
            if box is not None:  # the spinner stops: the import is over
                box.update(label=t("Import failed", lang), state="error", expanded=False)
            st.error(shown_error(exc, lang))
with tab_build:
    relabel_uploaders(lang, index_ops.MAX_UPLOAD_BYTES // (1024 * 1024), index_ops.UPLOAD_TYPES)
    uploads = st.file_uploader(
        t("Documents (.txt / .md, UTF-8, ≤ 5 MB each)", lang),
        type=index_ops.UPLOAD_TYPES,
        accept_multiple_files=True,
        key="b_files",
        max_upload_size=index_ops.MAX_UPLOAD_BYTES // (1024 * 1024),  # the browser refuses larger files
    )
    name = st.text_input(t("Name of the new index", lang), key="b_name")
    extractor = st.radio(
        t("Extractor", lang),
        ["offline", "llm"],
        horizontal=True,
        key="b_extractor",
        format_func=lambda e: label(EXTRACTORS, e, lang),
    )
    embedder = st.text_input(t("Embedder", lang), value=DEFAULT_EMBEDDER, key="b_emb")
    replace = writes and confirm_replace(name, "b_replace")
    if not writes:
        st.info(WRITES_OFF)
    elif st.button(t("Build from documents", lang), key="b_btn", type="primary"):
        from graphrag_ui.llm_client.settings import LLMSettings

        box = None
        try:
            out = index_ops.indexes_home(state.app_home()) / index_ops.safe_name(name)
            index_ops.check_replace(out, replace)
            files = [(f.name, f.getvalue()) for f in uploads or []]
            update, box = progress_bar(t("Building the index…", lang))
            noticed: list[str] = []  # bad records, unusable report replies, dropped self-loops
            built = index_ops.build_from_uploads(
                files,
                out,
                extractor=extractor,
                embedder=embedder.strip() or DEFAULT_EMBEDDER,
                llm_model=LLMSettings.from_env_and_secrets().model,
                progress=update,
                on_warning=noticed.append,
                replace=replace,
            )
            box.update(state="complete")
            warned = "".join(t(" — warning: {warning}", lang, warning=shown(w, lang)) for w in noticed)
            finish(out.name, out, counted(built.counts()) + warned)
        except UserError as exc:
            if box is not None:
                box.update(label=t("Building failed", lang), state="error", expanded=False)
            st.error(shown_error(exc, lang))
with tab_reembed:
    if index is not None:
        st.write(t("Current embedder: **{embedder}**", lang, embedder=md_escape(index.manifest.embedder)))
        target = st.text_input(t("New embedder", lang), value=DEFAULT_EMBEDDER, key="re_emb")
        if not writes:
            st.info(WRITES_OFF)
        elif index_key.startswith("sample:"):
            st.info(t("The bundled samples are read-only; import or build a copy to re-embed it.", lang))
        elif not access.owns(index.path):
            st.info(t("An index opened by path is read-only here; import or build a copy to re-embed it.", lang))
        elif st.button(t("Re-embed", lang), key="re_btn"):
            from graphrag_ui.index.reembed import reembed

            box = None
            try:
                index_ops.check_rewrite(access, index.path, index_key)
                update, box = progress_bar(t("Re-embedding…", lang))
                reembed(index.path, target.strip(), progress=update)
                box.update(state="complete")
                # reopen at once: the statistics then show the new embedder (the cache keys on the manifest)
                state.open_index_next_run(index_key, t("Re-embedded; the index reloads with the new vectors.", lang))
                st.rerun()
            except UserError as exc:
                if box is not None:
                    box.update(label=t("Re-embedding failed", lang), state="error", expanded=False)
                st.error(shown_error(exc, lang))
