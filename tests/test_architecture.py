"""The package's layers, read from its source: imports only point down, and no module imports itself back.

Every import counts — at module level, inside a function, under ``TYPE_CHECKING`` — and so does a
module named in a string (``importlib.import_module("graphrag_ui…")``, the registry's table), so a
lazy import cannot hide an arrow. docs/architecture.md draws the same layers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "graphrag_ui"

# top to bottom, by folder; a module belongs to the first layer one of whose folders holds it
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("entry points", ("app", "pages", "graphrag_ui.__main__", "graphrag_ui.cli")),
    ("ui", ("graphrag_ui.ui",)),
    ("services", ("graphrag_ui.services", "graphrag_ui.model_calls", "graphrag_ui.evaluation", "graphrag_ui.citations")),
    ("retrieval", ("graphrag_ui.retrieval",)),
    ("index", ("graphrag_ui.index",)),
    ("base", ("graphrag_ui.base", "graphrag_ui.embedding", "graphrag_ui.model_client", "graphrag_ui")),
]  # fmt: skip

# inside retrieval: the shared machinery, the families over it, then what ties the families together
RETRIEVAL_LEVELS: list[tuple[str, tuple[str, ...]]] = [
    ("registry", ("graphrag_ui.retrieval.registry", "graphrag_ui.retrieval.prepare")),
    ("families", ("graphrag_ui.retrieval.nano", "graphrag_ui.retrieval.lightrag", "graphrag_ui.retrieval.ms")),
    ("core", ("graphrag_ui.retrieval.core", "graphrag_ui.retrieval.spec")),
]
FAMILIES = ("nano", "lightrag", "ms")


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    files = [*PACKAGE.rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]
    return {_module_name(p): p for p in files}


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module ``name`` stands for (``pkg.mod.attr`` -> ``pkg.mod``), or None outside the package."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            targets = [f"{base}.{a.name}" for a in node.names] or [base]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("graphrag_ui."):
            if node.value in modules:  # a module named in a string: imported by importlib somewhere
                targets = [node.value]
        for target in targets:
            if not target.startswith("graphrag_ui"):
                continue
            module = _resolve(target, modules)
            if module and module not in (name, "graphrag_ui"):
                found.add(module)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _sources()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _level(module: str, levels: list[tuple[str, tuple[str, ...]]]) -> int | None:
    for i, (_label, prefixes) in enumerate(levels):
        if any(module == p or module.startswith(p if p.endswith(".") else p + ".") for p in prefixes):
            return i
    return None


def upward(graph: dict[str, set[str]]) -> list[str]:
    return [
        f"{a} ({LAYERS[_level(a, LAYERS)][0]}) imports {b} ({LAYERS[_level(b, LAYERS)][0]})"
        for a, targets in graph.items()
        for b in targets
        if _level(b, LAYERS) < _level(a, LAYERS)
    ]


def family_crossings(graph: dict[str, set[str]]) -> list[str]:
    wrong = []
    for a, targets in graph.items():
        la = _level(a, RETRIEVAL_LEVELS)
        for b in targets:
            lb = _level(b, RETRIEVAL_LEVELS)
            if la is None or lb is None:
                continue
            if lb < la or (la == lb == 1 and a.split(".")[2] != b.split(".")[2]):
                wrong.append(f"{a} imports {b}")
    return wrong


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    digraph = nx.DiGraph([(a, b) for a, targets in graph.items() for b in targets])
    return [sorted(c) for c in nx.strongly_connected_components(digraph) if len(c) > 1]


GRAPH = _graph()


def test_every_module_has_a_layer() -> None:
    assert [m for m in GRAPH if _level(m, LAYERS) is None] == []


def test_imports_point_down_the_layers() -> None:
    assert upward(GRAPH) == []


def test_retrieval_families_stand_on_the_core_and_never_on_each_other() -> None:
    assert family_crossings(GRAPH) == []


def test_no_import_circles() -> None:
    assert circles(GRAPH) == []


def test_the_checks_read_real_imports_and_catch_each_fault() -> None:
    """The checks above would pass on an empty graph: they must see real edges and flag planted faults."""
    assert "graphrag_ui.retrieval.core.result" in GRAPH["graphrag_ui.retrieval.nano.local_query"]
    assert "graphrag_ui.model_client.client" in GRAPH["graphrag_ui.index.builder.llm_adapter"]
    assert "graphrag_ui.retrieval.nano.local_query" in GRAPH["graphrag_ui.retrieval.registry"]  # named in a string
    assert upward({"graphrag_ui.index.store": {"graphrag_ui.ui.shell.state"}})
    assert family_crossings({"graphrag_ui.retrieval.nano.local_query": {"graphrag_ui.retrieval.ms.text"}})
    assert family_crossings({"graphrag_ui.retrieval.core.recall": {"graphrag_ui.retrieval.nano.prep"}})
    assert circles({"graphrag_ui.ui.a": {"graphrag_ui.ui.b"}, "graphrag_ui.ui.b": {"graphrag_ui.ui.a"}})


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_opens_with_a_map_of_its_reference(family: str) -> None:
    doc = ast.get_docstring(ast.parse((PACKAGE / "retrieval" / family / "__init__.py").read_text(encoding="utf-8")))
    assert doc and len(doc.splitlines()) >= 5, f"retrieval/{family}/__init__.py needs its reference map"


def test_no_module_is_too_long_to_read_in_one_sitting() -> None:
    sizes = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in _sources().items()}
    assert {name: n for name, n in sizes.items() if n > 420} == {}


MAX_MODULES_PER_FOLDER = 15  # besides its __init__: a folder a reader takes in at a glance


def test_the_top_level_holds_only_packages() -> None:
    """``graphrag_ui/`` holds ``__init__``, ``__main__`` and folders: every module sits in the folder of its layer."""
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in {"__init__.py", "__main__.py"})
    assert loose == []


def test_no_folder_holds_more_than_a_glance_of_modules() -> None:
    crowded = {
        str(folder.relative_to(ROOT)): n
        for folder in [PACKAGE, *(d for d in PACKAGE.rglob("*") if d.is_dir() and d.name != "__pycache__")]
        if (n := len([m for m in folder.glob("*.py") if m.name != "__init__.py"])) > MAX_MODULES_PER_FOLDER
    }
    assert crowded == {}


def test_every_folder_of_the_package_is_named_by_a_layer() -> None:
    """The layers list folders: a new folder is placed in a layer by name, never by falling through to the base."""
    folders = {_module_name(d / "__init__.py") for d in PACKAGE.rglob("*") if (d / "__init__.py").exists()}
    named = [p for _label, prefixes in LAYERS for p in prefixes if p != "graphrag_ui"]
    unnamed = [f for f in sorted(folders - {"graphrag_ui"}) if not any(f == p or f.startswith(p + ".") for p in named)]
    assert unnamed == []
