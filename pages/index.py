"""Index: open, import, build and re-embed indexes; statistics of the open one."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from graphrag_ui.embed import DEFAULT_EMBEDDER
from graphrag_ui.errors import UserError
from graphrag_ui.ui import index_ops, state
from graphrag_ui.ui.i18n import t

lang, index, index_key = state.open_page("index", require_index=False)


def progress_bar():
    bar = st.progress(0.0, text="starting…")

    def update(stage: str, done: int, total: int) -> None:
        bar.progress(min(done / total, 1.0) if total else 1.0, text=f"{stage}: {done}/{total}")

    return update


def finish(label: str, folder: Path, detail: str = "") -> None:
    """Register the new index and open it (the sidebar picker takes it on the rerun)."""
    key = state.register_index(label, folder)
    message = f"Ready: {label} is open now (and listed in the sidebar picker)."
    state.open_index_next_run(key, message + (f" {detail}" if detail else ""))
    st.rerun()


flash = state.pop_flash()
if flash:
    st.success(flash, icon=":material/check_circle:")


tab_stats, tab_open, tab_import, tab_build, tab_reembed = st.tabs(
    [t("stats", lang), t("open_folder", lang), t("import", lang), t("build", lang), t("reembed", lang)]
)
with tab_stats:
    if index is not None:
        m = index.manifest
        st.write(f"**source** {m.source} · **embedder** {m.embedder} ({m.dimension}-d) · **tokenizer** {m.tokenizer}")
        counts, histogram, sizes = index_ops.statistics(index)
        c1, c2 = st.columns(2)
        c1.dataframe(counts, hide_index=True, width="stretch")
        c2.bar_chart(histogram.set_index("degree"))
        st.dataframe(sizes, hide_index=True, width="stretch")
with tab_open:
    folder = st.text_input(t("index_folder", lang), key="open_path")
    if st.button(t("open", lang), key="open_btn") and folder:
        path = Path(folder).expanduser()
        if not (path / "manifest.json").is_file():
            st.error(f"{path}: no manifest.json here — this is not an index folder (import a source folder instead).")
        else:
            finish(path.name, path)
with tab_import:
    kind = st.selectbox(t("source_kind", lang), ["auto", "nano", "lightrag", "msgraphrag"], key="imp_kind")
    src = st.text_input(t("source_folder", lang), key="imp_src")
    name = st.text_input(t("new_name", lang), key="imp_name")
    embedder = st.text_input(t("source_embedder", lang), key="imp_emb")
    if st.button(t("import", lang), key="imp_btn", type="primary"):
        from graphrag_ui.index.importers.command import import_source, import_warnings

        try:
            out = index_ops.indexes_home(state.app_home()) / index_ops.safe_name(name or Path(src).name)
            found, imported = import_source(kind, src, out, embedder or None, progress_bar())
            counts = ", ".join(f"{v} {k}" for k, v in imported.counts().items())
            finish(
                out.name,
                out,
                f"detected {found} · {counts}" + "".join(f" — warning: {w}" for w in import_warnings(imported)),
            )
        except UserError as exc:
            st.error(str(exc))
with tab_build:
    uploads = st.file_uploader(
        t("documents", lang),
        type=["txt", "md"],
        accept_multiple_files=True,
        key="b_files",
        max_upload_size=index_ops.MAX_UPLOAD_BYTES // (1024 * 1024),  # the browser refuses larger files
    )
    name = st.text_input(t("new_name", lang), key="b_name")
    extractor = st.radio(t("extractor", lang), ["offline", "llm"], horizontal=True, key="b_extractor")
    embedder = st.text_input(t("embedder", lang), value=DEFAULT_EMBEDDER, key="b_emb")
    if st.button(t("build", lang), key="b_btn", type="primary"):
        from graphrag_ui.llm.settings import LLMSettings

        try:
            out = index_ops.indexes_home(state.app_home()) / index_ops.safe_name(name)
            files = [(f.name, f.getvalue()) for f in uploads or []]
            built = index_ops.build_from_uploads(
                files,
                out,
                extractor=extractor,
                embedder=embedder.strip() or DEFAULT_EMBEDDER,
                llm_model=LLMSettings.from_env_and_secrets().model,
                progress=progress_bar(),
            )
            finish(out.name, out, ", ".join(f"{v} {k}" for k, v in built.counts().items()))
        except UserError as exc:
            st.error(str(exc))
with tab_reembed:
    if index is not None:
        st.write(f"Current embedder: **{index.manifest.embedder}**")
        target = st.text_input("New embedder", value=DEFAULT_EMBEDDER, key="re_emb")
        if index_key.startswith("sample:"):
            st.info("The bundled samples are read-only; import or build a copy to re-embed it.")
        elif st.button("Re-embed", key="re_btn"):
            from graphrag_ui.index.reembed import reembed

            try:
                reembed(index.path, target.strip(), progress=progress_bar())
                st.success("Re-embedded; the index reloads with the new vectors.")
            except UserError as exc:
                st.error(str(exc))
