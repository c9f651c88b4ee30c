"""Assertions: where code checks what it computed, with an `assert` statement or an assertion
API (unittest's `self.assertEqual(...)`, `torch.testing.assert_close(...)`,
`numpy.testing.assert_allclose(...)`, pytest's plain `assert`).

Low-precision state that the same function then asserts on is the behaviour under test, not a
precision choice for training: `m(x.half())` under autocast followed by
`assertEqual(out.dtype, torch.float16)` checks what a module does with a half input, and one
SGD step on a `.half()` model followed by assertions on the result checks what an fp16 update
does. The precision rules ask here to tell those apart from training code.

Assertions are found only when a rule is about to report (a walk of one function), so a file
without a candidate finding pays nothing.
"""
from __future__ import annotations

from typing import Union

import libcst as cst

from ampcheck.lint.names import last_name
from ampcheck.lint.tree import SourceTree

Assertion = Union[cst.Assert, cst.Call]


class _Collector(cst.CSTVisitor):
    """`assert` statements and assertion calls of one scope, not of the functions and
    classes nested in it (those run when something calls them)."""

    def __init__(self, root: cst.CSTNode) -> None:
        self.root = root
        self.found: list[Assertion] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.root

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return node is self.root

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assert(self, node: cst.Assert) -> None:
        self.found.append(node)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (last_name(func) or "").startswith("assert"):
            self.found.append(node)


def assertions_after(tree: SourceTree, node: cst.CSTNode) -> list[Assertion]:
    """The assertions of the function (or module body) `node` is written in that come after it."""
    scope: cst.CSTNode = tree.enclosing_function(node) or tree.module
    collector = _Collector(scope)
    scope.visit(collector)
    return [a for a in collector.found if tree.precedes(node, a)]


def reads_dtype(assertion: Assertion) -> bool:
    """Whether the assertion inspects a dtype (`out.dtype == torch.float16`,
    `assertEqual(y.dtype, torch.half)`)."""
    finder = _DtypeRead()
    assertion.visit(finder)
    return finder.found


class _DtypeRead(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.found = self.found or node.attr.value == "dtype"
