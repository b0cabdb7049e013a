"""What an evaluation runs: modes × versions × the values of one parameter, each a ``Config``.

A mode that lacks the swept parameter runs once at its defaults (``Config.value`` is None) and the plan
says so in ``notes``; ``param_names`` lets one range drive differently named parameters (``top_k`` in
nano and LightRAG, ``top_k_mapped_entities`` in ms.local, ``k`` in ms.basic), always named in each row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.registry import get_mode
from graphrag_ui.retrieval.spec.schema import VERSION_PARAM


@dataclass(frozen=True)
class Config:
    """One setting of one mode: the mode, its release ("" = the index's or the first), and the swept value."""

    mode: str
    version: str = ""
    param: str = ""  # the parameter this config sets ("" when the mode runs at its defaults)
    value: Any = None

    @property
    def key(self) -> str:
        """A stable text key: ``lightrag.local@1.5.7 top_k=20``."""
        head = f"{self.mode}@{self.version}" if self.version else self.mode
        return f"{head} {self.param}={self.value}" if self.param else head


@dataclass
class EvalPlan:
    """Modes, versions, one parameter range and the fixed parameters of an evaluation."""

    modes: list[str]
    param: str = ""  # the swept parameter ("" = each mode once, at its defaults)
    values: list[Any] = field(default_factory=list)
    versions: dict[str, list[str]] = field(default_factory=dict)  # mode -> releases to run (empty: default)
    fixed: dict[str, Any] = field(default_factory=dict)  # parameters for every mode that has them
    param_names: dict[str, str] = field(default_factory=dict)  # mode -> its own name of the swept parameter
    notes: list[str] = field(default_factory=list)

    def param_of(self, mode: str) -> str:
        """The name the swept parameter has in ``mode`` ("" when it has none)."""
        return self.param_names.get(mode, self.param) if self.param_type(mode) else ""

    def param_type(self, mode: str) -> str:
        """ "int" or "float": the type of the swept parameter in ``mode`` ("" when it has no such number)."""
        name = self.param_names.get(mode, self.param)
        params = {p.name: p for s in _schemas(get_mode(mode)) for p in s} if name else {}
        found = params.get(name)
        return found.type if found is not None and found.type in {"int", "float"} else ""

    def configs(self) -> list[Config]:
        """Every config, mode by mode in the plan's order, then version, then value."""
        out: list[Config] = []
        self.notes[:] = []
        for mode in self.modes:
            spec = get_mode(mode)
            versions = self.versions.get(mode) or [""]
            for version in versions:
                if version and version not in spec.versions:
                    raise UserError(
                        msg("mode {mode} has no version {version}", mode=mode, version=repr(version)),
                        fix=msg("versions: {versions}", versions=", ".join(spec.versions) or "-"),
                    )
            name = self.param_of(mode)
            if self.param and not name:
                self.notes.append(
                    msg(
                        "{mode} has no numeric parameter {param}: it runs once, at its defaults",
                        mode=mode,
                        param=self.param,
                    )
                )
            for version in versions:
                if name and self.values:
                    out.extend(Config(mode, version, name, v) for v in self.values)
                else:
                    out.append(Config(mode, version))
        return out

    def check(self, index: Any = None) -> list[Config]:
        """Every config, each one's parameters checked against its mode's schema now (a bad value is one
        ``UserError`` before anything runs, not an error per question); a fixed parameter no mode has is refused."""
        configs = self.configs()
        for name in self.fixed:
            owners = [m for m in self.modes if name in {p.name for s in _schemas(get_mode(m)) for p in s}]
            if not owners:
                raise UserError(
                    msg("no chosen mode has a parameter {name}", name=repr(name)),
                    fix=msg("check the name against the modes' parameters (query --help, the Explore page)"),
                )
        for config in configs:
            get_mode(config.mode).resolve(self.params_for(config), index)
        return configs

    def params_for(self, config: Config) -> dict[str, Any]:
        """The parameters a config runs with: the fixed ones the mode has, its version, its value."""
        spec = get_mode(config.mode)
        names = {p.name for s in _schemas(spec) for p in s}
        params = {k: v for k, v in self.fixed.items() if k in names}
        if config.version:
            params[VERSION_PARAM] = config.version
        if config.param:
            params[config.param] = config.value
        return params


def _schemas(spec: Any) -> list[tuple]:
    return [spec.params, *spec.version_params.values()]
