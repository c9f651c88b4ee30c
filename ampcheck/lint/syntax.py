"""AMP001: the syntax check every file gets, with CPython's own parser, so a finding carries
the position and message CPython reports. Notebooks check each code cell on its own (after
IPython's transformations), as Jupyter runs them.
"""
from __future__ import annotations

import ast
import warnings
from typing import Optional

from ampcheck.config import SYNTAX_ERROR
from ampcheck.findings import Finding


def syntax_error(text: str, path: str, is_notebook: bool = False) -> Optional[Finding]:
    """AMP001 at the position CPython's parser reports, or None when the text parses."""
    flags = ast.PyCF_ONLY_AST | (ast.PyCF_ALLOW_TOP_LEVEL_AWAIT if is_notebook else 0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, path, "exec", flags, dont_inherit=True)
    except SyntaxError as err:
        line = err.lineno or 1
        col = err.offset or 1
        end_line = err.end_lineno or line
        end_col = err.end_offset if err.end_offset and end_line >= line else col
        if end_line == line and end_col < col:
            end_col = col
        message = f"SyntaxError: {err.msg}"
        return Finding(SYNTAX_ERROR, message, path, line, col, end_line, end_col)
    except (ValueError, RecursionError, MemoryError) as err:
        return Finding(SYNTAX_ERROR, f"cannot parse: {err}", path, 1, 1, 1, 1)
    return None
