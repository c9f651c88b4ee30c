"""Where this file's own autocast regions may reach: the code that may run under them.

API (facet `model.reach`):

- `model.reach.may_run_under(node)`: whether `node` may run under one of the file's own
  autocast regions, entered here: written inside an active one, or outside every region in a
  function that code inside one may call, directly or through other functions of the file.
  Inside a disabled region (`autocast(enabled=False)`) it runs with autocast off, whoever
  calls it.

A call is followed to the functions of this file it may enter, over-approximated where the
file cannot say: a call of a value (`model(x)`, `self.layers[i](x)`, `self.block(x)` where
`block` is a stored attribute) may run anything, as may a call into another package handed a
value (`trainer.fit(model)`, `checkpoint(self.block, x)`), and an autocast manager the file
builds but does not enter itself (a helper returning `torch.autocast(...)`) leaves any code
of the file under autocast. Only torch's operators (`F.linear`, `torch.cat`; not its
higher-order functions), Python builtins that call nothing, and method calls no class of the
file defines (`x.float()`) are known to run no code of the file.

It is AMP304's evidence: a custom autograd Function that only code outside the file's
regions applies (insightface's `DistCrossEntropyFunc`, reached from `PartialFC.forward`
after its autocast block closes) runs forward and backward in whatever state its caller
chose, which this file says nothing of.
"""
from __future__ import annotations

import builtins
from functools import cached_property
from typing import Optional

import libcst as cst

from ampcheck.lint.regions import Regions
from ampcheck.lint.tree import SourceTree

# torch functions that call Python code they are handed (or trace it): like any other
# package's, they may run what they are given
_TORCH_HIGHER_ORDER = (
    "torch.utils.checkpoint", "torch.func", "torch.vmap", "torch.jit", "torch.autograd.functional",
    "torch.cond", "torch.export", "torch.fx", "torch._dynamo", "torch._higher_order_ops",
)
# builtins that call no code of the file they are given
_INERT_BUILTINS = frozenset({
    "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "float", "format", "frozenset", "hasattr", "id",
    "int", "isinstance", "issubclass", "len", "list", "max", "min", "print", "range", "repr", "reversed", "round",
    "set", "str", "sum", "super", "tuple", "type", "zip",
}) & frozenset(dir(builtins))


class AutocastReach:
    def __init__(self, tree: SourceTree, regions: Regions) -> None:
        self.tree = tree
        self.regions = regions

    def may_run_under(self, node: cst.CSTNode) -> bool:
        if self.regions.enclosing(node) is not None:  # the innermost region decides, whoever calls
            return self.regions.active(node) is not None
        reached = self._reached
        if reached is None:
            return True
        fn = self.tree.enclosing_function(node)
        while fn is not None:  # a function defined in a reached one may be called from it
            if fn in reached:
                return True
            fn = self.tree.enclosing_function(fn)
        return False

    @cached_property
    def _reached(self) -> Optional[frozenset[cst.FunctionDef]]:
        """The functions of this file that code inside an active region may call,
        transitively; None when that may be any."""
        t = self.tree
        entered = {r.call for r in self.regions.all} | {c for r in self.regions.all for c in r.via}
        for call in t.calls:
            config = self.regions.config(call)
            if config is not None and config.enabled is not False and call not in entered:
                return None
        calls_in: dict[Optional[cst.FunctionDef], list[cst.Call]] = {}
        for call in t.calls:
            calls_in.setdefault(t.enclosing_function(call), []).append(call)
        pending = [call for call in t.calls if self.regions.active(call) is not None]
        reached: set[cst.FunctionDef] = set()
        while pending:
            targets = self._may_enter(pending.pop())
            if targets is None:
                return None
            for fn in targets - reached:
                reached.add(fn)
                pending.extend(calls_in.get(fn, ()))
        return frozenset(reached)

    def _may_enter(self, call: cst.Call) -> Optional[set[cst.FunctionDef]]:
        """The functions of this file a call may run; None for any."""
        t = self.tree
        func = call.func
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return None  # a value computed in place (`self.layers[i](x)`, `f()(x)`)
        qualified = t.names.resolve(func)
        if qualified:  # taken from another module
            if all(q.startswith("torch.") and not q.startswith(_TORCH_HIGHER_ORDER) for q in qualified):
                return set()
            return None if any(not _literal(a.value) for a in call.args) else set()
        if isinstance(func, cst.Name):
            name = func.value
            functions = {f for f in t.functions if f.name.value == name and not self._is_method(f)}
            if functions:
                return functions
            constructors = {
                f for f in t.functions
                if f.name.value == "__init__" and (cls := t.enclosing_class(f)) is not None and cls.name.value == name
            }
            if constructors or any(c.name.value == name for c in t.classes):
                return constructors
            return set() if name in _INERT_BUILTINS else None  # else a value: a parameter, a local
        name = func.attr.value
        if name in self._stored_attributes:
            return None  # an attribute holding a value (a submodule, a callback) may run anything
        return {f for f in t.functions if f.name.value == name and self._is_method(f)}

    def _is_method(self, fn: cst.FunctionDef) -> bool:
        return isinstance(self.tree.parent(self.tree.parent(fn)), cst.ClassDef)

    @cached_property
    def _stored_attributes(self) -> frozenset[str]:
        """The attribute names the file assigns (`self.block = Block()`)."""
        found: set[str] = set()
        for node in self.tree.assigns:
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            found.update(t.attr.value for t in targets if isinstance(t, cst.Attribute))
        return frozenset(found)


def _literal(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)) or (
        isinstance(expr, cst.Name) and expr.value in ("None", "True", "False")
    )
