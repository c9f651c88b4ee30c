"""Applying fixes to source text: pure functions, no files.

Fixes are plain text edits (1-based rows and character columns, like Ruff's JSON), so a
cached finding can replay its fix without re-parsing. One round applies every fix that does
not collide with a fix already applied; a colliding fix waits for the next round, where
the engine re-lints the new text and gets fresh positions. Several findings may carry the
same edit (one import rewrite serving every call that uses it): an edit identical to one
already applied is already done, not a collision.

Every round's result is verified before it is written: it must parse and compile, and no
use that a fix rewrote may have been a name with more than one binding in reach (a use that
means the deprecated API in one branch and a user's fallback in another must not be turned
into the new API). That last check uses libcst's own scope analysis, independently of the
checks' faster resolver, so a mistake in either shows up as a refused fix, not a wrong one.
"""
from __future__ import annotations

import re
import warnings
from typing import Iterable, Iterator, Optional, Sequence, Union

import libcst as cst
from libcst.metadata import (
    Assignment,
    BaseAssignment,
    CodeRange,
    MetadataWrapper,
    PositionProvider,
    ScopeProvider,
)

from ampcheck.findings import Edit, Fix
from ampcheck.lint.names import dotted, import_key

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


def verify(
    new_text: str, filename: str = "<fixed>", before: Optional[str] = None, applied: Sequence[Fix] = ()
) -> None:
    """Refuse a result that libcst or CPython would not accept, or (given the text the fixes
    were applied to) one that rewrote a use of a name with several bindings in reach. A
    compile error the text had before the fixes (`await` in a notebook cell, `return` at
    module level: errors after parsing, which AMP001 does not report) is not the fixes'."""
    if before is not None and applied:
        _check_rewritten_uses(before, [e for fix in applied for e in fix.edits])
    try:
        cst.parse_module(new_text)
    except cst.ParserSyntaxError as exc:
        raise FixError(f"fixed code does not parse (line {exc.raw_line}): {exc.message}") from None
    error = _compile_error(new_text, filename)
    if error is not None and (before is None or _compile_error(before, filename) is None):
        line = getattr(error, "lineno", None)
        where = f" (line {line})" if line else ""
        raise FixError(f"fixed code does not compile{where}: {getattr(error, 'msg', error)}")


def _compile_error(text: str, filename: str) -> Optional[Exception]:
    try:
        with warnings.catch_warnings():  # the user's own "\d" strings are not ours to report
            warnings.simplefilter("ignore")
            compile(text, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return exc
    return None


Point = tuple[int, int]  # 1-based line, 0-based column, as libcst's positions


def _check_rewritten_uses(before: str, edits: Sequence[Edit]) -> None:
    try:
        module = cst.parse_module(before)
    except cst.ParserSyntaxError:
        return  # the checks never ran on it; nothing was rewritten from a model of it
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    scopes = wrapper.resolve(ScopeProvider)
    positions = wrapper.resolve(PositionProvider)
    referents = {
        access.node: access.referents
        for scope in {s for s in scopes.values() if s is not None}
        for access in scope.accesses
    }
    names = [(positions[n], n) for n in referents if isinstance(n, cst.Name)]
    applied = [(positions[n], n) for n in positions if isinstance(n, (cst.Call, cst.Decorator))]
    for name in set(_rewritten_uses(before, edits, names, applied)):
        meanings = {_meaning(a) for a in referents[name]}  # type: ignore[attr-defined]
        if len(meanings) > 1:
            line = positions[name].start.line
            raise FixError(
                f"`{name.value}` (line {line}) may refer to {len(meanings)} different bindings there, "
                "so rewriting its use could change what runs"
            )


def _rewritten_uses(
    before: str,
    edits: Sequence[Edit],
    names: "list[tuple[CodeRange, cst.Name]]",
    applied: "list[tuple[CodeRange, Union[cst.Call, cst.Decorator]]]",
) -> Iterator[cst.Name]:
    """The names whose use an edit rewrites: a name in the text an edit replaces, and the
    callee (or decorator) of the innermost call an edit falls inside (an inserted device
    argument changes what the call means for whatever the callee is bound to)."""
    starts = _line_starts(before)
    for e in edits:
        start, end = (e.row, e.column - 1), (e.end_row, e.end_column - 1)
        old = before[_offset(starts, before, e.row, e.column) : _offset(starts, before, e.end_row, e.end_column)]
        if all(not t.strip() or t.lstrip().startswith("#") for t in (old, e.content)):
            continue  # a comment (an unused suppression) is no use of anything
        yield from (n for r, n in names if start < _point(r.end) and _point(r.start) < end)
        inside = [(r, n) for r, n in applied if _point(r.start) < start and end <= _point(r.end)]
        if inside:
            _, innermost = max(inside, key=lambda item: _point(item[0].start))
            callee = innermost.func if isinstance(innermost, cst.Call) else innermost.decorator
            head = _head_name(callee)
            if head is not None and any(n is head for _, n in names):
                yield head


def _point(pos: object) -> Point:
    return (pos.line, pos.column)  # type: ignore[attr-defined]


def _head_name(expr: cst.BaseExpression) -> Optional[cst.Name]:
    if dotted(expr) is None:
        return None
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return expr if isinstance(expr, cst.Name) else None


def _meaning(assignment: BaseAssignment) -> object:
    """Bindings that import the same thing are one meaning (`import torch` twice)."""
    if isinstance(assignment, Assignment) and isinstance(assignment.node, (cst.Import, cst.ImportFrom)):
        names = assignment.node.names
        for alias in names if not isinstance(names, cst.ImportStar) else ():
            local = alias.evaluated_alias or (dotted(alias.name) or "").split(".")[0]
            if local == assignment.name:
                return import_key(alias, assignment.node)
    return assignment.node if isinstance(assignment, Assignment) else assignment.name
