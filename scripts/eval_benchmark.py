"""Build the bundled HotpotQA subset into an index with the offline extractor and score every mode on it.

    .venv/bin/python scripts/eval_benchmark.py [--out /tmp/hotpotqa-bench] [--param top_k=5,10,20,40]

1. ``data/benchmarks/hotpotqa/hotpotqa_train_30.json`` (30 HotpotQA questions in their own format, each with
   its 10 context paragraphs; CC BY-SA 4.0, see that folder's README) becomes one document per paragraph
   (``OUT/docs``, the Wikipedia title as the heading) and our JSONL gold (``OUT/questions.jsonl``): the
   supporting sentences as ``evidence``, their paragraphs as ``evidence_docs``, and the supporting titles that
   name an entity of the built index as ``evidence_entities``.
2. ``python -m graphrag_ui build OUT/docs --out OUT/index --extractor offline`` (no model).
3. ``python -m graphrag_ui eval`` over every mode the index can run, the range given (ms.local's
   ``top_k_mapped_entities`` and ms.basic's ``k`` take the same values), CSV and JSON into OUT.
4. Prints the per-config table as Markdown (for docs/evaluation.md) and the time each step took, and writes
   ``OUT/recall_vs_tokens.svg`` (evidence recall against context tokens, the Pareto frontier joined).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUBSET = ROOT / "data" / "benchmarks" / "hotpotqa" / "hotpotqa_train_30.json"
sys.path.insert(0, str(ROOT))


def doc_name(title: str) -> str:
    """A file name for a paragraph title (a slash is the only character a file name cannot hold)."""
    return re.sub(r"[/\x00]", "-", title).strip() + ".md"


def write_corpus(out: Path) -> list[dict]:
    records = json.loads(SUBSET.read_text(encoding="utf-8"))
    docs = out / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for record in records:
        for title, sentences in record["context"]:
            (docs / doc_name(title)).write_text(f"# {title}\n\n{''.join(sentences).strip()}\n", encoding="utf-8")
    return records


def write_questions(records: list[dict], index_dir: Path, out: Path) -> tuple[int, int]:
    from graphrag_ui.evaluation.lookup import lookup
    from graphrag_ui.index.store_load import load

    lk = lookup(load(index_dir))
    titles = named = 0
    with (out / "questions.jsonl").open("w", encoding="utf-8") as f:
        for r in records:
            context = {title: sentences for title, sentences in r["context"]}
            support = list(dict.fromkeys(title for title, _ in r["supporting_facts"]))
            entities = [t for t in support if lk.entities_named(t)]
            titles, named = titles + len(support), named + len(entities)
            line = {
                "id": r["_id"],
                "question": r["question"],
                "answer": r["answer"],
                "evidence": [context[t][i].strip() for t, i in r["supporting_facts"] if i < len(context[t])],
                "evidence_docs": [doc_name(t) for t in support],
                "evidence_entities": entities,
                "type": r["type"],
            }
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    return named, titles


def run(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "graphrag_ui", *argv], check=True, cwd=ROOT)
    return time.perf_counter() - start


def markdown(summary: list[dict], param: str) -> str:
    lines = [
        f"| mode | {param} | evidence recall (95 % CI) | entity recall | all evidence | context tokens | idle share | Pareto |",
        "|---|---:|---|---:|---:|---:|---:|:-:|",
    ]
    for s in summary:
        ev, en = s["evidence_recall"], s["entity_recall"]
        value = "" if s["value"] is None else (f"{s['value']}" if s["param"] == param else f"{s['param']}={s['value']}")
        ci = f"{ev['mean']:.3f} [{ev['low']:.3f}, {ev['high']:.3f}]"
        entity = "–" if en["mean"] is None else f"{en['mean']:.3f}"
        lines.append(
            f"| {s['mode']} | {value} | {ci} | {entity} | {s['all_evidence']['mean']:.3f} | "
            f"{s['context_tokens']['mean']:,.0f} | {s['unused_token_share']['mean']:.2f} | {'●' if s['pareto'] else ''} |"
        )
    return "\n".join(lines)


def svg(summary: list[dict], path: Path) -> None:
    """A small scatter of mean evidence recall against mean context tokens, the Pareto frontier joined."""
    w, h, pad = 720, 420, 60
    pts = [(max(s["context_tokens"]["mean"], 1.0), s["evidence_recall"]["mean"], s) for s in summary]
    lo = 10 ** math.floor(math.log10(min(x for x, _, _ in pts)))
    hi = 10 ** math.ceil(math.log10(max(x for x, _, _ in pts)))
    sx = lambda x: pad + (w - 2 * pad) * (math.log10(x) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))  # noqa: E731
    sy = lambda y: h - pad - (h - 2 * pad) * y  # noqa: E731
    families = {"nano": "#1f77b4", "lightrag": "#d62728", "ms": "#2ca02c"}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">']
    out.append(f'<rect width="{w}" height="{h}" fill="white"/>')
    out.append(f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="black"/>')
    out.append(f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="black"/>')
    for i in range(6):
        y = i / 5
        out.append(f'<text x="{pad - 8}" y="{sy(y) + 4:.1f}" text-anchor="end">{y:.1f}</text>')
    x = lo
    while x <= hi:
        out.append(f'<text x="{sx(x):.1f}" y="{h - pad + 16}" text-anchor="middle">{x:,.0f}</text>')
        x *= 10
    out.append(f'<text x="{w / 2}" y="{h - 15}" text-anchor="middle">mean context tokens (log scale)</text>')
    out.append(
        f'<text x="15" y="{h / 2}" transform="rotate(-90 15 {h / 2})" text-anchor="middle">mean evidence recall</text>'
    )
    front = sorted((p for p in pts if p[2]["pareto"]), key=lambda p: p[0])
    if len(front) > 1:
        line = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y, _ in front)
        out.append(f'<polyline points="{line}" fill="none" stroke="#888" stroke-dasharray="4 3"/>')
    for x, y, s in pts:
        colour = families.get(s["mode"].split(".")[0], "black")
        r = 5 if s["pareto"] else 3
        out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="{r}" fill="{colour}" fill-opacity="0.8"/>')
    for i, (x, y, s) in enumerate(front, start=1):  # numbered on the chart, named in a list (no overlap)
        label = s["mode"] + ("" if s["value"] is None else f" {s['value']}")
        out.append(f'<text x="{sx(x) - 4:.1f}" y="{sy(y) - 8:.1f}" font-weight="bold">{i}</text>')
        out.append(f'<text x="{w - pad - 150}" y="{h - pad - 14 * (len(front) - i) - 10}">{i}  {label}</text>')
    for i, (family, colour) in enumerate(families.items()):
        out.append(f'<circle cx="{w - pad - 80}" cy="{pad + 14 * i}" r="4" fill="{colour}"/>')
        out.append(f'<text x="{w - pad - 70}" y="{pad + 14 * i + 4}">{family}</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="/tmp/hotpotqa-bench", help="work folder (docs, index, results)")
    parser.add_argument("--param", default="top_k=5,10,20,40", help="the swept range (default top_k=5,10,20,40)")
    parser.add_argument("--workers", default="1", help="eval worker processes")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    records = write_corpus(out)
    index_dir = out / "index"
    if not (index_dir / "manifest.json").is_file():
        built = run(["build", str(out / "docs"), "--out", str(index_dir), "--extractor", "offline", "--quiet"])
        print(f"build: {len(records)} questions, {len(list((out / 'docs').iterdir()))} documents, {built:.1f} s")
    named, titles = write_questions(records, index_dir, out)
    print(f"gold: {named} of {titles} supporting titles name an entity of the index")
    name = args.param.split("=", 1)[0]
    argv = ["eval", "--index", str(index_dir), "--questions", str(out / "questions.jsonl"), "--param", args.param]
    argv += ["--as", "ms.local=top_k_mapped_entities", "--as", "ms.basic=k", "--workers", args.workers]
    argv += ["--csv", str(out / "rows.csv"), "--json", str(out / "rows.json")]
    took = run(argv)
    data = json.loads((out / "rows.json").read_text(encoding="utf-8"))
    configs = len(data["summary"])
    print(
        f"eval: {len(records)} questions × {configs} configs = {len(data['rows'])} rows in {took:.1f} s (wall, with start-up)"
    )
    print(markdown(data["summary"], name))
    svg(data["summary"], out / "recall_vs_tokens.svg")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
