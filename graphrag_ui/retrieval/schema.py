"""Parameter schemas: the UI builds its sliders from these, the CLI validates ``--param`` with them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ParamSpec:
    """One tunable parameter, named as the reference system names it."""

    name: str
    type: str  # "int" | "float" | "bool" | "choice" | "str"
    default: Any
    help: str
    min: float | None = None
    max: float | None = None
    step: float | None = None
    choices: tuple[str, ...] = ()

    def coerce(self, raw: Any) -> Any:
        """Turn a CLI/URL string (or a JSON value) into this parameter's type, within bounds."""
        from graphrag_ui.errors import UserError

        try:
            if self.type == "int":
                value: Any = int(float(raw)) if isinstance(raw, str) else int(raw)
            elif self.type == "float":
                value = float(raw)
            elif self.type == "bool":
                value = raw if isinstance(raw, bool) else str(raw).strip().lower() in {"1", "true", "yes", "on"}
            else:
                value = str(raw)
        except (TypeError, ValueError):
            raise UserError(f"parameter {self.name} expects {self.type}, got {raw!r}") from None
        if self.type == "choice" and value not in self.choices:
            raise UserError(f"parameter {self.name} must be one of {', '.join(self.choices)}, got {value!r}")
        if self.type in {"int", "float"}:
            if self.min is not None and value < self.min:
                raise UserError(f"parameter {self.name}={value} is below its minimum {self.min}")
            if self.max is not None and value > self.max:
                raise UserError(f"parameter {self.name}={value} is above its maximum {self.max}")
        return value


@dataclass(frozen=True)
class ModeSpec:
    """A retrieval mode: its name, family, function and parameter schema."""

    name: str
    family: str  # "nano" | "lightrag" | "ms"
    func: Callable[..., Any]
    params: tuple[ParamSpec, ...]
    summary: str
    uses_keywords: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def resolve(self, given: dict[str, Any] | None) -> dict[str, Any]:
        """Defaults overlaid with ``given``; unknown names are an error that lists the known ones."""
        from graphrag_ui.errors import UserError

        by_name = {p.name: p for p in self.params}
        out = self.defaults()
        for key, raw in (given or {}).items():
            if key not in by_name:
                known = ", ".join(sorted(by_name))
                raise UserError(f"mode {self.name} has no parameter {key!r}", fix=f"known parameters: {known}")
            out[key] = by_name[key].coerce(raw)
        return out
