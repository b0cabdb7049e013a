"""Fault matrix, server boundary (issue 27, deliver 1 and the uploads of 5): what the Index page may read,
write and replace on the server's disk is the operator's choice, and nothing is lost silently.

Families (each case counted by ``pytest --collect-only``), all through the page (AppTest) unless said:

- paths: a source folder or an index folder outside the allowed roots (existing or not, a symlink out,
  ``..``, ``~``, NUL, 10 000 characters) is one line that does not say whether it exists;
- writes: a server that listens beyond loopback draws no import, build or re-embed button until the
  operator turns them on; a malformed setting is one line on the page and stops ``serve``;
- replace: samples and indexes opened by path are read-only; replacing an index asks first and names
  it; a folder holding files the app did not write is never replaced (page and CLI); a label already
  naming another folder is never re-pointed;
- uploads: two uploads of one name (or one name in two cases), a control character in a name.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from streamlit import config

from graphrag_ui.base import access
from graphrag_ui.base.errors import UserError
from graphrag_ui.index import store
from graphrag_ui.ui.shell.state import register_index, registered_indexes
from graphrag_ui.ui.widgets import index_ops
from tests.conftest import ROOT, SAMPLES
from tests.support.ui_fixtures import plain
from tests.ui.test_app import finish_jobs

NANO = ROOT / "tests" / "goldens" / "nano" / "en"
WRITE_BUTTONS = ("imp_btn", "b_btn", "re_btn")
REFUSED = "this server does not let the browser read PATH — put the source under"


@pytest.fixture()
def roots(monkeypatch, tmp_path):
    """The operator allows one folder, ``tmp_path/allowed``, holding a source and a symlink out."""
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "out").symlink_to("/etc")
    monkeypatch.setenv(access.ROOTS_ENV, str(allowed))
    monkeypatch.delenv(access.WRITES_ENV, raising=False)
    return allowed


@pytest.fixture()
def listening(monkeypatch):
    """Set Streamlit's server.address for the page (AppTest runs it in this process)."""
    before = config.get_option("server.address")

    def at(address: str | None) -> None:
        config._set_option("server.address", address, "test")

    yield at
    config._set_option("server.address", before, "test")


def digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return h.hexdigest()


def errors(at) -> list[str]:
    return [e.value for e in at.error]


def buttons(at) -> set[str]:
    return {b.key for b in at.button if b.key}


# --- paths ---------------------------------------------------------------------------------------------------

OUTSIDE = [
    "/etc",
    "/etc/shadow",
    "/etc/no-such-file-here",
    "/nonexistent/folder",
    "/root",
    "~",
    "~root/.ssh",
    "../../../../etc",
    "{allowed}/../secret",
    "{allowed}/out",
    "{allowed}/out/ssl",
    "data/sample/en/index",
    str(SAMPLES / "en" / "index"),
    "a\x00b",
    "/" + "x" * 10_000,
]


@pytest.mark.parametrize("typed", OUTSIDE)
@pytest.mark.parametrize("tab", ["import", "open"])
def test_a_path_outside_the_roots_is_one_line_that_says_nothing_of_existence(app, roots, tmp_path, typed, tab):
    path = typed.format(allowed=roots)
    at = app("pages/index.py", index="sample:en")
    field, button = ("imp_src", "imp_btn") if tab == "import" else ("open_path", "open_btn")
    at.text_input(key=field).set_value(path).run()
    if tab == "import":
        at.text_input(key="imp_name").set_value("probe").run()
    at.button(key=button).click().run()
    assert not at.exception
    shown = [plain(e).replace(repr(path[:300]), "PATH") for e in errors(at)]
    assert len(shown) == 1 and shown[0].startswith(REFUSED), shown
    assert str(roots) in shown[0]
    assert not (tmp_path / "home" / "indexes" / "probe").exists() and registered_indexes() == {}


def test_a_folder_inside_the_roots_imports_and_opens(app, roots, tmp_path):
    import shutil

    shutil.copytree(NANO, roots / "nano")
    at = app("pages/index.py", index="sample:en")
    at.text_input(key="imp_src").set_value(str(roots / "nano")).run()
    at.selectbox(key="imp_emb").set_value("hash").run()
    at.button(key="imp_btn").click().run()
    finish_jobs(at)  # the import runs on the server (issue 29)
    assert not at.exception and not at.error, errors(at)
    assert (tmp_path / "home" / "indexes" / "nano" / "manifest.json").is_file()


# --- writes ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "setting", "writes"),
    [
        ("0.0.0.0", "", False),
        ("", "", False),
        ("::", "", False),
        ("10.1.2.3", "", False),
        ("example.org", "", False),
        ("0.0.0.0", "on", True),
        ("0.0.0.0", "ON ", True),
        ("127.0.0.1", "off", False),
        ("127.0.0.1", "", True),
        ("localhost", "auto", True),
    ],
)
def test_write_actions_follow_the_listen_address_and_the_operator(
    app, roots, listening, monkeypatch, tmp_path, address, setting, writes
):
    monkeypatch.setenv(access.WRITES_ENV, setting)
    owned = tmp_path / "home" / "indexes" / "mine"
    store.save(store.load(SAMPLES / "en" / "index"), owned, chroma=False)
    key = register_index("mine", owned)
    listening(address)
    at = app("pages/index.py", index=key)
    assert not at.exception and not at.error, errors(at)
    assert (buttons(at) >= set(WRITE_BUTTONS)) if writes else not (buttons(at) & set(WRITE_BUTTONS)), buttons(at)
    said = any("are off" in plain(i.value) and "GRAPHRAG_UI_WRITE_ACTIONS=on" in plain(i.value) for i in at.info)
    assert said is not writes


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        (access.WRITES_ENV, "maybe", "is not one of auto, on, off"),
        (access.ROOTS_ENV, "relative/folder", "is not an absolute folder"),
    ],
)
def test_a_malformed_setting_is_one_line_and_stops_the_server(app, monkeypatch, name, value, says):
    from graphrag_ui.cli.serve import check_access, main

    monkeypatch.setenv(name, value)
    at = app("pages/index.py", index="sample:en")
    assert not at.exception and len(at.error) == 1 and says in at.error[0].value
    assert not buttons(at) & set(WRITE_BUTTONS)
    assert says in (check_access() or "") and main([]) == 2


def test_the_setting_is_read_from_secrets_toml_when_the_environment_is_silent(tmp_path, monkeypatch):
    monkeypatch.delenv(access.WRITES_ENV, raising=False)
    monkeypatch.delenv(access.DB_HOSTS_ENV, raising=False)
    secrets = tmp_path / "secrets.toml"
    monkeypatch.delenv(access.ROOTS_ENV, raising=False)
    secrets.write_text(
        f'{access.WRITES_ENV} = "on"\n{access.DB_HOSTS_ENV} = "db.internal, 10.0.0.5"\n'
        f'{access.ROOTS_ENV} = ["/srv/a", "/srv/b"]\n'
    )
    got = access.read(tmp_path, secrets)
    assert got.writes == "on" and got.db_hosts == {"db.internal", "10.0.0.5"}
    assert got.roots == (Path("/srv/a"), Path("/srv/b"))
    monkeypatch.setenv(access.WRITES_ENV, "off")  # the environment wins
    assert access.read(tmp_path, secrets).writes == "off"


# --- replace -----------------------------------------------------------------------------------------------


def test_a_sample_opened_by_path_is_read_only(app, monkeypatch, tmp_path):
    sample = SAMPLES / "en" / "index"
    before = digest(sample)
    monkeypatch.setenv(access.ROOTS_ENV, str(SAMPLES))
    at = app("pages/index.py", index="sample:en")
    at.text_input(key="open_path").set_value(str(sample)).run()
    at.button(key="open_btn").click().run()
    assert not at.exception and not at.error, errors(at)
    assert at.query_params["index"] in ("path:index", ["path:index"])
    assert any("Ready: index is open now" in s.value for s in at.success)
    assert "re_btn" not in buttons(at)
    assert any("opened by path is read-only" in i.value for i in at.info)
    with pytest.raises(UserError, match="read-only"):
        index_ops.check_rewrite(index_ops.operator_access(tmp_path / "home"), sample, "path:index")
    assert digest(sample) == before
    at.text_input(key="open_path").set_value(str(SAMPLES / "zh" / "index")).run()  # another folder named index
    at.button(key="open_btn").click().run()
    assert any("Ready: index-2 is open now" in s.value for s in at.success), [s.value for s in at.success]
    assert registered_indexes()["index"] == str(sample.resolve())


def test_the_bundled_sample_offers_no_re_embed(app):
    at = app("pages/index.py", index="sample:en")
    assert "re_btn" not in buttons(at) and any("samples are read-only" in i.value for i in at.info)


def test_re_embed_never_deletes_files_the_app_did_not_write(app, roots, tmp_path):
    from tests.ui.test_app import wait_for_jobs

    owned = tmp_path / "home" / "indexes" / "mine"
    store.save(store.load(SAMPLES / "en" / "index"), owned, chroma=False)
    (owned / "notes.txt").write_text("mine, not the app's")
    (owned / "mydata").mkdir()
    (owned / "mydata" / "keep.csv").write_text("a,b\n")
    before = digest(owned)
    at = app("pages/index.py", index=register_index("mine", owned))
    at.text_input(key="re_emb").set_value("hash").run()
    at.button(key="re_btn").click().run()
    wait_for_jobs()  # the re-embed runs on the server (graphrag_ui.services.jobs); its refusal shows when it ends
    at.run()
    assert not at.exception and len(at.error) == 1, errors(at)
    assert "mydata/, notes.txt" in at.error[0].value and "would delete them" in at.error[0].value
    assert digest(owned) == before
    aside = tmp_path / "aside"  # the advice: move those files out of the folder, then re-embed
    aside.mkdir()
    for name in ("notes.txt", "mydata"):
        (owned / name).rename(aside / name)
    at.button(key="re_btn").click().run()
    assert not at.exception and not at.error, errors(at)
    wait_for_jobs()  # the re-embed runs on the server (graphrag_ui.services.jobs): the page reports it when it ends
    at.run()
    assert any("re-embed of this index finished (hash)" in s.value for s in at.success), errors(at)
    assert (aside / "mydata" / "keep.csv").is_file()


def test_the_cli_never_replaces_a_folder_holding_foreign_files(tmp_path):
    out = tmp_path / "idx"
    index = store.load(SAMPLES / "en" / "index")
    store.save(index, out, chroma=False)
    (out / "notes.txt").write_text("x")
    with pytest.raises(UserError, match=r"notes\.txt"):
        store.save(index, out, chroma=False)
    assert (out / "notes.txt").read_text() == "x"


DOC = "Mara Quay keeps the harbour lamp at Greywater. The Lantern Guild pays Mara Quay each winter.\n" * 3


@pytest.mark.parametrize("tab", ["build", "import"])
def test_replacing_an_index_asks_first_and_names_it(app, monkeypatch, tmp_path, tab):
    monkeypatch.setenv(access.ROOTS_ENV, str(NANO.parent))
    theirs = tmp_path / "home" / "indexes" / "team"
    store.save(store.load(SAMPLES / "en" / "index"), theirs, chroma=False)
    before = digest(theirs)
    at = app("pages/index.py", index="sample:en")
    if tab == "build":
        at.file_uploader(key="b_files").set_value([("a.txt", DOC.encode(), "text/plain")]).run()
        at.text_input(key="b_emb").set_value("hash").run()
        name, button, box = "b_name", "b_btn", "b_replace"
    else:
        at.text_input(key="imp_src").set_value(str(NANO)).run()
        at.selectbox(key="imp_emb").set_value("hash").run()
        name, button, box = "imp_name", "imp_btn", "imp_replace"
    at.text_input(key=name).set_value("team").run()
    label = at.checkbox(key=box).label
    assert "team" in label and "entities" in label and "embedder" in label, label
    at.button(key=button).click().run()
    assert not at.exception and len(at.error) == 1 and "already there" in at.error[0].value
    assert digest(theirs) == before
    at.checkbox(key=box).check().run()
    at.button(key=button).click().run()
    finish_jobs(at)  # the import or build runs on the server (issue 29)
    assert not at.exception and not at.error, errors(at)
    assert digest(theirs) != before


def test_a_label_naming_another_folder_is_never_re_pointed(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    first, second = tmp_path / "a" / "index", tmp_path / "b" / "index"
    assert register_index("index", first) == "path:index"
    assert register_index("index", second) == "path:index-2"
    assert register_index("index", first) == "path:index"
    assert registered_indexes() == {"index": str(first.resolve()), "index-2": str(second.resolve())}


def test_loopback_addresses():
    assert all(access.is_loopback(a) for a in ("127.0.0.1", "127.8.0.1", "localhost", "::1", "LOCALHOST"))
    assert not any(access.is_loopback(a) for a in ("", None, "0.0.0.0", "::", "10.0.0.1", "unix:///tmp/s"))


# --- uploads ------------------------------------------------------------------------------------------------

UPLOADS = [
    ([("notes.txt", DOC), ("notes.txt", DOC.upper())], "notes.txt: two uploads have this name"),
    ([("Notes.md", DOC), ("notes.MD", DOC.upper())], "notes.MD: two uploads have this name"),
    ([("dir/a.txt", DOC), ("a.txt", DOC.upper())], "a.txt: two uploads have this name"),
    ([("a\n.txt", DOC)], "holds control characters"),
    ([("a\x1b[31m.txt", DOC)], "holds control characters"),
]


@pytest.mark.parametrize(("files", "says"), UPLOADS)
def test_an_upload_is_never_dropped_silently(app, tmp_path, files, says):
    at = app("pages/index.py", index="sample:en")
    at.file_uploader(key="b_files").set_value([(n, d.encode(), "text/plain") for n, d in files]).run()
    at.text_input(key="b_name").set_value("up").run()
    at.text_input(key="b_emb").set_value("hash").run()
    at.button(key="b_btn").click().run()
    assert not at.exception and len(at.error) == 1 and says in at.error[0].value.replace("\\", ""), errors(at)
    assert not (tmp_path / "home" / "indexes" / "up").exists()


def test_renaming_one_of_two_same_named_uploads_keeps_both(app, tmp_path):
    """The advice of the refusal, followed: rename one and upload both again."""
    at = app("pages/index.py", index="sample:en")
    at.file_uploader(key="b_files").set_value(
        [("notes.txt", DOC.encode(), "text/plain"), ("notes-2.txt", DOC.upper().encode(), "text/plain")]
    ).run()
    at.text_input(key="b_name").set_value("both").run()
    at.text_input(key="b_emb").set_value("hash").run()
    at.button(key="b_btn").click().run()
    finish_jobs(at)  # the build runs on the server (issue 29)
    assert not at.exception and not at.error, errors(at)
    manifest = json.loads((tmp_path / "home" / "indexes" / "both" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"]["documents"] == 2


@pytest.mark.parametrize("name", ["a\x00.txt", "..", ".", ""])
def test_a_name_streamlit_itself_never_delivers_is_refused_too(name):
    """Streamlit's uploader refuses a NUL in a name before the page runs; the check holds without it."""
    with pytest.raises(UserError, match="control characters"):
        index_ops.check_uploads([(name, DOC.encode())])


def test_an_index_saved_meanwhile_under_the_same_name_is_never_replaced(tmp_path):
    """Two analysts building one name at once: the box was not shown (nothing was there), so the later
    save refuses at the swap instead of replacing the other's index."""
    out = tmp_path / "home" / "indexes" / "team"
    store.save(store.load(SAMPLES / "en" / "index"), out, chroma=False)  # the other analyst's, just finished
    before = digest(out)
    files = [("a.txt", DOC.encode())]
    with pytest.raises(UserError, match="was saved while this one was being made"):
        index_ops.build_from_uploads(files, out, extractor="offline", embedder="hash", llm_model=None)
    assert digest(out) == before and not list(out.parent.glob(".team.tmp-*"))
    index_ops.build_from_uploads(files, out, extractor="offline", embedder="hash", llm_model=None, replace=True)
    assert digest(out) != before
