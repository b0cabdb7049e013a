"""Shared pieces of the LightRAG golden harnesses (1.4.7 and 1.5.x): corpus, venv, fake LLM data.

Runs under the project's own python (to create the throwaway venv and re-exec) and under the
golden venv (to build and query). It needs only the standard library and numpy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("LIGHTRAG_GOLDEN_CORPUS", ROOT / "scripts" / "goldens" / "corpus"))
TIKTOKEN_DIR = ROOT / ".venv/lib/python3.11/site-packages/litellm/litellm_core_utils/tokenizers"
FROZEN_TIME = 1_700_000_000  # every timestamp LightRAG writes, so regenerating gives the same files


def ensure_venv(venv: Path, requirements: list[str], marker: str) -> None:
    """Re-exec this script inside ``venv`` (created on first use) with a pinned hash seed."""
    if os.environ.get(marker) == "1":
        return
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.check_call([sys.executable, "-m", "venv", str(venv)])
        subprocess.check_call([str(python), "-m", "pip", "install", "-q", *requirements])
    env = dict(os.environ, PYTHONHASHSEED="0", TIKTOKEN_CACHE_DIR=str(TIKTOKEN_DIR), **{marker: "1"})
    env.setdefault("LOG_LEVEL", "WARNING")
    os.execve(str(python), [str(python), *sys.argv], env)


def hash_embedder():
    """The project's deterministic ``hash`` embedder (numpy only)."""
    sys.path.insert(0, str(ROOT))
    from graphrag_ui.embedding.embed import HashEmbedder

    return HashEmbedder()


def load_corpus(lang: str) -> tuple[list[tuple[str, str]], dict]:
    """[(file name, text)] sorted by name, and extraction data keyed by file name."""
    folder = CORPUS / lang
    docs = [(p.name, p.read_text(encoding="utf-8")) for p in sorted((folder / "docs").glob("*.txt"))]
    raw = json.loads((folder / "extraction.json").read_text(encoding="utf-8"))
    extraction = {Path(k).name: v for k, v in raw.items()}
    return docs, extraction


def wait_for_corpus(timeout_s: float = 3600) -> None:
    start = time.time()
    while not all((CORPUS / lang / "extraction.json").exists() for lang in ("en", "zh")):
        if time.time() - start > timeout_s:
            raise SystemExit(f"corpus not found under {CORPUS}")
        print(f"waiting for the shared corpus in {CORPUS} ...", flush=True)
        time.sleep(30)


def flat(text: str) -> str:
    """Records are one line each in both record formats."""
    return " ".join(str(text).split())


def records_for_chunk(chunk: str, docs: list[tuple[str, str]], extraction: dict) -> tuple[list[dict], list[dict]]:
    """Entities and relations of the document a chunk came from that belong in this chunk.

    A whole-document chunk gets everything. A paragraph chunk gets the entities it names, the
    relations whose two ends it names, and (in the document's first chunk) whatever no chunk names,
    so every record is extracted exactly once per document and at least once overall.
    """
    text = chunk.strip()
    name, doc = next(((n, d) for n, d in docs if text in d), (None, None))
    if name is None:
        raise RuntimeError(f"chunk not found in any document: {text[:60]!r}")
    data = extraction.get(name, {"entities": [], "relations": []})
    paragraphs = [p.strip() for p in doc.split("\n\n") if p.strip()]
    if len(paragraphs) <= 1 or text == doc.strip():
        return list(data["entities"]), list(data["relations"])
    first = text == paragraphs[0] or doc.strip().startswith(text)

    def named_in(para: str, ent: str) -> bool:
        return ent in para

    ents, rels = [], []
    wanted = set()
    for rel in data["relations"]:
        here = named_in(text, rel["source"]) and named_in(text, rel["target"])
        anywhere = any(named_in(p, rel["source"]) and named_in(p, rel["target"]) for p in paragraphs)
        if here or (first and not anywhere):
            rels.append(rel)
            wanted.update((rel["source"], rel["target"]))
    for ent in data["entities"]:
        anywhere = any(named_in(p, ent["name"]) for p in paragraphs)
        if named_in(text, ent["name"]) or ent["name"] in wanted or (first and not anywhere):
            ents.append(ent)
    return ents, rels


def copy_workdir(src: Path, dest: Path, skip: tuple[str, ...] = ("kv_store_llm_response_cache.json",)) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for path in sorted(src.iterdir()):
        if path.is_file() and path.name not in skip:
            shutil.copy2(path, dest / path.name)


def freeze_time(modules: list) -> None:
    """Stop LightRAG's clocks at FROZEN_TIME so regenerating gives the same files.

    ``time.time`` is replaced process-wide (the golden child process does nothing else; some
    LightRAG modules import ``time`` inside functions), and every ``datetime`` class a LightRAG
    module imported is replaced by one whose ``now()`` is fixed.
    """
    import datetime as dt
    import time as real_time

    real_time.time = lambda: float(FROZEN_TIME)
    ticks = iter(range(1, 1 << 62))  # 1.5 orders vector writes by time_ns: keep it increasing
    real_time.time_ns = lambda: FROZEN_TIME * 1_000_000_000 + next(ticks)

    class FrozenDatetime(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return cls.fromtimestamp(FROZEN_TIME, tz or dt.UTC)

    for module in modules:
        if getattr(module, "datetime", None) is dt.datetime:
            module.datetime = FrozenDatetime


def questions(lang: str, extraction: dict) -> list[dict]:
    """Deterministic questions from the corpus: each names two related entities and a theme."""
    rels = [r for doc in sorted(extraction) for r in extraction[doc]["relations"]]
    out = []
    step = max(1, len(rels) // 6)
    for i in range(0, len(rels), step):
        rel = rels[i]
        kws = [k.strip() for k in re.split(r"[,，、;]", rel.get("keywords", "")) if k.strip()] or ["relationship"]
        src, tgt = rel["source"], rel["target"]
        text = f"{src}和{tgt}之间有什么关系？" if lang == "zh" else f"How is {src} related to {tgt}?"
        out.append({"query": text, "hl": kws[:2], "ll": [src, tgt]})
        if len(out) == 6:
            break
    return out


def run_corpora(script: str, out: Path, one_corpus) -> list[dict]:
    """Run ``one_corpus(lang, workdir)`` for en and zh, each in its own process (LightRAG keeps
    storages in process-wide namespaces, so two corpora must not share one); the parent collects
    the cases into ``out/cases.jsonl`` and returns them, a child copies its working dir to ``out/<lang>``."""
    import asyncio
    import tempfile

    if len(sys.argv) == 3 and sys.argv[1] == "--lang":  # child
        lang = sys.argv[2]
        with tempfile.TemporaryDirectory() as tmp:
            workdir = Path(tmp) / "wd"
            workdir.mkdir()
            cases = asyncio.run(one_corpus(lang, workdir))
            copy_workdir(workdir, out / lang)
        (out / f".cases-{lang}.json").write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
        return []
    wait_for_corpus()
    out.mkdir(parents=True, exist_ok=True)
    all_cases = []
    for lang in ("en", "zh"):
        subprocess.check_call([sys.executable, script, "--lang", lang])
        part = out / f".cases-{lang}.json"
        all_cases += json.loads(part.read_text(encoding="utf-8"))
        part.unlink()
    with (out / "cases.jsonl").open("w", encoding="utf-8") as fh:
        for case in all_cases:
            fh.write(json.dumps(case, ensure_ascii=False) + "\n")
    return all_cases
