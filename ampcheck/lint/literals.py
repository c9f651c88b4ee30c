"""The values of literals as written (`"fp16"`, `1`, `0.0`), once per distinct text.

libcst's `evaluated_value` calls `ast.literal_eval` on every access: it compiles the literal
and leaves four closures in a reference cycle behind, so a file's analysis, which reads its
strings and numbers tens of thousands of times, made most of the cyclic garbage a run
collects (icefall: 59,000 evaluations). A literal's value depends on its text alone.
"""
from __future__ import annotations

import ast
from functools import lru_cache
from typing import Union

import libcst as cst

Literal = Union[cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary]


def literal(node: Literal) -> Union[str, bytes, int, float, complex]:
    """The value a string or number literal denotes (what `node.evaluated_value` gives)."""
    return _evaluated(node.value)


@lru_cache(maxsize=1 << 16)
def _evaluated(text: str) -> Union[str, bytes, int, float, complex]:
    return ast.literal_eval(text)
