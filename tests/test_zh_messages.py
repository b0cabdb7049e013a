"""Every message the package can show has its own Chinese: errors (what and fix) and warnings.

``message_sources`` reads the package's source with ``ast`` and returns each English template a
``UserError``'s what/fix, a warning, a build/import notice or a stages note can carry (f-string values
become holes). Each template, filled with values no catalogue entry knows, must be matched by an
entry of its own (not just by ``tr``'s "a; b" split over some other message), come out changed, with
Chinese in it and every value carried over. A message missing from the catalogue fails this test
before any page shows it in English.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from graphrag_ui.i18n import translate
from graphrag_ui.ui import i18n
from graphrag_ui.ui.i18n import ZH_TEXTS, fields, template_pattern

sys.path.insert(0, str(Path(__file__).resolve().parent))
from message_sources import Template, templates  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CJK = re.compile(r"[\u4e00-\u9fff]")

# modules whose errors only the command line prints (its human output is English by design)
CLI_ONLY = {
    "graphrag_ui/query_cli.py": "the `query` command's argument and batch-file checks",
    "graphrag_ui/index/builder/command.py": "the `build` command's --llm/--extractor checks",
}
# messages (as samples, ⟦n⟧ for a value) that are names, not sentences
NAMES = {
    "LightRAG 1.5.7": "a library and its release, passed as the label of a warning",
    "LightRAG 1.4.7": "a library and its release, passed as the label of a warning",
    "⟦0⟧ / secrets.toml": "where an API key is read: an environment variable and a file name",
    "⟦0⟧_API_KEY": "the name of an environment variable",
}


@pytest.fixture(scope="module")
def found() -> list[Template]:
    return templates()


def _gettext_entries() -> dict[str, str]:
    """English template -> Chinese of the zh gettext catalogue (messages marked with ``msg``)."""
    from babel.messages.pofile import read_po

    with (ROOT / "graphrag_ui" / "locales" / "zh_CN" / "LC_MESSAGES" / "graphrag_ui.po").open("rb") as f:
        entries = {m.id: m.string for m in read_po(f) if m.id and m.string and not m.context}
    return {
        en: zh for en, zh in entries.items() if re.search(r"[A-Za-z]", i18n._FIELD.sub("", en))
    }  # "{a}: {b}" matches anything


GETTEXT = _gettext_entries()


def _own_entry(text: str) -> str | None:
    """The catalogue key that translates ``text`` by itself (exactly or as its template)."""
    if text in ZH_TEXTS or text in GETTEXT:
        return text
    return next((en for en in [*ZH_TEXTS, *GETTEXT] if fields(en) and template_pattern(en).match(text)), None)


def _zh(text: str) -> str:
    """``text`` in Chinese by the old tables, else by the gettext entry whose template it matches."""
    zh = translate(text, "zh")
    if zh != text or text not in GETTEXT and not any(fields(en) and template_pattern(en).match(text) for en in GETTEXT):
        return zh
    if text in GETTEXT:
        return GETTEXT[text]
    for en, zh_template in GETTEXT.items():
        match = fields(en) and template_pattern(en).match(text)
        if match:
            return i18n._FIELD.sub(lambda m, values=match.groupdict(): values[m.group(1)], zh_template)
    return zh


def untranslated(found: list[Template]) -> list[str]:
    """``file:line  sample  (why)`` for each template without a Chinese entry of its own."""
    problems = []
    for template in found:
        text, values = template.sample()
        if template.file in CLI_ONLY or text in NAMES:
            continue
        zh = _zh(text)
        why = ""
        if _own_entry(text) is None:
            why = "no catalogue entry"
        elif zh == text or not CJK.search(zh):
            why = "not Chinese"
        elif not all(v in zh for v in values):
            why = "a value is lost"
        if why:
            problems.append(f"{template.file}:{template.line}  {text!r}  ({why})")
    return problems


def test_every_error_and_warning_has_its_own_chinese(found):
    problems = untranslated(found)
    assert not problems, f"{len(problems)} message(s) without Chinese:\n" + "\n".join(problems)


def test_the_source_reader_finds_every_kind_of_message(found):
    """If the reader lost a kind of sink, the test above would pass on nothing: each kind is found."""
    samples = {t.sample()[0] for t in found}
    expected = [
        "the manifest is damaged: ⟦0⟧",  # IndexFormatError(f"...{what}") in a helper
        "count ⟦0⟧ is ⟦1⟧, expected an integer ≥ 0",  # ... whose `what` comes from its call sites
        "the model did not answer within ⟦0⟧ s",  # LLMError(what, where, fix) from a table of tuples
        "check that the server is running and reachable, or raise the timeout (GRAPHRAG_UI_LLM_TIMEOUT)",
        "set GRAPHRAG_UI_HOME to a writable folder, or turn the cache off",  # positional fix
        "the index has no entities",  # out.warnings.append(...)
        "the index is empty (0 entities, 0 chunks): there is nothing to retrieve",  # notes.append(...)
        "⟦0⟧ relations from an entity to itself were dropped",  # warn(...)
        "ignored (only .txt and .md are read)",  # Problem(path, reason)
        "the map stage ran (⟦0⟧ call(s)); the reduce call failed: ⟦1⟧",  # stages.note = ...
        "the reduce call (the answer) was not made: context only",  # "; ".join([..., note])
        "did you mean ⟦0⟧?",  # fix=suggestion(...): a package function's return value
        "mode ⟦0⟧ has no parameter ⟦1⟧ and ⟦2⟧ has no such field",  # what += ...
        "not set",  # masked_key() or 'not set', inside an f-string
        "⟦0⟧ vector(s) hold NaN or infinite values (first at row ⟦1⟧)",
        "run `python -m graphrag_ui reembed` on the index, or rebuild/re-import it",  # fix=fix, its default
    ]
    assert not [s for s in expected if s not in samples]
    assert len(found) > 400
    assert {t.sample()[0] for t in found if t.file in CLI_ONLY}, "the CLI-only modules still raise"
    assert set(NAMES) <= samples, "a name in NAMES is no longer in the source: drop it"


def test_a_missing_entry_is_reported(found, monkeypatch):
    """Delete one entry of each shape (exact, templated): the check names exactly those messages."""
    for key in ("the manifest is damaged: {what}", "the index has no entities"):
        for entries in (ZH_TEXTS, GETTEXT):  # an old-table key, or a gettext one once marked with msg
            monkeypatch.delitem(entries, key, raising=False)
    i18n._message_patterns.cache_clear()
    i18n._translate.cache_clear()
    try:
        problems = untranslated(found)
    finally:
        monkeypatch.undo()
        i18n._message_patterns.cache_clear()
        i18n._translate.cache_clear()
    assert len(problems) == 2 and all("no catalogue entry" in p for p in problems), problems
    assert {p.split("  ")[1] for p in problems} == {"'the manifest is damaged: ⟦0⟧'", "'the index has no entities'"}


def test_cli_only_modules_are_not_used_by_the_app():
    """The allow-list holds only what no page can show: no page or UI module imports those modules."""
    ui_sources = [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "graphrag_ui" / "ui").glob("*.py")]
    for module in CLI_ONLY:
        dotted = module.removesuffix(".py").replace("/", ".")
        assert not [p.name for p in ui_sources if dotted in p.read_text(encoding="utf-8")], module


def test_no_catalogue_key_is_all_placeholders():
    """A key like "{a}: {b}" would match any message and hide a missing one."""
    assert not [en for en in ZH_TEXTS if not re.search(r"[A-Za-z]", i18n._FIELD.sub("", en))]


def test_an_error_carried_as_text_translates_with_its_where_kept():
    """A model error reaches the answer and the map-call notes as ``exc.message``: what/fix in zh, where kept."""
    from graphrag_ui.errors import UserError
    from graphrag_ui.i18n import msg
    from graphrag_ui.llm_client.errors import explain
    from graphrag_ui.llm_client.settings import LLMSettings

    class InternalServerError(Exception):
        status_code = 500

    error = explain(
        InternalServerError("The server had an error"), LLMSettings(model="openai/m", api_base="http://127.0.0.1:9/v1")
    )
    assert translate(error.message, "zh") == (
        "model openai/m at http://127.0.0.1:9/v1: 服务商的服务器出错，状态 500（The server had an error） — "
        "服务器出了问题：请稍后再试；如果是你自己的服务器，请查看其日志"
    )
    note = msg(  # as llm/map_reduce.py writes it
        "{failed} of {n} map call(s) failed (first: batch {batch}: {error}); the reduce stage did not run, since "
        "an answer without those batches' reports would look complete but is not. Run again: answered batches "
        "come from the cache.",
        failed=1,
        n=2,
        batch=1,
        error=error.message,
    )
    assert translate(note, "zh").startswith(
        "2 次映射调用中有 1 次失败（第一个：批次 1：model openai/m at http://127.0.0.1:9/v1: 服务商"
    )
    skipped = UserError("is UTF-16 text, not UTF-8", "u.txt", "re-save the file as UTF-8")
    joined = f"no usable documents (x.pdf: ignored (only .txt and .md are read); {skipped})"
    assert (
        translate(joined, "zh")
        == "没有可用的文档（x.pdf：已忽略（只读取 .txt 和 .md）；u.txt: 是 UTF-16 文本，不是 UTF-8 — 请把文件另存为 UTF-8）"
    )
    assert translate("a sentence no catalogue knows — and a fix it does not know either", "zh").startswith("a sentence")
