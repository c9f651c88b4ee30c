"""AMP001: the syntax check every file gets. AMP001 means "the project's Python cannot parse
this", so the project's oldest Python (`target-version`, else requires-python) decides.

CPython's own parser, the one running ampcheck, answers for a project whose oldest Python is
this one or older, or undeclared: a finding carries the position and message CPython
reports (syntax newer than the project's Python is not reported there, as before targets).
A project whose oldest Python is newer may use syntax this interpreter rejects (3.12's
PEP 695 `type X = ...`, `class C[T]:`, `def f[T]()` and PEP 701 f-strings): a text CPython
rejects is then judged by libcst's grammar, which accepts every Python 3 release it knows at
once (libcst 1.9 parses 3.0-3.15 syntax whatever `PartialParserConfig(python_version=...)`
says), and is reported only when libcst rejects it too. Notebooks check each code cell on
its own (after IPython's transformations), as Jupyter runs them.
"""
from __future__ import annotations

import ast
import re
import sys
import warnings
from dataclasses import replace
from typing import Optional

from ampcheck.config import SYNTAX_ERROR
from ampcheck.findings import Finding
from ampcheck.targets import MinorVersion

RUNNING = MinorVersion(*sys.version_info[:2])


def syntax_error(
    text: str, path: str, is_notebook: bool = False, python: Optional[MinorVersion] = None
) -> Optional[Finding]:
    """AMP001 at the position CPython's parser reports, or None when the text parses for the
    project's oldest Python `python` (None: undeclared, this interpreter decides)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            # A text that compiles parses, and compiling builds no Python objects for the tree
            # (a third cheaper than the AST alone); only a text that fails is parsed again for
            # the parser's own verdict, since the compiler also rejects what parses (`return`
            # outside a function).
            compile(text, path, "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT if is_notebook else 0, dont_inherit=True)
            return None
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
    try:
        _parse(text, path, is_notebook)
    except SyntaxError as err:
        line = err.lineno or 1
        col = err.offset or 1
        end_line = err.end_lineno or line
        end_col = err.end_offset if err.end_offset and end_line >= line else col
        if end_line == line and end_col < col:
            end_col = col
        found = Finding(SYNTAX_ERROR, f"SyntaxError: {err.msg}", path, line, col, end_line, end_col)
        return found if python is None or python <= RUNNING else _for_newer_python(text, found)
    except (ValueError, RecursionError, MemoryError) as err:
        return Finding(SYNTAX_ERROR, f"cannot parse: {err}", path, 1, 1, 1, 1)
    return None


def parses(text: str) -> bool:
    """Whether CPython's parser accepts `text` (a module's, not a notebook's). Only the
    parser runs (no compiler, no symbol table), and what it accepts depends on nothing
    outside a top-level statement, so a module parses when each of its top-level statements
    (and its leading and trailing comment lines) parses on its own: reparse.py asks this of
    the statements an edit touched."""
    try:
        _parse(text, "", False)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _parse(text: str, path: str, is_notebook: bool) -> None:
    flags = ast.PyCF_ONLY_AST | (ast.PyCF_ALLOW_TOP_LEVEL_AWAIT if is_notebook else 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compile(text, path, "exec", flags, dont_inherit=True)


_LIBCST_POSITION = re.compile(r"^parser error: error at ([0-9]+):([0-9]+): ")
_TOKEN_LIST = re.compile(r"^expected one of .*, .*, .*, ")  # a long list of tokens says nothing


def _for_newer_python(text: str, cpython: Finding) -> Optional[Finding]:
    """The verdict for a project whose Python is newer than this interpreter, on a text this
    interpreter rejected: None when libcst's grammar (every Python 3 release it knows, newer
    ones included) accepts it. Otherwise the text has an error of its own, but CPython may
    have stopped earlier, at syntax it does not know: CPython's finding stands when libcst
    fails on the same line or with the same tokenizer message, else libcst's position does."""
    import libcst as cst  # only files with syntax this interpreter rejects pay for it

    try:
        cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError, ValueError) as err:
        message = getattr(err, "message", "")
        at = _LIBCST_POSITION.match(message)
        if at is None:  # a tokenizer error, or no parser message: no position libcst vouches for
            return cpython
        line, col = int(at.group(1)), int(at.group(2)) + 1
        detail = message[at.end():]
        if line == cpython.line:
            return cpython
        said = "invalid syntax" if _TOKEN_LIST.match(detail) else f"invalid syntax, {detail}"
        return replace(cpython, message=f"SyntaxError: {said}", line=line, col=col, end_line=line, end_col=col)
    return None
