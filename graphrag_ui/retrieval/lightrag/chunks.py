"""LightRAG 1.4.7's chunk picking: chunks of entities/relations (WEIGHT or VECTOR), vector chunks, merge.

For the entities (then the relations) that survived truncation, in order: split each source_id,
count how often each chunk occurs, keep a chunk only at its first owner, sort each owner's chunks
by that count (stable), then pick
* VECTOR: the ``int(related_chunk_number * owners / 2)`` candidates most similar to the query,
  measured on the float16 copies LightRAG keeps per vector row (falls back to WEIGHT when any
  candidate has no vector or nothing is picked);
* WEIGHT: linear-gradient polling, quota ``round(n_max - i/(k-1)*(n_max-1))`` per owner, then
  leftover quota handed out one chunk at a time to the first owner that still has chunks.
Relation chunks skip every chunk already returned for the entities. Mix mode adds the chunk-vdb
hits for the raw query; the three lists are merged round-robin (vector, entity, relation).
"""

from __future__ import annotations

import binascii
import zlib
from dataclasses import dataclass, field

import numpy as np

from graphrag_ui.base.i18n import Reason, joined, lmsg, msg
from graphrag_ui.index import cache as index_cache
from graphrag_ui.index.model import Index, VectorTable
from graphrag_ui.index.servers import vector_server
from graphrag_ui.retrieval.core import reuse
from graphrag_ui.retrieval.core.recall import tied_rows, vector_topk


@dataclass
class Owner:
    """An entity or relation that brings chunks: its label and its chunk ids after dedup and sorting."""

    label: str
    chunks: list[str]


@dataclass
class ChunkPick:
    """Chunks one source contributed, with what happened to every candidate."""

    source: str  # "entity" | "relation" | "vector"
    picked: list[str] = field(default_factory=list)  # chunk ids in the order 1.4.7 returns them
    why: dict[str, Reason | str] = field(default_factory=dict)  # chunk id -> reason (picked or not; data till read)
    sims: dict[str, float] = field(default_factory=dict)
    candidates: list[str] = field(default_factory=list)  # every candidate, first-seen order
    method: str = ""
    warnings: list[str] = field(default_factory=list)


# a source as reasons name it (a chunk's ``why`` when its pick gave none)
SOURCE_WORDS = {"entity": msg("entity"), "relation": msg("relation"), "vector": msg("vector")}


def source_word(source: str) -> str:
    return SOURCE_WORDS.get(source, source)


F16 = "lightrag.f16"  # chunk id -> the float16 copy of its vector (``index.cache``)
F16_NORMS = "lightrag.f16_norms"  # chunk id -> the norm of that copy as float64: a copy never changes


def f16_vector(index: Index, cid: str) -> np.ndarray | None:
    """The float16 copy of a chunk's vector as LightRAG's ``get_vectors_by_ids`` returns it (cached)."""
    copies = index_cache.kept(index, F16, dict)
    if cid in copies:
        return copies[cid]
    chunk = index.chunk_by_id.get(cid)
    # the copies belong to the imported vectors; after a re-embed only the table is current
    imported = "vdb_chunks.json" in index.manifest.vector_sources.get("chunks", "")
    if imported and chunk is not None and isinstance(chunk.extra.get("vector_f16"), str):
        # base64.b64decode without its str -> bytes copy (a2b_base64 reads an ASCII str as it is)
        raw = zlib.decompress(binascii.a2b_base64(chunk.extra["vector_f16"]))
        copies[cid] = np.frombuffer(raw, dtype=np.float16).astype(np.float32)
        return copies[cid]
    table = index.vectors.get("chunks")
    row = _row_of(index, cid)
    if table is None or row is None or vector_server.is_server(table):
        return None  # a server's rows are fetched by id (``_server_rows``)
    return table.matrix[row].astype(np.float16).astype(np.float32)  # built indexes: no separate copy


F16_AT_OPEN = 10_000  # chunks at most whose copies an open decodes (``decode_f16``)


def decode_f16(index: Index) -> int:
    """Every chunk's float16 copy decoded into ``index.cache`` (how many), for an imported index of at most
    ``F16_AT_OPEN`` chunks (none otherwise): a LightRAG query's VECTOR pick meets ~10² chunks its session has
    not met yet, ~8 µs each to decode (base64, zlib), 1–2 ms of a 10k-entity query; the 5,000 of that index
    take ~40 ms at open. A copy is a pure function of its chunk's stored string, kept with the index."""
    if len(index.chunks) > F16_AT_OPEN or "vdb_chunks.json" not in index.manifest.vector_sources.get("chunks", ""):
        return 0
    return sum(f16_vector(index, chunk.id) is not None for chunk in index.chunks)


def _row_of(index: Index, cid: str) -> int | None:
    table = index.vectors.get("chunks")
    if table is None:
        return None
    rows = index_cache.kept(table, "lightrag.rows", lambda: {c: i for i, c in enumerate(table.ids)})
    return rows.get(cid)


def owners_with_chunks(
    labelled_sources: list[tuple[str, list[str]]], exclude: set[str] | None = None
) -> tuple[list[Owner], dict[str, int], set[str]]:
    """1.4.7's steps 1–3: dedup across owners (first owner keeps a chunk), count, stable sort."""
    exclude = exclude or set()
    counts: dict[str, int] = {}
    owners: list[Owner] = []
    removed: set[str] = set()
    for label, chunk_ids in labelled_sources:
        if not chunk_ids:
            continue
        kept = []
        for cid in chunk_ids:
            if cid in exclude:
                removed.add(cid)
                continue
            n = counts[cid] = counts.get(cid, 0) + 1
            if n == 1:
                kept.append(cid)
        owners.append(Owner(label, kept))
    count = counts.__getitem__  # every kept chunk is counted
    for owner in owners:
        if len(owner.chunks) > 1:
            owner.chunks.sort(key=count, reverse=True)  # stable, as sorted() is
    return owners, counts, removed


def weighted_polling(owners: list[Owner], max_related: int, min_related: int = 1) -> list[tuple[str, str]]:
    """(chunk id, owner label) in 1.4.7's ``pick_by_weighted_polling`` order."""
    if not owners:
        return []
    if len(owners) == 1:
        return [(c, owners[0].label) for c in owners[0].chunks[:max_related]]
    n = len(owners)
    quotas = [int(round(max_related - (i / (n - 1)) * (max_related - min_related))) for i in range(n)]
    picked, used, leftover = [], [], 0
    for owner, quota in zip(owners, quotas, strict=True):
        take = min(quota, len(owner.chunks))
        picked += [(c, owner.label) for c in owner.chunks[:take]]
        used.append(take)
        leftover += max(quota - take, 0)
    for _ in range(leftover):
        for i, owner in enumerate(owners):
            if used[i] < len(owner.chunks):
                picked.append((owner.chunks[used[i]], owner.label))
                used[i] += 1
                break
        else:
            break
    return picked


def _server_rows(index: Index, table: VectorTable, ids: list[str]) -> dict[str, np.ndarray]:
    """The candidates' float16 copies when the chunk vectors live on a chroma server (fetched by id)."""
    imported = "vdb_chunks.json" in index.manifest.vector_sources.get("chunks", "")
    rows = {} if imported else vector_server.server_vectors(table, ids)  # imported: the copies ride on the chunks
    out = {}
    for cid in ids:
        vec = f16_vector(index, cid) if imported else rows.get(cid)
        if vec is not None:
            out[cid] = np.asarray(vec, dtype=np.float32).astype(np.float16).astype(np.float32)
    return out


def vector_similarity_pick(
    index: Index, owners: list[Owner], query_vec: np.ndarray | None, n: int
) -> tuple[list[str], dict[str, float], str]:
    """Top ``n`` candidates by cosine on the float16 copies, or ``([], {}, why)`` when 1.4.7 would fall
    back (a missing vector) or the cosine is undefined (a query or chunk vector of all zeros: 1.4.7
    divides by a zero norm and sorts NaNs, an order that means nothing)."""
    if not owners or n <= 0:
        return [], {}, msg("quota {n}", n=n)
    if query_vec is None:
        return [], {}, msg("the question has no embedding: the index does not say which embedder made its vectors")
    candidates = list(dict.fromkeys(c for o in owners for c in o.chunks))
    if not candidates:
        return [], {}, msg("no candidate chunk")
    q = np.asarray(query_vec, dtype=np.float32)
    q_norm = np.linalg.norm(q)
    if not q_norm > 0:
        return [], {}, msg("the query vector is all zeros, so no cosine similarity is defined")
    table = index.vectors.get("chunks")
    fetched = _server_rows(index, table, candidates) if table is not None and vector_server.is_server(table) else None
    # a sweep's steps meet the same chunks again: each one's similarity to this query once (``reuse.kept``)
    known: dict[str, float] = reuse.kept("lightrag.chunk sims", index, q, dict) if fetched is None else {}
    try:  # every candidate met before (most of a sweep's steps): their similarities as they were
        sims = {cid: known[cid] for cid in candidates}
    except KeyError:
        sims, why_not = _similarities(index, candidates, q, q_norm, fetched, known)
        if why_not:
            return [], {}, why_not
    ranked = sorted(candidates, key=sims.__getitem__, reverse=True)  # ties: first seen first
    return ranked[:n], sims, ""


def _similarities(
    index: Index,
    candidates: list[str],
    q: np.ndarray,
    q_norm: float,
    fetched: dict[str, np.ndarray] | None,
    known: dict[str, float],
) -> tuple[dict[str, float], str]:
    """Each candidate's cosine with the query on its float16 copy (``known`` ones as they were, new ones kept
    there), or ``({}, why)`` for a candidate without a usable vector."""
    sims: dict[str, float] = {}
    q64 = q.astype(np.float64)  # what np.dot(q, v64) casts q to, once instead of per chunk
    norms = index_cache.kept(index, F16_NORMS, dict)
    copies = index_cache.kept(index, F16, dict)
    for cid in candidates:
        sim = known.get(cid)
        if sim is not None:
            sims[cid] = sim
            continue
        vec = (copies.get(cid) if cid in copies else f16_vector(index, cid)) if fetched is None else fetched.get(cid)
        if vec is None or vec.shape != q.shape:
            return {}, msg("chunk {cid} has no vector of the query's dimension", cid=cid)
        v64 = vec.astype(np.float64)
        kept = fetched is None and cid in copies  # an imported copy: fixed for this index
        v_norm = norms.get(cid) if kept else None
        if v_norm is None:
            v_norm = np.sqrt(v64.dot(v64))  # np.linalg.norm of a 1-D float64 vector, without its checks
            if kept:
                norms[cid] = v_norm
        if not v_norm > 0:
            return {}, msg("chunk {cid}'s vector is all zeros, so its cosine similarity is undefined", cid=cid)
        sims[cid] = known[cid] = float(np.dot(q64, v64) / (q_norm * v_norm))
    return sims, ""


def pick_related(
    index: Index,
    source: str,
    labelled_sources: list[tuple[str, list[str]]],
    *,
    method: str,
    related_chunk_number: int,
    query_vec: np.ndarray | None,
    exclude: set[str] | None = None,
    explained: bool = True,
) -> ChunkPick:
    """Chunks for the surviving entities (source="entity") or relations (source="relation"). ``explained=False``
    (a sweep's summary step: it reads which chunks are picked, in order, and the warnings) leaves out each
    candidate's reason and the tie notes."""
    pick = ChunkPick(source, method=method)
    owners, counts, removed = owners_with_chunks(labelled_sources, exclude)
    for cid in removed if explained else ():
        pick.why[cid] = lmsg("already a chunk of the selected entities")
    if source == "relation":
        owners = [o for o in owners if o.chunks]
    if not owners:
        return pick
    owner_of = {c: o.label for o in owners for c in o.chunks}
    pick.candidates = list(owner_of)
    chosen: list[tuple[str, str]] = []
    if method == "VECTOR":
        n = int(related_chunk_number * len(owners) / 2)
        ids, pick.sims, why_not = vector_similarity_pick(index, owners, query_vec, n)
        if ids and not explained:
            chosen = [(c, owner_of[c]) for c in ids]
        elif ids:
            chosen = [(c, owner_of[c]) for c in ids]
            why, sims = pick.why, pick.sims
            template = VECTOR_PICKS[source == "relation"]
            for rank, cid in enumerate(ids, start=1):
                why[cid] = Reason(template, {"name": owner_of[cid], "rank": rank, "n": n, "sim": f"{sims[cid]:.3f}"})
            if len(ids) < len(pick.candidates):
                for cid in pick.candidates:
                    if cid not in why:
                        sim = sims.get(cid)
                        why[cid] = (
                            lmsg("not picked: beyond VECTOR quota {n}", n=n)
                            if sim is None
                            else lmsg("not picked: beyond VECTOR quota {n} (sim {sim})", n=n, sim=f"{sim:.3f}")
                        )
            # LightRAG gathers the candidates in a set and sorts stably: among exact ties its order is
            # the set's (it follows PYTHONHASHSEED), ours first seen first (differences/lightrag.md §2)
            sims = pick.sims
            ties = tied_rows(sims.items()) if len(set(sims.values())) < len(sims) else {}  # most picks have none
            for cid, others in ties.items():
                names = ", ".join(owner_of[o] for o in others[:5]) + (
                    f" … +{len(others) - 5}" if len(others) > 5 else ""
                )
                tied = msg(
                    "tied with the chunks of {names} (equal similarity: LightRAG orders them by a Python set)",
                    names=names,
                )
                pick.why[cid] = joined(pick.why[cid], tied)
        else:
            pick.warnings.append(
                msg(
                    "{source} chunks: VECTOR picked nothing ({why_not}); used WEIGHT",
                    source=source_word(source),
                    why_not=why_not,
                )
            )
            method = "WEIGHT"
    if method == "WEIGHT":
        chosen = weighted_polling(owners, related_chunk_number)
    if method == "WEIGHT" and explained:
        beyond = lmsg("not picked: beyond WEIGHT polling quota")
        pick.why.update({c: beyond for c in pick.candidates})
        for rank, (cid, label) in enumerate(chosen, start=1):
            pick.why[cid] = _weight_pick(source, label, rank, counts.get(cid, 1))
    pick.method = method
    by_id, picked = index.chunk_by_id, pick.picked
    for cid, _label in dict.fromkeys(chosen):
        chunk = by_id.get(cid)  # ``chunk_in_kv``, inline: a sweep asks it of ~10² chunks a step
        if chunk is not None and chunk.extra.get("in_kv", True):
            picked.append(cid)
        else:
            pick.why[cid] = lmsg("missing from the chunk store")
    return pick


# a VECTOR pick's reason (an entity's chunk, a relation's): ``lmsg`` of one of these, made inline (10² a step)
VECTOR_PICKS = (
    lmsg("chunk of entity {name} (VECTOR #{rank} of {n}, sim {sim})").template,
    lmsg("chunk of relation {name} (VECTOR #{rank} of {n}, sim {sim})").template,
)


def _weight_pick(source: str, name: str, rank: int, count: int) -> Reason:
    if source == "relation":
        return lmsg(
            "chunk of relation {name} (WEIGHT polling #{rank}, {count} occurrences)", name=name, rank=rank, count=count
        )
    return lmsg(
        "chunk of entity {name} (WEIGHT polling #{rank}, {count} occurrences)", name=name, rank=rank, count=count
    )


def vector_chunks(index: Index, query_vec: np.ndarray, top_k: int, threshold: float | None) -> ChunkPick:
    """Chunk-vdb hits for the raw query (mix and naive), cosine order."""
    pick = ChunkPick("vector", method="vector")
    table = index.vectors.get("chunks")
    if table is None:
        return pick
    for rank, (row, sim) in enumerate(vector_topk(table, query_vec, top_k, threshold), start=1):
        cid = table.ids[row]
        chunk = index.chunk_by_id.get(cid)
        if chunk is None or chunk.extra.get("vdb", {}).get("no_content"):
            continue
        pick.picked.append(cid)
        pick.candidates.append(cid)
        pick.sims[cid] = sim
        pick.why[cid] = lmsg("vector chunk #{rank} sim {sim}", rank=rank, sim=f"{sim:.3f}")
    return pick


def round_robin_chunks(picks: list[ChunkPick]) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """Merged (chunk id, source) and skipped duplicates (chunk id, source, first source)."""
    merged, dropped, seen = [], [], {}
    for i in range(max((len(p.picked) for p in picks), default=0)):
        for pick in picks:
            if i < len(pick.picked):
                cid = pick.picked[i]
                if cid in seen:
                    dropped.append((cid, pick.source, seen[cid]))
                else:
                    seen[cid] = pick.source
                    merged.append((cid, pick.source))
    return merged, dropped
