"""Every message the package can show is marked for translation: errors (what and fix), warnings, notes.

``message_sources`` reads the package's source with ``ast`` and returns each text a ``UserError``'s
what/fix, a warning, a build/import notice, a stages note or an answer's error can carry, and whether
it is exactly one ``msg(...)`` call's text. Every such text must be (an f-string, a literal or a message
glued to other text would reach a Chinese page in English); tests/base/test_translations.py then holds the
catalogue to every marked text. A message that is not marked fails this test before a page shows it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from graphrag_ui.base.i18n import msg, translate
from tests.support import message_sources  # noqa: E402
from tests.support.message_sources import Template, templates  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# modules whose errors only the command line prints (its human output is English by design)
CLI_ONLY = {
    "graphrag_ui/cli/query.py": "the `query` command's argument and batch-file checks",
    "graphrag_ui/cli/sweep.py": "the `sweep` command's argument checks",
    "graphrag_ui/cli/build.py": "the `build` command's --llm/--extractor checks",
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


def unmarked(found: list[Template]) -> list[str]:
    """``file:line  sample`` for each text that reaches a reader without being one ``msg`` call's text."""
    return [
        f"{t.file}:{t.line}  {t.sample()[0]!r}"
        for t in found
        if not t.marked and t.file not in CLI_ONLY and t.sample()[0] not in NAMES
    ]


def test_every_error_warning_and_note_is_marked_for_translation(found):
    problems = unmarked(found)
    assert not problems, f"{len(problems)} message(s) not marked with msg():\n" + "\n".join(problems)


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


def test_an_unmarked_message_is_reported(tmp_path, monkeypatch):
    """The reader tells a marked message from an f-string, a literal and a message glued to other text."""
    package = tmp_path / "graphrag_ui"
    package.mkdir()
    (package / "planted.py").write_text(
        textwrap.dedent(
            """
            from graphrag_ui.base.errors import UserError
            from graphrag_ui.base.i18n import msg


            def check(path, n):
                if n < 0:
                    raise UserError(msg("count {n} is negative", n=n), where=path, fix=msg("give a count"))
                if n == 0:
                    raise UserError(f"count {n} is zero", where=path)
                if n == 1:
                    raise UserError("one is not enough", fix=msg("give two") + " or more")


            def reason(c, n):
                c.why = msg("picked #{n}", n=n)
                return Candidate("id", "label", {}, 0, f"kept #{n}", dropped="over the budget")
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.setattr(message_sources, "PACKAGE", package)
    found = {t.sample()[0]: t.marked for t in templates()}
    assert found == {
        "count ⟦0⟧ is negative": True,
        "give a count": True,
        "count ⟦0⟧ is zero": False,
        "one is not enough": False,
        "give two or more": False,
        "picked #⟦0⟧": True,
        "kept #⟦0⟧": False,
        "over the budget": False,
    }


def test_cli_only_modules_are_not_used_by_the_app():
    """The allow-list holds only what no page can show: no page or UI module imports those modules."""
    ui_sources = [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "graphrag_ui" / "ui").rglob("*.py")]
    for module in CLI_ONLY:
        dotted = module.removesuffix(".py").replace("/", ".")
        assert not [p.name for p in ui_sources if dotted in p.read_text(encoding="utf-8")], module


def test_an_error_carried_as_text_translates_with_its_where_kept():
    """A model error reaches the answer and the map-call notes as ``exc.message``: what/fix in zh, where kept."""
    from graphrag_ui.model_client.errors import explain
    from graphrag_ui.model_client.settings import LLMSettings

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
    assert translate("a sentence no catalogue knows", "zh") == "a sentence no catalogue knows"  # data, not a message


def test_skipped_files_are_named_and_their_reasons_translated(tmp_path):
    from graphrag_ui.base.errors import UserError
    from graphrag_ui.base.i18n import error_text
    from graphrag_ui.index.builder.documents import read_documents

    (tmp_path / "x.pdf").write_bytes(b"%PDF")
    (tmp_path / "u.txt").write_bytes("hello".encode("utf-16"))
    with pytest.raises(UserError) as caught:
        read_documents(tmp_path)
    zh = error_text(caught.value, "zh")
    assert "x.pdf" in zh and "u.txt" in zh and "没有可用的文档" in zh and "ignored" not in zh
