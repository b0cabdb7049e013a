"""The gettext catalogues are complete, and a marked text reaches the reader in the reader's language.

Babel reads every ``msg`` / ``pmsg`` / ``t`` / ``pt`` call of the package, pages and app.py
(``scripts/translations.py``); each language's catalogue must hold every such text, translated, not
fuzzy, with the same placeholders, and its committed .mo must be the compiled .po. A text Babel
cannot read (a marked call whose template is not a literal) fails too: it would never be translated.
"""

from __future__ import annotations

import ast
import copy
import json
import pickle
import sys
from pathlib import Path

import pytest

from graphrag_ui.base.i18n import Msg, error_text, joined, msg, pmsg, pt, t, translate

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import translations  # noqa: E402

MARKERS = {"msg": 0, "lmsg": 0, "t": 0, "pmsg": 1, "pt": 1}  # the argument that holds the template


def test_every_marked_text_is_translated_in_every_catalogue() -> None:
    assert translations.languages() == ["zh_CN"]
    assert translations.problems() == []


def test_the_check_reports_what_it_should(monkeypatch, tmp_path) -> None:
    """An untranslated text, a fuzzy one, a placeholder lost in translation and a stale .mo are each reported."""
    catalog = translations.read("zh_CN")
    catalog.add("a text nobody translated {n}", "")
    catalog.add("a guessed text", "猜的", flags=("fuzzy",))
    catalog.add("{count} rows", "行")
    po = tmp_path / "zh_CN" / "LC_MESSAGES" / "graphrag_ui.po"
    po.parent.mkdir(parents=True)
    po.write_bytes(translations._po_bytes(catalog))
    monkeypatch.setattr(translations, "LOCALES", tmp_path)
    found = "\n".join(translations.problems())
    assert "untranslated: 'a text nobody translated {n}'" in found
    assert "fuzzy: 'a guessed text'" in found
    assert "placeholders differ: '{count} rows'" in found
    assert "no longer in the source" in found and "is not the compiled .po" in found


def _marked_calls() -> list[tuple[str, int, ast.Call, bool]]:
    files = [*(ROOT / "graphrag_ui").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]
    files.remove(ROOT / "graphrag_ui" / "base" / "i18n.py")  # where the markers are defined
    calls = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inside = {id(n) for js in ast.walk(tree) if isinstance(js, ast.JoinedStr) for n in ast.walk(js)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS:
                calls.append((str(path.relative_to(ROOT)), node.lineno, node, id(node) in inside))
    return calls


def test_every_marked_template_is_a_literal_babel_can_read() -> None:
    """A template must be a string literal, and the call must not sit inside an f-string (Python 3.11's
    tokenizer hands Babel an f-string as one token: a call inside it is never extracted)."""
    calls = _marked_calls()
    assert len(calls) > 200
    unreadable = []
    for where, line, call, in_fstring in calls:
        pos = MARKERS[call.func.id]
        args = call.args[pos : pos + 1]
        if in_fstring or not args or not (isinstance(args[0], ast.Constant) and isinstance(args[0].value, str)):
            unreadable.append(f"{where}:{line}")
    assert unreadable == []


def test_a_message_is_its_english_text_and_remembers_its_template() -> None:
    m = msg("entity #{rank} by vector, sim {sim}", rank=3, sim="0.712")
    assert m == "entity #3 by vector, sim 0.712" and isinstance(m, str)
    assert json.dumps({"why": m}) == '{"why": "entity #3 by vector, sim 0.712"}'
    for copied in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        assert isinstance(copied, Msg) and copied.template == m.template and copied.values == m.values
        assert translate(copied, "zh") == translate(m, "zh")


def test_translation_fills_the_chinese_template_and_leaves_data_alone() -> None:
    assert t("Answer", "zh") == "回答" and t("Answer", "en") == "Answer"
    assert t("{n} {kind}", "zh", n=3, kind=msg("reports")) == t("{n} {kind}", "zh", n=3, kind=t("reports", "zh"))
    named = msg("{first}; {then}", first="ALICE; BOB", then=msg("Answer"))  # a name is data, a message is not
    assert translate(named, "zh") == "ALICE; BOB；回答"
    assert translate(joined(msg("Answer"), "", msg("Answer")), "zh") == "回答；回答"
    assert translate("index text, not a message", "zh") == "index text, not a message"


def test_one_english_word_can_have_two_translations_by_context() -> None:
    assert pt("message role", "user", "zh") != pt("keywords source", "user", "zh")
    assert pmsg("message role", "user") == "user"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_error_keeps_its_where_and_translates_what_and_fix(lang: str) -> None:
    from graphrag_ui.base.errors import UserError

    exc = UserError(msg("Answer"), where="folder/file.json", fix=msg("Retry"))
    text = error_text(exc, lang)
    assert text.startswith("folder/file.json: ") and ("回答" in text) == (lang == "zh")
    assert error_text(exc, "en") == str(exc) == "folder/file.json: Answer — Retry"
