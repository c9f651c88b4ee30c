"""What a function does with a local it builds and shares only with its nested functions.

An iteration function nested in a factory (`def train_step(engine, batch)` handed to an
engine, or registered with a decorator) reads the GradScaler its enclosing function built.
That object is reachable only through the enclosing function's local name: if no code there
(its nested functions included) calls `update` on it or hands it on (as an argument, a
return value, an alias, a stored value), no code anywhere can ever update it, and the
second call of the iteration function raises "step() has already been called since the last
update()".

The reading is syntactic and conservative: every use of the name anywhere inside the
enclosing function counts (a nested parameter or local of the same name included), and any
use other than calling one of its methods, assigning it, or testing it (`if scaler:`,
`scaler is None`) is a hand-off.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import libcst as cst

from ampcheck.lint.names import is_none
from ampcheck.lint.walk import preorder


@dataclass
class LocalUse:
    """How a function body (nested functions included) uses one name."""

    methods: set[str] = field(default_factory=set)  # `name.<method>(...)` calls
    assigned_calls: int = 0  # `name = <call>`
    handed_on: bool = False  # any other use: passed, returned, aliased, stored, declared nonlocal/global
    aliases: set[str] = field(default_factory=set)  # `name = obj.attr`: the attributes it is bound from
    as_parameter: bool = False  # a parameter of the function (or of a nested one)


class _Uses:
    """A pre-order reading of the nodes under a function, each node's `visit_<Type>` run
    before its children's (so a parent marks the names it accounts for first), read with
    walk.preorder: libcst's own `visit` rebuilds every node it passes."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.use = LocalUse()
        self._fine: set[int] = set()  # ids of Name nodes whose use is accounted for

    def read(self, top: cst.CSTNode) -> None:
        handlers = _HANDLERS
        for node in preorder(top):
            kind = type(node)
            handler = handlers[kind] if kind in handlers else _handler(kind)
            if handler is not None:
                handler(self, node)

    def _is(self, node: Optional[cst.CSTNode]) -> bool:
        return isinstance(node, cst.Name) and node.value == self.name

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._fine.add(id(node.name))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self._is(func):
            self._fine.add(id(func))  # a direct call
        elif isinstance(func, cst.Attribute) and self._is(func.value):
            self.use.methods.add(func.attr.value)
            self._fine.add(id(func.value))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._fine.add(id(node.attr))  # `x.scaler` is another object's attribute, not the local

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self._bound(t.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bound(node.target, node.value)

    def _bound(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if not self._is(target):
            return
        self._fine.add(id(target))
        if isinstance(value, cst.Call):
            self.use.assigned_calls += 1
        elif isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name):
            self.use.aliases.add(f"{value.value.value}.{value.attr.value}")
        elif not is_none(value):
            self.use.handed_on = True  # bound from another value: it may be shared

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if self._is(node.left) and all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons):
            self._fine.add(id(node.left))

    def visit_If(self, node: cst.If) -> None:
        if self._is(node.test):
            self._fine.add(id(node.test))

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not) and self._is(node.expression):
            self._fine.add(id(node.expression))

    def visit_Param(self, node: cst.Param) -> None:
        if self._is(node.name):
            self._fine.add(id(node.name))
            self.use.as_parameter = True

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._fine.add(id(node.keyword))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name and id(node) not in self._fine:
            self.use.handed_on = True


# node type -> _Uses's handler of it, if any
_HANDLERS: dict[type, Optional[Callable[[_Uses, Any], None]]] = {}


def _handler(kind: type) -> Optional[Callable[[_Uses, Any], None]]:
    found = _HANDLERS[kind] = getattr(_Uses, f"visit_{kind.__name__}", None)
    return found


def keeps_alias(fn: cst.FunctionDef, name: str, attribute: str) -> bool:
    """Whether the local `name` of `fn` is only an alias of `attribute` (`scaler = self.scaler`)
    that `fn` calls methods on, never `update`, and never hands on or rebinds."""
    use = local_use(fn, name)
    return (
        use.aliases == {attribute} and not use.assigned_calls and not use.handed_on and not use.as_parameter
        and "update" not in use.methods
    )


def local_use(fn: cst.FunctionDef, name: str) -> LocalUse:
    """How `fn` (its nested functions included) uses the name `name`; its parameters count."""
    uses = _Uses(name)
    uses.read(fn.params)
    uses.read(fn.body)
    return uses.use


def handed_out(enclosing: cst.FunctionDef, nested: cst.FunctionDef) -> bool:
    """Whether the nested function `nested` of `enclosing` may run any number of times after
    the enclosing function is done with it: decorated (registered), or its name used other than
    by a direct call (handed to an engine, returned, stored)."""
    if nested.decorators:
        return True
    use = local_use(enclosing, nested.name.value)
    return use.handed_on
