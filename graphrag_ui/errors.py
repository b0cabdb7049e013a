"""User-facing errors: one clear sentence saying what failed, where, and what to do."""

from __future__ import annotations


class UserError(Exception):
    """An error caused by input (a file, a folder, a setting) that the user can fix.

    The message is shown as is in the CLI and in the app; it never carries a traceback.
    """

    def __init__(self, what: str, where: str = "", fix: str = "") -> None:
        self.what, self.where, self.fix = what, where, fix
        parts = [what if not where else f"{where}: {what}"]
        if fix:
            parts.append(fix)
        super().__init__(" — ".join(parts))


class IndexFormatError(UserError):
    """An index or source directory is missing a file or holds something malformed."""


class EmbedderMismatchError(UserError):
    """The query embedder differs from the one that produced the index's vectors."""
