"""Parameter schemas: the UI builds its sliders from these, the CLI validates ``--param`` with them."""

from __future__ import annotations

import difflib
import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, make_dataclass, replace
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.spec.answer_prompt import AnswerPrompt
from graphrag_ui.retrieval.spec.needs import Needs

if TYPE_CHECKING:
    from graphrag_ui.retrieval.spec.model_stages import ModelStages


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
        """Turn a CLI/URL string (or a JSON value) into this parameter's type, within bounds.

        Strict: a boolean is one of true/false/1/0/yes/no/on/off, a whole number is never a fraction
        (``2.0`` is 2, ``2.7`` is refused), so no typo is silently read as something else. A number already of
        this type and inside the bounds is returned as it is, unparsed: a sweep moves one at every step.
        """
        kind = type(raw)
        if (kind is int and self.type == "int") or (kind is float and self.type == "float" and math.isfinite(raw)):
            if (self.min is None or raw >= self.min) and (self.max is None or raw <= self.max):
                return raw
        from graphrag_ui.base.errors import UserError

        if self.type == "int":
            value: Any = parse_int(self.name, raw)
        elif self.type == "float":
            value = parse_float(self.name, raw)
        elif self.type == "bool":
            value = parse_bool(self.name, raw)
        else:
            value = str(raw)
        if self.type == "choice" and value not in self.choices:
            raise UserError(
                msg(
                    "parameter {name} must be one of {choices}, got {raw}",
                    name=self.name,
                    choices=", ".join(self.choices),
                    raw=quoted(value),
                )
            )
        if self.type in {"int", "float"}:
            if self.min is not None and value < self.min:
                raise UserError(
                    msg(
                        "parameter {name}={value} is below its minimum {min}", name=self.name, value=value, min=self.min
                    )
                )
            if self.max is not None and value > self.max:
                raise UserError(
                    msg(
                        "parameter {name}={value} is above its maximum {max}", name=self.name, value=value, max=self.max
                    )
                )
        return value


# help of ``response_type`` (a field of every reference object: ``Reference.param("response_type", …)``)
ANSWER_PROMPT = msg("Answer shape requested in the answer prompt.")
REDUCE_PROMPT = msg("Answer shape requested in the reduce prompt.")


TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
FALSE_WORDS = frozenset({"false", "0", "no", "off"})


def parse_bool(name: str, raw: Any) -> bool:
    """``raw`` as a boolean: a JSON boolean, 0/1, or true/false/1/0/yes/no/on/off in any case."""
    from graphrag_ui.base.errors import UserError

    if isinstance(raw, bool):
        return raw
    if isinstance(raw, int) and raw in (0, 1):
        return bool(raw)
    word = raw.strip().lower() if isinstance(raw, str) else None
    if word in TRUE_WORDS or word in FALSE_WORDS:
        return word in TRUE_WORDS
    raise UserError(_expects(name, msg("true or false (also 1/0, yes/no, on/off)"), raw))


def _expects(name: str, type_: str, raw: Any) -> str:
    return msg("parameter {name} expects {type}, got {raw}", name=name, type=type_, raw=quoted(raw))


QUOTED_CHARS = 120  # a refused value is quoted to this length: a message names it, it does not repeat a megabyte


def cut_text(text: str, limit: int = QUOTED_CHARS) -> str:
    """``text`` whole when short, else its start and how long it was (a link's, an argument's, a file's value)."""
    if len(text) <= limit:
        return text
    return msg("{start}… ({n} characters)", start=text[:limit], n=len(text))


def quoted(raw: Any) -> str:
    """``repr(raw)`` as a message quotes a refused value: cut, with its length said, when it is long."""
    return cut_text(repr(raw))


def parse_float(name: str, raw: Any) -> float:
    from graphrag_ui.base.errors import UserError

    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise UserError(_expects(name, msg("a number"), raw))
    try:
        value = float(raw)
    except ValueError:
        raise UserError(_expects(name, msg("a number"), raw)) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise UserError(_expects(name, msg("a finite number"), raw))
    return value


def parse_int(name: str, raw: Any) -> int:
    """``raw`` as a whole number: ``3``, ``"3"``, ``3.0`` or ``"3.0"``; ``2.7`` is refused, not truncated."""
    from graphrag_ui.base.errors import UserError

    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        try:
            return int(raw.strip())
        except ValueError:
            pass
    try:
        value = parse_float(name, raw)
    except UserError:
        raise UserError(_expects(name, msg("a whole number"), raw)) from None
    if not value.is_integer():
        raise UserError(
            _expects(name, msg("a whole number"), raw),
            fix=msg("give {value} or {value2}", value=int(value), value2=int(value) + 1),
        )
    return int(value)


class Params:
    """A mode's parameters as frozen, typed attributes (``ModeSpec.typed``): retrieval reads ``p.top_k``,
    already coerced, instead of ``params["top_k"]``. The class is made from the mode's ``ParamSpec``
    tuple, so the declaration stays the schema's; ``as_dict`` is what a ``Retrieval`` records."""

    __slots__ = ()

    @classmethod
    def of(cls, values: Mapping[str, Any] | Params) -> Params:
        """``values`` (resolved or recorded; a name left out takes its default) typed; typed ones pass."""
        return values if isinstance(values, Params) else cls(**values)

    def as_dict(self) -> dict[str, Any]:
        names, read = _reader(type(self))  # a Retrieval records its parameters at every sweep step
        return dict(zip(names, read(self), strict=False))  # one value per name: no check (it doubled the time)


@cache
def _reader(cls: type) -> tuple[tuple[str, ...], Callable[[Any], tuple]]:
    """A ``Params`` class's field names and one getter of all their values (``as_dict`` 1.5 µs, not 4)."""
    names = tuple(f.name for f in fields(cls))
    if len(names) == 1:
        return names, lambda obj: (getattr(obj, names[0]),)
    return names, operator.attrgetter(*names) if names else (lambda obj: ())


PY_TYPES: dict[str, type] = {"int": int, "float": float, "bool": bool, "choice": str, "str": str}


@cache
def params_class(mode: str, specs: tuple[ParamSpec, ...]) -> type[Params]:
    """The frozen dataclass of one schema (a mode, or one release of it), defaults from its specs."""
    name = "".join(part.title() for part in re.split(r"[^A-Za-z0-9]+", mode)) + "Params"
    columns = [(p.name, PY_TYPES.get(p.type, Any), field(default=p.default)) for p in specs]
    return make_dataclass(name, columns, bases=(Params,), frozen=True, slots=True)


VERSION_PARAM = "version"


# (id of a ModeSpec, version) -> (that spec, its schema for the version): ``ModeSpec.for_version``
_VERSIONED: dict[tuple[int, str], tuple[Any, Any]] = {}


@dataclass(frozen=True)
class ModeSpec:
    """A retrieval mode: its name, family, function and parameter schema.

    A mode that follows several releases of its reference (LightRAG 1.4.7 | 1.5.7) lists them in
    ``versions`` with each release's own schema in ``version_params``; the ``version`` parameter picks
    one, defaulting to the release that wrote the index (``index_version``) or the first listed.
    ``params`` is then the first release's schema, ``version`` parameter first.
    """

    name: str
    family: str  # "nano" | "lightrag" | "ms"
    func: Callable[..., Any]
    params: tuple[ParamSpec, ...]
    summary: str
    uses_keywords: bool = False
    # what it asks the model (rounds while it retrieves, a map-reduce after): None for a mode that asks nothing
    stages: ModelStages | None = None
    versions: tuple[str, ...] = ()
    version_params: dict[str, tuple[ParamSpec, ...]] = field(default_factory=dict)
    index_version: Callable[[Any], str] | None = None
    # the reference parameter object this mode follows, "<object>:<reference mode>" as named in
    # reference_params.CATALOGUE (e.g. "lightrag:naive", "graphrag.local:local"); its other fields are
    # then accepted and named as ignored instead of refused
    reference: str = ""
    needs: Needs = Needs()  # what it reads from an index (``query_readiness``)
    context_free: bool = False  # retrieves nothing: the bare question goes to the model (LightRAG's bypass)
    citation_style: str = "none"  # the markers its answer prompt asks for: "graphrag" | "lightrag" | "none"
    answer_prompt: AnswerPrompt | None = None  # its answer from one context (None: staged, or context-free)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def typed(self, values: Mapping[str, Any] | Params) -> Params:
        """``values`` (resolved or recorded; a name left out takes its default) as the typed parameters
        of the release they settle on; typed parameters pass through."""
        if isinstance(values, Params):
            return values
        return self.settle(dict(values)).params_type.of(values)

    @cached_property
    def params_type(self) -> type[Params]:
        """The frozen dataclass of this schema, made once per spec (a sweep types every step)."""
        return params_class(self.name, self.params)

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
            from graphrag_ui.base.errors import UserError

            raise UserError(
                msg("mode {name} has no version {version}", name=self.name, version=repr(version)),
                fix=msg("versions: {versions}", versions=", ".join(self.versions)),
            )
        made = _VERSIONED.get((id(self), version))
        if made is not None and made[0] is self:  # every query settles its version: made once per spec
            return made[1]
        choice = ParamSpec(
            VERSION_PARAM,
            "choice",
            version,
            msg(
                "which {family} release this mode reproduces ({versions}); defaults to the release that wrote the index",
                family=self.family,
                versions=" | ".join(self.versions),
            ),
            choices=self.versions,
        )
        spec = replace(self, params=(choice, *self.version_params[version]))
        _VERSIONED[(id(self), version)] = (self, spec)
        return spec

    def settle(self, given: dict[str, Any] | None, index: Any = None) -> ModeSpec:
        """This mode with the schema of the release it will run: ``given["version"]``, else the
        index's, else the first listed (a mode without versions is itself)."""
        if not self.versions:
            return self
        raw = (given or {}).get(VERSION_PARAM)
        version = self.params[0].coerce(raw) if raw not in (None, "") else self.default_version(index)
        return self.for_version(version)

    def resolve(self, given: dict[str, Any] | None, index: Any = None) -> dict[str, Any]:
        """Defaults overlaid with ``given``, checked against the schema of the release it settles on.

        Only the mode's own parameters: ``param_intake.take`` also accepts the other fields of the
        reference's parameter object."""
        return self.settle(given, index).check(given)

    def check(self, given: dict[str, Any] | None) -> dict[str, Any]:
        """Defaults overlaid with ``given`` (this schema as is); an unknown name gets the closest one."""
        from graphrag_ui.base.errors import UserError

        by_name = {p.name: p for p in self.params}
        out = self.defaults()
        for key, raw in (given or {}).items():
            if key not in by_name:
                where = msg(" (version {version_param})", version_param=out[VERSION_PARAM]) if self.versions else ""
                raise UserError(
                    msg("mode {name}{where} has no parameter {key}", name=self.name, where=where, key=repr(key)),
                    fix=suggestion(key, set(by_name)),
                )
            if raw is not None:  # a reference object's None (user_prompt=None) means "not set"
                out[key] = by_name[key].coerce(raw)
        return out


def suggestion(name: str, known: set[str]) -> str:
    """ "did you mean top_k?" for a near miss, else the known names."""
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    if close:
        return msg("did you mean {close}?", close=close[0])
    return msg("known names: {known}", known=", ".join(sorted(known)))
