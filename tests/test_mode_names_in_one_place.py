"""A mode is named only inside ``graphrag_ui/retrieval/``: everything above reads facts from its spec.

A string in the code of ``graphrag_ui/`` (outside ``retrieval/``), ``pages/`` or ``app.py`` whose value
is a registered mode's name (``mode == "lightrag.bypass"``, ``DEFAULT = "nano.local"``, a table keyed
by ``"ms.global"``) is a branch, a default or a per-mode fact that belongs on the mode's ``ModeSpec``
or in ``retrieval/registry.py``. Docstrings, comments and texts that mention a mode as an example
(``--version`` help: "e.g. lightrag.local=1.4.7,1.5.7") may name modes: they document, they do not
decide. Tests, docs and the translation catalogue are outside the rule.
"""

from __future__ import annotations

import ast
from pathlib import Path

from graphrag_ui.retrieval.registry import MODE_MODULES

ROOT = Path(__file__).resolve().parent.parent


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (a module's, a class's, a function's)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def mode_names_in(source: str) -> list[tuple[int, str]]:
    """(line, mode) for each string of ``source`` (not a docstring) whose value is a mode's name."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    return sorted(
        (node.lineno, node.value.strip())
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and node.value.strip() in MODE_MODULES
    )


def _sources() -> list[Path]:
    package = ROOT / "graphrag_ui"
    above = [p for p in package.rglob("*.py") if (package / "retrieval") not in p.parents]
    return [*above, *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]


def test_no_source_above_retrieval_names_a_mode() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {mode}"
        for path in _sources()
        for line, mode in mode_names_in(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_check_sees_modes_in_code_and_lets_docstrings_and_examples_pass() -> None:
    sources = _sources()
    assert {ROOT / "app.py", ROOT / "pages" / "compare.py", ROOT / "graphrag_ui" / "services" / "readiness.py"} <= set(
        sources
    )
    assert not [p for p in sources if ROOT / "graphrag_ui" / "retrieval" in p.parents]
    planted = '''"""Runs ms.global like any mode."""
DEFAULT = "nano.local"
def f(mode):
    """Not lightrag.bypass."""
    # a comment on ms.drift
    note = f"{mode} is not lightrag.bypass, e.g. ms.basic=k"
    table = {"ms.drift": 1, " ms.basic": 2}
    return mode == "ms.global", "ms.globally", "xms.local", "lightrag.", "nano", note, table
'''
    assert mode_names_in(planted) == [(2, "nano.local"), (7, "ms.basic"), (7, "ms.drift"), (8, "ms.global")]
