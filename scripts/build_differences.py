"""Assemble docs/differences.md from the per-area files in docs/differences/ (run after editing one).

Each area keeps its own file so engineers can edit in parallel; analysts read one document.
tests/test_docs.py fails when docs/differences.md is out of date.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORDER = ["nano", "lightrag", "ms", "recall", "llm", "build", "store", "ui"]
HEADER = """# Deliberate differences from the reference systems and the seeds

Every mode named after a reference system reproduces that system's context byte for byte on the
golden fixtures (tests/goldens/, made by the real libraries). The differences below are on purpose:
a reference bug we fix, or a rule of the seeds that the library lacks (the seed wins). Each names
the golden case or test that shows it. Sections are assembled from docs/differences/*.md by
scripts/build_differences.py.
"""


def assemble() -> str:
    folder = ROOT / "docs" / "differences"
    names = sorted(p.stem for p in folder.glob("*.md"))
    ordered = [n for n in ORDER if n in names] + [n for n in names if n not in ORDER]
    parts = [HEADER]
    for name in ordered:
        text = (folder / f"{name}.md").read_text(encoding="utf-8").strip()
        parts.append(re.sub(r"^(#+) ", r"#\1 ", text, flags=re.M))  # one level below the document title
    return "\n\n".join(parts) + "\n"


if __name__ == "__main__":
    target = ROOT / "docs" / "differences.md"
    target.write_text(assemble(), encoding="utf-8")
    print(f"wrote {target.relative_to(ROOT)}", file=sys.stderr)
