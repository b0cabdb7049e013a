"""Take a reference's parameter object as its users write it, for the mode that follows it.

Every name is one of four things (``reference_params`` says which fields each reference mode reads):

- a parameter of the mode → checked strictly and used;
- an answer-side field of the reference (conversation history, streaming, only the context/prompt)
  → checked and handed to the answer layer;
- any other field of the reference object → ignored and named in the warnings, saying whether the
  reference ignores it too; a field the reference would act on and the explorer cannot is refused
  unless its value is the one the explorer always uses;
- a name the object does not have → refused, with the closest known name suggested.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.spec.reference_params import (
    ANSWER,
    CONTEXT,
    KEYWORDS,
    MODE,
    MODEL,
    OUTPUT,
    Reference,
    RefField,
    follows,
)
from graphrag_ui.retrieval.spec.schema import VERSION_PARAM, ModeSpec, parse_bool, suggestion

# answer-side fields the answer layer acts on (the others are said to be ignored)
ANSWER_FIELDS = ("conversation_history", "history_turns", "stream", "only_need_context", "only_need_prompt")


@dataclass
class Intake:
    """What a parameter dict means for one mode."""

    params: dict[str, Any]
    answer: dict[str, Any] = field(default_factory=dict)
    hl: list[str] | None = None
    ll: list[str] | None = None
    warnings: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)  # each given name of a parameter -> the parameter


def reference_of(spec: ModeSpec, version: str = "") -> tuple[Reference | None, str]:
    """The reference object (and its mode) that ``spec`` follows, for the release it runs."""
    if not spec.reference:
        return None, ""
    return follows(spec.reference, version)


def _unknown(spec: ModeSpec, ref: Reference | None, name: str, known: set[str]) -> UserError:
    if ref:
        what = msg(
            "mode {name} has no parameter {name2} and {title} has no such field",
            name=spec.name,
            name2=repr(name),
            title=ref.title,
        )
    else:
        what = msg("mode {name} has no parameter {name2}", name=spec.name, name2=repr(name))
    return UserError(what, fix=suggestion(name, known))


def _structured(fld: RefField, raw: Any) -> Any:
    """A list/dict field given as text (``--param``, URL) is JSON."""
    if isinstance(raw, str) and fld.side == KEYWORDS and not raw.lstrip().startswith("["):
        return raw  # "a, b" as --hl takes it
    if isinstance(raw, str) and fld.type in ("list", "dict"):
        try:
            return json.loads(raw) if raw.strip() else None
        except json.JSONDecodeError:
            raise UserError(
                msg("{name} expects a JSON {fld}, got {raw}", name=fld.name, fld=fld.type, raw=repr(raw))
            ) from None
    return raw


TURN_KEYS = ("role", "content")  # what each message of a conversation history holds
_TURNS_EXAMPLE = [{"role": "user", "content": "..."}, {"role": "assistant", "content": "..."}]


def _history(raw: Any) -> list[dict[str, str]]:
    turns = raw or []
    if not isinstance(turns, list) or not all(
        isinstance(t, dict) and all(isinstance(t.get(key), str) for key in TURN_KEYS) for t in turns
    ):
        raise UserError(
            msg("conversation_history expects a list of {shape} messages", shape="{" + ", ".join(TURN_KEYS) + "}"),
            fix=msg("e.g. {example}", example=json.dumps(_TURNS_EXAMPLE)),
        )
    return [{"role": t["role"], "content": t["content"]} for t in turns]


def _answer_value(name: str, raw: Any) -> Any:
    if name == "conversation_history":
        return _history(raw)
    if name == "history_turns":
        if isinstance(raw, bool) or not isinstance(raw, (int, str)):
            raise UserError(msg("history_turns expects a whole number, got {raw}", raw=repr(raw)))
        try:
            value = int(raw)
        except ValueError:
            raise UserError(msg("history_turns expects a whole number, got {raw}", raw=repr(raw))) from None
        if value < 0:
            raise UserError(msg("history_turns must be 0 or more, got {value}", value=value))
        return value
    return parse_bool(name, raw)


def _keywords(name: str, raw: Any) -> list[str]:
    if isinstance(raw, str):
        return [part.strip() for part in raw.split(",") if part.strip()]
    if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
        return list(raw)
    raise UserError(msg("{name} expects a list of strings, got {raw}", name=name, raw=repr(raw)))


def _same(a: Any, b: Any) -> bool:
    return a == b or (a in (None, "", [], {}) and b in (None, "", [], {}))


def take(spec: ModeSpec, given: dict[str, Any] | None, index: Any = None) -> Intake:
    """Sort ``given`` into the mode's parameters, answer-side fields, keywords and ignored fields."""
    given = dict(given or {})
    settled = spec.settle(given, index)
    version = str(settled.defaults().get(VERSION_PARAM, "")) if spec.versions else ""
    ref, ref_mode = reference_of(spec, version)
    own = {p.name for p in settled.params}
    mine: dict[str, Any] = {}
    out = Intake(params={})
    for name, raw in given.items():
        target = ref.aliases.get(name, name) if ref else name
        if target in own:
            if target in mine and mine[target] != raw:
                raise UserError(
                    msg(
                        "{name}={raw} and {target}={target2} name the same parameter",
                        name=name,
                        raw=repr(raw),
                        target=target,
                        target2=repr(mine[target]),
                    )
                )
            mine[target] = raw
            out.names[name] = target
            continue
        fld = ref.fields.get(name) if ref else None
        if fld is None:
            raise _unknown(spec, ref, name, own | (ref.known_names() if ref else set()))
        _take_field(spec, ref, ref_mode, fld, _structured(fld, raw), out)
    out.params = settled.check(mine)
    if ref is not None and "conversation_history" in out.answer:
        _history_sent(spec, ref, ref_mode, out)
    out.answer.pop("history_turns", None)
    return out


def _history_sent(spec: ModeSpec, ref: Reference, ref_mode: str, out: Intake) -> None:
    """LightRAG 1.4.7 puts only the last ``history_turns`` complete turns (default 0) into its answer
    prompt, bypass excepted; 1.5.7 and bypass send the whole history."""
    if "history_turns" not in ref.fields or ref_mode == "bypass":
        return
    history = out.answer["conversation_history"]
    turns = int(out.answer.get("history_turns", ref.fields["history_turns"].default))
    kept = complete_turns(history, turns)
    out.answer["conversation_history"] = kept
    if history and len(kept) < len(history):
        out.warnings.append(
            msg(
                "conversation_history: {title} sends only the last history_turns={turns} complete user/assistant "
                "turns, so {kept} of {history} messages go to the answer",
                title=ref.title,
                turns=turns,
                kept=len(kept),
                history=len(history),
            )
        )


def complete_turns(history: list[dict[str, str]], turns: int) -> list[dict[str, str]]:
    """The last ``turns`` user/assistant pairs, user first, as LightRAG 1.4.7 picks them (its
    keyword-extraction replies left out)."""
    if turns <= 0:
        return []
    messages = [
        m
        for m in history
        if not (
            m["role"] == "assistant" and m["content"].startswith(('{ "high_level_keywords"', "{'high_level_keywords'"))
        )
    ]
    pairs = []
    for first, second in zip(messages[0::2], messages[1::2], strict=False):
        if {first["role"], second["role"]} == {"user", "assistant"}:
            pairs.append([first, second] if first["role"] == "user" else [second, first])
    return [message for pair in pairs[-turns:] for message in pair]


def _ignored(spec: ModeSpec, ref: Reference, fld: RefField, because: str) -> str:
    return msg("{name} is not used by {name2}; {because}", name=fld.name, name2=spec.name, because=because)


def _take_field(spec: ModeSpec, ref: Reference, ref_mode: str, fld: RefField, raw: Any, out: Intake) -> None:
    reads = fld.name in ref.reads[ref_mode]
    too = msg("{library} ignores it too", library=ref.library)
    if fld.side == MODE:
        if not isinstance(raw, str) or raw != ref_mode:
            raise UserError(
                msg(
                    "{name}={raw} asks for another {library} mode than {name2} ({ref_mode})",
                    name=fld.name,
                    raw=repr(raw),
                    library=ref.library,
                    name2=spec.name,
                    ref_mode=repr(ref_mode),
                ),
                fix=msg("drop '{name}' or run the mode it names", name=fld.name),
            )
        return
    if fld.side == KEYWORDS:
        words = _keywords(fld.name, raw)
        if not spec.uses_keywords or not reads:
            out.warnings.append(_ignored(spec, ref, fld, too))
        elif words:  # LightRAG extracts keywords when both lists are empty
            setattr(out, fld.name[:2], words)
        return
    if fld.fixed and not _same(raw, fld.default):
        raise UserError(
            msg(
                "{name}={raw} is not supported by {name2}: {note}",
                name=fld.name,
                raw=repr(raw),
                name2=spec.name,
                note=fld.note,
            ),
            fix=msg("drop '{name}' or give {default}", name=fld.name, default=repr(fld.default)),
        )
    if not reads:
        out.warnings.append(_ignored(spec, ref, fld, too))
    elif fld.side in (ANSWER, OUTPUT) and fld.name in ANSWER_FIELDS:
        out.answer[fld.name] = _answer_value(fld.name, raw)
    elif fld.note:
        out.warnings.append(_ignored(spec, ref, fld, fld.note))
    elif fld.side == OUTPUT:
        out.warnings.append(_ignored(spec, ref, fld, msg("the explorer always returns the whole retrieval")))
    elif fld.side in (CONTEXT, ANSWER, MODEL):
        # the reference acts on it in this mode and the mode has no such parameter: saying "ignored"
        # would hand back a context the reference would not build
        raise UserError(
            msg(
                "{name} is a {library} field {name2} does not support yet",
                name=fld.name,
                library=ref.library,
                name2=spec.name,
            ),
            fix=msg("drop '{name}' (docs/differences list what each mode covers)", name=fld.name),
        )
