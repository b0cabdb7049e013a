"""The documents analysts read stay in step with the code base."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_differences_document_is_assembled_from_every_area():
    spec = importlib.util.spec_from_file_location("build_differences", ROOT / "scripts" / "build_differences.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    current = (ROOT / "docs" / "differences.md").read_text(encoding="utf-8")
    assert current == module.assemble(), "run: .venv/bin/python scripts/build_differences.py"


def test_readme_names_exactly_the_ci_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in readme and "make run" in readme
    commands = [line.strip() for line in ci.splitlines() if line.strip() and not line.startswith("#")]
    assert commands[-1] == "make test"


def test_readme_starts_with_a_short_walkthrough_and_says_where_imports_go():
    """Issue 29: a new analyst met 400 lines of reference before any walkthrough; `make run` prints an
    address (it opens nothing), the port is PORT=, imported indexes are written under the app's home."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first, walk, reference = (
        readme.index(h) for h in ("## Two commands", "## First five minutes", "## What you can do")
    )
    assert first < walk < reference and readme[walk:reference].count("\n") <= 25
    assert "PORT=" in readme and "opens the app" not in readme
    assert "~/.graphrag_ui/indexes/" in readme[walk:reference]
