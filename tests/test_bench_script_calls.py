"""The benchmark scripts call each other's functions (``bvr.import_ours``, ``br.synthetic_index`` …); a changed
signature broke ``bench_scale.py`` at every size without a test noticing (a TypeError after minutes of set-up).
Each such call, read from the source, must bind to the called function's signature as it is now."""

from __future__ import annotations

import ast
import importlib
import inspect
import sys

import pytest

from tests.conftest import ROOT

SCRIPTS = ROOT / "scripts"
sys.path.insert(0, str(SCRIPTS))


def script_aliases(tree: ast.Module) -> dict[str, str]:
    """Name in this file -> the scripts/ module it stands for (``import bench_vs_reference as bvr``)."""
    names = {p.stem for p in SCRIPTS.glob("*.py")}
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {a.asname or a.name: a.name for a in node.names if a.name in names}
        elif isinstance(node, ast.ImportFrom) and node.module == "scripts":
            aliases |= {a.asname or a.name: a.name for a in node.names if a.name in names}
    return aliases


def calls_into_scripts() -> list[tuple[str, int, str, str, ast.Call]]:
    found = []
    for path in sorted(SCRIPTS.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = script_aliases(tree)
        for node in ast.walk(tree):
            func = getattr(node, "func", None)
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in aliases:
                found.append((path.name, node.lineno, aliases[func.value.id], func.attr, node))
    return found


CALLS = calls_into_scripts()


def test_the_scripts_call_each_other():
    assert any(module == "bench_vs_reference" and name == "import_ours" for _, _, module, name, _ in CALLS)


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
