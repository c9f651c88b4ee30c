"""Hashes of the bytes of project files, each read once per run.

A cached result stays valid while the files its analysis read hash as they did; checking
that costs one read and one hash per file, without importing libcst, so a warm run stays a
replay. A pipe or device is never read (it may block): it has no hash.
"""
from __future__ import annotations

import hashlib
import os
from typing import Callable, Optional

from ampcheck.lint.source import not_regular


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_regular(path: str) -> Optional[bytes]:
    """The bytes of a regular file, or None (unreadable, or not a regular file)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            if not_regular(os.fstat(fh.fileno()).st_mode) is not None:
                return None
            return fh.read()
    except OSError:
        return None


# reads a file's bytes (None: unreadable): `read_regular`, or an editor's unsaved buffers first
Reader = Callable[[str], Optional[bytes]]


class FileDigests:
    """path -> the hash of its bytes now (None when it cannot be read), memoised."""

    def __init__(self, read: Reader = read_regular) -> None:
        self._known: dict[str, Optional[str]] = {}
        self.read = read

    def __call__(self, path: str) -> Optional[str]:
        key = os.path.abspath(path)
        if key not in self._known:
            data = self.read(key)
            self._known[key] = file_hash(data) if data is not None else None
        return self._known[key]

    def remember(self, path: str, data: bytes) -> str:
        """The hash of bytes already read from `path` (so it is not read twice)."""
        return self._known.setdefault(os.path.abspath(path), file_hash(data))

    def forget(self, path: str) -> None:
        """`path` changed (a server's buffer was edited, a file saved): hash it anew."""
        self._known.pop(os.path.abspath(path), None)
