"""An answer prompt is filled from its template's pieces read once (``answer_prompt.fill``): every mode's
prompt must read exactly as ``str.format`` fills it, and fail as it fails."""

from __future__ import annotations

import pytest

from graphrag_ui.retrieval.registry import MODE_MODULES, get_mode
from graphrag_ui.retrieval.spec.answer_prompt import DEFAULT_RESPONSE_TYPE, fill, user_prompt_slot

PROMPTS = {
    (name, version or ""): prompt
    for name in MODE_MODULES
    for version in (get_mode(name).versions or ("",))
    if (prompt := (get_mode(name).for_version(version) if version else get_mode(name)).answer_prompt) is not None
}


def formatted(prompt, context: str, response_type: str, user_prompt: str) -> str:
    """What the prompt read as before: its template (the instruction appended where it has no slot), formatted."""
    template, fields = prompt.template, {prompt.slot: context, "response_type": response_type or DEFAULT_RESPONSE_TYPE}
    if "{user_prompt}" in template:
        fields["user_prompt"] = user_prompt_slot(user_prompt)
    elif user_prompt.strip():
        instruction = user_prompt.strip().replace("{", "{{").replace("}", "}}")
        template = template + "\n## Extra instructions from the user\n" + instruction + "\n"
    return template.format(**fields)


def outcome(make, *args, **kwargs):
    try:
        return make(*args, **kwargs)
    except (KeyError, IndexError, ValueError) as exc:
        return type(exc), exc.args


@pytest.mark.parametrize("key", sorted(PROMPTS))
def test_every_modes_prompt_reads_as_str_format_fills_it(key):
    prompt = PROMPTS[key]
    assert len(PROMPTS) >= 6
    for context in ("", "-----Entities-----\nid,entity\n0,{A}}{{B}", "x" * 20_000):
        for response_type in ("", "Bullet points {here}", "单段"):
            for user_prompt in ("", "  answer in one line ", "cite {sources}", "use {0}"):
                want = outcome(formatted, prompt, context, response_type, user_prompt)
                got = outcome(prompt.system, context, response_type=response_type, user_prompt=user_prompt)
                assert got == want, (key, context[:20], response_type, user_prompt)


def test_a_field_with_a_format_spec_or_an_index_is_left_to_str_format():
    fields = {"a": 3.14159, "b": [1, 2], "c": "x"}
    for template in ("{a:.2f} and {c}", "{b[1]}{c!r}", "{a}{c}", "plain", "{{a}} {c}", "{c}}}"):
        assert fill(template, **fields) == template.format(**fields)
    assert outcome(fill, "{missing}", **fields) == outcome("{missing}".format, **fields)


@pytest.mark.parametrize("key", sorted(PROMPTS))
def test_an_instruction_with_braces_reaches_the_prompt_as_written(key):
    """nano's and GraphRAG's templates have no slot for it: the instruction is appended, and its braces are
    the analyst's text (they raised KeyError from ``str.format`` before)."""
    prompt = PROMPTS[key]
    for instruction in ("cite {sources}", "use {0} and {{x}}", "close } open {", "{context_data}"):
        system = prompt.system("CTX", response_type="单段", user_prompt=instruction)
        assert instruction in system, key
        assert system.count("CTX") == 1
