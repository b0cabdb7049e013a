"""Credentials never reach a reader: ``redact`` masks every form a secret takes in a text.

Every path that prints or renders a URL, a setting or an error goes through ``redact``: a
``UserError`` redacts its parts when it is made (so the CLI, the pages, batch rows, notes and exports
get the masked text), the CLI redacts what it prints on stderr, log records are redacted when they
are made (``install_log_redaction``, tracebacks included), and the Settings page and
``LLMSettings.public`` show the API base redacted. The forms:

- a URL's password (``scheme://user:PASSWORD@host``, also without the scheme: ``user:PASSWORD@host``)
  → ``user:***@host`` (the user name stays: it says which account);
- a query-string or ``name=value`` parameter whose name says key, token, secret, password, signature
  or credential (``?api-key=…``, ``&access_token=…``, ``password=…``, ``sslpassword=…``) → ``name=***``;
- ``Bearer <token>`` → ``Bearer ***``;
- any value this process knows to be secret, wherever it appears: environment variables named like
  keys, tokens, secrets, passwords or credentials (``OPENAI_API_KEY``, ``PGPASSWORD``,
  ``CHROMA_CLIENT_AUTH_CREDENTIALS``), the passwords and secret parameters inside URL-valued settings
  (``GRAPHRAG_UI_CATALOG_URL``, ``GRAPHRAG_UI_LLM_API_BASE``, ``CHROMA_HOST``), and values read from
  ``secrets.toml`` (``remember``) → an API key as ``sk-…123`` (enough to recognise it), anything else
  as ``***``.

A message (``msg``) stays a message: its values are redacted and the template kept, so the reader
still gets it in their language.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from typing import Any

from graphrag_ui.base.i18n import Msg

HIDDEN = "***"
# a parameter name that says secret: the whole name, or its last part after - _ . (x-api-key, access_token)
# (a password's name may also run on without a separator: sslpassword, dbpasswd)
_SECRET_NAME = (
    r"(?:(?:[\w.-]*[-_.])?(?:api[-_]?key|apikey|key|token|secret|passw(?:or)?d|pwd|signature|sig|credentials?|auth)"
    r"|[\w.-]*passw(?:or)?d)"
)
_SECRET_PARAM = re.compile(rf"(?i)(?<![\w.-])({_SECRET_NAME})(\s*=\s*)([^&#\s'\",;)]*[^&#\s'\",;):.])")
# the password runs to the "@" that is followed by the host (a raw "@" inside it is masked too)
_URL_PASSWORD = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@?#]*:)(\S*?)(@)(?=[^\s@/?#]*(?:[\s/?#]|$))")
_BARE_PASSWORD = re.compile(r"(?i)((?:^|(?<=[\s'\"(=\[,]))[\w.%+-]+:)([^\s@/:'\"]+)(@[\w\[])")
_BEARER = re.compile(r"(?i)(\bbearer\s+)([\w.~+/=-]{6,})")
_KEY_VARS = ("_API_KEY", "_KEY", "_TOKEN", "_SECRET")
_PASSWORD_VARS = ("PASSWORD", "PASSWD", "_PWD", "CREDENTIALS", "CREDENTIAL", "_AUTH")
_URL_VARS = ("GRAPHRAG_UI_CATALOG_URL", "GRAPHRAG_UI_LLM_API_BASE", "CHROMA_HOST")
MIN_SECRET = 4  # a shorter value is not masked wherever it appears (it would mangle ordinary words)

_remembered: set[str] = set()
_lock = threading.Lock()


def mask(secret: str) -> str:
    """ "sk-…123": enough to recognise a key, never enough to use it."""
    if not secret:
        return ""
    if len(secret) <= 8:
        return "…" + secret[-2:]
    head = secret[:3] if secret[:3].isascii() else ""
    return f"{head}…{secret[-3:]}"


def remember(*values: str) -> None:
    """Values read from a secrets file: masked wherever they appear from now on."""
    with _lock:
        _remembered.update(v for v in values if isinstance(v, str) and len(v) >= MIN_SECRET)


def url_secrets(text: str) -> list[str]:
    """The password and the secret parameters inside one URL-like setting."""
    found = [m.group(2) for m in _URL_PASSWORD.finditer(text)]
    found += [m.group(2) for m in _BARE_PASSWORD.finditer(text)]
    found += [m.group(3) for m in _SECRET_PARAM.finditer(text)]
    return [f for f in found if f and f != HIDDEN]


def known_secrets(extra: tuple[str, ...] | list[str] = ()) -> dict[str, str]:
    """Every secret value this process knows -> how it is shown (longest first)."""
    shown: dict[str, str] = {}
    for name, value in os.environ.items():
        upper = name.upper()
        if len(value) < MIN_SECRET:
            continue
        if upper.endswith(_KEY_VARS):
            shown[value] = mask(value)
        elif any(part in upper for part in _PASSWORD_VARS):
            shown[value] = HIDDEN
        elif upper in _URL_VARS or upper.endswith(("_URL", "_API_BASE", "_DSN")):
            for secret in url_secrets(value):
                if len(secret) >= 3:
                    shown[secret] = HIDDEN
    with _lock:
        for value in _remembered:
            shown.setdefault(value, mask(value))
    for value in extra:
        if value and len(value) >= MIN_SECRET:
            shown[value] = mask(value)
    return dict(sorted(shown.items(), key=lambda kv: -len(kv[0])))


def _text(text: str, secrets: dict[str, str]) -> str:
    text = _URL_PASSWORD.sub(lambda m: m.group(1) + (HIDDEN if m.group(2) else "") + m.group(3), text)
    text = _BARE_PASSWORD.sub(lambda m: m.group(1) + HIDDEN + m.group(3), text)
    text = _SECRET_PARAM.sub(lambda m: m.group(1) + m.group(2) + HIDDEN, text)
    text = _BEARER.sub(lambda m: m.group(1) + HIDDEN, text)
    for secret, shown in secrets.items():
        if secret in text:
            text = text.replace(secret, shown)
    return text


def redact(text: Any, extra: tuple[str, ...] | list[str] = ()) -> Any:
    """``text`` with every credential masked (see the module); a ``Msg`` stays a ``Msg``, anything else
    that is not a string is returned as is. ``extra``: more secret values (an explicit API key)."""
    if not isinstance(text, str) or not text:
        return text
    secrets = known_secrets(extra)
    if isinstance(text, Msg):
        return _message(text, secrets)
    return _text(text, secrets)


def _message(text: Msg, secrets: dict[str, str]) -> str:
    values = {k: _message(v, secrets) if isinstance(v, Msg) else _plain(v, secrets) for k, v in text.values.items()}
    if values == text.values:
        return text
    rebuilt = Msg(text.template.format(**values) if values else text.template)  # as msg() makes it
    rebuilt.template, rebuilt.values, rebuilt.context = text.template, values, text.context
    return rebuilt


def _plain(value: Any, secrets: dict[str, str]) -> Any:
    return _text(value, secrets) if isinstance(value, str) else value


# --- logs ----------------------------------------------------------------------------------------

_installed = False


def install_log_redaction() -> None:
    """Redact every log record when it is made (message, arguments and traceback), in every logger.

    Library loggers (litellm, httpx, SQLAlchemy) may print a URL with its password; the record factory
    sees them all, whatever handler writes them later."""
    global _installed
    if _installed:
        return
    _installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
            cleaned = redact(message)
            if cleaned != message:
                record.msg, record.args = cleaned, ()
            if record.exc_info and record.exc_info[0] is not None:
                record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        except Exception:  # noqa: BLE001 - a log record must never fail because of redaction
            pass
        return record

    logging.setLogRecordFactory(factory)
