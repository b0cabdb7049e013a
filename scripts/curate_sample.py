"""Build a bundled sample index from hand-curated LLM replies, and store them as the builder's cache.

Usage: ``python scripts/curate_sample.py data/sample/en [--embedder use-m3]``

A sample directory holds (language does not matter)::

    docs/*.md|*.txt          the corpus
    records/<stem>.txt       the extraction reply for that document (records + <|COMPLETE|>)
    records/<stem>.<n>.txt   instead, when a document splits into several chunks: reply for chunk n (0-based)
    records/<stem>.glean.txt optional gleaning reply (default: <|COMPLETE|> alone); ``<stem>.<n>.glean.txt`` per chunk
    records/summaries.json   optional {"ENTITY: name" | "RELATION: a -> b": description} for summary calls
    reports.json             [{"members": [sorted names], "community": id, "report": {title, summary, ...}}]

The builder is run with a scripted "LLM" that answers each prompt from these files (prompts are
recognised by the markers documented in graphrag_ui/index/builder/prompts.py). The build starts from an
empty cache every time, so the written ``llm_cache.json`` holds exactly the answers the index needs.
When a summary or a community report is not curated yet, a placeholder answer lets the build finish,
then every missing item is printed with its draft context and the script exits 1 without touching
``index/`` or ``llm_cache.json``: write the missing reports and run again.

The shipped index can then be rebuilt offline with
``python -m graphrag_ui build SAMPLE/docs --out DIR --llm replay:SAMPLE/llm_cache.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import graphrag_ui  # noqa: E402,F401  (offline environment first)
from graphrag_ui.index.builder import prompts  # noqa: E402
from graphrag_ui.index.builder.chunking import split_text  # noqa: E402
from graphrag_ui.index.builder.documents import read_documents  # noqa: E402
from graphrag_ui.index.builder.records import COMPLETE, parse_records  # noqa: E402

LLM_ID = "curated-sample"
PLACEHOLDER = "UNCURATED"


class CurationError(Exception):
    """A curated file is missing or malformed; the message says which and what to do."""


def _between(text: str, start: str, end: str) -> str | None:
    i = text.find(start + "\n")
    j = text.find("\n" + end, i)
    return text[i + len(start) + 1 : j] if i >= 0 and j >= 0 else None


def _line_value(text: str, label: str) -> str:
    for line in text.split("\n"):
        if line.startswith(label):
            return line[len(label) :].strip()
    return ""


@dataclass
class Curation:
    """Answers for one sample directory, plus what was asked but not curated."""

    sample: Path
    chunk_size: int = 1200
    chunk_overlap: int = 100
    chunk_files: dict[str, str] = field(default_factory=dict)  # chunk text -> record file stem
    reports: list[dict] = field(default_factory=list)
    summaries: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    used_reports: set[int] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)

    def load(self) -> None:
        docs = read_documents(self.sample / "docs").documents
        for doc in docs:
            stem = Path(doc.title).with_suffix("").as_posix()
            pieces = split_text(doc.text, self.chunk_size, self.chunk_overlap)
            for order, piece in enumerate(pieces):
                self.chunk_files[piece] = stem if len(pieces) == 1 else f"{stem}.{order}"
        reports_file = self.sample / "reports.json"
        if reports_file.exists():
            self.reports = json.loads(reports_file.read_text(encoding="utf-8"))
        summaries_file = self.sample / "records" / "summaries.json"
        if summaries_file.exists():
            self.summaries = json.loads(summaries_file.read_text(encoding="utf-8"))
        self.check_records()

    def check_records(self) -> None:
        """Every chunk has a record file that parses without a single warning."""
        for stem in sorted(set(self.chunk_files.values())):
            for suffix in (".txt", ".glean.txt"):
                path = self.sample / "records" / f"{stem}{suffix}"
                if not path.exists():
                    if suffix == ".txt":
                        self.problems.append(f"{path}: missing (write the extraction records of this chunk)")
                    continue
                text = path.read_text(encoding="utf-8").strip()
                if not text.endswith(COMPLETE):
                    self.problems.append(f"{path}: must end with {COMPLETE}")
                warnings: list[str] = []
                found = parse_records(text, str(path), warnings.append)
                self.problems.extend(warnings)
                if suffix == ".txt":
                    names = {e.name for e in found.entities}
                    for rel in found.relations:
                        for end in (rel.source, rel.target):
                            if end not in names:
                                self.problems.append(f"{path}: relationship end {end!r} is not an entity of this file")

    def record_reply(self, chunk: str, glean: bool) -> str:
        stem = self.chunk_files.get(chunk.strip())
        if stem is None:
            raise CurationError(f"no document of {self.sample / 'docs'} has this chunk: {chunk[:80]!r}")
        path = self.sample / "records" / f"{stem}{'.glean' if glean else ''}.txt"
        if glean and not path.exists():
            return COMPLETE
        return path.read_text(encoding="utf-8").strip()

    def summary_reply(self, body: str) -> str:
        subject = next((line for line in body.split("\n") if line.startswith(("ENTITY: ", "RELATION: "))), "")
        if subject in self.summaries:
            return self.summaries[subject]
        fragments = _between(body, "-----DESCRIPTIONS-----", "-----END DESCRIPTIONS-----") or ""
        self.missing.append(f'summary "{subject}" (add it to records/summaries.json); fragments:\n{fragments}')
        return f"{PLACEHOLDER} {subject}"

    def report_reply(self, body: str) -> str:
        community = _line_value(body, "COMMUNITY:")
        members = sorted(m.strip() for m in _line_value(body, "MEMBERS:").split("|") if m.strip())
        for i, item in enumerate(self.reports):
            if sorted(item.get("members", [])) == members:
                self.used_reports.add(i)
                return json.dumps(item["report"], ensure_ascii=False, indent=2)
        context = body[body.find("\nEntities:") :].strip() if "\nEntities:" in body else body
        self.missing.append(f"community {community} members {json.dumps(members, ensure_ascii=False)}\n{context}")
        draft = {
            "title": f"{PLACEHOLDER} {community}",
            "summary": "",
            "rating": 0.0,
            "rating_explanation": "",
            "findings": [],
        }
        return json.dumps(draft)

    def __call__(self, messages: list[dict]) -> str:
        """The scripted LLM: one answer per prompt kind, recognised by the builder's markers."""
        last = str(messages[-1]["content"])
        if last.startswith(prompts.GLEAN_TASK):
            first = str(messages[0]["content"])
            return self.record_reply(_between(first, prompts.TEXT_START, prompts.TEXT_END) or "", glean=True)
        if last.startswith(prompts.EXTRACT_TASK):
            return self.record_reply(_between(last, prompts.TEXT_START, prompts.TEXT_END) or "", glean=False)
        if last.startswith(prompts.SUMMARY_TASK):
            return self.summary_reply(last)
        if last.startswith(prompts.REPORT_TASK):
            return self.report_reply(last)
        raise CurationError(f"unexpected prompt (no known TASK marker): {last[:120]!r}")


def curate(sample: Path, embedder: str = "use-m3", chunk_size: int = 1200, chunk_overlap: int = 100) -> int:
    """Build ``sample/index`` and ``sample/llm_cache.json``; 0 when done, 1 when something is missing."""
    from graphrag_ui.index.builder.pipeline import build

    cur = Curation(sample, chunk_size, chunk_overlap)
    cur.load()
    if cur.problems:
        print("curated records have problems:\n  " + "\n  ".join(cur.problems), file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="curate-") as tmp:
        out, cache = Path(tmp) / "index", Path(tmp) / "llm_cache.json"
        warnings: list[str] = []
        build(
            sample / "docs",
            out,
            llm=cur,
            llm_id=LLM_ID,
            cache_path=cache,
            embedder=embedder,
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            on_warning=warnings.append,
        )
        for text in warnings:
            print(f"build warning: {text}", file=sys.stderr)
        unused = [i for i in range(len(cur.reports)) if i not in cur.used_reports]
        for i in unused:
            print(
                f"note: reports.json entry {i} ({cur.reports[i].get('community')}) matched no community",
                file=sys.stderr,
            )
        if warnings and not cur.missing:
            print("the curated answers must build without warnings; fix them and run again", file=sys.stderr)
            return 1
        if cur.missing:
            print(f"{len(cur.missing)} answers are not curated yet (index and cache left unchanged):\n")
            for item in cur.missing:
                print(item, end="\n\n")
            return 1
        if (sample / "index").exists():
            shutil.rmtree(sample / "index")
        shutil.copytree(out, sample / "index")
        shutil.copyfile(cache, sample / "llm_cache.json")
    print(f"built {sample / 'index'} and {sample / 'llm_cache.json'} from curated answers")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sample", type=Path, help="sample directory, e.g. data/sample/en")
    parser.add_argument("--embedder", default="use-m3", help="embedder of the shipped index (default use-m3)")
    parser.add_argument("--chunk-size", type=int, default=1200, help="must match the replay command (default 1200)")
    parser.add_argument("--chunk-overlap", type=int, default=100, help="must match the replay command (default 100)")
    args = parser.parse_args(argv)
    try:
        return curate(args.sample, args.embedder, args.chunk_size, args.chunk_overlap)
    except CurationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
