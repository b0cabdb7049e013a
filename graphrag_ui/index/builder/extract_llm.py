"""LLM extraction of entities and relations from each chunk, with gleaning passes.

Calls go through :class:`CachedLLM`, so a crashed build resumes where it stopped and a finished
one replays offline. Chunks may be processed by several threads; results are always returned in
chunk order, so the index does not depend on which call finished first.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from graphrag_ui.base.i18n import msg
from graphrag_ui.index.builder import prompts
from graphrag_ui.index.builder.cache import CachedLLM
from graphrag_ui.index.builder.records import Extraction, parse_records
from graphrag_ui.index.model import Chunk

Warn = Callable[[str], None]
Progress = Callable[[str, int, int], None]
EXTRACT = msg("extract")  # the progress stage


def chunk_ref(chunk: Chunk, titles: dict[str, str]) -> str:
    """How a chunk is named in warnings and cache entries: ``a.txt chunk 2 (chunk-…)``."""
    return msg(
        "{doc_id} chunk {order} ({id})", doc_id=titles.get(chunk.doc_id, chunk.doc_id), order=chunk.order, id=chunk.id
    )


def extract_chunk(chunk: Chunk, llm: CachedLLM, ref: str, gleaning: int, warn: Warn) -> Extraction:
    """All records of one chunk: the first pass plus up to ``gleaning`` follow-up passes."""
    messages = prompts.extraction_messages(chunk.text)
    reply = llm(messages, "extract", ref, keep=_has_records)
    result = parse_records(reply, ref, warn)
    if result.empty:
        result.unparsed = reply
        return result  # gleaning asks for what was missed; nothing was understood, so there is nothing to add to
    for n in range(1, gleaning + 1):
        messages = prompts.gleaning_messages(messages, reply)
        glean_ref = msg("{ref} glean {n}", ref=ref, n=n)
        reply = llm(messages, "glean", glean_ref)
        more = parse_records(reply, glean_ref, warn)
        result.extend(more)
        if not more.entities and not more.relations:
            break  # the model says nothing is missing: further passes would only cost calls
    return result


def _has_records(reply: str) -> bool:
    """Whether an extraction answer is worth caching: one it cannot parse is asked again next build."""
    return not parse_records(reply, "", lambda _msg: None).empty


def report_unparsed(chunks: list[Chunk], titles: dict[str, str], results: list[Extraction], warn: Warn) -> int:
    """One warning for the chunks whose answer held no record: how many, and the first raw answer."""
    bad = [(chunk, r) for chunk, r in zip(chunks, results, strict=True) if r.unparsed or r.empty]
    if bad:
        chunk, first = bad[0]
        raw = " ".join(first.unparsed.split())
        shown = raw if len(raw) <= 200 else raw[:199] + "…"
        warn(
            msg(
                "{bad} of {chunks} chunk(s) gave no entity or relation the builder could parse; "
                "first answer ({titles}): {shown}",
                bad=len(bad),
                chunks=len(chunks),
                titles=chunk_ref(chunk, titles),
                shown=repr(shown),
            )
        )
    return len(bad)


def extract_all(
    chunks: list[Chunk],
    titles: dict[str, str],
    llm: CachedLLM,
    gleaning: int,
    warn: Warn,
    progress: Progress | None = None,
    workers: int = 1,
) -> list[Extraction]:
    """Extraction of every chunk, in chunk order."""
    total = len(chunks)
    if progress:
        progress(EXTRACT, 0, total)

    def one(chunk: Chunk) -> Extraction:
        return extract_chunk(chunk, llm, chunk_ref(chunk, titles), gleaning, warn)

    results: list[Extraction] = []
    if workers <= 1:
        for i, chunk in enumerate(chunks, start=1):
            results.append(one(chunk))
            if progress:
                progress(EXTRACT, i, total)
        return results
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        for i, result in enumerate(pool.map(one, chunks), start=1):
            results.append(result)
            if progress:
                progress(EXTRACT, i, total)
    finally:  # on an error, stop queued chunks at once (finished answers are already cached)
        pool.shutdown(wait=True, cancel_futures=True)
    return results
