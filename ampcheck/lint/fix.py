"""Applying fixes to source text: pure functions, no files.

Fixes are plain text edits (1-based rows and character columns, like Ruff's JSON), so a
cached finding can replay its fix without re-parsing. One round applies every fix that does
not collide with a fix already applied; a colliding fix waits for the next round, where
the engine re-lints the new text and gets fresh positions. Several findings may carry the
same edit (one import rewrite serving every call that uses it): an edit identical to one
already applied is already done, not a collision.
"""
from __future__ import annotations

import re
import warnings
from typing import Iterable, Sequence

import libcst as cst

from ampcheck.findings import Edit, Fix

_LINE_BREAK = re.compile(r"\r\n|\r|\n")

Span = tuple[int, int, str]  # start offset, end offset, content


class FixError(Exception):
    """A fix that cannot be applied or whose result is not valid Python; str() is one line."""


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in _LINE_BREAK.finditer(text)]


def _offset(starts: list[int], text: str, row: int, column: int) -> int:
    if not 1 <= row <= len(starts) or column < 1:
        raise FixError(f"edit position {row}:{column} is outside the file")
    line_end = starts[row] if row < len(starts) else len(text)
    offset = starts[row - 1] + column - 1
    # A position may sit at the end of a line's content or on its line break, not past it.
    if offset > line_end:
        raise FixError(f"edit position {row}:{column} is past the end of its line")
    return offset


def _collide(a: Span, b: Span) -> bool:
    """Overlapping ranges collide, and so do two edits touching one point where either is
    an insertion: their order would be a guess."""
    if max(a[0], b[0]) < min(a[1], b[1]):
        return True
    return (a[0] == a[1] and b[0] <= a[0] <= b[1]) or (b[0] == b[1] and a[0] <= b[0] <= a[1])


def _spans(text: str, starts: list[int], edits: Iterable[Edit]) -> list[Span]:
    spans = []
    for e in edits:
        start = _offset(starts, text, e.row, e.column)
        end = _offset(starts, text, e.end_row, e.end_column)
        if end < start:
            raise FixError(f"edit {e.row}:{e.column}-{e.end_row}:{e.end_column} ends before it starts")
        spans.append((start, end, e.content))
    return spans


def apply_fixes(text: str, fixes: Sequence[Fix]) -> tuple[str, list[Fix]]:
    """Apply the fixes that fit together; return the new text and the fixes applied.

    Fixes are taken in order of their first edit; a fix colliding with an applied one (or
    with itself) is left out of `applied` for the caller's next round.
    """
    starts = _line_starts(text)
    ordered = sorted(
        ((sorted(_spans(text, starts, f.edits)), f) for f in fixes if f.edits),
        key=lambda item: item[0][0][:2],
    )
    done: list[Span] = []
    applied: list[Fix] = []
    for spans, fix in ordered:
        new = [s for s in spans if s not in done]
        if any(_collide(a, b) for i, a in enumerate(new) for b in new[i + 1 :]):
            continue
        if any(_collide(a, b) for a in new for b in done):
            continue
        done.extend(new)
        applied.append(fix)
    for start, end, content in sorted(done, reverse=True):
        text = text[:start] + content + text[end:]
    return text, applied


def verify(new_text: str, filename: str = "<fixed>") -> None:
    """Refuse a result that libcst or CPython would not accept."""
    try:
        cst.parse_module(new_text)
    except cst.ParserSyntaxError as exc:
        raise FixError(f"fixed code does not parse (line {exc.raw_line}): {exc.message}") from None
    try:
        with warnings.catch_warnings():  # the user's own "\d" strings are not ours to report
            warnings.simplefilter("ignore")
            compile(new_text, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        where = f" (line {line})" if line else ""
        raise FixError(f"fixed code does not compile{where}: {getattr(exc, 'msg', exc)}") from None
