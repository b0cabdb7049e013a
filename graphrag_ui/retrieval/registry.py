"""Mode name → its ``ModeSpec`` (function + parameter schema).

Each mode module exposes ``SPECS: list[ModeSpec]``; adding a mode means adding its module here,
never touching the UI (the app builds its sliders from the schema).
"""

from __future__ import annotations

import importlib
from functools import cache

from graphrag_ui.errors import UserError
from graphrag_ui.retrieval.schema import ModeSpec

MODE_MODULES: dict[str, str] = {
    "nano.local": "graphrag_ui.retrieval.nano_local",
    "nano.global": "graphrag_ui.retrieval.nano_global",
    "nano.naive": "graphrag_ui.retrieval.nano_naive",
    "lightrag.local": "graphrag_ui.retrieval.lightrag",
    "lightrag.global": "graphrag_ui.retrieval.lightrag",
    "lightrag.hybrid": "graphrag_ui.retrieval.lightrag",
    "lightrag.mix": "graphrag_ui.retrieval.lightrag",
    "lightrag.naive": "graphrag_ui.retrieval.lightrag",
    "lightrag.bypass": "graphrag_ui.retrieval.lightrag",
    "ms.local": "graphrag_ui.retrieval.ms_local",
    "ms.global": "graphrag_ui.retrieval.ms_global",
    "ms.basic": "graphrag_ui.retrieval.ms_basic",
}


@cache
def _module_specs(module_name: str) -> dict[str, ModeSpec]:
    module = importlib.import_module(module_name)
    return {spec.name: spec for spec in module.SPECS}


def mode_names() -> list[str]:
    """Modes whose module is present in this version, in the fixed display order."""
    names = []
    for name, module_name in MODE_MODULES.items():
        try:
            if name in _module_specs(module_name):
                names.append(name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
    return names


def get_mode(name: str) -> ModeSpec:
    module_name = MODE_MODULES.get(name)
    if module_name is None:
        raise UserError(f"unknown mode {name!r}", fix=f"modes: {', '.join(MODE_MODULES)}")
    try:
        return _module_specs(module_name)[name]
    except (ModuleNotFoundError, KeyError):
        raise UserError(f"mode {name!r} is not available in this version") from None
