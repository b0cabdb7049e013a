"""User-facing errors: one clear sentence saying what failed, where, and what to do."""

from __future__ import annotations

from graphrag_ui.base.i18n import msg
from graphrag_ui.base.redact import redact


class UserError(Exception):
    """An error caused by input (a file, a folder, a setting) that the user can fix.

    The message is shown as is in the CLI and in the app; it never carries a traceback. ``what`` and
    ``fix`` are messages (``msg``), so the app shows them in the reader's language; ``where`` (a
    path, a name) is data. Every part is redacted when the error is made (``graphrag_ui.base.redact``): a
    URL's password, a key or a token never reaches the CLI, a page, a log, a batch row or an export.
    """

    def __init__(self, what: str, where: str = "", fix: str = "") -> None:
        self.what, self.where, self.fix = redact(what), redact(where), redact(fix)
        super().__init__(str(self.message))

    @property
    def message(self) -> str:
        """The whole error as one message: ``str(self)`` in English, translatable part by part.

        Keep this, not ``str(exc)``, where an error is carried on as text (an answer's error, a note)."""
        head = msg("{where}: {what}", where=self.where, what=self.what) if self.where else self.what
        return msg("{head} — {fix}", head=head, fix=self.fix) if self.fix else head


class IndexFormatError(UserError):
    """An index or source directory is missing a file or holds something malformed."""


class EmbedderMismatchError(UserError):
    """The query embedder differs from the one that produced the index's vectors."""
