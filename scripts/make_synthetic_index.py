"""Write a realistic random index for load and retrieval benchmarks.

    python scripts/make_synthetic_index.py --entities 10000 --relations 30000 --chunks 5000 --out DIR \\
        [--seed 0] [--dim 256] [--vectors random|hash]

What makes it realistic: entity degrees follow a power law (endpoints drawn with Zipf-like
weights, so a few hubs have hundreds of relations and most entities a handful); every entity
sits in one community per level on 2–3 levels (level 0 groups of ~40 entities, each higher level
merging ~6 communities) with a titled report; chunks are ~300 tokens of random words from a
fixed pseudo-word vocabulary and mention the entities extracted from them; ~12 % of the
entity names are Chinese, many entities have aliases. Vectors are random unit vectors (fast,
the default) or the ``hash`` embedder's vectors of each row's embedding text (queries can then
be embedded with ``hash``); the manifest's ``embedder`` and ``vector_sources`` say which.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from graphrag_ui.base import tokens  # noqa: E402
from graphrag_ui.base.progress import TextProgress  # noqa: E402
from graphrag_ui.index import store  # noqa: E402
from graphrag_ui.index.embed_texts import texts_to_embed  # noqa: E402
from graphrag_ui.index.model import (  # noqa: E402
    Chunk,
    Community,
    Document,
    Entity,
    Index,
    Manifest,
    Relation,
    VectorTable,
)

SYLLABLES = (
    "ka lo mi ren sa tu vo bel dor fen gar hul isk jor kel lum nar oth pim quo ras sel tor ul vex wyn yor zed".split()
)
CJK = "张王李赵陈刘杨黄周吴徐孙马朱胡林郭何高罗郑梁谢宋唐许韩冯邓曹彭曾肖田董潘袁蔡蒋余于杜叶程魏苏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
TYPES = ["PERSON", "ORGANIZATION", "GEO", "EVENT", "CONCEPT", "PRODUCT"]


def vocabulary(rng: np.random.Generator, size: int = 6000) -> np.ndarray:
    words: set[str] = set()
    while len(words) < size:
        n = int(rng.integers(1, 4))
        words.add("".join(rng.choice(SYLLABLES, n)))
    return np.array(sorted(words))


def sentences(rng: np.random.Generator, vocab: np.ndarray, count: int, lo: int, hi: int) -> list[str]:
    """``count`` strings of lo..hi random words (Zipf-ish word frequencies)."""
    lengths = rng.integers(lo, hi + 1, count)
    weights = 1.0 / np.arange(1, len(vocab) + 1) ** 0.9
    idx = rng.choice(len(vocab), int(lengths.sum()), p=weights / weights.sum())
    words = vocab[idx].tolist()
    out, pos = [], 0
    for n in lengths.tolist():
        out.append(" ".join(words[pos : pos + n]))
        pos += n
    return out


def entity_names(rng: np.random.Generator, vocab: np.ndarray, n: int) -> list[str]:
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < n:
        if rng.random() < 0.12:
            name = "".join(rng.choice(list(CJK), int(rng.integers(2, 4))))
        else:
            name = " ".join(w.upper() for w in rng.choice(vocab, int(rng.integers(1, 3))))
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names


def power_law_pairs(rng: np.random.Generator, n: int, m: int, alpha: float = 1.1) -> list[tuple[int, int]]:
    """``m`` distinct undirected pairs without self-loops, endpoints weighted ~ rank^-alpha."""
    if n < 2:
        return []
    m = min(m, n * (n - 1) // 2)
    weights = 1.0 / np.arange(1, n + 1) ** alpha
    weights = rng.permutation(weights / weights.sum())
    pairs: dict[tuple[int, int], None] = {}
    while len(pairs) < m:
        need = int((m - len(pairs)) * 1.3) + 16
        a, b = rng.choice(n, need, p=weights), rng.integers(0, n, need)  # one hub-weighted end, one uniform
        for x, y in zip(a.tolist(), b.tolist(), strict=True):
            if x != y and (y, x) not in pairs:
                pairs[(x, y)] = None
                if len(pairs) == m:
                    break
    return list(pairs)


def communities_for(rng, names: list[str], vocab, levels: int) -> tuple[list[Community], list[list[tuple[int, str]]]]:
    n = len(names)
    membership: list[list[tuple[int, str]]] = [[] for _ in range(n)]
    order = rng.permutation(n)
    groups = [order[i : i + 40].tolist() for i in range(0, n, 40)]  # level 0: entity indices
    comms: list[Community] = []
    level_groups = [groups]
    for _ in range(1, levels):
        prev = level_groups[-1]
        merged = [list(range(i, min(i + 6, len(prev)))) for i in range(0, len(prev), 6)]
        level_groups.append(merged)
    # members of a higher community = union of its children's members
    members_at: list[list[list[int]]] = [groups]
    for lv in range(1, levels):
        members_at.append([[e for child in grp for e in members_at[lv - 1][child]] for grp in level_groups[lv]])
    ids_at = [[f"L{lv}-C{i}" for i in range(len(members_at[lv]))] for lv in range(levels)]
    for lv in range(levels):
        titles = sentences(rng, vocab, len(members_at[lv]), 2, 4)
        reports = sentences(rng, vocab, len(members_at[lv]), 120, 220)
        for i, mem in enumerate(members_at[lv]):
            parent = None
            if lv + 1 < levels:
                parent = ids_at[lv + 1][i // 6]
            cid = ids_at[lv][i]
            for e in mem:
                membership[e].append((lv, cid))
            rating = round(float(rng.uniform(1, 10)), 1)
            report = f"# {titles[i].title()}\n\n{reports[i]}"
            comms.append(Community(cid, lv, parent, titles[i].title(), report, rating, [names[e] for e in mem]))
    return comms, membership


def make_index(n_ent: int, n_rel: int, n_chunks: int, seed: int, dim: int, vectors: str) -> Index:
    rng = np.random.default_rng(seed)
    vocab = vocabulary(rng)
    n_docs = max(1, n_chunks // 10)
    names = entity_names(rng, vocab, n_ent)
    chunk_ids = [f"chunk-{i:07d}" for i in range(n_chunks)]
    src = [
        rng.choice(n_chunks, int(rng.integers(1, 4)), replace=False).tolist() if n_chunks else [] for _ in range(n_ent)
    ]
    mentions: list[list[str]] = [[] for _ in range(n_chunks)]
    for e, cs in enumerate(src):
        for c in cs:
            mentions[c].append(names[e])
    bodies = sentences(rng, vocab, n_chunks, 80, 95)  # pseudo-words are ~3.3 tokens: ~300 tokens a chunk
    texts = [" ".join([body, *m]) for body, m in zip(bodies, mentions, strict=True)]
    chunks = [
        Chunk(chunk_ids[i], f"doc-{i // 10:06d}", texts[i], i % 10, tokens.count(texts[i])) for i in range(n_chunks)
    ]
    documents = [
        Document(f"doc-{d:06d}", f"Document {d}", "\n".join(c.text for c in chunks[d * 10 : d * 10 + 10]))
        for d in range(n_docs)
    ]
    levels = 3 if n_ent >= 2000 else 2
    communities, membership = communities_for(rng, names, vocab, levels)
    descriptions = sentences(rng, vocab, n_ent, 15, 45)
    types = rng.choice(TYPES, n_ent).tolist()
    entities = []
    for i, name in enumerate(names):
        aliases = []
        if rng.random() < 0.3:
            aliases.append(name.title() if name.isascii() else name[1:] or name)
        if rng.random() < 0.1 and name.isascii():
            aliases.append("".join(w[0] for w in name.split()) + str(i))
        entities.append(
            Entity(
                f"ent-{i:07d}",
                name,
                types[i],
                descriptions[i],
                aliases=aliases,
                source_chunk_ids=[chunk_ids[c] for c in src[i]],
                occurrence=len(src[i]),
                communities=membership[i],
            )
        )
    pairs = power_law_pairs(rng, n_ent, n_rel)
    rel_desc = sentences(rng, vocab, len(pairs), 10, 30)
    keywords = sentences(rng, vocab, len(pairs), 1, 3)
    weights = rng.uniform(1, 10, len(pairs)).round(1).tolist()
    relations = [
        Relation(
            f"rel-{k:07d}",
            names[a],
            names[b],
            rel_desc[k],
            keywords=keywords[k].replace(" ", ","),
            weight=weights[k],
            source_chunk_ids=[chunk_ids[c] for c in src[a][:1] + src[b][:1]],
        )
        for k, (a, b) in enumerate(pairs)
    ]
    embedder = "hash" if vectors == "hash" else f"synthetic-random-{dim}"
    manifest = Manifest(
        source="build",
        embedder=embedder,
        dimension=256 if vectors == "hash" else dim,
        settings={
            "synthetic": {"seed": seed, "entities": n_ent, "relations": n_rel, "chunks": n_chunks, "levels": levels}
        },
        title=f"Synthetic {n_ent} entities",
        language="synthetic",
    )
    index = Index(manifest, documents, chunks, entities, relations, communities)
    index.vectors = make_vectors(index, rng, dim, vectors)
    index.manifest.vector_sources = {
        k: ("hash embedder of the row's embedding text" if vectors == "hash" else "random unit vectors")
        for k in index.vectors
    }
    return index


def make_vectors(index: Index, rng: np.random.Generator, dim: int, how: str) -> dict[str, VectorTable]:
    out = {}
    if how == "hash":
        from graphrag_ui.embedding.embed import get_embedder

        embedder = get_embedder("hash")
        for kind, (ids, texts) in texts_to_embed(index).items():
            out[kind] = VectorTable(ids, embedder.embed(texts))
        return out
    for kind, rows in [
        ("entities", index.entities),
        ("relations", index.relations),
        ("chunks", index.chunks),
        ("communities", index.communities),
    ]:
        m = rng.standard_normal((len(rows), dim), dtype=np.float32)
        m /= np.linalg.norm(m, axis=1, keepdims=True).clip(1e-12)
        out[kind] = VectorTable([r.id for r in rows], m)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entities", type=int, default=10000)
    ap.add_argument("--relations", type=int, default=30000)
    ap.add_argument("--chunks", type=int, default=5000)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--vectors", choices=["random", "hash"], default="random")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    index = make_index(args.entities, args.relations, args.chunks, args.seed, args.dim, args.vectors)
    t1 = time.perf_counter()
    # chroma's HNSW graph is not used by retrieval: build the lightest one (most of the save time)
    store.save(index, args.out, TextProgress(), chroma=False)  # benchmarks read the .npy mirror only
    t2 = time.perf_counter()
    print(
        f"{args.out}: {index.counts()} — generated in {t1 - t0:.1f} s, saved in {t2 - t1:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
