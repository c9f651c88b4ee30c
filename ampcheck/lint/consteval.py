"""Evaluate the expressions AMP code passes to its constructors, where that is certain.

`GradScaler(enabled=(dtype == "float16"))` with `dtype = "bfloat16"` above is off;
`autocast("cuda", dtype=ptdtype)` with `ptdtype = {...}[dtype]` is bf16. Anything the
evaluator cannot pin down is UNKNOWN, which rules read as "maybe". A function's local counts
as a constant only when it is assigned one value and bound no other way in the function (no
loop target, `as`, `+=`, parameter or unpacking of it); a module name, when it is assigned
exactly once at module level and no function declares it `global`, and module names stop
being constants in a file that rewrites its globals (`exec`, `globals()`), as nanoGPT's
configurator does. `assuming` gives the same evaluator with one name or attribute chain set to a
value: what a test is where an accumulation count is 1.
"""
from __future__ import annotations

import copy
import operator
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional, Union

import libcst as cst

from ampcheck.lint.literals import literal
from ampcheck.lint.names import dotted
from ampcheck.lint.tree import SourceTree


class _Unknown:
    _instance: Optional["_Unknown"] = None

    def __new__(cls) -> "_Unknown":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


@dataclass(frozen=True)
class TorchDtype:
    """A `torch.<dtype>` value, by canonical name ("float16", "bfloat16", "float32", ...)."""

    name: str


_DTYPE_ALIASES = {
    "float16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "float32": "float32",
    "float": "float32",
    "float64": "float64",
    "double": "float64",
}

_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    cst.Equal: operator.eq,
    cst.NotEqual: operator.ne,
    cst.Is: operator.is_,
    cst.IsNot: operator.is_not,
    cst.In: lambda a, b: a in b,
    cst.NotIn: lambda a, b: a not in b,
    cst.LessThan: operator.lt,
    cst.GreaterThan: operator.gt,
    cst.LessThanEqual: operator.le,
    cst.GreaterThanEqual: operator.ge,
}

_ARITHMETIC: dict[type, Callable[[Any, Any], Any]] = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul, cst.Modulo: operator.mod,
}

_MAX_DEPTH = 8
# displays of containers code may change in place: one binding of a name to one of these tells
# what it holds only while nothing fills or empties it
_CONTAINERS = (cst.Dict, cst.List, cst.Set)
# the methods of dict, list and set that change the container
_MUTATORS = frozenset({
    "append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse", "update", "setdefault",
    "popitem", "add", "discard", "difference_update", "intersection_update", "symmetric_difference_update",
})

Assignment = Union[cst.Assign, cst.AnnAssign, cst.AugAssign]


class ConstEval:
    def __init__(self, tree: SourceTree) -> None:
        self.tree = tree
        self._assumed: Optional[tuple[str, Any]] = None  # (name or attribute chain, its value)
        self._by_scope = self._index_assignments()
        self._mutated_names: dict[str, bool] = {}  # `_mutated`, per name
        # the file rewrites its globals: no module name is a constant
        self.module_dynamic = any(
            tree.callee(c) in ("exec", "globals") or _bare_name(c.func) in ("exec", "globals")
            for c in tree.calls
            if tree.enclosing_function(c) is None
        )

    def _index_assignments(self) -> dict[tuple[Optional[cst.FunctionDef], str], list[Assignment]]:
        out: dict[tuple[Optional[cst.FunctionDef], str], list[Assignment]] = {}
        for node in self.tree.assigns:
            targets: list[cst.BaseExpression] = []
            if isinstance(node, cst.Assign):
                targets = [t.target for t in node.targets]
            else:
                targets = [node.target]
            for t in targets:
                for name in _target_names(t):
                    key = (self.tree.enclosing_function(node), name)
                    out.setdefault(key, []).append(node)
        return out

    def assigns(self, fn: cst.FunctionDef, name: str) -> bool:
        """Whether `fn`'s own body assigns `name` (a parameter rebound before a test reads it)."""
        return (fn, name) in self._by_scope

    def module_assignments(self) -> Iterator[tuple[str, list[Assignment]]]:
        """Each name assigned outside any function (at module level or in a class body),
        with its assignments: what a module name's value is read from."""
        return ((name, nodes) for (fn, name), nodes in self._by_scope.items() if fn is None)

    def assuming(self, name: str, value: Any) -> "ConstEval":
        """This evaluator where the name or attribute chain `name` (`accum`, `self.accum`)
        holds `value`, wherever it is read, directly or through a constant local."""
        view = copy.copy(self)
        view._assumed = (name, value)
        return view

    def value(self, expr: Optional[cst.BaseExpression], _depth: int = 0) -> Any:
        """The Python value of `expr`, or UNKNOWN."""
        if expr is None or _depth > _MAX_DEPTH:
            return UNKNOWN
        d = _depth + 1
        if self._assumed is not None and isinstance(expr, (cst.Name, cst.Attribute)) and dotted(expr) == self._assumed[0]:
            return self._assumed[1]
        if isinstance(expr, (cst.Integer, cst.Float)):
            return literal(expr)
        if isinstance(expr, cst.SimpleString):
            return literal(expr)
        if isinstance(expr, cst.ConcatenatedString):
            v = expr.evaluated_value
            return UNKNOWN if v is None else v
        if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[expr.value]
        dtype = self._dtype(expr)
        if dtype is not None:
            return dtype
        if isinstance(expr, cst.Name):
            return self._name(expr, d)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            v = self.value(expr.expression, d)
            return UNKNOWN if v is UNKNOWN else (not v)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            v = self.value(expr.expression, d)
            return -v if _number(v) else UNKNOWN
        if isinstance(expr, cst.BinaryOperation):
            return self._arithmetic(expr, d)
        if isinstance(expr, cst.BooleanOperation):
            return self._boolop(expr, d)
        if isinstance(expr, cst.Comparison):
            return self._compare(expr, d)
        if isinstance(expr, cst.IfExp):
            test = self.value(expr.test, d)
            if test is UNKNOWN:
                body, orelse = self.value(expr.body, d), self.value(expr.orelse, d)
                return body if body is not UNKNOWN and body == orelse else UNKNOWN
            return self.value(expr.body if test else expr.orelse, d)
        if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
            items = [self.value(e.value, d) if isinstance(e, cst.Element) else UNKNOWN for e in expr.elements]
            if any(i is UNKNOWN for i in items):
                return UNKNOWN
            return tuple(items) if not isinstance(expr, cst.Set) else frozenset(items)
        if isinstance(expr, cst.Dict):
            return self._dict(expr, d)
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr, d)
        return UNKNOWN

    def truth(self, expr: Optional[cst.BaseExpression]) -> Optional[bool]:
        """True/False when certain, None for "maybe"."""
        v = self.value(expr)
        if v is UNKNOWN:
            return None
        try:
            return bool(v)
        except Exception:
            return None

    def _dtype(self, expr: cst.BaseExpression) -> Optional[TorchDtype]:
        for q in self.tree.names.resolve(expr) or ():
            mod, _, attr = q.rpartition(".")
            if mod == "torch" and attr in _DTYPE_ALIASES:
                found = TorchDtype(_DTYPE_ALIASES[attr])
                if all(self._same_dtype(o, found) for o in self.tree.names.resolve(expr)):
                    return found
        return None

    @staticmethod
    def _same_dtype(q: str, d: TorchDtype) -> bool:
        mod, _, attr = q.rpartition(".")
        return mod == "torch" and _DTYPE_ALIASES.get(attr) == d.name

    def _name(self, expr: cst.Name, depth: int) -> Any:
        fn = self.tree.enclosing_function(expr)
        if fn is not None and expr.value in param_names(fn):
            return UNKNOWN  # the caller's argument, or (flow-insensitively) any rebinding of it
        if fn is not None and self.tree.binds(fn, expr.value):
            only = self.tree.only_value(expr)
            if only is None or (isinstance(only, _CONTAINERS) and self._mutated(expr.value)):
                return UNKNOWN
            return self.value(only, depth)
        assigns = self._by_scope.get((None, expr.value))
        if assigns is None or len(assigns) != 1 or self.module_dynamic:
            return UNKNOWN
        if self._declared_global(expr.value):
            return UNKNOWN  # (`global USE_AMP` in a function that sets it from the command line)
        node = assigns[0]
        if isinstance(node, cst.AugAssign) or node.value is None:
            return UNKNOWN
        if isinstance(node, cst.Assign) and not all(isinstance(t.target, cst.Name) for t in node.targets):
            return UNKNOWN
        if isinstance(node.value, _CONTAINERS) and self._mutated(expr.value):
            return UNKNOWN
        return self.value(node.value, depth)

    def _mutated(self, name: str) -> bool:
        """Whether code of the file changes a container bound to `name` in place, where its
        one binding no longer tells what it holds (`env_days = {}`, then `env_days[e] = days`
        in a loop: `if env_days:` may well hold): an item assigned or deleted, or a method
        of dict, list or set that changes it called on it (`append`, `update`, `setdefault`).
        Any scope's `name` counts (a closure or a function may fill a module's dict). Reads
        (`cfg.get("fp16")`) and handing it on (`wandb.init(config=CONFIG)`) change nothing
        here."""
        found = self._mutated_names.get(name)
        if found is None:
            found = self._mutated_names[name] = any(self._mutates(n) for n in self.tree.name_nodes.get(name, ()))
        return found

    def _mutates(self, use: cst.Name) -> bool:
        up = self.tree.parent(use)
        if isinstance(up, cst.Attribute) and up.value is use:
            return up.attr.value in _MUTATORS and isinstance(call := self.tree.parent(up), cst.Call) and call.func is up
        return isinstance(up, cst.Subscript) and up.value is use and self.tree.is_target(up)

    def _declared_global(self, name: str) -> bool:
        """Whether a function of the file declares `global name`: it may rebind the module
        name at run time, wherever its one module-level assignment is."""
        parent = self.tree.parent
        return any(
            isinstance(item := parent(n), cst.NameItem) and isinstance(parent(item), cst.Global)
            for n in self.tree.name_nodes.get(name, ())
        )

    def _boolop(self, expr: cst.BooleanOperation, depth: int) -> Any:
        left = self.value(expr.left, depth)
        is_and = isinstance(expr.operator, cst.And)
        if left is not UNKNOWN and (bool(left) != is_and):
            return left  # short-circuit: `False and x`, `True or x`
        right = self.value(expr.right, depth)
        if left is UNKNOWN:
            # `x and False` is falsy, `x or True` is truthy, whatever x is
            if right is not UNKNOWN and bool(right) != is_and:
                return right
            return UNKNOWN
        return right

    def _arithmetic(self, expr: cst.BinaryOperation, depth: int) -> Any:
        """`+ - * %` of numbers; anything `% 1` is 0 (an integer counter modulo a count of one)."""
        op = _ARITHMETIC.get(type(expr.operator))
        if op is None:
            return UNKNOWN
        right = self.value(expr.right, depth)
        if op is operator.mod and type(right) is int and right == 1:
            return 0
        left = self.value(expr.left, depth)
        if not (_number(left) and _number(right)):
            return UNKNOWN
        try:
            return op(left, right)
        except ArithmeticError:
            return UNKNOWN

    def _compare(self, expr: cst.Comparison, depth: int) -> Any:
        left = self.value(expr.left, depth)
        if left is UNKNOWN:
            return UNKNOWN
        for target in expr.comparisons:
            right = self.value(target.comparator, depth)
            op = _COMPARE.get(type(target.operator))
            if right is UNKNOWN or op is None:
                return UNKNOWN
            try:
                if not op(left, right):
                    return False
            except Exception:
                return UNKNOWN
            left = right
        return True

    def _dict(self, expr: cst.Dict, depth: int) -> Any:
        out = {}
        for el in expr.elements:
            if not isinstance(el, cst.DictElement):
                return UNKNOWN
            k, v = self.value(el.key, depth), self.value(el.value, depth)
            if k is UNKNOWN:
                return UNKNOWN
            out[k] = v  # values may be UNKNOWN; only a lookup that hits one is unknown
        return out

    def _subscript(self, expr: cst.Subscript, depth: int) -> Any:
        if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
            return UNKNOWN
        container = self.value(expr.value, depth)
        key = self.value(expr.slice[0].slice.value, depth)
        if container is UNKNOWN or key is UNKNOWN:
            return UNKNOWN
        try:
            return container[key]
        except Exception:
            return UNKNOWN


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _bare_name(expr: cst.BaseExpression) -> Optional[str]:
    return expr.value if isinstance(expr, cst.Name) else None


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _target_names(el.value)]
    return []


def named_param(fn: cst.FunctionDef, name: str) -> Optional[cst.Param]:
    """`fn`'s parameter `name` (not a `*args` or `**kwargs` one), if it has one."""
    p = fn.params
    return next((x for x in (*p.posonly_params, *p.params, *p.kwonly_params) if x.name.value == name), None)


def param_names(fn: cst.FunctionDef) -> set[str]:
    p = fn.params
    names = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
    for star in (p.star_arg, p.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    return names
