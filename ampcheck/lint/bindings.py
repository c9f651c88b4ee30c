"""What the names of a training script stand for: scalers, optimizers, models, losses, schedulers.

API (facet `model.bindings`):

- `Binding(kind, key, node, qualname, enabled, device, params_of, scope, cls, inferred)`:
  `kind` is one of KINDS; `key` the bound text (`"scaler"`, `"self.scaler"`); `node` the
  value that made the binding (the constructor call; for an inferred binding, the first use);
  `qualname` the constructor's qualified name (an in-file class: its name); `enabled`
  True / False / None ("maybe": `enabled=use_amp`, a constructor under a conditional
  expression, a scaler known only from its use); `device` the scaler's device type when
  written; `params_of` for an optimizer the dotted text of the module whose `.parameters()`
  it takes (`"model"`, `"self.model"`); `scope` the FunctionDef of a local, the ClassDef of a
  `self.` attribute, None for a module global; `cls` the in-file ClassDef a value is an
  instance of (so calls on it can be followed); `inferred` when known only from use.
- `bindings.all`: every binding, in source order.
- `bindings.of_kind("scaler")`: the bindings of one kind.
- `bindings.lookup(expr, at=node)`: what a Name or `self.attr` means at `node` -> Binding | None.
  A name rebound to something unrecognised there answers None.
- `bindings.is_optimizer(expr, at)`: a known optimizer, or an unknown name spelled like one.
- `bindings.precedes(a, b)`: whether node `a` starts before node `b` in the source.

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
from functools import cached_property
from typing import TYPE_CHECKING, Iterable, Optional, Union

import libcst as cst

from ampcheck.lint.consteval import _param_names
from ampcheck.lint.names import dotted

if TYPE_CHECKING:
    from ampcheck.lint.model import FileModel

KINDS = ("scaler", "optimizer", "model", "loss", "scheduler", "object", "opaque")

SCALER_QUALNAMES = frozenset(
    {
        "torch.amp.GradScaler",
        "torch.amp.grad_scaler.GradScaler",
        "torch.cuda.amp.GradScaler",
        "torch.cuda.amp.grad_scaler.GradScaler",
        "torch.cpu.amp.GradScaler",
        "torch.cpu.amp.grad_scaler.GradScaler",
        "torch.distributed.fsdp.ShardedGradScaler",
        "torch.distributed.fsdp.sharded_grad_scaler.ShardedGradScaler",
        "fairscale.optim.grad_scaler.ShardedGradScaler",
    }
)
_SCALER_NAMES = frozenset({"GradScaler", "ShardedGradScaler"})
# Positional index of `enabled` per spelling family: torch.amp takes device first.
_ENABLED_POS_DEVICE_FIRST = 5
_ENABLED_POS_LEGACY = 4

_OPTIMIZER_NAMES = frozenset(
    {
        "SGD", "Adam", "AdamW", "Adamax", "Adagrad", "Adadelta", "ASGD", "LBFGS", "NAdam", "RAdam",
        "RMSprop", "Rprop", "SparseAdam", "Adafactor", "FusedAdam", "FusedLAMB", "FusedSGD",
        "Lamb", "LAMB", "Lion", "AdamW8bit", "Adam8bit", "PagedAdamW", "PagedAdamW8bit",
        "Muon", "SophiaG", "Shampoo", "AdaBelief", "Ranger", "create_optimizer",
        "create_optimizer_v2", "build_optimizer", "configure_optimizers",
    }
)
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
_MODULE_METHODS = frozenset({"to", "cuda", "cpu", "half", "float", "bfloat16", "double", "train", "eval", "requires_grad_"})
_OPAQUE_WRAPPERS = frozenset({"prepare", "initialize", "setup", "wrap", "build_optim_wrapper"})
OPTIMIZER_NAME = re.compile(r"(^|_)(opt|optim|optimizer|optimiser)s?(_|$|\d)|optimizer|optimiser", re.I)


@dataclass(frozen=True, eq=False)
class Binding:
    kind: str
    key: str
    node: cst.CSTNode
    qualname: Optional[str] = None
    enabled: Optional[bool] = True
    device: Optional[str] = None
    params_of: Optional[str] = None
    scope: Optional[cst.CSTNode] = None
    cls: Optional[cst.ClassDef] = None
    inferred: bool = False


Assignment = Union[cst.Assign, cst.AnnAssign]


class Bindings:
    def __init__(self, model: "FileModel") -> None:
        self.model = model
        self._classes = {c.name.value: c for c in model.classes}
        self._module_classes = self._nn_module_classes()
        # (scope, key) -> [(assignment, Binding | None)] in source order
        self._by_key: dict[tuple[Optional[cst.CSTNode], str], list[tuple[cst.CSTNode, Optional[Binding]]]] = {}
        self._inferred: dict[tuple[Optional[cst.CSTNode], str], Binding] = {}
        for node in model.assigns:
            if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
                self._add_assignment(node)
        self._infer_scalers()
        self.all: list[Binding] = [
            b for entries in self._by_key.values() for _, b in entries if b is not None
        ] + list(self._inferred.values())

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
        return None

    def is_optimizer(self, expr: cst.BaseExpression, at: Optional[cst.CSTNode] = None) -> bool:
        b = self.lookup(expr, at)
        if b is not None:
            return b.kind == "optimizer"
        text = dotted(expr)
        if text is None:
            return False
        last = text.rsplit(".", 1)[-1]
        return bool(OPTIMIZER_NAME.search(last)) and "sched" not in last.lower()

    def precedes(self, a: cst.CSTNode, b: cst.CSTNode) -> bool:
        """Whether `a` starts before `b` in the source."""
        order = self._order
        return order.get(a, -1) < order.get(b, -1)

    @cached_property
    def _order(self) -> dict[cst.CSTNode, int]:
        # The parent links were recorded in one pre-order traversal, so their insertion order
        # is source order: no second pass over the file, no source positions.
        return {node: i for i, node in enumerate(self.model.parents)}

    def class_named(self, name: str) -> Optional[cst.ClassDef]:
        return self._classes.get(name)

    # -- lookups ------------------------------------------------------------------------------
    def _lookup_name(self, name: str, at: cst.CSTNode) -> Optional[Binding]:
        fn = self.model.enclosing_function(at)
        while fn is not None:
            entries = self._by_key.get((fn, name))
            if entries:
                return self._latest(entries, at)
            if name in _param_names(fn):
                return self._inferred.get((fn, name))
            fn = self.model.enclosing_function(fn)
        entries = self._by_key.get((None, name))
        if entries:
            return self._latest(entries, at)
        return self._inferred.get((None, name))

    def _lookup_self(self, key: str, at: cst.CSTNode) -> Optional[Binding]:
        cls = self.model.enclosing_class(at)
        seen: set[str] = set()
        while cls is not None and cls.name.value not in seen:
            seen.add(cls.name.value)
            entries = self._by_key.get((cls, key))
            if entries:
                return _merge([b for _, b in entries])
            inferred = self._inferred.get((cls, key))
            if inferred is not None:
                return inferred
            cls = next((self._classes[b] for b in _base_names(cls) if b in self._classes), None)
        return None

    def _latest(self, entries: list[tuple[cst.CSTNode, Optional[Binding]]], at: cst.CSTNode) -> Optional[Binding]:
        """The assignment that most recently precedes `at`; with none before it (a use above
        its loop-carried assignment), all of them must agree."""
        before = [b for n, b in entries if n is at or self.precedes(n, at)]
        if before:
            return before[-1]
        return _merge([b for _, b in entries])

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
            self._by_key.setdefault((scope, key), []).append((node, binding))

    def _add_unpacking(self, node: Assignment, target: Union[cst.Tuple, cst.List]) -> None:
        """`model, opt = accelerator.prepare(model, opt)`: the names now belong to the framework."""
        value = node.value
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
            return
        opaque = value.func.attr.value in _OPAQUE_WRAPPERS and not _is_torch(self.model, value)
        for el in target.elements:
            key = dotted(el.value)
            if key is None:
                continue
            scope = self._scope_of(node, key)
            if scope is False:
                continue
            b = Binding("opaque", key, value, scope=scope) if opaque else None
            self._by_key.setdefault((scope, key), []).append((node, b))

    def _scope_of(self, node: cst.CSTNode, key: str) -> Union[None, cst.CSTNode, bool]:
        """The scope a key is bound in; False for a target this facet does not track."""
        fn = self.model.enclosing_function(node)
        if key.startswith("self."):
            if key.count(".") != 1 or fn is None:
                return False
            cls = self.model.enclosing_class(fn)
            return cls if cls is not None else False
        if "." in key:
            return False
        if fn is None and self.model.enclosing_class(node) is not None:
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
        quals = self.model.names.resolve(func)
        last = _last_name(func)
        if self._is_scaler_ctor(quals, last):
            return self._scaler(value, key, scope, quals)
        qual = next(iter(quals)) if len(quals) == 1 else None
        if qual is not None and qual.startswith("torch.optim.lr_scheduler."):
            return Binding("scheduler", key, value, qual, scope=scope)
        if last is not None and (last.endswith("_schedule_with_warmup") or last in ("create_scheduler", "create_scheduler_v2")):
            return Binding("scheduler", key, value, qual or last, scope=scope)
        if _is_optimizer_ctor(qual, last):
            return Binding("optimizer", key, value, qual or last, params_of=self._params_of(value), scope=scope)
        if qual is not None and qual.startswith("torch.nn.") and last is not None and last.endswith("Loss"):
            return Binding("loss", key, value, qual, scope=scope)
        if qual in _MODEL_WRAPPERS and value.args:
            inner = self._classify(value.args[0].value, key, scope, depth + 1)
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
        if isinstance(func, cst.Attribute) and func.attr.value in _MODULE_METHODS:
            inner = self._classify(func.value, key, scope, depth + 1)
            if inner is not None and inner.kind == "model":
                return replace(inner, node=value)
        return None

    def _classify_ifexp(self, value: cst.IfExp, key: str, scope: Optional[cst.CSTNode], depth: int) -> Optional[Binding]:
        """`GradScaler() if use_amp else None`: the scaler exists only when the test holds."""
        test = self.model.consts.truth(value.test)
        if test is not None:
            return self._classify(value.body if test else value.orelse, key, scope, depth + 1)
        branches = [self._classify(v, key, scope, depth + 1) for v in (value.body, value.orelse)]
        found = [b for b in branches if b is not None]
        if not found or len({b.kind for b in found}) != 1:
            return None
        b = found[0]
        if b.kind == "scaler":
            enabled = _merge_enabled([x.enabled for x in found]) if len(found) == 2 else (False if b.enabled is False else None)
            return replace(b, node=value, enabled=enabled)
        return b

    def _is_scaler_ctor(self, quals: frozenset[str], last: Optional[str]) -> bool:
        if quals:
            return all(q in SCALER_QUALNAMES for q in quals)
        return last in _SCALER_NAMES

    def _scaler(self, call: cst.Call, key: str, scope: Optional[cst.CSTNode], quals: frozenset[str]) -> Binding:
        qual = next(iter(sorted(quals)), None)
        fixed = None
        if quals and all(q.startswith("torch.cuda.") for q in quals):
            fixed = "cuda"
        elif quals and all(q.startswith("torch.cpu.") for q in quals):
            fixed = "cpu"
        device_first = fixed is None and bool(quals) and all(q.startswith("torch.amp.") for q in quals)
        enabled_expr = _arg(call, "enabled", _ENABLED_POS_DEVICE_FIRST if device_first else _ENABLED_POS_LEGACY)
        enabled: Optional[bool] = True
        if enabled_expr is not None:
            enabled = self.model.consts.truth(enabled_expr)
        device = fixed
        if device_first:
            dev_expr = _arg(call, "device", 0)
            if dev_expr is None:
                device = "cuda"
            else:
                v = self.model.consts.value(dev_expr)
                device = v if isinstance(v, str) else None
        return Binding("scaler", key, call, qual, enabled=enabled, device=device, scope=scope)

    def _params_of(self, call: cst.Call) -> Optional[str]:
        """The module an optimizer optimizes: the receiver of a `.parameters()` in its first
        argument (following one local name), or of `model.configure_optimizers(...)`."""
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "configure_optimizers":
            return dotted(call.func.value)
        params = _arg(call, "params", 0)
        if params is None:
            return None
        if isinstance(params, cst.Name):
            fn = self.model.enclosing_function(call)
            for node, _ in self._by_key.get((fn, params.value), []):
                if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
                    params = node.value
        for sub in _walk(params):
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
            for cls in self.model.classes:
                name = cls.name.value
                if name in found:
                    continue
                for base in cls.bases:
                    q = self.model.qualname(base.value)
                    text = dotted(base.value) or ""
                    if (q or "").startswith("torch.nn.") or text.endswith("nn.Module") or text in found:
                        found.add(name)
                        changed = True
                        break
        return found

    def _infer_scalers(self) -> None:
        """A name or `self.` attribute used like a GradScaler (`x.scale(loss).backward()`,
        `x.unscale_(opt)`) but bound where this file cannot see is a scaler of unknown state."""
        for call in self.model.calls:
            func = call.func
            if not isinstance(func, cst.Attribute):
                continue
            attr = func.attr.value
            if attr == "unscale_" or (attr == "scale" and self._scaled_then_backward(call)):
                recv = func.value
                key = dotted(recv)
                if key is None or self.lookup(recv, call) is not None:
                    continue
                scope = self._scope_of(recv, key)
                if scope is False or (scope, key) in self._inferred or (scope, key) in self._by_key:
                    continue
                self._inferred[(scope, key)] = Binding("scaler", key, recv, enabled=None, scope=scope, inferred=True)

    def _scaled_then_backward(self, call: cst.Call) -> bool:
        parent = self.model.parent(call)
        if isinstance(parent, cst.Attribute) and parent.attr.value == "backward":
            return True
        return isinstance(parent, (cst.Assign, cst.AnnAssign))


def _merge(bindings: list[Optional[Binding]]) -> Optional[Binding]:
    """One answer for several assignments: only when they all bind the same kind."""
    if not bindings or any(b is None for b in bindings):
        return None
    kinds = {b.kind for b in bindings if b is not None}
    if len(kinds) != 1:
        return None
    first = bindings[0]
    assert first is not None
    return replace(first, enabled=_merge_enabled([b.enabled for b in bindings if b is not None]))


def _merge_enabled(values: Iterable[Optional[bool]]) -> Optional[bool]:
    vals = set(values)
    return vals.pop() if len(vals) == 1 else None


def _is_optimizer_ctor(qual: Optional[str], last: Optional[str]) -> bool:
    if qual is not None and qual.startswith("torch.optim.") and not qual.startswith("torch.optim.lr_scheduler"):
        return (last or "")[:1].isupper()
    return last in _OPTIMIZER_NAMES


def _is_torch(model: "FileModel", call: cst.Call) -> bool:
    return any(q.startswith("torch.") for q in model.names.resolve(call.func))


def _last_name(func: cst.BaseExpression) -> Optional[str]:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _arg(call: cst.Call, name: str, pos: int) -> Optional[cst.BaseExpression]:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if 0 <= pos < len(positional):
        return positional[pos].value
    return None


def _walk(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(list(cur.children)))


def _base_names(cls: cst.ClassDef) -> list[str]:
    return [b.value.value for b in cls.bases if isinstance(b.value, cst.Name)]
