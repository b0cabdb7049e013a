"""Prompt builders: every family/mode fills its placeholders and keeps the message order."""

from __future__ import annotations

import pytest

from graphrag_ui.model_calls import prompts


@pytest.mark.parametrize("family,mode", [(f, m) for f, modes in prompts.TEMPLATES.items() for m in modes])
def test_build_messages_fills_context_and_keeps_order(family, mode):
    history = [{"role": "user", "content": "earlier"}, {"role": "assistant", "content": "reply"}]
    msgs = prompts.build_messages(
        family, mode, "CONTEXT{with braces}", "Who is {Alice}?", response_type="Bullet Points", history=history
    )
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    system = msgs[0]["content"]
    assert "CONTEXT{with braces}" in system and "Bullet Points" in system
    assert "{context_data}" not in system and "{content_data}" not in system and "{response_type}" not in system
    assert msgs[-1]["content"] == "Who is {Alice}?"


def test_registry_names_and_default_response_type():
    a = prompts.build_messages("", "lightrag.hybrid", "X", "q")
    b = prompts.build_messages("lightrag", "hybrid", "X", "q")
    assert a == b
    assert prompts.DEFAULT_RESPONSE_TYPE in a[0]["content"]


def test_lightrag_user_prompt_slot():
    empty = prompts.system_prompt("lightrag", "local", "", user_prompt="")
    assert "Extra instructions from the user: n/a" in empty
    filled = prompts.system_prompt("lightrag", "naive", "", user_prompt="Answer in French.")
    assert "n/a" not in filled and "\n\nAnswer in French." in filled


def test_user_prompt_honoured_where_reference_has_no_slot():
    text = prompts.system_prompt("nano", "local", "C", user_prompt="Use a table.")
    assert text.rstrip().endswith("Use a table.")


def test_unknown_mode_is_a_clear_error():
    with pytest.raises(ValueError, match="known: nano.local"):
        prompts.build_messages("nano", "global", "C", "q")


def test_keywords_prompt_is_one_user_message_with_query():
    msgs = prompts.keywords_messages("张三和李四是什么关系？", language="Chinese")
    assert len(msgs) == 1 and msgs[0]["role"] == "user"
    assert "张三和李四是什么关系？" in msgs[0]["content"] and "Chinese" in msgs[0]["content"]
    assert prompts.is_keywords_prompt(msgs[0]["content"])
    assert not prompts.is_keywords_prompt(prompts.system_prompt("nano", "local", "C"))


def test_fail_response_marks_no_context():
    assert prompts.FAIL_RESPONSE.endswith("[no-context]")
