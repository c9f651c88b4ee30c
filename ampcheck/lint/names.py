"""Resolve names to dotted qualified names from the file's import table.

libcst's QualifiedNameProvider/ScopeProvider are exact but expensive; AMP code names its
APIs through imports and plain aliases, so an import table answers almost every question
at a fraction of the cost. Resolution is flow-insensitive: a name bound to two different
things anywhere in the file (a version-guarded `try: from torch.amp import ... except
ImportError: from torch.cuda.amp import ...`) resolves to both, and callers that need
certainty use `qualname`, which answers only when there is exactly one candidate. Beside it,
the small expression shapes every layer reads: a dotted name, a call's argument, a comparison
with `None`.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Optional, Union

import libcst as cst

from ampcheck.lint.literals import literal


def dotted(expr: cst.BaseExpression) -> Optional[str]:
    """`a.b.c` as text for a pure Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if not isinstance(expr, cst.Name):
        return None
    parts.append(expr.value)
    return ".".join(reversed(parts))


def call_argument(call: cst.Call, name: str, pos: int) -> Optional[cst.BaseExpression]:
    """The argument a call passes as `name=`, else as its `pos`-th positional one."""
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if 0 <= pos < len(positional):
        return positional[pos].value
    return None


def is_none(expr: Optional[cst.CSTNode]) -> bool:
    """Whether `expr` is the literal `None`."""
    return isinstance(expr, cst.Name) and expr.value == "None"


def last_name(func: cst.BaseExpression) -> Optional[str]:
    """The last name of what a call calls (`step` of `self.scaler.step`, `isnan` of
    `isnan`); None for anything else (a subscript, a call's result)."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def compared_to_none(expr: cst.BaseExpression) -> Optional[cst.BaseCompOp]:
    """The operator of a test that compares one value with `None` (`x is None`, `x is not
    None`, `x == None`); None for any other test."""
    if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
        [target] = expr.comparisons
        if is_none(target.comparator):
            return target.operator
    return None


def equality(expr: cst.BaseExpression) -> Optional[tuple[str, cst.BaseExpression, bool]]:
    """For a test comparing a name or attribute chain by `==` or `!=` with a literal, on either
    side: the name, the other side, and whether it is `==`; None for any other test."""
    if not isinstance(expr, cst.Comparison) or len(expr.comparisons) != 1:
        return None
    target = expr.comparisons[0]
    if not isinstance(target.operator, (cst.Equal, cst.NotEqual)):
        return None
    for name, constant in ((expr.left, target.comparator), (target.comparator, expr.left)):
        subject = dotted(name) if isinstance(name, (cst.Name, cst.Attribute)) else None
        if subject is not None and isinstance(constant, (cst.SimpleString, cst.Integer)):
            return subject, constant, isinstance(target.operator, cst.Equal)
    return None


def compared_to_string(expr: cst.BaseExpression) -> Optional[tuple[str, str, bool]]:
    """For a test comparing a name or attribute chain (`mode`, `config.amp_type`) by `==` or
    `!=` with a string literal: the name, the string, and whether it is `==`."""
    found = equality(expr)
    value = literal(found[1]) if found is not None and isinstance(found[1], cst.SimpleString) else None
    return (found[0], value, found[2]) if found is not None and isinstance(value, str) else None


def import_key(alias: cst.ImportAlias, statement: Union[cst.Import, cst.ImportFrom]) -> str:
    """What an import binds, so that importing one thing twice (`import torch` at the top and
    `import torch.distributed` later) counts as one binding."""
    name = dotted(alias.name) or ""
    if isinstance(statement, cst.ImportFrom):
        module = dotted(statement.module) if statement.module is not None else ""
        return "." * len(statement.relative) + f"{module}.{name}"
    return name if alias.asname is not None else name.split(".")[0]


def module_name(expr: cst.BaseExpression) -> str:
    """Text of an import's module expression (`torch.cuda.amp`)."""
    return dotted(expr) or ""


class ImportTable:
    """Local name -> the set of qualified names it may stand for."""

    def __init__(self, package: Optional[str] = None) -> None:
        # The package relative imports start from (`from .utils import x`); None when the
        # file's place in a project is unknown, which leaves relative imports unresolved.
        self.package = package
        self._bindings: dict[str, set[str]] = defaultdict(set)
        # Names also bound by something other than an import or a plain alias (a parameter,
        # a loop target, an assignment from a call): they may shadow the import.
        self._shadowed: set[str] = set()
        # answers of `resolve` by node (nodes are immutable; every change to the table
        # forgets them): a file's checks ask about the same calls again and again
        self._resolved: dict[cst.BaseExpression, frozenset[str]] = {}
        # the modules of `from <module> import *`, in source order (a later one wins a name)
        self._stars: list[str] = []

    def add_import(self, node: cst.Import) -> None:
        self._resolved.clear()
        for alias in node.names:
            full = module_name(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bindings[alias.asname.name.value].add(full)
            else:
                top = full.split(".", 1)[0]
                self._bindings[top].add(top)

    def add_import_from(self, node: cst.ImportFrom) -> None:
        self._resolved.clear()
        base = self._absolute(node)
        if base is None:
            return
        if isinstance(node.names, cst.ImportStar):
            self._stars.append(base)
            return
        for alias in node.names:
            name = module_name(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self._bindings[local].add(f"{base}.{name}")

    def _absolute(self, node: cst.ImportFrom) -> Optional[str]:
        """The module an import-from names, relative ones resolved against the package."""
        module = module_name(node.module) if node.module is not None else ""
        if not node.relative:
            return module or None
        if self.package is None:
            return None
        parts = self.package.split(".") if self.package else []
        up = len(node.relative) - 1
        if up > len(parts):
            return None
        base = ".".join(parts[: len(parts) - up] + ([module] if module else []))
        return base or None

    def add_alias(self, local: str, value: cst.BaseExpression) -> bool:
        """`amp = torch.cuda.amp`: record the alias when the value resolves; report whether it did."""
        targets = self.resolve(value)
        if not targets:
            return False
        self._resolved.clear()
        self._bindings[local].update(targets)
        return True

    def shadow(self, local: str) -> None:
        self._resolved.clear()
        self._shadowed.add(local)

    def resolve(self, expr: cst.BaseExpression) -> frozenset[str]:
        """Every qualified name a Name/Attribute chain may denote (empty if unknown)."""
        found = self._resolved.get(expr)
        if found is None:
            found = self._resolved[expr] = self._resolve(expr)
        return found

    def _resolve(self, expr: cst.BaseExpression) -> frozenset[str]:
        text = dotted(expr)
        if text is None:
            return frozenset()
        head, _, rest = text.partition(".")
        if head in self._shadowed or head not in self._bindings:
            return frozenset()
        return frozenset(f"{b}.{rest}" if rest else b for b in self._bindings[head])

    def qualname(self, expr: cst.BaseExpression) -> Optional[str]:
        """The one qualified name of `expr`, or None when unknown or ambiguous."""
        found = self.resolve(expr)
        return next(iter(found)) if len(found) == 1 else None

    def effective(self) -> tuple[Optional[str], tuple[tuple[str, tuple[str, ...]], ...]]:
        """What the table answers, as comparable data: its package and each name that
        resolves, with what it resolves to (shadowed names resolve to nothing)."""
        return self.package, tuple(sorted(
            (name, tuple(sorted(targets))) for name, targets in self._bindings.items()
            if targets and name not in self._shadowed
        ))

    def exports(self) -> dict[str, str]:
        """Each name the table binds that stands for exactly one qualified name, with it: what
        another module importing the name from this one gets (`qualname` of the bare name)."""
        return {
            name: next(iter(targets)) for name, targets in self._bindings.items()
            if len(targets) == 1 and name not in self._shadowed
        }

    def star_imports(self) -> tuple[str, ...]:
        """The modules whose public names `from <module> import *` binds here, in source order:
        a package `__init__` re-exporting its submodules (`from .base import *`)."""
        return tuple(self._stars)

    def bound_names(self) -> Iterable[str]:
        return self._bindings.keys()
