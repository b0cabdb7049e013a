"""Build an index from documents: read → chunk → extract → merge → communities → reports → embed.

``build_index`` returns the canonical in-memory ``Index``; ``build`` also saves it with the store.
Same documents, settings and LLM cache give the same tables and vectors: ids are content hashes,
every order is the documents' (sorted paths) and chunks' order, and Leiden runs with a fixed seed.
Problems with single items (a bad file, a malformed record or report) are warnings passed to
``on_warning`` (default: the ``graphrag_ui.build`` logger); they never discard what was extracted.

Progress stages, in order, each reported as ``progress(stage, done, total)``: ``read documents``,
``chunk``, ``extract``, ``merge entities``, ``merge relations`` (these two include any summary calls),
``communities``, ``reports``, ``embed entities``, ``embed relations``, ``embed chunks``,
``embed communities``; ``build`` then passes the callback on to ``store.save`` for its own stages.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from graphrag_ui.base import tokens
from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg, pmsg
from graphrag_ui.embedding.embed import get_embedder
from graphrag_ui.index.builder import prompts
from graphrag_ui.index.builder.cache import CachedLLM, LLMFunction, load_entries, replay_model
from graphrag_ui.index.builder.chunking import check_sizes, chunk_documents
from graphrag_ui.index.builder.communities import cluster
from graphrag_ui.index.builder.documents import read_documents
from graphrag_ui.index.builder.embedding import embed_index
from graphrag_ui.index.builder.extract_llm import EXTRACT, extract_all, report_unparsed
from graphrag_ui.index.builder.merge import merge
from graphrag_ui.index.builder.offline import OfflineExtractor
from graphrag_ui.index.builder.records import Extraction
from graphrag_ui.index.builder.reports import Reporter, write_reports
from graphrag_ui.index.model import Document, Index, Manifest

Progress = Callable[[str, int, int], None]
log = logging.getLogger("graphrag_ui.build")
SUMMARY_MAX_TOKENS = 500  # joined descriptions longer than this are summarised (nano-graphrag's default)
# progress stages of this module (the Index page shows them translated)
READ_DOCUMENTS, CHUNK, COMMUNITIES = msg("read documents"), msg("chunk"), pmsg("progress stage", "communities")


def default_cache_path(out_dir: str | Path) -> Path:
    """``<out_dir>.llm_cache.json`` beside the index: the store replaces the index folder as a whole."""
    out = Path(out_dir)
    return out.parent / f"{out.name}.llm_cache.json"


def language_of(documents: list[Document]) -> str:
    """ "zh", "en" or "mixed", from the share of CJK characters among letters."""
    cjk = letters = 0
    for doc in documents:
        for ch in doc.text:
            if "\u3400" <= ch <= "\u9fff":
                cjk += 1
                letters += 1
            elif ch.isalpha():
                letters += 1
    if not letters:
        return ""
    share = cjk / letters
    return "zh" if share > 0.6 else "en" if share < 0.1 else "mixed"


def _title(docs_dir: str | Path) -> str:
    path = Path(docs_dir).absolute()
    return path.parent.name if path.name in {"docs", "documents"} else path.stem


def _llm_for(llm, llm_id, cache_path, replay) -> tuple[CachedLLM, str]:
    if replay:
        if not cache_path:
            raise UserError(msg("replay needs a cache file"), fix=msg("use --llm replay:CACHE.json"))
        entries = load_entries(cache_path)
        model = replay_model(entries, cache_path) if not entries or not llm_id else llm_id
        return CachedLLM(None, model, cache_path, replay=True), model
    if llm is None:
        raise UserError(
            msg("the llm extractor needs an LLM"),
            fix=msg("pass --llm MODEL, --llm replay:CACHE.json or --extractor offline"),
        )
    model = llm_id or getattr(llm, "__name__", "") or "custom-llm"
    return CachedLLM(llm, model, cache_path), model


def build_index(
    docs_dir: str | Path,
    *,
    llm: LLMFunction | None = None,
    llm_id: str = "",
    cache_path: str | Path | None = None,
    replay: bool = False,
    extractor: str = "llm",
    chunk_size: int = 1200,
    chunk_overlap: int = 100,
    embedder: str = "use-m3",
    max_cluster_size: int = 10,
    seed: int = 0xDEADBEEF,
    gleaning: int = 1,
    progress: Progress | None = None,
    on_warning: Callable[[str], None] | None = None,
    llm_workers: int = 1,
    summary_max_tokens: int = SUMMARY_MAX_TOKENS,
    title: str | None = None,
    allow_empty: bool = False,
) -> Index:
    """Build the canonical index of the .txt/.md documents under ``docs_dir`` (see the module doc).

    ``title`` names the index in its manifest (default: the folder's name, or its parent's when the
    folder is called ``docs``); ``llm_workers`` > 1 runs that many LLM calls at once. A build that
    finds no entity fails (nothing is saved) unless ``allow_empty``: an empty index looks valid and answers nothing.
    """
    warn = on_warning or log.warning
    if extractor not in ("llm", "offline"):
        raise UserError(msg("unknown extractor {extractor}", extractor=repr(extractor)), fix=msg("use llm or offline"))
    if gleaning < 0:
        raise UserError(msg("gleaning must be 0 or more (got {gleaning})", gleaning=gleaning))
    check_sizes(chunk_size, chunk_overlap)
    emb = get_embedder(embedder)  # fail on a bad embedder name before any LLM call is paid for
    cached, model = (None, "") if extractor == "offline" else _llm_for(llm, llm_id, cache_path, replay)

    read = read_documents(docs_dir)
    for problem in read.problems:
        warn(problem.message)
    docs = read.documents
    if progress:
        progress(READ_DOCUMENTS, len(docs), len(docs))
    chunks = chunk_documents(docs, chunk_size, chunk_overlap)
    if progress:
        progress(CHUNK, len(chunks), len(chunks))
    titles = {d.id: d.title for d in docs}

    if cached is None:
        offline = OfflineExtractor(d.text for d in docs)
        extractions: list[Extraction] = []
        for i, chunk in enumerate(chunks, start=1):
            extractions.append(offline.extract(chunk.text))
            if progress:
                progress(EXTRACT, i, len(chunks))
        summarise = None
    else:
        extractions = extract_all(chunks, titles, cached, gleaning, warn, progress, llm_workers)
        report_unparsed(chunks, titles, extractions, warn)

        def summarise(subject: str, fragments: list[str], relation: bool) -> str:
            messages = prompts.summary_messages(subject, fragments, summary_max_tokens, relation)
            return cached(messages, "summary", f"{'relation' if relation else 'entity'} {subject}")

    for chunk, ext in zip(chunks, extractions, strict=True):
        if ext.keywords:
            chunk.extra["keywords"] = list(ext.keywords)
    merged = merge(chunks, extractions, max_tokens=summary_max_tokens, summarise=summarise, progress=progress)
    if merged.dropped_self_loops:
        warn(
            msg(
                "{dropped_self_loops} relations from an entity to itself were dropped",
                dropped_self_loops=merged.dropped_self_loops,
            )
        )
    if not merged.entities and not allow_empty:
        raise UserError(
            msg(
                "the build found 0 entities in {chunks} chunk(s) of {docs} document(s); nothing was saved",
                chunks=len(chunks),
                docs=len(docs),
            ),
            where=str(docs_dir),
            fix=msg(
                "read the warnings above (the model's answers may not follow the extraction format), "
                "or pass --allow-empty to save an empty index anyway"
            ),
        )

    if progress:
        progress(COMMUNITIES, 0, 1)
    clustering = cluster(merged.entities, merged.relations, max_cluster_size, seed)
    for ent in merged.entities:
        ent.communities = clustering.by_entity.get(ent.name, [])
    if progress:
        progress(COMMUNITIES, 1, 1)
    language = language_of(docs)
    reporter = Reporter(merged.entities, merged.relations, language)
    write_reports(clustering.communities, reporter, cached, warn, progress, llm_workers)

    settings = {
        "chunk_size": chunk_size,
        "chunk_overlap": chunk_overlap,
        "extractor": extractor,
        "llm": model,
        "gleaning": gleaning if cached is not None else 0,
        "max_cluster_size": max_cluster_size,
        "seed": seed,
        "summary_max_tokens": summary_max_tokens,
        "skipped_files": [{"path": p.path, "reason": p.reason} for p in read.problems],
    }
    manifest = Manifest(
        source="build",
        embedder=emb.id,
        dimension=emb.dim,
        tokenizer=tokens.DEFAULT_ENCODING,
        settings=settings,
        vector_sources={kind: f"build:{emb.id}" for kind in ("entities", "relations", "chunks", "communities")},
        title=title if title is not None else _title(docs_dir),
        language=language,
    )
    index = Index(manifest, docs, chunks, merged.entities, merged.relations, clustering.communities)
    index.vectors = embed_index(index, emb, progress)
    if index.vectors:
        dims = {v.matrix.shape[1] for v in index.vectors.values() if len(v)}
        if dims:
            index.manifest.dimension = dims.pop()
    index.manifest.counts = index.counts()
    return index


def _check_out(docs_dir: str | Path, out_dir: str | Path) -> None:
    """Refuse a bad output folder before the (possibly long and paid) build, not after it."""
    out, docs = Path(out_dir).absolute(), Path(docs_dir).absolute()
    if out == docs or docs.is_relative_to(out):
        raise UserError(
            msg("the index folder would replace the documents"), where=str(out), fix=msg("choose another --out")
        )
    from graphrag_ui.index import store

    store.check_target(out)  # not a folder, a folder without an index, or one holding files a save did not write


def build(docs_dir: str | Path, out_dir: str | Path, **kwargs) -> Index:
    """``build_index`` then save with the store (atomically) at ``out_dir`` (``replace=False``: never over
    an index that is there by then)."""
    from graphrag_ui.index import store

    replace = kwargs.pop("replace", True)
    _check_out(docs_dir, out_dir)
    store.check_servers()  # a malformed server setting fails before the build, not after it
    if kwargs.get("extractor", "llm") == "llm" and not kwargs.get("replay") and not kwargs.get("cache_path"):
        kwargs["cache_path"] = default_cache_path(out_dir)
    index = build_index(docs_dir, **kwargs)
    store.save(index, out_dir, kwargs.get("progress"), replace=replace)  # the store reports its own stages
    index.path = str(out_dir)
    return index
