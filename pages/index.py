"""Index: open, import, build and re-embed indexes; statistics of the open one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import streamlit as st

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.progress import ProgressFn
from graphrag_ui.embedding.embed import DEFAULT_EMBEDDER
from graphrag_ui.ui.shell import state
from graphrag_ui.ui.shell.escape import md_escape, shown, shown_error
from graphrag_ui.ui.shell.labels import COLUMNS, EXTRACTORS, STATISTICS, label
from graphrag_ui.ui.shell.language import in_this_language, t, translate
from graphrag_ui.ui.shell.page import open_page
from graphrag_ui.ui.widgets import index_ops, job_view
from graphrag_ui.ui.widgets.uploader_text import relabel_uploaders

index, index_key = open_page("index", require_index=False)
try:  # the operator's limits (graphrag_ui.base.access, docs/deploying.md): never from the URL or this page
    access = index_ops.operator_access(state.app_home())
except UserError as exc:
    st.error(shown_error(exc))
    st.stop()
writes = access.writes_allowed(st.get_option("server.address"))
WRITES_OFF = t(
    "Import, build and re-embed are off: other machines can reach this server and its operator has not "
    "turned them on (GRAPHRAG_UI_WRITE_ACTIONS=on, see docs/deploying.md).",
)


def start_made(
    kind: str,
    name: str,
    replace: bool,
    detail: str,
    check: Callable[[], object],
    work: Callable[[Path, ProgressFn], tuple[dict[str, int], list, str]],
) -> None:
    """An import or a build as a server job (``job_view``): the folder, the replace box and the form (``check``:
    the operator's read guard, the embedder, the uploads) are checked here, so a refusal is said at once; the
    job then does ``work``, whose (counts, warnings, detected kind) it keeps with the new index it registers.
    The store writes atomically: a failed job leaves nothing half-written."""
    try:
        out = index_ops.indexes_home(state.app_home()) / index_ops.safe_name(name)
        index_ops.check_replace(out, replace)
        check()
    except UserError as exc:
        st.error(shown_error(exc))
        return

    def job(update: ProgressFn) -> job_view.Made:
        counts, warnings, found = work(out, update)
        return job_view.Made(state.register_index(out.name, out), counts, tuple(warnings), found)

    job_view.start_job(kind, str(out), job, detail)


def said(made: job_view.Made) -> str:
    """What an import or a build made, in the UI language: ``detected nano · 58 entities, … — warning: …``."""
    warned = "".join(t(" — warning: {warning}", warning=shown(w)) for w in made.warnings)
    head = t("detected {found}", found=md_escape(made.found)) + " · " if made.found else ""
    return head + counted(made.counts) + warned


def confirm_replace(name: str, key: str) -> bool:
    """A box naming the index a new one of this name would replace (no box while the name is free)."""
    try:
        there = index_ops.existing(index_ops.indexes_home(state.app_home()) / index_ops.safe_name(name))
    except UserError:
        return False
    return bool(there) and st.checkbox(t("Replace the index already there: {what}", what=shown(there)), key=key)


def counted(counts: dict[str, int]) -> str:
    """``58 entities, 212 relations, …`` in the UI language."""
    return ", ".join(t("{n} {kind}", n=v, kind=label(STATISTICS, k)) for k, v in counts.items())


flash = state.pop_flash()
if flash:
    st.success(flash, icon=":material/check_circle:")


tab_stats, tab_open, tab_import, tab_build, tab_reembed = st.tabs(
    [
        t("Index statistics"),
        t("Open folder"),
        t("Import"),
        t("Build from documents"),
        t("Re-embed"),
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
                (t("Source system"), translate(index_ops.source_version(index))),
                (t("Embedder"), f"{m.embedder} ({m.dimension})"),
                (t("Tokenizer"), m.tokenizer),
                (t("Vectors live in"), t("local (chroma in the folder)") if where == "local" else where),
            ],
            strict=True,
        ):
            column.caption(name)
            column.markdown(f"**{value}**")
        found, missing, ready = index_ops.import_report(index)
        st.caption(t("What the index holds"))
        st.markdown("\n".join(f"- {line}" for line in found))
        if missing:
            st.caption(t("What it lacks"))
            st.markdown("\n".join(f"- {line}" for line in missing))
        st.caption(t("Which modes can run on it"))
        st.dataframe(
            ready,
            hide_index=True,
            width="stretch",
            column_config={"mode": t("mode"), "status": t("status"), "why": t("why")},
        )
        counts, histogram, sizes = index_ops.statistics(index)
        counts["what"] = [label(STATISTICS, w) for w in counts["what"]]
        c1, c2 = st.columns(2)
        headers = {name: label(COLUMNS, name) for name in ("what", "count", "community", "members", "level")}
        c1.dataframe(counts, hide_index=True, width="stretch", column_config=headers)
        c2.caption(t("Degree histogram: entities per degree"))
        c2.bar_chart(histogram, x="degree", y="entities", x_label=t("degree"), y_label=t("entities"))
        st.caption(t("Community sizes"))
        st.dataframe(sizes, hide_index=True, width="stretch", column_config={**headers, "title": t("title")})
with tab_open:
    folder = st.text_input(t("Index folder (made by build, import or reembed)"), key="open_path")
    if st.button(t("Open"), key="open_btn") and folder:
        try:
            path = access.source(folder)  # outside the allowed folders: one line, whether it exists or not
            if not (path / "manifest.json").is_file():
                raise UserError(
                    msg("no manifest.json here — this is not an index folder (import a source folder instead)"),
                    where=str(path),
                )
            job_view.open_now(state.register_index(path.name, path))  # a label naming another folder gets "-2"
        except UserError as exc:
            st.error(shown_error(exc))
with tab_import:
    st.caption(
        t(
            "The imported index is written to {folder}/NAME (a new folder; the source is only read).",
            folder=md_escape(index_ops.indexes_home(state.app_home())),
        )
    )
    kind = st.selectbox(
        t("Source kind"),
        ["auto", "nano", "lightrag", "msgraphrag"],
        key="imp_kind",
        format_func=in_this_language(lambda k: t("auto (detect)") if k == "auto" else k),
        placeholder=t("Choose an option"),
    )
    src = st.text_input(t("Source folder (working dir / GraphRAG output)"), key="imp_src")
    name = st.text_input(t("Name of the new index"), key="imp_name")
    choice = st.selectbox(
        t("Embedder that made the source vectors"),
        index_ops.EMBEDDER_CHOICES,
        key="imp_emb",
        format_func=in_this_language(
            lambda e: {
                "unknown": t("unknown (re-embed after the import)"),
                "litellm": t("litellm:<model> (your own embedding model)"),
            }.get(e, e)
        ),
        placeholder=t("Choose an option"),
    )
    model = (
        st.text_input(t("Embedding model (litellm name, e.g. text-embedding-3-small)"), key="imp_emb_model")
        if choice == "litellm"
        else ""
    )
    replace = writes and confirm_replace(name or index_ops.source_name(src), "imp_replace")
    if not writes:
        st.info(WRITES_OFF)
    elif st.button(t("Import"), key="imp_btn", type="primary"):  # runs on the server: the tab may close
        from graphrag_ui.index.importers.command import import_source, import_warnings

        chosen = index_ops.chosen_embedder(choice, model)

        def do_import(out: Path, update: ProgressFn) -> tuple[dict[str, int], list, str]:
            found, imported = import_source(kind, src, out, chosen, update, guard=access, replace=replace)
            return imported.counts(), import_warnings(imported), found

        start_made(
            "import",
            name or index_ops.source_name(src),
            replace,
            src,
            lambda: index_ops.check_import(access, src, chosen),
            do_import,
        )
    job_view.made_status("import", said)
with tab_build:
    relabel_uploaders(index_ops.MAX_UPLOAD_BYTES // (1024 * 1024), index_ops.UPLOAD_TYPES)
    uploads = st.file_uploader(
        t("Documents (.txt / .md, UTF-8, ≤ 5 MB each)"),
        type=index_ops.UPLOAD_TYPES,
        accept_multiple_files=True,
        key="b_files",
        max_upload_size=index_ops.MAX_UPLOAD_BYTES // (1024 * 1024),  # the browser refuses larger files
    )
    name = st.text_input(t("Name of the new index"), key="b_name")
    extractor = st.radio(
        t("Extractor"),
        ["offline", "llm"],
        horizontal=True,
        key="b_extractor",
        format_func=in_this_language(lambda e: label(EXTRACTORS, e)),
    )
    embedder = st.text_input(t("Embedder"), value=DEFAULT_EMBEDDER, key="b_emb")
    replace = writes and confirm_replace(name, "b_replace")
    if not writes:
        st.info(WRITES_OFF)
    elif st.button(t("Build from documents"), key="b_btn", type="primary"):  # runs on the server: the tab may close
        from graphrag_ui.model_client.settings import LLMSettings

        files = [(f.name, f.getvalue()) for f in uploads or []]  # read here: an upload belongs to the session
        llm_model = LLMSettings.from_env_and_secrets().model

        def do_build(out: Path, update: ProgressFn) -> tuple[dict[str, int], list, str]:
            noticed: list = []  # bad records, unusable report replies, dropped self-loops
            built = index_ops.build_from_uploads(
                files,
                out,
                extractor=extractor,
                embedder=embedder.strip() or DEFAULT_EMBEDDER,
                llm_model=llm_model,
                progress=update,
                on_warning=noticed.append,
                replace=replace,
            )
            return built.counts(), noticed, ""

        detail = ", ".join(f[0] for f in files)
        start_made("build", name, replace, detail, lambda: index_ops.check_uploads(files), do_build)
    job_view.made_status("build", said)
with tab_reembed:
    if index is not None:
        st.write(t("Current embedder: **{embedder}**", embedder=md_escape(index.manifest.embedder)))
        target = st.text_input(t("New embedder"), value=DEFAULT_EMBEDDER, key="re_emb")
        if not writes:
            st.info(WRITES_OFF)
        elif index_key.startswith("sample:"):
            st.info(t("The bundled samples are read-only; import or build a copy to re-embed it."))
        elif not access.owns(index.path):
            st.info(t("An index opened by path is read-only here; import or build a copy to re-embed it."))
        elif st.button(t("Re-embed"), key="re_btn"):  # runs on the server: the tab may close
            from graphrag_ui.index.reembed import reembed

            try:
                index_ops.check_rewrite(access, index.path, index_key)
            except UserError as exc:
                st.error(shown_error(exc))
            else:
                path, name = str(index.path), target.strip()
                job_view.start_job("reembed", path, lambda update: reembed(path, name, progress=update), name)
        job_view.job_status("reembed", str(index.path))
