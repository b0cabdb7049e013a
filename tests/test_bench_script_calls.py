"""The benchmark scripts call each other's functions (``bvr.import_ours``, ``br.synthetic_index`` …); a changed
signature broke ``bench_scale.py`` at every size without a test noticing (a TypeError after minutes of set-up).
Each such call (``bvr.f(...)``, or ``f(...)`` after ``from bench_ui import f``), read from the source, must
bind to the called function's signature as it is now."""

from __future__ import annotations

import ast
import importlib
import inspect
import sys

import pytest

from tests.conftest import ROOT

SCRIPTS = ROOT / "scripts"
sys.path.insert(0, str(SCRIPTS))


def script_names(tree: ast.Module) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """Names in this file that stand for scripts/ modules (``import bench_vs_reference as bvr``) and for their
    functions (``from bench_ui import _open``, ``from scripts.ui_floor import floor_app``)."""
    names = {p.stem for p in SCRIPTS.glob("*.py")}
    modules: dict[str, str] = {}
    functions: dict[str, tuple[str, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.asname or a.name: a.name for a in node.names if a.name in names}
        elif isinstance(node, ast.ImportFrom) and node.module == "scripts":
            modules |= {a.asname or a.name: a.name for a in node.names if a.name in names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            module = node.module.removeprefix("scripts.")
            if module in names:
                functions |= {a.asname or a.name: (module, a.name) for a in node.names}
    return modules, functions


def calls_into_scripts() -> list[tuple[str, int, str, str, ast.Call]]:
    found = []
    for path in sorted(SCRIPTS.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules, functions = script_names(tree)
        for node in ast.walk(tree):
            func = getattr(node, "func", None)
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in modules:
                found.append((path.name, node.lineno, modules[func.value.id], func.attr, node))
            elif isinstance(func, ast.Name) and func.id in functions:
                found.append((path.name, node.lineno, *functions[func.id], node))
    return found


CALLS = calls_into_scripts()


def test_the_scripts_call_each_other():
    called = {(module, name) for _, _, module, name, _ in CALLS}
    assert {("bench_vs_reference", "import_ours"), ("bench_ui", "_open"), ("ui_floor", "floor_app")} <= called


@pytest.mark.parametrize("where, line, module, name, call", CALLS, ids=[f"{c[0]}:{c[1]}:{c[3]}" for c in CALLS])
def test_each_call_binds_to_the_functions_signature(where, line, module, name, call):
    target = getattr(importlib.import_module(module), name, None)
    assert target is not None, f"{where}:{line} calls {module}.{name}, which is gone"
    if not callable(target):
        return
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):  # a builtin without one
        return
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return  # *args / **kwargs: their length is not in the source
    positional = [object()] * len(call.args)
    keywords = {k.arg: object() for k in call.keywords}
    try:
        signature.bind(*positional, **keywords)
    except TypeError as error:
        pytest.fail(f"{where}:{line}: {module}.{name}{signature} cannot take this call: {error}")
