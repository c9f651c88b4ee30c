"""Autocast regions: where code runs under `torch.autocast`, with which device, dtype and state.

API (facet `model.regions`):

- `AutocastRegion(node, call, device, dtype, enabled, body, via, toggle)`:
  `node` is the `with` statement or the function the region covers; `call` the
  `autocast(...)` call that configures it (for a stored manager, the call in the assignment);
  `device` the device type string as written (`"cuda"`, `"cpu"`, or an invalid `"cuda:0"`),
  None when unknown; `dtype` `"float16"`/`"bfloat16"`/... from an explicit `dtype=`, else the
  device default (CUDA float16, CPU bfloat16) when the device is certain, else None;
  `enabled` True / False / None ("maybe"); `body` the block that runs under it; `via` the call
  sites for a function entered from inside another region; `toggle` the `enabled=` expression
  of a maybe-enabled region written here (`enabled=args.amp`), or the test under which a
  stored manager is autocast (`amp_ctx = autocast()` under `if fp16:`, `autocast() if fp16
  else nullcontext()`), or under which a `dtype=` name holds its low dtype rather than
  float32 (`if mixed_precision: precision = torch.float16`).
- `model.regions.all`: every region in the file.
- `model.regions.enclosing(node)`: the innermost region covering `node`, a disabled one
  included, so callers see that `autocast(enabled=False)` turned autocast off there.
- `model.regions.active(node)`: the innermost region unless it is certainly disabled, at
  `node` too (`node` on the branch where its toggle is false).
- `model.regions.enters_autocast`: whether the file itself may run code under autocast.
- `model.regions.config(call)`: the (device, dtype, enabled) of one `autocast(...)` call.

Regions come from `with` items (several per statement, nested), every autocast spelling
(`torch.autocast`, `torch.amp.autocast`, `torch.cuda.amp.autocast`, `torch.cpu.amp.autocast`,
import aliases, `functools.partial(torch.autocast, ...)`), managers stored in a name or a
`self.` attribute (`ctx = nullcontext() if cpu else torch.amp.autocast(...)`: a manager that
may not be autocast makes a region with enabled=None), `@autocast(...)` decorators, and
functions of this file called from inside a region (one level). A region ends at a nested
function definition: its body runs when called, not where it is written.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Optional, Sequence, Union

import libcst as cst

from ampcheck.lint.consteval import UNKNOWN, ConstEval, TorchDtype
from ampcheck.lint.names import compared_to_none, dotted, is_none
from ampcheck.lint.tree import SourceTree


# qualified name -> the fixed device of that spelling, or None when it takes `device_type` first
AUTOCAST_SPELLINGS: dict[str, Optional[str]] = {
    "torch.autocast": None,
    "torch.amp.autocast": None,
    "torch.amp.autocast_mode.autocast": None,
    "torch.cuda.amp.autocast": "cuda",
    "torch.cuda.amp.autocast_mode.autocast": "cuda",
    "torch.cpu.amp.autocast": "cpu",
    "torch.cpu.amp.autocast_mode.autocast": "cpu",
}
_DEVICE_FIRST = ("device_type", "dtype", "enabled", "cache_enabled")
_ENABLED_FIRST = ("enabled", "dtype", "cache_enabled")
DEFAULT_DTYPE = {"cuda": "float16", "cpu": "bfloat16"}
_PARTIAL = frozenset({"functools.partial"})
_FULL_PRECISION = frozenset({"float32", "float64"})

Owner = Union[cst.With, cst.FunctionDef]


@dataclass(frozen=True)
class Config:
    """What one autocast call (or manager alternative) sets."""

    device: Optional[str]
    dtype: Optional[str]
    enabled: Optional[bool]
    call: Optional[cst.Call]
    toggle: Optional[cst.BaseExpression] = None  # the `enabled=` expression whose value is unknown


@dataclass(frozen=True, eq=False)
class AutocastRegion:
    node: Owner
    call: Optional[cst.Call]
    device: Optional[str]
    dtype: Optional[str]
    enabled: Optional[bool]
    body: cst.BaseSuite
    via: tuple[cst.Call, ...] = ()
    toggle: Optional[cst.BaseExpression] = None

    @property
    def anchor(self) -> cst.CSTNode:
        """Where a finding about the region itself points: the configuring call, else the node."""
        return self.call if self.call is not None else self.node

    @property
    def lowers_precision(self) -> bool:
        """Whether ops may run below float32 in the region: not one whose dtype is certainly
        float32 or float64 (`autocast("cuda", dtype=torch.float32)`), where the ops autocast
        would lower run in float32 as the ops it keeps in float32 do."""
        return self.dtype not in _FULL_PRECISION


class Regions:
    def __init__(self, tree: SourceTree, consts: ConstEval) -> None:
        self.tree = tree
        self.consts = consts
        self._by_with: dict[cst.With, AutocastRegion] = {}
        self._by_function: dict[cst.FunctionDef, AutocastRegion] = {}
        for w in tree.withs:
            self._add_with(w)
        for fn in tree.functions:
            self._add_decorated(fn)
        self._add_called()
        self.all: list[AutocastRegion] = [*self._by_with.values(), *self._by_function.values()]

    # -- public questions -------------------------------------------------------------------
    def enclosing(self, node: cst.CSTNode) -> Optional[AutocastRegion]:
        if self.tree.enclosing_function(node) not in self._scopes:
            return None  # no region where it is written: none of its ancestors is one
        child: cst.CSTNode = node
        for anc in self.tree.ancestors(node):
            kind = type(anc)  # exact types: libcst's classes are ABCs, whose isinstance is slow
            if kind is cst.With and child is anc.body and anc in self._by_with:  # type: ignore[attr-defined]
                return self._by_with[anc]  # type: ignore[index]
            if kind is cst.FunctionDef:
                return self._by_function.get(anc) if child is anc.body else None  # type: ignore[arg-type,attr-defined]
            if kind is cst.ClassDef:
                return None
            child = anc
        return None

    def active(self, node: cst.CSTNode) -> Optional[AutocastRegion]:
        """The region around `node` that may be enabled there: not `enabled=False`, and not
        `enabled=args.amp` around code that runs only where `args.amp` is false (the else of
        `if args.amp:` inside the block)."""
        r = self.enclosing(node)
        if r is None or r.enabled is False:
            return None
        return None if r.enabled is None and r.toggle is not None and self._toggled_off(node, r) else r

    def _toggled_off(self, node: cst.CSTNode, r: AutocastRegion) -> bool:
        """Whether the `if`s around `node` say that the test switching `r` on is false there.
        In a function entered from a call inside the region, the test is the caller's, read
        through the parameter that call hands its object to (`with (autocast() if opt.amp
        else nullcontext()): train(..., opt)`, then `else:` of `if opt.amp:` in `train`)."""
        assert r.toggle is not None
        if self.tree.known(node, r.toggle) is False:
            return True  # (written around it, or a test of the object's own state in a method of its class)
        if len(r.via) != 1 or not isinstance(r.node, cst.FunctionDef):
            return False
        test, side = r.toggle, True
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, side = test.expression, not side
        text = dotted(test)  # (a name or an attribute chain: what a call can hand over by its root)
        if text is None:
            return False
        root, _, rest = text.partition(".")
        param = self._handed_as(r.via[0], r.node, root)
        if param is None:
            return False
        return self.tree.known_text(node, r.node, ".".join(filter(None, (param, rest)))) is (not side)

    def _handed_as(self, call: cst.Call, fn: cst.FunctionDef, name: str) -> Optional[str]:
        """The parameter of `fn` that `call` passes the bare name `name` to (`_arg` placing
        the arguments), when `fn` never assigns it anew."""
        if any(a.star for a in call.args):
            return None
        p = fn.params
        positional = [x.name.value for x in (*p.posonly_params, *p.params)]
        if isinstance(call.func, cst.Attribute) and positional:
            positional = positional[1:]  # (`self.train_step(...)`: the receiver fills the first)
        params = [*positional, *(x.name.value for x in p.kwonly_params)]
        handed = [q for q in params if isinstance(a := _arg(call.args, params, q), cst.Name) and a.value == name]
        return handed[-1] if handed and not self.consts.assigns(fn, handed[-1]) else None

    @property
    def enters_autocast(self) -> bool:
        """Whether the file itself may run code under autocast: a region not certainly
        disabled, or an autocast call that is not `enabled=False`. An alias defined for other
        modules (`gpu_autocast_ctx = partial(torch.amp.autocast, ...)` that nothing here
        enters) does not count, nor does a file that only ever disables autocast (apex's
        fused ops)."""
        if any(r.enabled is not False for r in self.all):
            return True
        configs = (self.config(c) for c in self.tree.calls)
        return any(c is not None and c.enabled is not False for c in configs)

    @cached_property
    def toggle_names(self) -> frozenset[str]:
        """The names the `enabled=` tests of the file's regions read (`enabled=f16`,
        `enabled=args.amp and cuda`, `enabled=self.scaler is not None`; not the constants they
        compare with): a condition on one of them switches autocast, and so AMP, on and off."""
        found: set[str] = set()
        pending = [r.toggle for r in self.all if r.toggle is not None]
        while pending:
            expr = pending.pop()
            name = dotted(expr)
            if name is not None:
                found.add(name)
            elif isinstance(expr, cst.BooleanOperation):
                pending += [expr.left, expr.right]
            elif isinstance(expr, cst.UnaryOperation):
                pending.append(expr.expression)
            elif isinstance(expr, cst.Comparison):
                pending += [expr.left, *(c.comparator for c in expr.comparisons)]
        return frozenset(found - {"None", "True", "False"})

    def is_autocast(self, expr: cst.BaseExpression) -> bool:
        """Whether `expr` names autocast itself, certainly (every candidate is a spelling)."""
        found = self.tree.names.resolve(expr)
        return bool(found) and all(q in AUTOCAST_SPELLINGS for q in found)

    def config(self, call: cst.Call) -> Optional[Config]:
        """Device/dtype/enabled of a direct `autocast(...)` call; None if it is not one."""
        if not self.is_autocast(call.func):
            return None
        return self._config(call.func, list(call.args), call)

    # -- building ---------------------------------------------------------------------------
    def _add_with(self, w: cst.With) -> None:
        region = self._innermost(w, w.body, [item.item for item in w.items])
        if region is not None:
            self._by_with[w] = region

    def _add_decorated(self, fn: cst.FunctionDef) -> None:
        region = self._innermost(fn, fn.body, [d.decorator for d in fn.decorators])
        if region is not None:
            self._by_function[fn] = region

    def _innermost(
        self, node: Owner, body: cst.BaseSuite, managers: list[cst.BaseExpression]
    ) -> Optional[AutocastRegion]:
        """The region of the last autocast manager: the last `with` item and the decorator
        nearest the `def` are entered last."""
        for expr in reversed(managers):
            configs = self._manager(expr, depth=0)
            if configs is not None:
                return _region(node, body, configs)
        return None

    def _add_called(self) -> None:
        self._scopes = self._region_scopes()
        sites: dict[cst.FunctionDef, list[tuple[cst.Call, AutocastRegion]]] = {}
        for call in self.tree.calls:
            outer = self.active(call)
            if outer is None or outer.via:
                continue
            target = self._same_file_function(call)
            if target is not None and target not in self._by_function:
                sites.setdefault(target, []).append((call, outer))
        for fn, uses in sites.items():
            configs = [Config(r.device, r.dtype, r.enabled, r.call, r.toggle) for _, r in uses]
            self._by_function[fn] = _region(fn, fn.body, configs, via=tuple(c for c, _ in uses))
        self._scopes = self._region_scopes()

    def _region_scopes(self) -> set[Optional[cst.FunctionDef]]:
        """The functions (None: the module) where a region is written: those holding a
        region's `with`, and the regions' own functions. The ancestors of a node up to the
        nearest function are all written in that function, so a node whose nearest function
        is none of these is in no region."""
        return {self.tree.enclosing_function(w) for w in self._by_with} | set(self._by_function)

    def _same_file_function(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        """The function of this file a call certainly enters: `helper(...)` for a function
        visible from the call's scope, `self.method(...)` for a method of the same class."""
        m = self.tree
        func = call.func
        if isinstance(func, cst.Name):
            if m.names.resolve(func):
                return None
            scopes = {m.enclosing_function(call), None}
            fn = m.enclosing_function(call)
            while fn is not None:
                fn = m.enclosing_function(fn)
                scopes.add(fn)
            found = [
                f for f in m.functions
                if f.name.value == func.value and m.enclosing_class(f) is None
                and m.enclosing_function(f) in scopes
            ]
            return found[0] if len(found) == 1 else None
        if isinstance(func, cst.Attribute) and dotted(func.value) == "self":
            cls = m.enclosing_class(call)
            if cls is None:
                return None
            found = [
                f for f in m.functions
                if f.name.value == func.attr.value and m.parent(m.parent(f)) is cls
            ]
            return found[0] if len(found) == 1 else None
        return None

    # -- what a manager expression may be -------------------------------------------------------
    def _manager(self, expr: cst.BaseExpression, depth: int) -> Optional[list[Optional[Config]]]:
        """The alternatives a context-manager expression may evaluate to: a Config for each
        autocast alternative, None for each other one; None overall when none is autocast."""
        if depth > 4:
            return None
        alternatives: list[Optional[Config]]
        if isinstance(expr, cst.Call):
            alternatives = self._called(expr, depth)
        elif isinstance(expr, cst.IfExp):
            alternatives = self._branches(expr, depth)
        elif isinstance(expr, (cst.Name, cst.Attribute)) and not self.tree.names.resolve(expr):
            alternatives = []
            for value in self.tree.values_of(expr):
                alternatives.extend(_toggled_by(self._manager(value, depth + 1) or [None], self._assigned_under(value)))
        else:
            return None
        return alternatives if any(a is not None for a in alternatives) else None

    def _branches(self, expr: cst.IfExp, depth: int) -> list[Optional[Config]]:
        test = self.consts.truth(expr.test)
        picked = [expr.body] if test is True else [expr.orelse] if test is False else [expr.body, expr.orelse]
        out: list[Optional[Config]] = []
        for branch in picked:
            found = self._manager(branch, depth + 1) or [None]
            out.extend(_toggled_by(found, expr.test) if branch is expr.body and len(picked) == 2 else found)
        return out

    def _assigned_under(self, value: cst.CSTNode) -> Optional[cst.BaseExpression]:
        """The test of the innermost `if` whose body holds the assignment of `value` (in the
        same function): the stored manager is that value only where the test held."""
        child = value
        for anc in self.tree.ancestors(value):
            if isinstance(anc, cst.If) and child is anc.body:
                return anc.test
            if isinstance(anc, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return None
            child = anc
        return None

    def _called(self, call: cst.Call, depth: int) -> list[Optional[Config]]:
        if self.is_autocast(call.func):
            return [self._config(call.func, list(call.args), call)]
        if not isinstance(call.func, (cst.Name, cst.Attribute)) or self.tree.names.resolve(call.func):
            return [None]
        # `amp_autocast = partial(torch.autocast, ...)` (or `= torch.autocast`), then `amp_autocast()`
        out: list[Optional[Config]] = []
        for value in self.tree.values_of(call.func):
            if isinstance(value, (cst.Name, cst.Attribute)) and self.is_autocast(value):
                out.append(self._config(value, list(call.args), call))
            elif (
                isinstance(value, cst.Call)
                and self.tree.callee(value) in _PARTIAL
                and value.args
                and value.args[0].keyword is None
                and self.is_autocast(value.args[0].value)
            ):
                out.append(self._config(value.args[0].value, [*value.args[1:], *call.args], value))
            else:
                out.append(None)
        return out or [None]

    def _config(self, func: cst.BaseExpression, args: Sequence[cst.Arg], call: cst.Call) -> Config:
        consts = self.consts
        devices = {AUTOCAST_SPELLINGS[q] for q in self.tree.names.resolve(func)}
        if any(a.star for a in args):
            return Config(None, None, None, call)
        fixed = devices.pop() if len(devices) == 1 else UNKNOWN
        if fixed is UNKNOWN:
            return Config(None, None, None, call)
        params = _ENABLED_FIRST if fixed is not None else _DEVICE_FIRST
        device: Optional[str] = fixed
        if fixed is None:
            value = consts.value(_arg(args, params, "device_type"))
            device = value if isinstance(value, str) else None
        dtype_expr = _arg(args, params, "dtype")
        dtype: Optional[str] = None
        dtype_value = consts.value(dtype_expr) if dtype_expr is not None else None
        chosen = None
        if isinstance(dtype_value, TorchDtype):
            dtype = dtype_value.name
        elif (chosen := self._low_dtype_chosen_under(dtype_expr)) is not None:
            dtype = chosen[0]
        elif dtype_value is None and device is not None:
            dtype = DEFAULT_DTYPE.get(device)
        enabled_expr = _arg(args, params, "enabled")
        enabled = True if enabled_expr is None else consts.truth(enabled_expr)
        if enabled is True and chosen is not None:
            return Config(device, dtype, None, call, chosen[1])
        return Config(device, dtype, enabled, call, self._toggle(enabled_expr) if enabled is None else None)

    def _low_dtype_chosen_under(self, expr: Optional[cst.BaseExpression]) -> Optional[tuple[str, cst.BaseExpression]]:
        """A `dtype=` name that holds float32 but a low dtype where one test holds
        (`precision = torch.float32`, then `if mixed_precision: precision = torch.float16`):
        that dtype, and the test, which toggles the region's lowering like an `enabled=`
        expression (code in the else of `if mixed_precision:` inside the block runs in
        float32). None unless every value of the name is a dtype, the low ones agree and are
        all assigned under that one `if`."""
        if not isinstance(expr, cst.Name):
            return None
        values = self.tree.values_of(expr)
        dtypes = [self.consts.value(v) for v in values]
        if not all(isinstance(d, TorchDtype) for d in dtypes):
            return None
        low = [(v, d.name) for v, d in zip(values, dtypes) if d.name not in _FULL_PRECISION]
        if len(low) == len(values) or len({name for _, name in low}) != 1:
            return None
        test = self._one_test_over([v for v, _ in low])
        return (low[0][1], test) if test is not None else None

    def _toggle(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """The test an unknown `enabled=` stands for: itself, or, where it asks whether a local
        name holds an object (`enabled=scaler is not None`) and every object that name is
        bound to is bound under one `if` (`if args.amp: scaler = GradScaler()`, None in its
        else or before it), that `if`'s test: code in the else of `if args.amp:` inside the
        block runs without autocast."""
        held = _presence_of(expr)
        if held is None:
            return expr
        test = self._one_test_over([v for v in self.tree.values_of(held) if not is_none(v)])
        return test if test is not None else expr

    def _one_test_over(self, values: list[cst.BaseExpression]) -> Optional[cst.BaseExpression]:
        """The test of the one `if` whose body assigns every one of `values` (`_assigned_under`);
        None when there are none, or one is assigned elsewhere or under another `if`."""
        tests = {id(t): t for t in map(self._assigned_under, values)}
        if not values or len(tests) != 1 or None in tests.values():
            return None
        return next(iter(tests.values()))


def _presence_of(expr: cst.BaseExpression) -> Optional[cst.Name]:
    """`x` of `x is not None`: a test of whether a name holds an object (a bare `x` tests the
    truth of what it holds, which a flag assigned under an `if` need not share with its test)."""
    if isinstance(compared_to_none(expr), cst.IsNot) and isinstance(expr.left, cst.Name):  # type: ignore[attr-defined]
        return expr.left  # type: ignore[attr-defined]
    return None


def _toggled_by(alternatives: list[Optional[Config]], test: Optional[cst.BaseExpression]) -> list[Optional[Config]]:
    """Autocast alternatives chosen only where `test` holds (`amp_ctx = autocast()` under `if
    fp16:`, `autocast() if fp16 else nullcontext()`): enabled where it does, so `test` toggles
    them like an `enabled=` expression would (code in the else of `if fp16:` inside the block
    runs without autocast). One with a toggle of its own keeps it."""
    if test is None:
        return alternatives
    return [
        Config(c.device, c.dtype, None, c.call, test) if c is not None and c.enabled is True and c.toggle is None else c
        for c in alternatives
    ]


def _arg(args: Sequence[cst.Arg], params: Sequence[str], name: str) -> Optional[cst.BaseExpression]:
    for a in args:
        if a.keyword is not None and a.keyword.value == name:
            return a.value
    positional = [a for a in args if a.keyword is None]
    i = params.index(name)
    return positional[i].value if i < len(positional) else None


def _region(
    node: Owner, body: cst.BaseSuite, alternatives: Sequence[Optional[Config]], via: tuple[cst.Call, ...] = ()
) -> AutocastRegion:
    """One region from a manager's alternatives: fields agree or are unknown; a manager that
    may be something other than autocast may leave autocast off."""
    configs = [c for c in alternatives if c is not None]
    maybe_not = len(configs) != len(alternatives)

    def agreed(values: list):  # type: ignore[no-untyped-def]
        return values[0] if all(v == values[0] for v in values) else None

    enabled = agreed([c.enabled for c in configs])
    if maybe_not and enabled is not False:
        enabled = None
    return AutocastRegion(
        node=node,
        call=configs[0].call,
        device=agreed([c.device for c in configs]),
        dtype=agreed([c.dtype for c in configs]),
        enabled=enabled,
        body=body,
        via=via,
        toggle=configs[0].toggle if len(configs) == 1 else None,
    )
