"""Mode name → its ``ModeSpec`` (function + parameter schema).

Each mode module exposes ``SPECS: list[ModeSpec]``; adding a mode means adding its module here,
never touching the UI (the app builds its sliders from the schema).
"""

from __future__ import annotations

import importlib
from functools import cache

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.spec.schema import ModeSpec

MODE_MODULES: dict[str, str] = {
    "nano.local": "graphrag_ui.retrieval.nano.local_query",
    "nano.global": "graphrag_ui.retrieval.nano.global_query",
    "nano.naive": "graphrag_ui.retrieval.nano.naive_query",
    "lightrag.local": "graphrag_ui.retrieval.lightrag.modes",
    "lightrag.global": "graphrag_ui.retrieval.lightrag.modes",
    "lightrag.hybrid": "graphrag_ui.retrieval.lightrag.modes",
    "lightrag.mix": "graphrag_ui.retrieval.lightrag.modes",
    "lightrag.naive": "graphrag_ui.retrieval.lightrag.modes",
    "lightrag.bypass": "graphrag_ui.retrieval.lightrag.modes",
    "ms.local": "graphrag_ui.retrieval.ms.local_search.search",
    "ms.global": "graphrag_ui.retrieval.ms.global_search.search",
    "ms.basic": "graphrag_ui.retrieval.ms.basic_search.search",
    "ms.drift": "graphrag_ui.retrieval.ms.drift_search.search",
}
DEFAULT_MODE = "nano.local"  # the CLI's and batch's mode when none is named
# the modes a first evaluation plan compares: the default mode and its family's plain-chunk baseline
FIRST_COMPARISON = (DEFAULT_MODE, "nano.naive")
# the reference library each family reproduces, as its authors name it (not translated)
REFERENCE_NAMES = {"nano": "nano-graphrag", "lightrag": "LightRAG", "ms": "GraphRAG"}


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
        raise UserError(
            msg("unknown mode {name}", name=repr(name)), fix=msg("modes: {modes}", modes=", ".join(MODE_MODULES))
        )
    try:
        return _module_specs(module_name)[name]
    except (ModuleNotFoundError, KeyError):
        raise UserError(msg("mode {name} is not available in this version", name=repr(name))) from None


def find_mode(name: str) -> ModeSpec | None:
    """The spec of ``name``, or None for a name that is not a mode of this version (a record from
    another version, a test's stand-in): callers then fall back to a mode's plainest behaviour."""
    try:
        return get_mode(name)
    except UserError:
        return None


def reference_name(family: str) -> str:
    """The reference library a family reproduces ("LightRAG"); the family itself when it has none."""
    return REFERENCE_NAMES.get(family, family)
