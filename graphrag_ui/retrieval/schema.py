"""Parameter schemas: the UI builds its sliders from these, the CLI validates ``--param`` with them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
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


VERSION_PARAM = "version"


@dataclass(frozen=True)
class ModeSpec:
    """A retrieval mode: its name, family, function and parameter schema.

    A mode that follows several releases of its reference (LightRAG 1.4.7 | 1.5.7) lists them in
    ``versions`` with each release's own schema in ``version_params``; ``params["version"]`` picks
    one, defaulting to the release that wrote the index (``index_version``) or the first listed.
    ``params`` is then the first release's schema, ``version`` parameter first.
    """

    name: str
    family: str  # "nano" | "lightrag" | "ms"
    func: Callable[..., Any]
    params: tuple[ParamSpec, ...]
    summary: str
    uses_keywords: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    versions: tuple[str, ...] = ()
    version_params: dict[str, tuple[ParamSpec, ...]] = field(default_factory=dict)
    index_version: Callable[[Any], str] | None = None

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def default_version(self, index: Any = None) -> str:
        """The release an index was written by (when this mode follows it), else the first listed."""
        if not self.versions:
            return ""
        found = self.index_version(index) if (index is not None and self.index_version) else ""
        return found if found in self.versions else self.versions[0]

    def for_version(self, version: str) -> ModeSpec:
        """This mode with ``version``'s parameter schema, its ``version`` parameter defaulting to it."""
        if not self.versions:
            return self
        if version not in self.versions:
            from graphrag_ui.errors import UserError

            raise UserError(f"mode {self.name} has no version {version!r}", fix=f"versions: {', '.join(self.versions)}")
        choice = ParamSpec(
            VERSION_PARAM,
            "choice",
            version,
            f"which {self.family} release this mode reproduces ({' | '.join(self.versions)}); "
            "defaults to the release that wrote the index",
            choices=self.versions,
        )
        return replace(self, params=(choice, *self.version_params[version]))

    def resolve(self, given: dict[str, Any] | None, index: Any = None) -> dict[str, Any]:
        """Defaults overlaid with ``given``; unknown names are an error that lists the known ones.

        A versioned mode first settles its version (given, else the index's, else the first), then
        checks ``given`` against that version's schema.
        """
        from graphrag_ui.errors import UserError

        spec = self
        if self.versions:
            raw = (given or {}).get(VERSION_PARAM)
            version = self.params[0].coerce(raw) if raw not in (None, "") else self.default_version(index)
            spec = self.for_version(version)
        by_name = {p.name: p for p in spec.params}
        out = spec.defaults()
        for key, raw in (given or {}).items():
            if key not in by_name:
                known = ", ".join(sorted(by_name))
                where = f" (version {out[VERSION_PARAM]})" if self.versions else ""
                raise UserError(f"mode {self.name}{where} has no parameter {key!r}", fix=f"known parameters: {known}")
            out[key] = by_name[key].coerce(raw)
        return out
