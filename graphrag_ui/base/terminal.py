"""Text from an index or a model, made safe to print on a terminal.

An entity name or a model answer may hold ESC sequences or other control characters that would
move the cursor, recolour, retitle or clear the user's terminal. Every such character is printed
as a visible escape (``\\x1b``); newlines and tabs stay unless the text must fit on one line.
Output meant for programs (``--context-only``, ``--json``) is never passed through here: it stays byte-exact.
Errors, warnings and notes go through ``said``, which also masks credentials (``graphrag_ui.base.redact``).
"""

from __future__ import annotations

import re

from graphrag_ui.base.redact import redact

# C0 controls except tab/newline, DEL, C1 controls, the bidi overrides that reorder what is shown, and lone
# surrogates (a model's or a file's JSON may hold "\\ud800": no terminal encoding can write it)
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_UNSAFE_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str, *, one_line: bool = False) -> str:
    """``text`` with control characters shown as escapes (newlines and tabs too when ``one_line``)."""
    pattern = _UNSAFE_ONE_LINE if one_line else _UNSAFE
    return pattern.sub(_escape, text)


def said(text: str, *, one_line: bool = False) -> str:
    """A message of ours (an error, a warning, a note) for the terminal: redacted, then made safe."""
    return safe_text(redact(str(text)), one_line=one_line)
