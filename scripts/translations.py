"""The gettext catalogues: extract the marked texts, update each language's .po, compile the .mo, check.

    .venv/bin/python scripts/translations.py update    # after changing texts: new msgids into every .po
    .venv/bin/python scripts/translations.py compile   # after translating: .po -> .mo (committed)
    .venv/bin/python scripts/translations.py check     # what the test checks (exit 1 on any problem)
    .venv/bin/python scripts/translations.py init fr   # a new language: its .po with every msgid

Texts are marked where they are written, with ``msg`` / ``lmsg`` / ``pmsg`` (any layer) and ``t`` / ``pt`` (the
UI), all from ``graphrag_ui.base.i18n``; Babel reads those calls from the source (``KEYWORDS``). A new
language is one more .po (``init``), translated with any gettext tool, then ``compile``; the UI lists
it once ``graphrag_ui.base.i18n.LANGUAGES`` names it. ``make translations`` runs update and compile.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir, extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ROOT / "graphrag_ui" / "locales"
DOMAIN = "graphrag_ui"
SOURCES = ("graphrag_ui", "pages")  # and app.py
KEYWORDS = {"msg": None, "lmsg": None, "pmsg": ((1, "c"), 2), "t": None, "pt": ((1, "c"), 2)}
METHODS = [("**.py", "python")]
_FIELD = re.compile(r"(?<!\{)\{([^{}]*)\}")


def extract() -> Catalog:
    """Every marked text of the package, pages and app.py, with the files it appears in."""
    catalog = Catalog(project="GraphRAG Retrieval Explorer", domain=DOMAIN, fuzzy=False)
    found = []
    for folder in SOURCES:
        for filename, lineno, message, comments, context in extract_from_dir(
            ROOT / folder, METHODS, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",), strip_comment_tags=True
        ):
            found.append((f"{folder}/{filename}", lineno, message, comments, context))
    for lineno, message, comments, context in extract_from_file(
        "python", ROOT / "app.py", keywords=KEYWORDS, comment_tags=("TRANSLATORS:",), strip_comment_tags=True
    ):
        found.append(("app.py", lineno, message, comments, context))
    for filename, lineno, message, comments, context in found:
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def languages() -> list[str]:
    return sorted(p.name for p in LOCALES.iterdir() if (p / "LC_MESSAGES" / f"{DOMAIN}.po").is_file())


def po_path(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(lang: str) -> Catalog:
    with po_path(lang).open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def _po_bytes(catalog: Catalog) -> bytes:
    buf = io.BytesIO()
    write_po(buf, catalog, width=100, include_lineno=False, sort_by_file=True, ignore_obsolete=False)
    return buf.getvalue()


def mo_bytes(catalog: Catalog) -> bytes:
    buf = io.BytesIO()
    write_mo(buf, catalog)
    return buf.getvalue()


def init(lang: str) -> None:
    """A new language's .po holding every text of the source, none translated yet."""
    catalog = extract()
    catalog.locale = lang
    po_path(lang).parent.mkdir(parents=True, exist_ok=True)
    po_path(lang).write_bytes(_po_bytes(catalog))


def update() -> None:
    """Every language's .po gains the texts new in the source and drops the ones gone from it."""
    template = extract()
    for lang in languages():
        catalog = read(lang)
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        po_path(lang).write_bytes(_po_bytes(catalog))


def compile_all() -> None:
    for lang in languages():
        po_path(lang).with_suffix(".mo").write_bytes(mo_bytes(read(lang)))


def fields(text: str) -> list[str]:
    """A template's placeholders with their format specs (``{n:,}`` stays ``n:,``), sorted."""
    return sorted(_FIELD.findall(text))


def problems() -> list[str]:
    """Each untranslated, fuzzy, missing or stale entry, placeholder mismatch and out-of-date .mo."""
    wanted = {(m.id, m.context) for m in extract() if m.id}
    out = []
    for lang in languages():
        catalog = read(lang)
        have = {(m.id, m.context): m for m in catalog if m.id}
        for key in sorted(wanted - set(have), key=str):
            out.append(f"{lang}: not in the catalogue (run `update`): {key[0]!r}")
        for key in sorted(set(have) - wanted, key=str):
            out.append(f"{lang}: no longer in the source (run `update`): {key[0]!r}")
        for (text, _context), message in have.items():
            if message.fuzzy:
                out.append(f"{lang}: fuzzy: {text!r}")
            elif not message.string:
                out.append(f"{lang}: untranslated: {text!r}")
            elif fields(text) != fields(message.string):
                out.append(f"{lang}: placeholders differ: {text!r} -> {message.string!r}")
        compiled = po_path(lang).with_suffix(".mo")
        if not compiled.is_file() or compiled.read_bytes() != mo_bytes(catalog):
            out.append(f"{lang}: {compiled.name} is not the compiled .po (run `compile`)")
    return out


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "update":
        update()
    elif command == "init" and len(argv) == 2:
        init(argv[1])
    elif command == "compile":
        compile_all()
    elif command == "check":
        found = problems()
        print("\n".join(found) or "catalogues complete")
        return 1 if found else 0
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
