"""Explicit dtype casts: `.half()`, `.bfloat16()`, `.float()`, `.to(torch.float16)`,
`.to(dtype=...)`, `.type(torch.float16)` / `.type(torch.cuda.HalfTensor)`.

API (facet `model.casts`):

- `Cast(call, receiver, dtype, model_key, no_grad, undone)`: `call` the cast call;
  `receiver` what it is applied to; `dtype` the canonical target ("float16", "bfloat16",
  "float32", "float64"); `model_key` the dotted text of the model (`"model"`,
  `"self.net"`) when the cast applies to a name bound to an nn.Module (C's bindings), whether
  the model is the receiver (`model.half()`) or the assignment target
  (`model = Net().cuda().half()`), else None (a tensor, or unknown); `no_grad` when it runs
  under `torch.no_grad()` / `inference_mode()` / `set_grad_enabled(False)` (a `with` or a
  decorator); `undone` when the same model is cast back to float32 (`model.half().float()`,
  or a later `model.float()`).
- `model.casts.all`: every cast with a known target dtype.
- `model.casts.of_models(dtype)`: casts of models to `dtype`.
- `model.casts.grad_disabled(node)` / `disables_grad(expr)`: autograd is off at `node` / a
  `with` item or decorator turns it off.
- `model.casts.in_custom_fwd(node)`: whether `node` sits in a function decorated with
  `custom_fwd` (any spelling), where the author manages precision by hand.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Optional

import libcst as cst

from ampcheck.lint.bindings import Bindings
from ampcheck.lint.consteval import ConstEval, TorchDtype
from ampcheck.lint.kinds import MODULE_MOVES
from ampcheck.lint.names import dotted
from ampcheck.lint.tree import SourceTree


_METHOD_DTYPE = {"half": "float16", "bfloat16": "bfloat16", "float": "float32", "double": "float64"}
_TENSOR_TYPES = {"HalfTensor": "float16", "BFloat16Tensor": "bfloat16", "FloatTensor": "float32", "DoubleTensor": "float64"}
# methods only an nn.Module has
_MODULE_ONLY = frozenset({"parameters", "named_parameters", "state_dict", "load_state_dict", "eval", "train", "modules", "children", "named_modules"})
_NO_GRAD = frozenset(
    {
        "torch.no_grad",
        "torch.inference_mode",
        "torch.autograd.no_grad",
        "torch.autograd.grad_mode.no_grad",
        "torch.autograd.grad_mode.inference_mode",
    }
)
_SET_GRAD = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "torch.autograd.grad_mode.set_grad_enabled"})
CUSTOM_FWD = frozenset(
    {"torch.amp.custom_fwd", "torch.cuda.amp.custom_fwd", "torch.amp.autocast_mode.custom_fwd", "torch.cuda.amp.autocast_mode.custom_fwd"}
)


@dataclass(frozen=True, eq=False)
class Cast:
    call: cst.Call
    receiver: cst.BaseExpression
    dtype: str
    model_key: Optional[str]
    no_grad: bool
    undone: bool = False


class Casts:
    def __init__(self, tree: SourceTree, consts: ConstEval, bindings: Bindings) -> None:
        self.tree = tree
        self.consts = consts
        self.bindings = bindings
        found = [c for c in (self._cast(call) for call in tree.calls) if c is not None]
        back_to_fp32 = {(c.model_key, self._scope(c.call)) for c in found if c.model_key and c.dtype == "float32"}
        self.all: list[Cast] = [
            Cast(c.call, c.receiver, c.dtype, c.model_key, c.no_grad, self._undone(c, back_to_fp32)) for c in found
        ]

    def of_models(self, dtype: str) -> list[Cast]:
        return [c for c in self.all if c.model_key is not None and c.dtype == dtype]

    def in_custom_fwd(self, node: cst.CSTNode) -> bool:
        fn = self.tree.enclosing_function(node)
        while fn is not None:
            if any(self._names_custom_fwd(d.decorator) for d in fn.decorators):
                return True
            fn = self.tree.enclosing_function(fn)
        return False

    # -- building ---------------------------------------------------------------------------------
    def _cast(self, call: cst.Call) -> Optional[Cast]:
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        dtype = self._target_dtype(func.attr.value, call)
        if dtype is None:
            return None
        return Cast(call, func.value, dtype, self._model_key(call), self.grad_disabled(call))

    def _target_dtype(self, method: str, call: cst.Call) -> Optional[str]:
        if method in _METHOD_DTYPE:
            return _METHOD_DTYPE[method] if not any(a.keyword is None for a in call.args) else None
        if method == "to":
            for a in call.args:
                if a.keyword is None or a.keyword.value == "dtype":
                    v = self.consts.value(a.value)
                    if isinstance(v, TorchDtype):
                        return v.name
            return None
        if method == "type" and len(call.args) == 1:
            arg = call.args[0].value
            v = self.consts.value(arg)
            if isinstance(v, TorchDtype):
                return v.name
            text = v if isinstance(v, str) else (self.tree.qualname(arg) or "")
            if text.startswith("torch."):
                return _TENSOR_TYPES.get(text.rsplit(".", 1)[-1])
        return None

    def _model_key(self, call: cst.Call) -> Optional[str]:
        """The model a cast applies to: the chain's root name (`model.cuda().half()`), or
        the name the chain is assigned to (`model = Net().half()`), when that name is bound
        to an nn.Module or used as one (called, `.parameters()`, `.eval()`...)."""
        root: cst.BaseExpression = call.func.value  # type: ignore[attr-defined]
        while isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute) and root.func.attr.value in MODULE_MOVES:
            root = root.func.value
        candidates: list[tuple[cst.BaseExpression, cst.CSTNode]] = []
        if isinstance(root, (cst.Name, cst.Attribute)):
            candidates.append((root, call))
        outer: cst.CSTNode = call
        parent = self.tree.parent(outer)
        while isinstance(parent, cst.Attribute) and isinstance(self.tree.parent(parent), cst.Call):
            outer = self.tree.parent(parent)  # type: ignore[assignment]
            parent = self.tree.parent(outer)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            candidates.append((parent.targets[0].target, parent))
        for expr, at in candidates:
            b = self.bindings.lookup(expr, at)
            if b is not None:
                if b.kind == "model":
                    return b.key
                continue
            key = dotted(expr)
            if key is not None and (self._usage_scope(expr), key) in self._module_uses:
                return key
        return None

    @cached_property
    def _module_uses(self) -> set[tuple[Optional[cst.CSTNode], str]]:
        """(scope, name) of names used the way only modules are: called, or asked for their
        parameters / state / mode. Tensors support none of these."""
        out: set[tuple[Optional[cst.CSTNode], str]] = set()
        for call in self.tree.calls:
            func = call.func
            target = func.value if isinstance(func, cst.Attribute) and func.attr.value in _MODULE_ONLY else func
            if target is func and self.tree.names.resolve(func):
                continue
            key = dotted(target)
            if key is not None and (isinstance(target, cst.Name) or key.count(".") == 1 and key.startswith("self.")):
                out.add((self._usage_scope(target), key))
        return out

    def _usage_scope(self, expr: cst.BaseExpression) -> Optional[cst.CSTNode]:
        if isinstance(expr, cst.Name):
            return self.tree.enclosing_function(expr)
        return self.tree.enclosing_class(expr)

    def grad_disabled(self, node: cst.CSTNode) -> bool:
        """Whether `node` runs with autograd off: inside a `with no_grad()` / `inference_mode()`
        / `set_grad_enabled(False)`, in a function decorated with one, or in a script's
        top-level code after a plain `torch.set_grad_enabled(False)` statement (which turns
        autograd off for everything that runs after it, until one turns it on again)."""
        child = node
        for anc in self.tree.ancestors(node):
            if isinstance(anc, cst.With) and child is anc.body and any(self.disables_grad(i.item) for i in anc.items):
                return True
            if isinstance(anc, cst.FunctionDef):
                return any(self.disables_grad(d.decorator) for d in anc.decorators)
            if isinstance(anc, cst.Module):
                return id(child) in self._top_level_without_grad
            child = anc
        return False

    @cached_property
    def _top_level_without_grad(self) -> set[int]:
        """The top-level statements (by identity) that run after a plain top-level
        `set_grad_enabled(False)` statement, with no `set_grad_enabled(True)` since."""
        out: set[int] = set()
        off = False
        for statement in self.tree.module.body:
            if off:
                out.add(id(statement))
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    call = small.value if isinstance(small, cst.Expr) else None
                    if isinstance(call, cst.Call) and self.tree.qualname(call.func) in _SET_GRAD and call.args:
                        off = self.consts.truth(call.args[0].value) is False
        return out

    def disables_grad(self, expr: cst.BaseExpression) -> bool:
        func = expr.func if isinstance(expr, cst.Call) else expr
        q = self.tree.qualname(func)
        if q in _NO_GRAD:
            return True
        if q in _SET_GRAD and isinstance(expr, cst.Call) and expr.args:
            return self.consts.truth(expr.args[0].value) is False
        return False

    def _names_custom_fwd(self, expr: cst.BaseExpression) -> bool:
        func = expr.func if isinstance(expr, cst.Call) else expr
        found = self.tree.names.resolve(func)
        return bool(found) and all(q in CUSTOM_FWD for q in found)

    def _scope(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.tree.enclosing_function(node)

    def _undone(self, cast: Cast, back_to_fp32: set[tuple[Optional[str], Optional[cst.CSTNode]]]) -> bool:
        if cast.dtype == "float32":
            return False
        parent = self.tree.parent(cast.call)
        if isinstance(parent, cst.Attribute) and parent.attr.value in ("float", "to", "type"):
            outer = self.tree.parent(parent)
            if isinstance(outer, cst.Call) and self._target_dtype(parent.attr.value, outer) == "float32":
                return True
        return cast.model_key is not None and (cast.model_key, self._scope(cast.call)) in back_to_fp32
