"""Which version of a file is on disk now: the key under which a parse of it is kept.

The secrets file, an index's manifest and its SQLite catalog are read on every slider move, so each is
parsed once per version. A version is (device, inode, ctime, mtime, size): a save that replaces the file
(another inode), an edit in place (mtime, size) and a copy that restores the old mtime (``cp -p``,
``rsync -t``: ctime still moves, and nothing sets it back) each make a new one.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

Version = tuple[int, int, int, int, int]


def version(path: str | Path) -> Version | None:
    """The version of the regular file at ``path`` (a link is followed), None when there is none to read."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return info.st_dev, info.st_ino, info.st_ctime_ns, info.st_mtime_ns, info.st_size
