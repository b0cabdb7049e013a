"""Which sections of each golden case's context have rows: the data of test_golden_coverage.py.

Every mode's context is a sequence of sections (GraphRAG's Reports / Entities / Relationships / Sources
tables, LightRAG's Entities / Relations / Document Chunks / Reference Document List blocks, the map
batches and the reduce of the map-reduce modes, DRIFT's primer folds and local steps). A golden only
proves a section byte for byte when the reference wrote rows into it, and proves the budget cut only
when a budget left it empty. ``coverage()`` reads every golden file and says, per mode and section,
which cases exercise it with rows and which leave it empty.

Run ``.venv/bin/python tests/support/golden_sections.py`` for the table.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from itertools import chain
from pathlib import Path

GOLDENS = Path(__file__).resolve().parents[1] / "goldens"

ROWS, EMPTY = "rows", "empty"
MS_LOCAL = ("Reports", "Entities", "Relationships", "Claims", "Sources")
DRIFT_LOCAL = ("local Reports", "local Entities", "local Relationships", "local Sources")
KG = ("Entities", "Relations", "Document Chunks")

# mode -> the sections its reference writes (the golden folders that hold the mode, per release)
SECTIONS: dict[str, tuple[str, ...]] = {
    "nano.local": ("Reports", "Entities", "Relationships", "Sources"),
    "nano.global": ("map batches", "reduce"),
    "nano.naive": ("Sources",),
    **{f"lightrag.{m}@1.4.7": KG for m in ("local", "global", "hybrid", "mix")},
    "lightrag.naive@1.4.7": ("Document Chunks",),
    **{f"lightrag.{m}@1.5.7": (*KG, "Reference Document List") for m in ("local", "global", "hybrid", "mix")},
    "lightrag.naive@1.5.7": ("Document Chunks", "Reference Document List"),
    **{f"ms.local@{v}": MS_LOCAL for v in ("2.3.0", "2.7.0", "3.3.0")},
    **{f"ms.global@{v}": ("map batches", "reduce") for v in ("2.3.0", "2.7.0", "3.3.0")},
    **{f"ms.basic@{v}": ("Sources",) for v in ("2.3.0", "2.7.0", "3.3.0")},
    **{f"ms.drift@{v}": ("primer folds", "local steps", *DRIFT_LOCAL, "reduce") for v in ("2.7.0", "3.3.0")},
}

MS_FOLDERS = {"graphrag-2.3": "2.3.0", "graphrag-2": "2.7.0", "graphrag-3": "3.3.0"}


def _jsonl(path: Path) -> Iterator[dict]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def _label(case: dict, *keys: str) -> str:
    """``"<corpus>: <what the case varies>"``: the corpus comes first (``corpus_of``)."""
    return f"{case['corpus']}: " + " ".join(str(case.get(k)) for k in keys if case.get(k) not in (None, "", {}))


def corpus_of(label: str) -> str:
    return label.split(":", 1)[0]


# --- GraphRAG tables: "-----Name-----\nheader\nrow\n...", sections joined by blank lines --------------


def ms_tables(context: str) -> dict[str, bool]:
    """Section name -> has rows. A table ends at the next ``-----Name-----`` line; the header is its first
    line. A quoted cell may hold blank lines, so rows are whatever non-blank text follows the header."""
    out: dict[str, bool] = {}
    parts = re.split(r"^-----(\w[\w ]*)-----\n", context, flags=re.M)
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        out[name] = body.split("\n", 1)[1].strip() != "" if "\n" in body else False
    return out


def _ms_local_sections(context: str) -> dict[str, bool]:
    tables = ms_tables(context)
    # the claims table: "\n\n" after the relationships (empty covariates) — never rows in these indexes
    return {name: tables.get(name, False) for name in ("Reports", "Entities", "Relationships", "Sources")} | {
        "Claims": "-----claims-----" in context
    }


def ms_cases() -> Iterator[tuple[str, str, dict]]:
    for folder, version in MS_FOLDERS.items():
        for case in _jsonl(GOLDENS / folder / "cases.jsonl"):
            yield f"ms.local@{version}", _label(case, "query", "params"), _ms_local_sections(case["context"])
        for case in chain(
            *(_jsonl(GOLDENS / folder / n) for n in ("global_cases.jsonl", "global_sections_cases.jsonl"))
        ):
            label = _label(case, "query", "params")
            if case["mode"] == "global":
                batches = any(ms_tables("-----b-----\n" + b).get("b") for b in case["batches"])
                yield f"ms.global@{version}", label, {"map batches": batches, "reduce": bool(case["reduce_context"])}
            elif case["mode"] == "basic":
                yield f"ms.basic@{version}", label, {"Sources": bool(case["ids"])}
        for name in ("drift_cases.jsonl", "drift_sections_cases.jsonl") if version != "2.3.0" else ():
            for case in _jsonl(GOLDENS / folder / name):
                if case["mode"] == "drift":
                    yield f"ms.drift@{version}", _label(case, "query", "seed", "settings"), _drift(case)


def _drift(case: dict) -> dict[str, set[bool]]:
    """A DRIFT run holds several folds and local contexts: a section counts once as "rows" if any of them has
    rows and once as "empty" if any of them is empty (a run can count for both)."""
    answered = any(n["answer"] for n in (case["state"] or {}).get("nodes", []))  # the reduce's list of answers
    out: dict[str, set[bool]] = {
        "primer folds": {bool(f["text"].strip()) for f in case["folds"]} or {False},
        "local steps": {bool(case["local_contexts"])},
        "reduce": {bool(case["reduce_messages"]) and answered},
    }
    for name in ("Reports", "Entities", "Relationships", "Sources"):
        states = {ms_tables(c["context"]).get(name, False) for c in case["local_contexts"]}
        if states:  # no local step ran: its sections are not "left empty by a budget"
            out[f"local {name}"] = states
    return out


# --- nano-graphrag -------------------------------------------------------------------------------------


def nano_cases() -> Iterator[tuple[str, str, dict[str, bool]]]:
    for case in _jsonl(GOLDENS / "nano" / "cases.jsonl"):
        if case["context"] is None:  # nano returns None: no entity above the threshold
            continue
        found = {
            name: body.split("\n", 1)[1].strip() != ""
            for name, body in re.findall(r"-----(\w+)-----\n```csv\n(.*?)```", case["context"], re.S)
        }
        yield "nano.local", _label(case, "name"), found
    for case in _jsonl(GOLDENS / "nano" / "global.jsonl"):
        batches = any(c["context"].strip().count("\n") for c in case["map_calls"])
        yield "nano.global", _label(case, "name"), {"map batches": batches, "reduce": bool(case["kept_points"])}
    for case in _jsonl(GOLDENS / "nano" / "naive.jsonl"):
        if not case["is_fail_response"]:
            yield "nano.naive", _label(case, "name"), {"Sources": bool(case["selected_chunks"])}


# --- LightRAG ------------------------------------------------------------------------------------------

NO_CONTEXT = "[no-context]"
LIGHTRAG_147 = {"Entities(KG)": "Entities", "Relationships(KG)": "Relations", "Document Chunks(DC)": "Document Chunks"}
LIGHTRAG_157 = {
    "Knowledge Graph Data (Entity)": "Entities",
    "Knowledge Graph Data (Relationship)": "Relations",
    "Document Chunks": "Document Chunks",
    "Reference Document List": "Reference Document List",
}


def _fenced(body: str) -> str:
    m = re.search(r"```(?:json)?\n(.*?)```", body, re.S)
    return m.group(1).strip() if m else ""


def lightrag_147(context: str) -> dict[str, bool]:
    out = {}
    parts = re.split(r"^-{3,5}([\w ]+\((?:KG|DC)\))-{3,5}\n", context, flags=re.M)
    for head, body in zip(parts[1::2], parts[2::2], strict=True):
        out[LIGHTRAG_147[head]] = _fenced(body) not in ("", "[]")
    return out


def lightrag_157(context: str) -> dict[str, bool]:
    out = {}
    parts = re.split(
        r"^(Knowledge Graph Data \(\w+\)|Document Chunks|Reference Document List)[^\n]*:\n", context, flags=re.M
    )
    for head, body in zip(parts[1::2], parts[2::2], strict=True):
        out[LIGHTRAG_157[head]] = _fenced(body) not in ("", "[]")
    return out


def lightrag_cases() -> Iterator[tuple[str, str, dict[str, bool]]]:
    for version, read in (("1.4.7", lightrag_147), ("1.5.7", lightrag_157)):
        for case in _jsonl(GOLDENS / f"lightrag-{version}" / "cases.jsonl"):
            context = case["context"]
            if case["mode"] == "bypass" or not context or context.endswith(NO_CONTEXT):
                continue  # no context at all: LightRAG's fail response, not a section left empty
            yield f"lightrag.{case['mode']}@{version}", _label(case, "query", "params", "note"), read(context)


def all_cases() -> Iterator[tuple[str, str, dict]]:
    yield from nano_cases()
    yield from lightrag_cases()
    yield from ms_cases()


def coverage(cases: list[tuple[str, str, dict]] | None = None) -> dict[str, dict[str, dict[str, int]]]:
    """mode -> section -> {"rows": n, "empty": n} over every golden case that produced a context (a section
    absent from a context counts as empty; a DRIFT run whose steps differ counts for both)."""
    table = {mode: {s: {ROWS: 0, EMPTY: 0} for s in sections} for mode, sections in SECTIONS.items()}
    for mode, _, found in all_cases() if cases is None else cases:
        for section in SECTIONS[mode]:
            if section in found or not mode.startswith("ms.drift"):
                states = found.get(section, False)
                for state in states if isinstance(states, set) else {states}:
                    table[mode][section][ROWS if state else EMPTY] += 1
    return table


if __name__ == "__main__":
    cases = list(all_cases())
    by_corpus = {lang: coverage([c for c in cases if corpus_of(c[1]) == lang]) for lang in ("en", "zh")}
    print("cases with rows / left empty (en + zh)")
    for mode, sections in coverage(cases).items():
        cells = ", ".join(
            f"{s} {c[ROWS]}/{c[EMPTY]} ({'+'.join(str(by_corpus[lang][mode][s][ROWS]) for lang in ('en', 'zh'))}"
            f" / {'+'.join(str(by_corpus[lang][mode][s][EMPTY]) for lang in ('en', 'zh'))})"
            for s, c in sections.items()
        )
        print(f"{mode:22} {cells}")
