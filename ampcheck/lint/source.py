"""Reading and writing Python source files byte-faithfully.

A fix must change only the text it means to change: the file keeps its encoding (PEP 263
coding cookie or UTF-8), its byte-order mark and its line endings. So the text is decoded
without newline translation (CRLF stays CRLF in the string that libcst parses and that
the fixes edit) and written back through the same codec, atomically.
"""
from __future__ import annotations

import codecs
import io
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from typing import Optional, Union

PathLike = Union[str, "os.PathLike[str]"]

_FIRST_BREAK = re.compile(r"\r\n|\r|\n")


class SourceError(Exception):
    """A file that cannot be read or written as Python source; str() is one clear line."""


@dataclass(frozen=True)
class SourceFile:
    text: str  # decoded, BOM removed, line endings exactly as in the file
    encoding: str  # codec name to write back with ("utf-8", "latin-1", ...)
    bom: bool  # the file starts with a UTF-8 byte-order mark
    newline: str  # the file's first line ending ("\n", "\r\n" or "\r"); "\n" if it has none


def decode_source(data: bytes, name: str) -> SourceFile:
    """Decode bytes the way CPython would: BOM, then coding cookie, else UTF-8."""
    if b"\0" in data:
        raise SourceError(f"{name}: binary file (contains NUL bytes), not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if not str(exc.msg).startswith("invalid or missing encoding declaration"):
            raise SourceError(f"{name}: {exc.msg}") from None
        encoding = "utf-8"  # no usable cookie and not UTF-8: say where decoding fails, below
    bom = data.startswith(codecs.BOM_UTF8)
    if bom:
        data = data[len(codecs.BOM_UTF8) :]
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        hint = "" if encoding != "utf-8" else "; add a PEP 263 coding cookie if it is not UTF-8"
        raise SourceError(
            f"{name}: cannot decode as {encoding} (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start}){hint}"
        ) from None
    found = _FIRST_BREAK.search(text)
    return SourceFile(text, encoding, bom, found.group() if found else "\n")


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
)


def not_regular(mode: int) -> Optional[str]:
    """What a file that is not a regular file is ("a named pipe"), or None for a regular
    file: reading a pipe or a device can block forever or never end."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _SPECIAL_KINDS if test(mode)), "not a regular file")


def skipped_special(name: str, kind: str) -> str:
    return f"{name}: {kind}, not a regular file; skipped"


def read_source(path: PathLike) -> SourceFile:
    """Read a Python file; every failure is a SourceError naming the file in one line.

    Opened without blocking and checked before reading: discovery already skips what is
    not a regular file, but a path can be replaced by a pipe between discovery and here."""
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise SourceError(f"{name}: cannot read: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "rb") as fh:
            kind = not_regular(os.fstat(fh.fileno()).st_mode)
            if kind is not None:
                raise SourceError(skipped_special(name, kind))
            data = fh.read()
    except OSError as exc:
        raise SourceError(f"{name}: cannot read: {exc.strerror or exc}") from None
    return decode_source(data, name)


def _encode(sf: SourceFile, new_text: str, name: str) -> bytes:
    try:
        data = new_text.encode(sf.encoding)
    except UnicodeEncodeError as exc:
        raise SourceError(
            f"{name}: the new text has {new_text[exc.start]!r}, which {sf.encoding} cannot encode"
        ) from None
    return codecs.BOM_UTF8 + data if sf.bom else data


def write_source(path: PathLike, sf: SourceFile, new_text: str) -> None:
    """Replace the file's content with `new_text` in `sf`'s encoding and BOM.

    Written to a temporary file beside the target and renamed over it, so a reader (or a
    crash) sees either the old file or the new one, never half of each. The file's mode is
    kept, and a symlink keeps pointing at the file it pointed at.
    """
    name = os.fspath(path)
    target = os.path.realpath(name)
    data = _encode(sf, new_text, name)
    try:
        mode = os.stat(target).st_mode & 0o7777
        fd, tmp = tempfile.mkstemp(
            dir=os.path.dirname(target), prefix=f".{os.path.basename(target)}.", suffix=".tmp"
        )
    except OSError as exc:
        raise SourceError(f"{name}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise SourceError(f"{name}: cannot write: {exc.strerror or exc}") from None


def too_large(name: str, text: str, limit: Optional[int]) -> Optional[str]:
    """The warning for Python text over `max-file-size` bytes, or None. The bound exists
    because libcst's parse time grows with size and cannot be interrupted (it holds the GIL):
    a 10 MB generated literal would stall a pre-commit run for minutes."""
    if limit is None or len(text) <= limit // 4:  # UTF-8 takes at most 4 bytes a character
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= limit:
        return None
    return (
        f"{name}: {_megabytes(size)} of Python is over max-file-size ({_megabytes(limit)}); skipped "
        "(raise it with --max-file-size or in [tool.ampcheck])"
    )


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.1f} MiB" if size >= 2**17 else f"{size:,} bytes"
