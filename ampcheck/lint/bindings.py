"""What the names of a training script stand for: scalers, optimizers, models, losses, schedulers.

API (facet `model.bindings`):

- `Binding(kind, key, node, qualname, enabled, device, params_of, scope, cls, inferred)`:
  `kind` is one of KINDS; `key` the bound text (`"scaler"`, `"self.scaler"`); `node` the
  value that made the binding (the constructor call; for an inferred binding, the first use);
  `qualname` the constructor's qualified name (an in-file class: its name); `enabled`
  True / False / None ("maybe": `enabled=use_amp`, a constructor under a conditional
  expression, a scaler known only from its use); `built_enabled` for a scaler, whether the
  GradScaler is enabled whenever it is the one that runs (True where `enabled` is None only
  because a stand-in such as `None` may run instead); `device` the scaler's device type when
  written; `params_of` for an optimizer the dotted text of the module whose `.parameters()`
  it takes (`"model"`, `"self.model"`); `scope` the FunctionDef of a local, the ClassDef of a
  `self.` attribute, None for a module global; `cls` the in-file ClassDef a value is an
  instance of (so calls on it can be followed); `inferred` when known only from use.
- `bindings.all`: every binding, in source order.
- `bindings.of_kind("scaler")`: the bindings of one kind.
- `bindings.lookup(expr, at=node)`: what a Name or `self.attr` means at `node` -> Binding | None.
  A name rebound to something unrecognised there answers None.
- `bindings.is_optimizer(expr, at)`: a known optimizer, or an unknown name spelled like one.

Kinds: `scaler` (every GradScaler / ShardedGradScaler spelling), `optimizer` (`torch.optim.*`,
common third-party optimizers and factories by name), `model` (nn.Module constructors, in-file
nn.Module subclasses, `timm.create_model`, `*.from_pretrained`, wrappers such as DDP and
`torch.compile`, chains through `.to()/.cuda()/.half()`), `loss` (`nn.*Loss()`), `scheduler`
(`torch.optim.lr_scheduler.*` and `*_schedule_with_warmup`), `object` (an instance of another
in-file class, e.g. a NativeScaler helper), and `opaque` (a name rebound from a framework call
that wraps the model or optimizer, e.g. `model, opt = accelerator.prepare(model, opt)`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterable, Iterator, Optional, Union

import libcst as cst

from ampcheck.lint.consteval import ConstEval, named_param, param_names
from ampcheck.lint.kinds import (
    MODULE_CHAIN, SCALER_ANNOTATION, SCALER_CLASS_NAMES, is_lr_scheduler_class, is_optimizer_class, is_scaler_class, named_like_optimizer,
    scaler_attribute, scaler_use,
)
from ampcheck.lint.names import call_argument, dotted, is_none, last_name
from ampcheck.lint.tree import SourceTree
from ampcheck.lint.walk import preorder


KINDS = ("scaler", "optimizer", "model", "loss", "scheduler", "object", "opaque", "loss_scale")

_ENABLED_POS_DEVICE_FIRST = 5
_ENABLED_POS_LEGACY = 4

_FACTORY_MODELS = frozenset({"create_model", "from_pretrained", "from_config", "build_model", "get_model"})
_MODEL_WRAPPERS = frozenset(
    {
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
        "torch.compile",
        "torch.distributed.fsdp.FullyShardedDataParallel",
    }
)
_OPAQUE_WRAPPERS = frozenset({"prepare", "initialize", "setup", "wrap", "build_optim_wrapper"})
# What else a maybe-on scaler may be: an object standing in for it (`DummyGradScaler()`).
_STAND_INS = frozenset({"object", "instance"})


@dataclass(frozen=True, eq=False)
class Binding:
    kind: str
    key: str
    node: cst.CSTNode
    qualname: Optional[str] = None
    enabled: Optional[bool] = True
    built_enabled: Optional[bool] = None
    device: Optional[str] = None
    params_of: Optional[str] = None
    scope: Optional[cst.CSTNode] = None
    cls: Optional[cst.ClassDef] = None
    inferred: bool = False
    class_qualname: Optional[str] = None
    toggles: tuple[str, ...] = ()
    # the conditions (canonical text, value) under each of which alone a scaler is on: its
    # `enabled=` test, the test of `GradScaler() if c else None`, the `if`s it is built under
    on_when: tuple[tuple[str, bool], ...] = ()
    # what made an "instance" whose class only its maker knows: `self.setup_optimizers`,
    # `build_scaler` (the callee of `x = self.setup_optimizers()`)
    maker: Optional[cst.BaseExpression] = None
    item: Optional[int] = None  # which element of the tuple the maker returns (`a, b = make()`)
    unit_scale: bool = False  # a GradScaler built with `init_scale=1`: its scale is 1 until an update grows it


Assignment = Union[cst.Assign, cst.AnnAssign]
# what an argument that is a test is written as
_TESTS = (cst.Name, cst.Attribute, cst.Comparison, cst.UnaryOperation, cst.BooleanOperation)


def is_get_scale(call: cst.Call) -> bool:
    """`<scaler>.get_scale()`: the scale a GradScaler multiplies the loss by (its value, for
    thresholds scaled alike)."""
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "get_scale" and not call.args


class Bindings:
    def __init__(self, tree: SourceTree, consts: ConstEval) -> None:
        self.tree = tree
        self.consts = consts
        self._classes = {c.name.value: c for c in tree.classes}
        self._module_classes = self._nn_module_classes()
        # (scope, key) -> [(assignment, Binding | None)] in source order
        self._by_key: dict[tuple[Optional[cst.CSTNode], str], list[tuple[cst.CSTNode, Optional[Binding]]]] = {}
        self._inferred: dict[tuple[Optional[cst.CSTNode], str], Binding] = {}
        self._copies: dict[cst.FunctionDef, dict[type, list[tuple[str, cst.BaseExpression]]]] = {}  # (`_own_copies`)
        # (scope, key) of names bound to what a function returns (`instantiate(cfg.scaler)`)
        # whose use here is one only a GradScaler has: a scaler where the project cannot say
        # what the function returns
        self._used_as_scaler: set[tuple[Optional[cst.CSTNode], str]] = set()
        # (scope, key) of `self.` attributes and names annotated as an optimizer (`self.optimizer:
        # Optimizer`, with or without a value): whatever a factory binds there is one
        self._declared_optimizers: dict[tuple[Optional[cst.CSTNode], str], cst.AnnAssign] = {}
        for node in tree.assigns:
            if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
                self._add_assignment(node)
            if isinstance(node, cst.AnnAssign) and self._annotates_optimizer(node.annotation):
                key = dotted(node.target)
                scope = self._scope_of(node, key) if key is not None else False
                if key is not None and scope is not False:
                    self._declared_optimizers[(scope, key)] = node
        self._infer_scalers()
        self.all: list[Binding] = [
            b for entries in self._by_key.values() for _, b in entries if b is not None
        ] + list(self._inferred.values()) + self._annotated_scalers()

    def _annotated_scalers(self) -> list[Binding]:
        """The parameters annotated as GradScalers (`scaler: Optional[GradScaler]`) whose use
        infers nothing more: scalers of the file all the same (a file that takes one scales)."""
        out = []
        for fn in self.tree.functions:
            for p in (*fn.params.params, *fn.params.kwonly_params, *fn.params.posonly_params):
                if p.annotation is None or (fn, p.name.value) in self._inferred:
                    continue
                b = self.param_binding(fn, p.name.value)
                if b is not None and b.kind == "scaler":
                    out.append(b)
        return out

    # -- public questions -------------------------------------------------------------------
    def of_kind(self, kind: str) -> list[Binding]:
        return [b for b in self.all if b.kind == kind]

    def lookup(self, expr: cst.BaseExpression, at: Optional[cst.CSTNode] = None) -> Optional[Binding]:
        at = at if at is not None else expr
        key = dotted(expr)
        if key is None:
            return None
        if isinstance(expr, cst.Name):
            return self._lookup_name(key, at)
        if key.startswith("self.") and key.count(".") == 1:
            return self._lookup_self(key, at)
        if isinstance(expr, cst.Attribute):
            return self._inferred.get((self._chain_scope(expr), key))
        return None

    def is_optimizer(self, expr: cst.BaseExpression, at: Optional[cst.CSTNode] = None) -> bool:
        b = self.lookup(expr, at)
        if b is not None and b.kind != "instance":
            return b.kind == "optimizer"
        text = dotted(expr)
        if text is None:
            return False
        return named_like_optimizer(text.rsplit(".", 1)[-1])

    def indexes_optimizers(self, expr: cst.BaseExpression) -> bool:
        """Whether `expr` picks one item of a collection named for optimizers
        (`self.optimizers[name]`, `optimizers[0]`): the loop variable's twin, by index."""
        return isinstance(expr, cst.Subscript) and _names_optimizers(expr.value)

    def iterates_optimizers(self, name: cst.Name) -> bool:
        """Whether `name` is the variable of the innermost loop that binds it, and that loop
        walks optimizers: `for o in optimizers`, `for o in optimizer.values()` (a dict of
        them), `for _, o in optimizers.items()`, `for i, o in enumerate(optimizers)`, `for o in
        [opt_g, opt_d]`."""
        for anc in self.tree.ancestors(name):
            if not isinstance(anc, cst.For):
                continue
            target, it = anc.target, anc.iter
            if isinstance(target, cst.Name):
                if target.value != name.value:
                    continue
                walked = _called_on(it, "values")
                if walked is not None:
                    return _names_optimizers(walked)
                if isinstance(it, (cst.List, cst.Tuple)):
                    return bool(it.elements) and all(self.is_optimizer(e.value, name) for e in it.elements)
                return _names_optimizers(it)
            names = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else []
            if not any(isinstance(n, cst.Name) and n.value == name.value for n in names):
                continue
            second = len(names) == 2 and isinstance(names[1], cst.Name) and names[1].value == name.value
            pairs = _called_on(it, "items")
            if second and pairs is not None:
                return _names_optimizers(pairs)
            if second and isinstance(it, cst.Call) and dotted(it.func) == "enumerate" and len(it.args) == 1:
                return _names_optimizers(it.args[0].value)
            return False
        return False

    def class_named(self, name: str) -> Optional[cst.ClassDef]:
        return self._classes.get(name)

    def class_attributes(self, cls: cst.ClassDef) -> dict[str, Binding]:
        """`self.<attr>` key -> what the class's own methods bind it to (all assignments merged),
        or the optimizer its annotation declares where they say no more."""
        out = {}
        for (scope, key), entries in self._by_key.items():
            if scope is cls:
                merged = _merge_attribute(entries)
                if merged is not None:
                    out[key] = self._use_over_place(merged, (scope, key))
        for (scope, key), node in self._declared_optimizers.items():
            if scope is cls and (key not in out or out[key].kind in (*_STAND_INS, "instance")):
                out[key] = Binding("optimizer", key, node, scope=scope)
        for (scope, key), b in self._inferred.items():
            if scope is cls and key not in out:
                out[key] = b
        return out

    def param_binding(self, fn: cst.FunctionDef, name: str) -> Optional[Binding]:
        """What a parameter is when no caller says: a scaler by annotation (`scaler:
        GradScaler | None`) or by use (`scaler.scale(loss).backward()`), maybe on; an optimizer
        by annotation (`optimizer: Optional[Optimizer]`)."""
        p = named_param(fn, name)
        if p is not None and p.annotation is not None and SCALER_ANNOTATION.search(self.tree.code_for(p.annotation.annotation)):
            return Binding("scaler", name, p, enabled=None, scope=fn, inferred=True)
        if p is not None and p.annotation is not None and self._annotates_optimizer(p.annotation):
            return Binding("optimizer", name, p, scope=fn)
        return self._inferred.get((fn, name))

    def _annotates_optimizer(self, annotation: cst.Annotation) -> bool:
        """An annotation naming torch's `Optimizer` (also inside `Optional[...]`, `X | None`)."""
        return any(
            q in _OPTIMIZER_TYPES
            for node in preorder(annotation.annotation) if isinstance(node, (cst.Name, cst.Attribute))
            for q in self.tree.names.resolve(node)
        )

    def bound_under(self, node: cst.CSTNode, key: str) -> bool:
        """Whether an assignment under `node` (a loop's body) binds `key`, whatever the value."""
        return any(
            node in self.tree.ancestors(assign)
            for (_, k), entries in self._by_key.items() if k == key
            for assign, _ in entries
        )

    def used_as_scaler(self, b: Binding) -> bool:
        """Whether `b`, what a function returns, is used here as only a GradScaler is."""
        return (b.scope, b.key) in self._used_as_scaler

    def module_inferred(self) -> list[str]:
        """The module globals known to be scalers only from their use (in any function)."""
        return sorted(key for scope, key in self._inferred if scope is None)

    def assigned_before(self, fn: cst.FunctionDef, name: str, at: cst.CSTNode) -> bool:
        return any(self.tree.precedes(n, at) for n, _ in self._by_key.get((fn, name), ()))

    def _built_where(self, node: cst.CSTNode) -> Iterator[tuple[str, bool]]:
        """The conditions a scaler built at `node` is on under: the tests of the `if`s (in its
        function) it is built under, each with the value it has on the side that builds it. A
        test of what the `if` itself binds (`if optimizer is None:` around building the
        optimizer and the scaler on the first pass) says nothing once the branch has run."""
        for stmt, in_body in self._ifs_around(node):
            if not self._binds_what_it_tests(stmt):
                yield from self._on_under(stmt.test, in_body, node)

    def _ifs_around(self, node: cst.CSTNode) -> Iterator[tuple[cst.If, bool]]:
        """The `if`s (in its function) whose branches hold `node`, innermost first, each with
        whether `node` is in its body (else in its `else`/`elif`)."""
        child = node
        for anc in self.tree.ancestors(node):
            if isinstance(anc, (cst.FunctionDef, cst.ClassDef, cst.Module)):
                return
            if isinstance(anc, cst.If) and child is not anc.test:
                yield anc, child is anc.body
            child = anc

    def _binds_what_it_tests(self, stmt: cst.If) -> bool:
        """Whether the branches of `stmt` assign a name or attribute its test reads."""
        read = {dotted(n) for n in preorder(stmt.test) if isinstance(n, (cst.Name, cst.Attribute))}
        for n in preorder(stmt):
            targets = (
                [t.target for t in n.targets] if isinstance(n, cst.Assign)
                else [n.target] if isinstance(n, (cst.AnnAssign, cst.AugAssign)) else []
            )
            for t in targets:
                names = [e.value for e in t.elements] if isinstance(t, (cst.Tuple, cst.List)) else [t]
                if any(dotted(x) in read for x in names):
                    return True
        return False

    def _on_under(self, test: cst.BaseExpression, value: bool, at: cst.CSTNode) -> Iterator[tuple[str, bool]]:
        """`_conditions` of a test a scaler built at `at` is on under, and the same for each
        attribute its function copies the test into unchanged (`self.fp16 = fp16` beside
        `GradScaler(enabled=fp16)`): the methods of the object test that."""
        yield from self._conditions(test, value)
        fn = self.tree.enclosing_function(at)
        if fn is None:
            return
        copies = self._own_copies(fn).get(type(test))
        if not copies:
            return
        text = self.tree.condition_text(test)
        for key, copied in copies:
            if self.tree.condition_text(copied) == text:
                yield key, value

    def _own_copies(self, fn: cst.FunctionDef) -> dict[type, list[tuple[str, cst.BaseExpression]]]:
        """The `self.<attr> = <expr>` assignments of `fn` (nested functions included), by the
        type of what they assign: one walk of `fn` however many tests of it are asked about
        (every argument written as a test of every call that makes an object asks)."""
        found = self._copies.get(fn)
        if found is None:
            found = self._copies[fn] = {}
            for node in preorder(fn):
                if isinstance(node, cst.Assign) and len(node.targets) == 1:
                    key = dotted(node.targets[0].target)
                    if key is not None and key.startswith("self.") and key.count(".") == 1:
                        found.setdefault(type(node.value), []).append((key, node.value))
        return found

    def _conditions(self, test: cst.BaseExpression, value: bool) -> Iterator[tuple[str, bool]]:
        """What `test` having `value` says holds, as (canonical text, value) pairs: the test
        itself, the test under a `not`, each operand of an `and` that holds or an `or` that
        fails."""
        yield self.tree.condition_text(test), value
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            yield from self._conditions(test.expression, not value)
        elif isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And if value else cst.Or):
            yield from self._conditions(test.left, value)
            yield from self._conditions(test.right, value)

    # -- lookups ------------------------------------------------------------------------------
    def _built_under(self, node: cst.CSTNode) -> Iterator[str]:
        """The names tested by the `if`s (in its function) a scaler is constructed under
        (`if self.activated: self.scaler = GradScaler()`): the scaler exists only on one side
        of them, so they switch AMP, like the names of its `enabled=`."""
        for stmt, _ in self._ifs_around(node):
            yield from (
                n for n in re.findall(r"[A-Za-z_][\w.]*", self.tree.code_for(stmt.test))
                if n not in ("True", "False", "None", "not", "and", "or", "is", "in")
            )

    def _lookup_name(self, name: str, at: cst.CSTNode) -> Optional[Binding]:
        fn = self.tree.enclosing_function(at)
        while fn is not None:
            entries = self._by_key.get((fn, name))
            if entries:
                return self._use_over_place(self._latest(entries, at), (fn, name))
            if name in param_names(fn):
                return self.param_binding(fn, name)
            fn = self.tree.enclosing_function(fn)
        entries = self._by_key.get((None, name))
        if entries:
            return self._use_over_place(self._latest(entries, at), (None, name))
        return self._inferred.get((None, name))

    def _use_over_place(self, b: Optional[Binding], key: tuple[Optional[cst.CSTNode], str]) -> Optional[Binding]:
        """A name's binding, where what its use says (a GradScaler inferred from the calls on
        it) stands over an unknown value or one place of a tuple a project function returns."""
        return self._inferred.get(key, b) if _unpacked(b) else b

    def _lookup_self(self, key: str, at: cst.CSTNode) -> Optional[Binding]:
        cls = self.tree.enclosing_class(at)
        seen: set[str] = set()
        while cls is not None and cls.name.value not in seen:
            seen.add(cls.name.value)
            entries = self._by_key.get((cls, key))
            merged = _merge_attribute(entries) if entries else None
            if merged is not None:
                return self._use_over_place(merged, (cls, key))
            inferred = self._inferred.get((cls, key))
            if inferred is not None:
                return inferred
            cls = next((self._classes[b] for b in _base_names(cls) if b in self._classes), None)
        return None

    def _latest(self, entries: list[tuple[cst.CSTNode, Optional[Binding]]], at: cst.CSTNode) -> Optional[Binding]:
        """What the assignments that may reach `at` agree on: the latest one before it, and
        the earlier ones while the later sit on a path `at` need not take (`if amp: scaler =
        GradScaler() else: scaler = DummyScaler()`); with none before it (a use above its
        loop-carried assignment), all of them."""
        return _merge([b for _, b in self._reaching(entries, at)])

    def _reaching(self, entries: list[tuple[cst.CSTNode, Optional[Binding]]], at: cst.CSTNode) -> list[tuple[cst.CSTNode, Optional[Binding]]]:
        before = [(n, b) for n, b in entries if n is at or self.tree.precedes(n, at)]
        if before and before[-1][0] is not at and self.tree.within(at, before[-1][0]):
            before.pop()  # a read in the assignment's own value (`x = x.half()`) sees the value before it
        if not before:
            return entries
        reaching = []
        for n, b in reversed(before):
            reaching.append((n, b))
            if self.dominates(n, at):
                break
        return reaching

    def reaching_defs(self, name: cst.Name) -> tuple[int, ...]:
        """Which assignments of a local name may reach `name`, numbered in the order its
        function makes them: two reads that the same ones reach read one value (`if not skip:`
        twice, with `skip = True` between them, reads two); () for a name assigned nowhere
        here (a parameter, a global, a loop variable)."""
        fn = self.tree.enclosing_function(name)
        entries = self._by_key.get((fn, name.value))
        if not entries:
            return ()
        reaching = {id(n) for n, _ in self._reaching(entries, name)}
        return tuple(i for i, (n, _) in enumerate(entries) if id(n) in reaching)

    def reads_of(self, assign: cst.Assign, name: str) -> Optional[list[cst.Name]]:
        """The reads of the local `name` in its function that the assignment `assign` may
        reach (its value, or another one where two reach); None where the name is not a
        local of one function `assign` binds (an attribute, a global)."""
        fn = self.tree.enclosing_function(assign)
        entries = self._by_key.get((fn, name))
        if fn is None or not entries or not any(n is assign for n, _ in entries):
            return None
        mine = next(i for i, (n, _) in enumerate(entries) if n is assign)
        return [
            node for node in self.tree.name_nodes.get(name, ())
            if self.tree.enclosing_function(node) is fn and not self._stored(node) and not self.tree.within(node, assign)
            and self.tree.precedes(assign, node) and mine in self.reaching_defs(node)
        ]

    def _stored(self, name: cst.Name) -> bool:
        """Whether `name` is written, not read: an assignment's target, or a part of one."""
        node: cst.CSTNode = name
        for anc in self.tree.ancestors(name):
            if isinstance(anc, cst.AssignTarget):
                return anc.target is node or self.tree.within(node, anc.target)
            if not isinstance(anc, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
                return False
            node = anc
        return False

    def reaching_value(self, name: cst.Name) -> Optional[cst.BaseExpression]:
        """The value a local name holds at `name` when exactly one assignment reaches it."""
        fn = self.tree.enclosing_function(name)
        entries = self._by_key.get((fn, name.value))
        if not entries:
            return None
        reaching = self._reaching(entries, name)
        if len(reaching) != 1 or not isinstance(reaching[0][0], (cst.Assign, cst.AnnAssign)):
            return None
        node = reaching[0][0]
        return None if node in set(self.tree.ancestors(name)) else node.value

    def reaching_values(self, name: cst.Name) -> Optional[list[cst.BaseExpression]]:
        """The values of every assignment of a local name that may reach `name`; None where
        one that may reach it is no plain assignment (a loop target, an unpacking)."""
        fn = self.tree.enclosing_function(name)
        entries = self._by_key.get((fn, name.value))
        if not entries:
            return None
        values = []
        for node, _ in self._reaching(entries, name):
            if not isinstance(node, (cst.Assign, cst.AnnAssign)) or node.value is None or node in set(self.tree.ancestors(name)):
                return None
            if isinstance(node, cst.Assign) and (len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name)):
                return None
            values.append(node.value)
        return values

    def dominates(self, node: cst.CSTNode, at: cst.CSTNode) -> bool:
        """Whether `at` runs only after `node` has run (both in one scope, `node` first): every
        conditional block around `node` is around `at` too."""
        around_at = set(map(id, self.tree.ancestors(at)))
        child = node
        for anc in self.tree.ancestors(node):
            if isinstance(anc, (cst.FunctionDef, cst.ClassDef, cst.Module)):
                return True
            if _conditional_block(anc, child) and id(child) not in around_at:
                return False
            child = anc
        return True

    # -- building -------------------------------------------------------------------------------
    def _add_assignment(self, node: Assignment) -> None:
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        for target in targets:
            if isinstance(target, (cst.Tuple, cst.List)):
                self._add_unpacking(node, target)
                continue
            key = dotted(target)
            if key is None:
                continue
            scope = self._scope_of(node, key)
            if scope is False:
                continue
            binding = self._classify(node.value, key, scope)
            if binding is not None and binding.kind == "scaler" and not binding.inferred:
                binding = replace(
                    binding, toggles=tuple(dict.fromkeys((*binding.toggles, *self._built_under(node)))),
                    on_when=tuple(dict.fromkeys((*binding.on_when, *self._built_where(node)))),
                )
            if isinstance(node, cst.AnnAssign) and (binding is None or binding.kind in _STAND_INS):
                if SCALER_ANNOTATION.search(self.tree.code_for(node.annotation.annotation)):
                    binding = Binding("scaler", key, node.value, enabled=None, scope=scope)
            self._by_key.setdefault((scope, key), []).append((node, binding))

    def _add_unpacking(self, node: Assignment, target: Union[cst.Tuple, cst.List]) -> None:
        """`model, opt = accelerator.prepare(model, opt)`: the names now belong to the
        framework. `model, optimizer, scaler = prepare(args)`: each name is what the project
        function returns in that place of its tuple (the project model follows the maker).
        What another object's method returns (`ipex.optimize(model, optimizer=opt)`) is unknown."""
        value = node.value
        if not isinstance(value, cst.Call):
            return
        func = value.func
        opaque = isinstance(func, cst.Attribute) and func.attr.value in _OPAQUE_WRAPPERS and not _is_torch(self.tree, value)
        made = not opaque and _is_made(func, self.tree.names.resolve(func))
        if not (opaque or made or isinstance(func, cst.Attribute)):
            return
        for i, el in enumerate(target.elements):
            key = dotted(el.value)
            if key is None or isinstance(el, cst.StarredElement):
                continue
            scope = self._scope_of(node, key)
            if scope is False:
                continue
            if opaque:
                b: Optional[Binding] = Binding("opaque", key, value, scope=scope)
            else:  # (what another object's method returns is unknown: it rebinds the name)
                b = Binding("instance", key, value, scope=scope, maker=func, item=i) if made else None
            self._by_key.setdefault((scope, key), []).append((node, b))

    def _scope_of(self, node: cst.CSTNode, key: str) -> Union[None, cst.CSTNode, bool]:
        """The scope a key is bound in; False for a target this facet does not track."""
        fn = self.tree.enclosing_function(node)
        if key.startswith("self."):
            if key.count(".") != 1 or fn is None:
                return False
            cls = self.tree.enclosing_class(fn)
            return cls if cls is not None else False
        if "." in key:
            return False
        if fn is None and self.tree.enclosing_class(node) is not None:
            return False  # a class attribute
        return fn

    def _classify(self, value: cst.BaseExpression, key: str, scope: Optional[cst.CSTNode], depth: int = 0) -> Optional[Binding]:
        if depth > 4:
            return None
        if isinstance(value, cst.IfExp):
            return self._classify_ifexp(value, key, scope, depth)
        if not isinstance(value, cst.Call):
            # `model = net` style aliases of a known binding
            if isinstance(value, (cst.Name, cst.Attribute)):
                b = self.lookup(value, value)
                return replace(b, key=key, scope=scope) if b is not None and b.kind != "opaque" else None
            return None
        func = value.func
        if is_get_scale(value):
            return Binding("loss_scale", key, value, scope=scope)  # the scale a scaler multiplies the loss by
        quals = self.tree.names.resolve(func)
        last = last_name(func)
        made = self._scaler_classes_built(func, quals)
        if made is not None:
            return self._scaler(value, key, scope, made)
        qual = next(iter(quals)) if len(quals) == 1 else None
        if is_lr_scheduler_class(qual):
            return Binding("scheduler", key, value, qual, scope=scope)
        if last is not None and (last.endswith("_schedule_with_warmup") or last in ("create_scheduler", "create_scheduler_v2")):
            return Binding("scheduler", key, value, qual or last, scope=scope)
        if is_optimizer_class(qual, last):
            return Binding("optimizer", key, value, qual or last, params_of=self._params_of(value), scope=scope)
        if qual is not None and qual.startswith("torch.nn.") and last is not None and last.endswith("Loss"):
            return Binding("loss", key, value, qual, scope=scope)
        if qual in _MODEL_WRAPPERS and value.args:
            inner = self._classify(value.args[0].value, key, scope, depth + 1)
            if inner is not None and inner.kind == "instance":
                inner = replace(inner, kind="model")
            return replace(inner, node=value) if inner is not None else Binding("model", key, value, qual, scope=scope)
        if qual is not None and qual.startswith("torch.nn.") and last is not None and last[:1].isupper():
            return Binding("model", key, value, qual, scope=scope)
        if last in _FACTORY_MODELS or (qual or "").startswith("torchvision.models."):
            return Binding("model", key, value, qual or last, scope=scope)
        if isinstance(func, cst.Name) and func.value in self._classes and not quals:
            cls = self._classes[func.value]
            kind = "model" if func.value in self._module_classes else "object"
            if kind == "model" and func.value.endswith("Loss"):
                kind = "loss"
            return Binding(kind, key, value, func.value, scope=scope, cls=cls)
        if isinstance(func, cst.Attribute) and func.attr.value in MODULE_CHAIN:
            inner = self._classify(func.value, key, scope, depth + 1)
            if inner is not None and inner.kind in ("model", "instance"):
                return replace(inner, node=value, kind="model")
        if qual is None and not quals and isinstance(func, cst.Name) and func.value[:1].isupper() and self.tree.names.star_imports():
            # a class no import names here, which a `from <module> import *` may bind: the
            # project model looks it up through those imports (`scaler = NativeScaler()` after
            # `from utils import *`)
            qual = f"{self.tree.module_name}.{func.value}"
        if qual is not None and last is not None and last[:1].isupper():
            # an instance of an imported class: the project may hold the class (what it is
            # and what its methods do is for the project model to say)
            return Binding("instance", key, value, qual, scope=scope, class_qualname=qual)
        if _is_made(func, quals):
            # what a factory of the project returns (`self.setup_optimizers()`): the project
            # model follows the maker to the class it returns
            return Binding("instance", key, value, scope=scope, maker=func)
        return None

    def _classify_ifexp(self, value: cst.IfExp, key: str, scope: Optional[cst.CSTNode], depth: int) -> Optional[Binding]:
        """`GradScaler() if use_amp else None`: the scaler exists only when the test holds."""
        test = self.consts.truth(value.test)
        if test is not None:
            return self._classify(value.body if test else value.orelse, key, scope, depth + 1)
        branches = [self._classify(v, key, scope, depth + 1) for v in (value.body, value.orelse)]
        merged = _merge(branches)
        if merged is None:
            found = [b for b in branches if b is not None]
            if not found or len({b.kind for b in found}) != 1:
                return None
            # `Net() if x else None`; an instance of an imported class (a scaler the project
            # re-exports?) that may be None is maybe on
            merged = replace(found[0], enabled=None) if len(found) != len(branches) else found[0]
        elif merged.kind == "scaler":
            merged = replace(merged, node=value)
        if merged.kind in ("scaler", "instance") and (is_none(value.body) or is_none(value.orelse)):
            # `GradScaler() if use_amp else None`: no scaler where `use_amp` fails
            on = self._on_under(value.test, not is_none(value.body), value)
            merged = replace(merged, on_when=tuple(dict.fromkeys((*merged.on_when, *on))))
        return merged

    def _scaler_classes_named(self, name: cst.Name) -> Optional[frozenset[str]]:
        """The GradScaler classes a local name holds where it is called, when every
        assignment that may reach the call binds one: the class itself (`make =
        torch.cuda.amp.GradScaler`) or `functools.partial` of it fixing only its device
        (`partial(torch.amp.GradScaler, device="cuda")`), as version-guarded code picks one."""
        fn = self.tree.enclosing_function(name)
        entries = self._by_key.get((fn, name.value)) if fn is not None else None
        if not entries:
            return None
        found: set[str] = set()
        for node, _ in self._reaching(entries, name):
            value = node.value if isinstance(node, (cst.Assign, cst.AnnAssign)) else None
            if isinstance(value, cst.Call) and self.tree.names.resolve(value.func) == {"functools.partial"} and value.args:
                fixed = value.args[1:]
                if any(a.keyword is None or a.keyword.value != "device" for a in fixed):
                    return None  # `enabled=` or another argument fixed: read no further
                value = value.args[0].value
            quals = self.tree.names.resolve(value) if value is not None else frozenset()
            if not quals or not all(is_scaler_class(q) for q in quals):
                return None
            found |= quals
        return frozenset(found)

    def built_scaler(self, call: cst.Call) -> Optional[Binding]:
        """What a GradScaler constructor call builds (its `enabled=` and the conditions it is
        on under), as a binding of no name; None for any other call."""
        made = self._scaler_classes_built(call.func, self.tree.names.resolve(call.func))
        return self._scaler(call, "", None, made) if made is not None else None

    def _scaler_classes_built(self, func: cst.BaseExpression, quals: frozenset[str]) -> Optional[frozenset[str]]:
        """The GradScaler classes a call of `func` (resolved to `quals`) constructs: a name
        bound here to one of them (`_scaler_classes_named`), or a constructor itself
        (`_is_scaler_ctor`); None when it constructs no GradScaler."""
        named = self._scaler_classes_named(func) if not quals and isinstance(func, cst.Name) else None
        if named:
            return named
        return quals if self._is_scaler_ctor(quals, last_name(func)) else None

    def argument_conditions(self, call: cst.Call) -> tuple[tuple[str, tuple[tuple[str, bool], ...]], ...]:
        """For each argument of `call` written as a test (a name, an attribute, a comparison,
        `not`/`and`/`or` of those), by its keyword or its position: `_on_under` of it holding.
        What a factory builds `GradScaler(enabled=<its parameter>)` from is on under those of
        the argument its caller passes for that parameter."""
        found = []
        position: Optional[int] = 0
        for a in call.args:
            if a.star:
                position = None  # (what follows `*args` sits at a place nobody can count)
                continue
            key = a.keyword.value if a.keyword is not None else str(position) if position is not None else None
            if a.keyword is None and position is not None:
                position += 1
            if key is not None and isinstance(a.value, _TESTS):
                found.append((key, tuple(dict.fromkeys(self._on_under(a.value, True, call)))))
        return tuple(found)

    def _is_scaler_ctor(self, quals: frozenset[str], last: Optional[str]) -> bool:
        """A GradScaler constructor: by its qualified name, or by its class name where a star
        import leaves it unresolved and no class of this file has that name."""
        if quals:
            return all(is_scaler_class(q) for q in quals)
        return last in SCALER_CLASS_NAMES and last not in self._classes

    def _scaler(self, call: cst.Call, key: str, scope: Optional[cst.CSTNode], quals: frozenset[str]) -> Binding:
        qual = next(iter(sorted(quals)), None)
        fixed = None
        if quals and all(q.startswith("torch.cuda.") for q in quals):
            fixed = "cuda"
        elif quals and all(q.startswith("torch.cpu.") for q in quals):
            fixed = "cpu"
        device_first = fixed is None and bool(quals) and all(q.startswith("torch.amp.") or q == "torch.GradScaler" for q in quals)
        enabled_expr = call_argument(call, "enabled", _ENABLED_POS_DEVICE_FIRST if device_first else _ENABLED_POS_LEGACY)
        enabled: Optional[bool] = True
        toggles: tuple[str, ...] = ()
        on_when: tuple[tuple[str, bool], ...] = ()
        if enabled_expr is not None:
            enabled = self.consts.truth(enabled_expr)
            on_when = tuple(dict.fromkeys(self._on_under(enabled_expr, True, call))) if enabled is None else ()
            toggles = tuple(dict.fromkeys(
                n for n in re.findall(r"[A-Za-z_][\w.]*", self.tree.code_for(enabled_expr))
                if n not in ("True", "False", "None")
            ))
        elif any(a.star for a in call.args):
            enabled = None  # `GradScaler(**cfg.amp_config)`: the configuration may switch it off
        device = fixed
        if device_first:
            dev_expr = call_argument(call, "device", 0)
            if dev_expr is None:
                device = "cuda"
            else:
                v = self.consts.value(dev_expr)
                device = v if isinstance(v, str) else None
        init = call_argument(call, "init_scale", 1 if device_first else 0)
        unit = init is not None and self.consts.value(init) == 1 and not isinstance(self.consts.value(init), bool)
        return Binding(
            "scaler", key, call, qual, enabled=enabled, built_enabled=enabled, device=device, scope=scope, toggles=toggles,
            unit_scale=unit, on_when=on_when,
        )

    def _params_of(self, call: cst.Call) -> Optional[str]:
        """The module an optimizer optimizes: the receiver of a `.parameters()` in its first
        argument (following one local name), or of `model.configure_optimizers(...)`."""
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "configure_optimizers":
            return dotted(call.func.value)
        params = call_argument(call, "params", 0)
        if params is None:
            return None
        if isinstance(params, cst.Name):
            fn = self.tree.enclosing_function(call)
            for node, _ in self._by_key.get((fn, params.value), []):
                if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
                    params = node.value
        for sub in preorder(params):
            if (
                isinstance(sub, cst.Call)
                and isinstance(sub.func, cst.Attribute)
                and sub.func.attr.value in ("parameters", "named_parameters")
            ):
                return dotted(sub.func.value)
        return None

    def _nn_module_classes(self) -> set[str]:
        """In-file classes deriving (directly or through other in-file classes) from nn.Module."""
        found: set[str] = set()
        changed = True
        while changed:
            changed = False
            for cls in self.tree.classes:
                name = cls.name.value
                if name in found:
                    continue
                for base in cls.bases:
                    q = self.tree.qualname(base.value)
                    text = dotted(base.value) or ""
                    if (q or "").startswith("torch.nn.") or text.endswith("nn.Module") or text in found:
                        found.add(name)
                        changed = True
                        break
        return found

    def _infer_scalers(self) -> None:
        """A name or `self.` attribute used as only a GradScaler is (kinds.py: `x.unscale_(opt)`,
        `x.scale(loss)` back-propagated, or both `x.step(optimizer)` and `x.update()`) but bound
        where this file cannot see is a scaler of unknown state."""
        protocol: dict[tuple[object, str], set[str]] = {}
        found: list[tuple[cst.BaseExpression, str, cst.CSTNode, bool]] = []
        for call in self.tree.calls:
            func = call.func
            if not isinstance(func, cst.Attribute):
                continue
            attr = func.attr.value
            positional = [a.value for a in call.args if a.keyword is None and not a.star]
            recv = func.value
            key = dotted(recv)
            if key is None or key == "self":
                continue
            own = scaler_use(attr, len(positional)) or (attr == "scale" and positional and self._scaled_then_backward(call))
            used = own
            if not used and attr in ("step", "update"):
                shape = "step" if attr == "step" and len(positional) == 1 and self.is_optimizer(positional[0], call) else (
                    "update" if attr == "update" and not call.args else None)
                if shape is not None:
                    scope = self._binding_scope(recv, key)
                    seen = protocol.setdefault((scope, key), set())
                    seen.add(shape)
                    used = seen == {"step", "update"}
            if used:
                found.append((recv, key, call, bool(own)))
        if not found:
            return
        keys = {key for _, key, _, _ in found}
        other = {  # (scope, key) of receivers with an attribute no GradScaler has
            (self._binding_scope(node.value, key), key)
            for node in self.tree.attributes
            if not scaler_attribute(node.attr.value) and (key := dotted(node.value)) in keys
        }
        for recv, key, call, own in found:
            if (self._binding_scope(recv, key), key) not in other:
                self._infer(recv, key, call, own)

    def _infer(self, recv: cst.BaseExpression, key: str, at: cst.CSTNode, own: bool) -> None:
        """`own`: the use is a call only a GradScaler makes (`unscale_(opt)`, a scaled
        backward), which alone makes what a function returns a scaler; `step(opt)` with
        `update()` is also a project loss scaler's or a registry-built wrapper's protocol."""
        found = self.lookup(recv, at)
        scope = self._binding_scope(recv, key)
        if own and found is not None and found.kind == "instance" and found.maker is not None and found.item is None and scope is not False:
            self._used_as_scaler.add((scope, key))
        if not _unpacked(found):
            return
        if scope is False or (scope, key) in self._inferred:
            return  # (bound where this file sees only unknown values: inferred all the same)
        self._inferred[(scope, key)] = Binding("scaler", key, recv, enabled=None, scope=scope, inferred=True)

    def _binding_scope(self, recv: cst.BaseExpression, key: str) -> Union[None, cst.CSTNode, bool]:
        """Where the name used at `recv` is bound: the nearest enclosing function that assigns
        it or takes it as a parameter (a closure's free name is its outer function's), else
        the module; a `self.` attribute's class; for an attribute of an attribute
        (`self.executor.scaler`, `engine.state.scaler`), where its first name is bound."""
        chain = self._chain_scope(recv) if isinstance(recv, cst.Attribute) else False
        if chain is not False:
            return chain
        if not isinstance(recv, cst.Name):
            return self._scope_of(recv, key)
        fn = self.tree.enclosing_function(recv)
        while fn is not None:
            if (fn, key) in self._by_key or key in param_names(fn):
                return fn
            fn = self.tree.enclosing_function(fn)
        return self._scope_of(recv, key) if self.tree.enclosing_function(recv) is None else None

    def _chain_scope(self, expr: cst.Attribute) -> Union[None, cst.CSTNode, bool]:
        """The scope of the first name of `a.b` or `a.b.c`: one identity for the chain in every
        method of a class (`self.b.c`) or wherever `a` is bound; False where it is no plain
        chain, or is `self.b` (a class attribute, the assignments' own key)."""
        root: cst.BaseExpression = expr
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name) or (root.value == "self" and expr.value is root):
            return False
        if root.value == "self":
            fn = self.tree.enclosing_function(expr)
            cls = self.tree.enclosing_class(fn) if fn is not None else None
            return cls if cls is not None else False
        return self._binding_scope(root, root.value)

    def _scaled_then_backward(self, call: cst.Call) -> bool:
        """`x.scale(loss).backward()`, or `y = x.scale(loss)` with `y.backward()` in the same
        function."""
        parent = self.tree.parent(call)
        if isinstance(parent, cst.Attribute) and parent.attr.value == "backward":
            return True
        if not isinstance(parent, cst.Assign) or len(parent.targets) != 1 or not isinstance(parent.targets[0].target, cst.Name):
            return False
        name, fn = parent.targets[0].target.value, self.tree.enclosing_function(call)
        return any(
            node.attr.value == "backward" and isinstance(node.value, cst.Name) and node.value.value == name
            and self.tree.enclosing_function(node) is fn
            for node in self.tree.attributes
        )


def _called_on(expr: cst.BaseExpression, method: str) -> Optional[cst.BaseExpression]:
    """`x` of `x.<method>()` called with no arguments (`optimizers.values()`)."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == method and not expr.args:
        return expr.func.value
    return None


def _names_optimizers(expr: cst.BaseExpression) -> bool:
    """A collection named for optimizers (`optimizers`, `self.optimizer` holding a dict)."""
    text = dotted(expr)
    return text is not None and named_like_optimizer(text.rsplit(".", 1)[-1])


def _merge(bindings: list[Optional[Binding]]) -> Optional[Binding]:
    """One answer for several alternatives (assignments that may reach a use, the branches of
    a conditional expression): the kind they all bind; or a maybe-on scaler when some are a
    GradScaler and the others stand-ins (None, an unknown value, an instance of some other
    class: `DummyGradScaler()`), since whenever it is the real one the protocol must hold."""
    if not bindings:
        return None
    known = [b for b in bindings if b is not None]
    scalers = [b for b in known if b.kind == "scaler"]
    if scalers and all(b.kind == "scaler" or b.kind in _STAND_INS for b in known):
        enabled = _merge_enabled([b.enabled for b in scalers])
        if len(scalers) != len(bindings) and enabled is not False:
            enabled = None  # a stand-in may be what runs
        return replace(
            scalers[0], enabled=enabled, built_enabled=_merge_enabled([b.built_enabled for b in scalers]),
            toggles=tuple(dict.fromkeys(t for b in scalers for t in b.toggles)),
            # (on only where each of the scalers is: None or a stand-in adds no way to be on)
            on_when=tuple(c for c in scalers[0].on_when if all(c in b.on_when for b in scalers[1:])),
        )
    if len(known) != len(bindings) or len({b.kind for b in known}) != 1:
        return None
    return replace(known[0], enabled=_merge_enabled([b.enabled for b in known]))


def _merge_attribute(entries: list[tuple[cst.CSTNode, Optional[Binding]]]) -> Optional[Binding]:
    """What the assignments to one `self.` attribute agree on. `self.updater = None` in
    `__init__` and `self.updater = Updater(...)` in a setup method make an Updater: a method
    called on the attribute runs on it (on None it could not run). A scaler keeps None as its
    stand-in: `if self.scaler is not None:` is how code switches AMP."""
    assigned = [b for n, b in entries if not _assigns_none(n)]
    if len(assigned) != len(entries):
        merged = _merge(assigned)
        if merged is not None and merged.kind != "scaler":
            return merged
    return _merge([b for _, b in entries])


def _assigns_none(node: cst.CSTNode) -> bool:
    return is_none(getattr(node, "value", None))


def _conditional_block(stmt: cst.CSTNode, child: cst.CSTNode) -> bool:
    """Whether `child` of `stmt` runs only sometimes: a branch, a loop body, a `try` body
    that may stop early, an `except`, a `case` (a `finally` always runs)."""
    if isinstance(stmt, (cst.If, cst.Else, cst.For, cst.While, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase)):
        return child is not getattr(stmt, "test", None) and child is not getattr(stmt, "iter", None)
    if isinstance(stmt, (cst.Try, cst.TryStar)):
        return child is stmt.body
    return False


_OPTIMIZER_TYPES = frozenset({"torch.optim.Optimizer", "torch.optim.optimizer.Optimizer"})


def _merge_enabled(values: Iterable[Optional[bool]]) -> Optional[bool]:
    vals = set(values)
    return vals.pop() if len(vals) == 1 else None


def _unpacked(b: Optional[Binding]) -> bool:
    """No binding, or one place of the tuple a project function returns (`a, b = make()`): what
    it is, the project says, unless its use here says first."""
    return b is None or (b.kind == "instance" and b.item is not None)


def _is_made(func: cst.BaseExpression, quals: frozenset[str]) -> bool:
    """A call of a function that may be the project's: `self.method(...)`, a plain name, an
    imported name outside torch."""
    if isinstance(func, cst.Attribute):
        return isinstance(func.value, cst.Name) and func.value.value == "self"
    if isinstance(func, cst.Name):
        return not quals or (len(quals) == 1 and not next(iter(quals)).startswith("torch."))
    return False


def _is_torch(tree: SourceTree, call: cst.Call) -> bool:
    return any(q.startswith("torch.") for q in tree.names.resolve(call.func))


def _base_names(cls: cst.ClassDef) -> list[str]:
    return [b.value.value for b in cls.bases if isinstance(b.value, cst.Name)]
