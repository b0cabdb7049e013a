"""Fault matrix, credentials part (issue 21, deliver 1): no password, key or token reaches a reader.

A model API base with a password and an ``api-key`` parameter, a catalog URL with a password, a
PostgreSQL password and a Chroma credential in the environment: none of them appears in CLI output
(every command and failure here), in any element of a page state, in a log record or in a manifest.
Catalog URLs are read strictly: no scheme, an unknown driver or a malformed host is one line naming
the problem, the password masked, nothing written.
"""

from __future__ import annotations

import logging
import os

import pytest

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg, translate
from graphrag_ui.base.redact import redact, remember
from graphrag_ui.cli import main as cli_main
from graphrag_ui.model_client import client
from tests.conftest import ROOT, SAMPLES
from tests.support.llm_server import Reply
from tests.support.ui_fixtures import plain

EN = SAMPLES / "en" / "index"
NANO_SRC = ROOT / "tests" / "goldens" / "nano" / "en"
PASSWORD = "pa55-Wd-9c1"  # in the model API base
API_KEY = "KEY-q8Zt-4411"  # an ?api-key= parameter of the API base
DB_PASSWORD = "db-Secret-77"  # in the catalog URL
PG_PASSWORD = "pgpass-0042x"  # PGPASSWORD
CHROMA_CRED = "chroma-tok-5150"  # chroma's client credentials
SECRETS = (PASSWORD, API_KEY, DB_PASSWORD, PG_PASSWORD, CHROMA_CRED)
QUESTION = "Who founded the Guild of Tidewrights, and what did he build?"


def clean(text: str) -> bool:
    return not any(secret in text for secret in SECRETS)


@pytest.fixture(autouse=True)
def secrets_env(monkeypatch, tmp_path):
    monkeypatch.setattr(client, "BACKOFF_BASE", 0.01)
    monkeypatch.setenv("GRAPHRAG_UI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_TIMEOUT", "2")
    monkeypatch.setenv("PGPASSWORD", PG_PASSWORD)
    monkeypatch.setenv("CHROMA_CLIENT_AUTH_CREDENTIALS", CHROMA_CRED)
    for var in ("GRAPHRAG_UI_CATALOG_URL", "CHROMA_HOST", "CHROMA_PORT"):
        monkeypatch.delenv(var, raising=False)


def model_at(monkeypatch, url: str) -> str:
    base = url.replace("http://", f"http://alice:{PASSWORD}@") + f"?api-key={API_KEY}"
    monkeypatch.setenv("GRAPHRAG_UI_LLM_MODEL", "openai/test-model")
    monkeypatch.setenv("GRAPHRAG_UI_LLM_API_BASE", base)
    return base


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    assert clean(out) and clean(err), (out, err)
    assert "Traceback" not in err
    return code, out, err


# --- the one function -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "hidden", "kept"),
    [
        ("model m at http://u:pw-1234@h:8000/v1", "pw-1234", "http://u:***@h:8000/v1"),
        ("http://h/v1?api-key=abc123&x=1", "abc123", "api-key=***&x=1"),
        ("https://h/v1?access_token=tok999&key=k1234", "tok999", "access_token=***&key=***"),
        ("postgresql+psycopg://app:pw@db:5432/g", "pw@", "postgresql+psycopg://app:***@db:5432/g"),
        ("GRAPHRAG_UI_CATALOG_URL is app:pw-99@db.internal", "pw-99", "app:***@db.internal"),
        ("host=db password=hunter2 dbname=g", "hunter2", "password=***"),
        ("Authorization: Bearer sk-abcdef123456", "sk-abcdef123456", "Bearer ***"),
        ("https://u:p@ss@host/x", "p@ss", "https://u:***@host/x"),
    ],
)
def test_redact_masks_every_credential_form(text, hidden, kept):
    shown = redact(text)
    assert hidden not in shown and kept in shown, shown


def test_redact_keeps_ordinary_text_and_parameters():
    for text in ("max_token_for_text_unit=4000 top_k=5", "http://127.0.0.1:8000/v1", "10:30 at home", "Lock Queen"):
        assert redact(text) == text


def test_known_values_are_masked_anywhere_and_a_message_stays_translatable(monkeypatch):
    monkeypatch.setenv("GRAPHRAG_UI_CATALOG_URL", f"postgresql+psycopg://app:{DB_PASSWORD}@db/g")
    remember("from-secrets-toml-555")
    text = msg("the provider said {detail}", detail=f"{PG_PASSWORD} {CHROMA_CRED} {DB_PASSWORD} from-secrets-toml-555")
    shown = redact(text)
    assert clean(shown) and "from-secrets-toml-555" not in shown
    assert translate(shown, "zh") != shown or shown.template == text.template  # still a Msg with its template
    error = UserError(msg("cannot reach {url}", url=f"http://u:{PASSWORD}@h/v1"), where=f"x?token={API_KEY}")
    assert clean(str(error)) and clean(error.message) and clean(error.where)


def test_log_records_are_redacted(caplog):
    log = logging.getLogger("graphrag_ui.test")
    with caplog.at_level(logging.INFO):
        log.info("calling %s", f"http://u:{PASSWORD}@h/v1?api-key={API_KEY}")
        try:
            raise RuntimeError(f"connect to postgresql://app:{DB_PASSWORD}@db failed")
        except RuntimeError:
            log.exception("page failed")
    text = caplog.text + "".join(r.exc_text or "" for r in caplog.records)
    assert "calling http://u:***@h/v1" in text and "RuntimeError" in text and clean(text), text


# --- the CLI --------------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["500", "down", "ok"])
@pytest.mark.parametrize("mode", ["nano.local", "lightrag.hybrid", "ms.global"])
def test_query_never_prints_the_api_base_credentials(serve, capsys, monkeypatch, mode, fault):
    if fault == "down":
        url, _ = serve(None)
        url = url.rsplit(":", 1)[0] + ":9"  # nothing listens on the discard port
    else:
        url, _ = serve([Reply(status=500, text="upstream failed")] if fault == "500" else None)
    model_at(monkeypatch, url)
    code, out, err = cli(capsys, "query", "--index", str(EN), "--mode", mode, QUESTION)
    assert code == (0 if fault == "ok" else 2), err
    if fault != "ok":
        assert "alice:***@127.0.0.1" in err and "api-key=***" in err, err


CATALOG_URLS = {
    "no scheme": (f"app:{DB_PASSWORD}@db.internal", "has no scheme"),
    "unknown driver": (f"postgresql+nodriver://app:{DB_PASSWORD}@db/g", "unknown dialect or driver"),
    "driver not installed": (f"postgresql+psycopg2://app:{DB_PASSWORD}@db/g", "is not installed"),
    "unclosed IPv6": (f"postgresql+psycopg://app:{DB_PASSWORD}@[::1", "cannot read the host and port"),
    "bad port": (f"postgresql+psycopg://app:{DB_PASSWORD}@db:54x/g", "cannot read the host and port"),
    "malformed host": (f"postgresql+psycopg://app:{DB_PASSWORD}@bad host/g", "malformed host"),
}


@pytest.mark.parametrize("case", CATALOG_URLS)
def test_a_bad_catalog_url_is_one_line_and_nothing_is_written(capsys, monkeypatch, tmp_path, case):
    url, problem = CATALOG_URLS[case]
    monkeypatch.setenv("GRAPHRAG_UI_CATALOG_URL", url)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    code, out, err = cli(capsys, "import", "auto", str(NANO_SRC), "--out", str(tmp_path / "idx"), "--embedder", "hash")
    assert code == 2 and err.count("\n") == 1 and problem in err and "GRAPHRAG_UI_CATALOG_URL" in err, err
    assert "***" in err and list(work.iterdir()) == [] and not (tmp_path / "idx").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["work"]  # no hidden .idx.tmp-* either
    # a query that reads the catalog (ILIKE recall) says the same in one line
    code, _, err = cli(capsys, "query", "--index", str(EN), "--recall", "ilike", "--context-only", QUESTION)
    assert code == 2 and err.count("\n") == 1 and problem in err, err


def test_a_chroma_host_with_credentials_is_refused(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("CHROMA_HOST", f"admin:{CHROMA_CRED}@chroma.internal")
    code, _, err = cli(capsys, "import", "auto", str(NANO_SRC), "--out", str(tmp_path / "idx"), "--embedder", "hash")
    assert code == 2 and "CHROMA_HOST must be a host name" in err and not (tmp_path / "idx").exists(), err


def test_a_saved_manifest_holds_no_credential(capsys, monkeypatch, tmp_path):
    code, _, _ = cli(capsys, "import", "auto", str(NANO_SRC), "--out", str(tmp_path / "idx"), "--embedder", "hash")
    assert code == 0
    for file in (tmp_path / "idx").rglob("*.json"):
        assert clean(file.read_text(encoding="utf-8")), file


# --- the pages ------------------------------------------------------------------------------------


def page_dump(at) -> str:
    """Every element of the page as its protobuf text (labels, values, bodies, help)."""
    parts: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(parts)


def test_no_page_state_shows_a_credential(serve, monkeypatch):
    from streamlit.testing.v1 import AppTest

    url, _ = serve([Reply(status=500, text=f"upstream echoed {PASSWORD}")])
    model_at(monkeypatch, url)
    monkeypatch.setenv("GRAPHRAG_UI_CATALOG_URL", f"postgresql+psycopg://app:{DB_PASSWORD}@db.internal/g")
    monkeypatch.chdir(ROOT)
    states: list[str] = []

    def check(at, state: str) -> None:
        assert not at.exception, (state, [e.value for e in at.exception])
        dump = page_dump(at)
        assert clean(dump), (state, [s for s in SECRETS if s in dump])
        states.append(state)

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["mode"] = "nano.local"
    at.query_params["q"] = QUESTION
    at.run()
    check(at, "explore")
    at.button(key="main_ask").click().run()
    check(at, "explore answer error")
    assert any("alice:***@" in plain(e.value) for e in at.error), [e.value for e in at.error]
    for mode, recall in (("lightrag.hybrid", "hybrid"), ("ms.global", "vector")):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
        at.query_params.update({"mode": mode, "q": QUESTION, "recall": recall})
        at.run()
        check(at, f"explore {mode}")
        at.button(key="main_ask").click().run()
        check(at, f"explore {mode} answer error")
    at.switch_page("pages/settings.py").run()
    check(at, "settings")
    assert any("alice:***@" in str(t.value) for t in at.text_input), [t.value for t in at.text_input]
    at.button[0].click().run()  # Test connection
    check(at, "settings connection test")
    at.switch_page("pages/recall.py").run()
    check(at, "entity recall")
    assert len(states) == 9
    assert os.environ["GRAPHRAG_UI_LLM_API_BASE"].count(PASSWORD) == 1  # the setting itself is untouched
