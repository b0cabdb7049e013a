"""Read a folder of .txt/.md documents, one clear message per file that cannot be used.

A bad file (binary, not UTF-8, unreadable, empty, a duplicate of another) is reported and skipped so
that one stray file never stops a build; a folder with no usable document at all is an error.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import joined, msg
from graphrag_ui.index.model import Document

EXTENSIONS = (".txt", ".md")


@dataclass
class Problem:
    """One file that was skipped, and why (shown to the user as ``path: reason``)."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"

    @property
    def message(self) -> str:
        """``str(self)`` as a message: the reason translated, the path kept."""
        return msg("{path}: {reason}", path=self.path, reason=self.reason)


@dataclass
class ReadResult:
    documents: list[Document] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def doc_id(text: str) -> str:
    return "doc-" + hashlib.md5(text.encode("utf-8")).hexdigest()


def _candidate_files(root: Path) -> tuple[list[Path], list[Path]]:
    """(.txt/.md files, other files) under ``root`` in sorted order, hidden entries skipped."""
    if root.is_file():
        return ([root], []) if root.suffix.lower() in EXTENSIONS else ([], [root])
    wanted: list[Path] = []
    other: list[Path] = []
    for path in sorted(root.rglob("*"), key=lambda p: p.relative_to(root).as_posix()):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts) or not path.is_file():
            continue
        (wanted if path.suffix.lower() in EXTENSIONS else other).append(path)
    return wanted, other


def decode(data: bytes, where: str) -> str:
    """UTF-8 text of ``data`` (a BOM is dropped); a UserError naming the file otherwise."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise UserError(msg("is UTF-16 text, not UTF-8"), where=where, fix=msg("re-save the file as UTF-8"))
    if b"\x00" in data[:8192]:
        raise UserError(
            msg("looks like a binary file (it contains NUL bytes)"), where=where, fix=msg("give .txt/.md text files")
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError(
            msg(
                "is not UTF-8 text (byte 0x{byte} at offset {offset})", byte=f"{data[exc.start]:02x}", offset=exc.start
            ),
            where=where,
            fix=msg("re-save the file as UTF-8 (e.g. `iconv -f GBK -t UTF-8`)"),
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_documents(docs_dir: str | Path) -> ReadResult:
    """Load every usable document under ``docs_dir``; problems are collected, not raised."""
    root = Path(docs_dir)
    if not root.exists():
        raise UserError(
            msg("the documents folder does not exist"), where=str(root), fix=msg("give a folder of .txt/.md files")
        )
    wanted, other = _candidate_files(root)
    result = ReadResult()
    base = root if root.is_dir() else root.parent
    for path in other:
        result.problems.append(Problem(path.relative_to(base).as_posix(), msg("ignored (only .txt and .md are read)")))
    seen: dict[str, str] = {}
    for path in wanted:
        rel = path.relative_to(base).as_posix()
        try:
            data = path.read_bytes()
        except OSError as exc:
            result.problems.append(Problem(rel, msg("cannot be read ({error})", error=exc.strerror or str(exc))))
            continue
        try:
            text = decode(data, rel).strip()
        except UserError as exc:
            reason = msg("{head} — {fix}", head=exc.what, fix=exc.fix) if exc.fix else exc.what
            result.problems.append(Problem(rel, reason))
            continue
        if not text:
            result.problems.append(Problem(rel, msg("is empty")))
            continue
        did = doc_id(text)
        if did in seen:
            result.problems.append(Problem(rel, msg("has the same text as {did} (skipped)", did=seen[did])))
            continue
        seen[did] = rel
        result.documents.append(Document(id=did, title=rel, text=text, extra={"file_path": rel}))
    if not result.documents:
        details = joined(*(p.message for p in result.problems)) or msg("no .txt or .md files found")
        raise UserError(
            msg("no usable documents ({details})", details=details),
            where=str(root),
            fix=msg("add UTF-8 .txt or .md files"),
        )
    return result
