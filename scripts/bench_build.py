"""Builder throughput: chunks/s of the embedder (default use-m3) and of the offline extractor.

Usage: ``python scripts/bench_build.py [--chunks 200] [--chunk-size 1200 [300 ...]] [--runs 3] [--lang en|zh|both]``

A corpus of about ``--chunks`` chunks is generated from templates (seeded, so every run sees the
same text); each stage runs ``--runs`` times and the median is printed. Goal on 2 cores: embedding
>= 50 chunks/s with use-m3.

For use-m3 the single-process path (``workers=0``, the reference) and the default path (worker
processes, :mod:`graphrag_ui.embedding.embed_workers`) run interleaved, run by run, so both see the same
machine load; the ratio of their medians, the load average, the peak memory of the parent and of
its workers, and whether the vectors are bit-identical are printed (goal: >= 2x on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import graphrag_ui  # noqa: E402,F401  (offline environment and the BLAS kernel pin first, as the CLI has them)

# isort: split
import numpy as np  # noqa: E402

from graphrag_ui.base import tokens  # noqa: E402
from graphrag_ui.embedding.embed import UseM3Embedder, get_embedder  # noqa: E402
from graphrag_ui.index.builder.chunking import split_text  # noqa: E402
from graphrag_ui.index.builder.offline import OfflineExtractor  # noqa: E402

EN_PEOPLE = ["Alice Chen", "David Okafor", "Marcus Webb", "Hana Sato", "Priya Raman", "Tomas Alvarez", "Elena Petrova"]
EN_PLACES = ["Riverton", "Kelp Bay", "Lisbon", "Osaka", "Northgate", "Mill Street", "Cape Verde"]
EN_ORGS = ["Tidewater Institute", "Halden Robotics", "Greenway Foundation", "Riverton Gazette", "Bank of England"]
EN_TEMPLATES = [
    "{p1} met {p2} at the {o1} in {l1} to discuss the survey.",
    "The {o1} opened a new office in {l1}, and {p1} was named its director.",
    "However, the funding from the {o2} arrived late, so {p2} delayed the launch.",
    "In the spring {p1} travelled from {l1} to {l2} with a team of engineers.",
    "The report praised the measurements and the careful documentation of every sensor.",
    "{p2} said the results would be published by the {o1} before the winter meeting.",
]
ZH_PEOPLE = ["张三", "李四", "王芳", "陈明", "刘洋", "赵磊"]
ZH_PLACES = ["上海", "杭州", "北京", "广州", "成都", "西湖"]
ZH_ORGS = ["北京大学", "清华大学", "阿里巴巴", "中国科学院", "新华社"]
ZH_TEMPLATES = [
    "{p1}和{p2}在{l1}的{o1}讨论了跑步记录和心率数据。",
    "{o1}在{l1}开设了新的研究中心，{p1}担任主任。",
    "去年，{p2}从{l1}到{l2}参加了关于睡眠质量的会议。",
    "报告指出，长期的跑步训练可以改善睡眠和心率。",
    "{p1}表示，{o2}将在年底前公布研究结果。",
]


def corpus(lang: str, n_chunks: int, chunk_size: int, seed: int = 7) -> list[str]:
    """Chunks of generated text, about ``n_chunks`` of them."""
    rng = random.Random(seed)
    pools = {
        "en": (EN_TEMPLATES, EN_PEOPLE, EN_PLACES, EN_ORGS, " "),
        "zh": (ZH_TEMPLATES, ZH_PEOPLE, ZH_PLACES, ZH_ORGS, ""),
    }
    langs = ["en", "zh"] if lang == "both" else [lang]
    chunks: list[str] = []
    for i, code in enumerate(langs):
        templates, people, places, orgs, joiner = pools[code]
        want = n_chunks // len(langs) + (1 if i < n_chunks % len(langs) else 0)
        sentences, text = [], ""
        while True:
            for _ in range(200):
                p1, p2 = rng.sample(people, 2)
                l1, l2 = rng.sample(places, 2)
                o1, o2 = rng.sample(orgs, 2)
                sentences.append(rng.choice(templates).format(p1=p1, p2=p2, l1=l1, l2=l2, o1=o1, o2=o2))
            text = joiner.join(sentences)
            if tokens.count(text) >= want * (chunk_size - 100) + chunk_size:
                break
        chunks.extend(split_text(text, chunk_size, 100)[:want])
    return chunks


def median_rate(label: str, n: int, runs: int, fn) -> float:
    """Median wall-clock rate; CPU seconds are printed too because the machine may be shared
    (n / CPU time is the rate one idle core would give, an estimate that load does not change)."""
    walls, cpus = [], []
    for _ in range(runs):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    med, cpu_med = statistics.median(walls), statistics.median(cpus)
    rate = n / med if med > 0 else float("inf")
    per_core = n / cpu_med if cpu_med > 0 else float("inf")
    print(
        f"{label:<34} {rate:8.1f} chunks/s   (median {med:.2f} s of {runs} runs: {', '.join(f'{t:.2f}' for t in walls)}; "
        f"CPU {cpu_med:.2f} s = {per_core:.1f} chunks per CPU-second)"
    )
    return rate


def peak_rss_mb(pid: int | str = "self") -> float:
    """VmHWM of a process (its peak resident memory), in MiB; 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of another process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def compare_embed(chunks: list[str], runs: int, reference: UseM3Embedder, fast: UseM3Embedder) -> None:
    """Single-process use-m3 vs the default worker-process path, interleaved run by run.

    Besides wall time, CPU seconds (the parent's and its workers') give the rate per CPU-second,
    which a busy machine does not change: on an idle machine the path with workers approaches
    (1 + workers) x that rate, and the ratio of the two per-CPU rates is the cost of the split.
    """
    labels = ("single process", f"+{fast.workers} worker(s)")
    walls: dict[str, list[float]] = {label: [] for label in labels}
    cpus: dict[str, list[float]] = {label: [] for label in labels}
    loads, same = [], True
    for _ in range(runs):
        vectors = []
        for label, emb in zip(labels, (reference, fast), strict=True):
            pids = [w.process.pid for w in emb._pool]
            cpu0 = time.process_time() + sum(map(cpu_seconds, pids))
            start = time.perf_counter()
            vectors.append(emb.embed(chunks))
            walls[label].append(time.perf_counter() - start)
            cpus[label].append(time.process_time() + sum(map(cpu_seconds, pids)) - cpu0)
        same &= bool(np.array_equal(*vectors))
        loads.append(os.getloadavg()[0])
    medians = {label: statistics.median(walls[label]) for label in labels}
    for label in labels:
        per_cpu = len(chunks) / statistics.median(cpus[label])
        print(
            f"embed chunks (use-m3, {label:<14}) {len(chunks) / medians[label]:8.1f} chunks/s   "
            f"(median {medians[label]:.2f} s of {runs}: {', '.join(f'{t:.2f}' for t in walls[label])}; "
            f"{per_cpu:.1f} chunks per CPU-second)"
        )
    workers = [peak_rss_mb(w.process.pid) for w in fast._pool]
    print(
        f"speed-up {medians[labels[0]] / medians[labels[1]]:.2f}x (ratio of medians)   vectors bit-identical: {same}   "
        f"load average (1 min) after each pair: {', '.join(f'{x:.1f}' for x in loads)} on {os.cpu_count()} cores   "
        f"peak RSS: parent {peak_rss_mb():.0f} MiB, workers {', '.join(f'{m:.0f}' for m in workers) or '-'} MiB"
    )


def bench(args: argparse.Namespace, chunk_size: int, embedder, reference) -> None:
    chunks = corpus(args.lang, args.chunks, chunk_size)
    n_tokens = sum(tokens.count(c) for c in chunks)
    print(f"\ncorpus: {len(chunks)} chunks ({args.lang}), {n_tokens} tokens, chunk size {chunk_size}")
    if reference is not None:
        compare_embed(chunks, args.runs, reference, embedder)
    else:
        median_rate(f"embed chunks ({embedder.id})", len(chunks), args.runs, lambda: embedder.embed(chunks))
    if args.embed_only:
        return

    def offline() -> None:
        extractor = OfflineExtractor(chunks)
        for chunk in chunks:
            extractor.extract(chunk)

    median_rate("offline extractor", len(chunks), args.runs, offline)
    for code in ("en", "zh") if args.lang == "both" else ():
        part = [c for c in chunks if (code == "zh") == any("\u4e00" <= ch <= "\u9fff" for ch in c[:50])]

        def offline_part(part=part) -> None:
            extractor = OfflineExtractor(part)
            for chunk in part:
                extractor.extract(chunk)

        median_rate(f"offline extractor, {code} only", len(part), args.runs, offline_part)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--chunk-size", type=int, nargs="+", default=[1200], help="one or more chunk sizes")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--lang", choices=["en", "zh", "both"], default="both")
    parser.add_argument("--embedder", default="use-m3")
    parser.add_argument("--embed-only", action="store_true", help="skip the offline extractor")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    embedder = get_embedder(args.embedder)
    embedder.embed(["warm up", "预热"])  # load the model
    reference = None
    if isinstance(embedder, UseM3Embedder) and embedder.workers:
        reference = UseM3Embedder(workers=0)
        reference.embed(["warm up", "预热"])
        embedder.embed(corpus("en", 8, 1200))  # start the workers and let them load their models
        for worker in embedder._pool:
            worker.wait_ready(lambda: False)
    OfflineExtractor(["张三在上海。"]).extract("张三在上海。")  # load jieba's dictionary
    print(f"embedder {embedder.id} and jieba loaded in {time.perf_counter() - started:.2f} s")
    for size in args.chunk_size:
        bench(args, size, embedder, reference)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
