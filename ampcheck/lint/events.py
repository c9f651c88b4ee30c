"""The training step as an ordered sequence of events, per function, with same-file calls followed.

API (facet `model.steps`):

- `Event(kind, node, guards, via, scaler, binding, target)`: `kind` one of KINDS; `node` the
  call (a `.grad` Attribute for a gradient read); `guards` the `Guard`s it sits under, outermost
  first (an `if` branch, a loop body, the code after an early `continue`/`return`, an `except`);
  `via` the same-file call sites it was reached through; `scaler` the text of the scaler as
  written in the root function (a helper's parameter is replaced by the caller's argument);
  `binding` that scaler's Binding when known; `target` the optimizer text for
  step/unscale_/opt_step (root-function spelling), for an opaque call the texts it was handed.
  `event.region` asks the regions facet for the innermost autocast region around the node.
- `model.steps.roots()`: `(function or None, [Event])` for the module body and every function
  no same-file code calls: the sequences rules judge, helpers included at their call sites.
- `model.steps.of(fn)`: the sequence of one function on its own (None: the module body).
- `model.steps.events`: every event once, as written (not via calls): for region rules.
- `exclusive(a, b)`: two events on different branches of one `if` never run together.
- `Guard.test`: the condition expression of an `if`/`while` guard.

Kinds: scaled_backward (`scaler.scale(x).backward()`, or `y = scaler.scale(x)` ... `y.backward()`),
backward, unscale, grad_use (clip_grad_norm_/clip_grad_value_, parameter `.grad` reads),
scaler_step, opt_step, update, zero_grad, save (`torch.save`), autograd_grad, and opaque: a call
that hands a scaler or optimizer to code this file does not contain (an imported helper, a
framework object), or `x.backward(loss)` of an engine/accelerator, after which the step is not
judged.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Iterator, Optional, Sequence, Union

import libcst as cst

from ampcheck.lint.bindings import Binding
from ampcheck.lint.names import dotted

if TYPE_CHECKING:
    from ampcheck.lint.model import FileModel

KINDS = (
    "scaled_backward", "backward", "unscale", "grad_use", "scaler_step", "opt_step",
    "update", "zero_grad", "save", "autograd_grad", "opaque",
)
_CLIP = frozenset({"clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grad_value"})
_MAX_DEPTH = 6
_MAX_EVENTS = 4000
_BUILTINS = frozenset(
    {"print", "len", "isinstance", "getattr", "setattr", "hasattr", "type", "id", "repr", "str",
     "int", "float", "bool", "list", "dict", "tuple", "set", "sorted", "enumerate", "zip", "range",
     "iter", "next", "min", "max", "sum", "any", "all", "vars", "super", "format"}
)


@dataclass(frozen=True)
class Guard:
    """One condition instance: a helper entered from two call sites has two of each of its
    guards (`via` tells them apart), so its loops are not one loop."""

    node: cst.CSTNode  # If, For, While, Try, Match
    branch: str  # "body" | "orelse" | "loop" | "retry" | "except" | "case<N>"
    via: tuple[cst.Call, ...] = ()

    @property
    def is_loop(self) -> bool:
        return self.branch == "loop"

    @property
    def test(self) -> Optional[cst.BaseExpression]:
        return self.node.test if isinstance(self.node, (cst.If, cst.While)) else None


@dataclass(frozen=True, eq=False)
class Event:
    kind: str
    node: cst.CSTNode
    guards: tuple[Guard, ...] = ()
    via: tuple[cst.Call, ...] = ()
    scaler: Optional[str] = None
    binding: Optional[Binding] = None
    target: Union[None, str, frozenset[str]] = None
    model: Optional["FileModel"] = None

    @property
    def region(self):  # type: ignore[no-untyped-def]
        """The innermost autocast region around the event (a helper's event: around its call)."""
        if self.model is None:
            return None
        for node in (self.node, *reversed(self.via)):
            r = self.model.regions.enclosing(node)
            if r is not None:
                return r
        return None

    @property
    def framework_backward(self) -> bool:
        """An opaque `accelerator.backward(loss)` / `engine.backward(loss)`: a backward all the
        same, run by a framework that scales the loss itself."""
        node = self.node
        return (
            self.kind == "opaque" and isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute) and node.func.attr.value == "backward"
        )

    @property
    def loops(self) -> tuple[Guard, ...]:
        return tuple(g for g in self.guards if g.is_loop)

    @property
    def enabled(self) -> Optional[bool]:
        """The scaler's state: True on, False off, None maybe (unknown binding included)."""
        return self.binding.enabled if self.binding is not None else None


def exclusive(a: Event, b: Event) -> bool:
    branches = {(g.node, g.via): g.branch for g in a.guards if not g.is_loop}
    return any(
        branches.get((g.node, g.via), g.branch) != g.branch and isinstance(g.node, (cst.If, cst.Match))
        for g in b.guards
    )


@dataclass(frozen=True)
class _Env:
    """What a helper's parameters stand for at one call site."""

    args: dict[str, cst.BaseExpression]
    parent: Optional["_Env"]
    stack: tuple[cst.FunctionDef, ...]
    via: tuple[cst.Call, ...]
    guards: tuple[Guard, ...]


class StepEvents:
    def __init__(self, model: "FileModel") -> None:
        self.model = model
        self.b = model.bindings
        self._module_functions = {
            f.name.value: f for f in model.functions
            if model.enclosing_function(f) is None and model.enclosing_class(f) is None
        }
        # (enclosing function, name) -> the last function of that name defined directly in it
        self._nested = {
            (model.enclosing_function(f), f.name.value): f for f in model.functions
            if isinstance(_scope_of(model, f), cst.FunctionDef)
        }
        self._scaled_names = self._index_scaled_assignments()

    # -- public questions -------------------------------------------------------------------
    def of(self, fn: Optional[cst.FunctionDef]) -> list[Event]:
        env = _Env({}, None, (fn,) if fn is not None else (), (), ())
        out: list[Event] = []
        body = fn.body if fn is not None else self.model.module
        self._block(_statements(body), env, out, follow=False)
        return out

    def roots(self) -> Iterator[tuple[Optional[cst.FunctionDef], list[Event]]]:
        return iter(self._roots)

    @cached_property
    def _roots(self) -> list[tuple[Optional[cst.FunctionDef], list[Event]]]:
        """Built once per file: every scaler rule reads all of them."""
        called = self._called_functions
        found = []
        for fn in (None, *self.model.functions):
            if fn is not None and fn in called:
                continue
            env = _Env({}, None, (fn,) if fn is not None else (), (), ())
            out: list[Event] = []
            body = fn.body if fn is not None else self.model.module
            self._block(_statements(body), env, out, follow=True)
            if out:
                found.append((fn, out))
        return found

    @cached_property
    def events(self) -> list[Event]:
        return [e for fn in (None, *self.model.functions) for e in self.of(fn)]

    @cached_property
    def _called_functions(self) -> set[cst.FunctionDef]:
        found: set[cst.FunctionDef] = set()
        for call in self.model.calls:
            target = self._callee(call, None)
            if target is not None and target is not self.model.enclosing_function(call):
                found.add(target)
        return found

    # -- statements ---------------------------------------------------------------------------
    def _block(self, stmts: Sequence[cst.CSTNode], env: _Env, out: list[Event], follow: bool) -> None:
        guards = env.guards
        for stmt in stmts:
            if len(out) > _MAX_EVENTS:
                return
            inner = _Env(env.args, env.parent, env.stack, env.via, guards)
            self._statement(stmt, inner, out, follow)
            if isinstance(stmt, cst.If) and stmt.orelse is None and _exits(stmt.body):
                guards = (*guards, Guard(stmt, "orelse", env.via))

    def _statement(self, stmt: cst.CSTNode, env: _Env, out: list[Event], follow: bool) -> None:
        def sub(body: cst.CSTNode, guard: Optional[Guard]) -> None:
            g = env.guards if guard is None else (*env.guards, guard)
            self._block(_statements(body), _Env(env.args, env.parent, env.stack, env.via, g), out, follow)

        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return
        if isinstance(stmt, cst.If):
            self._expr(stmt.test, env, out, follow)
            sub(stmt.body, Guard(stmt, "body", env.via))
            if isinstance(stmt.orelse, cst.If):
                self._block([stmt.orelse], _Env(env.args, env.parent, env.stack, env.via, (*env.guards, Guard(stmt, "orelse", env.via))), out, follow)
            elif stmt.orelse is not None:
                sub(stmt.orelse.body, Guard(stmt, "orelse", env.via))
        elif isinstance(stmt, cst.For):
            self._expr(stmt.iter, env, out, follow)
            sub(stmt.body, Guard(stmt, _loop_kind(stmt), env.via))
            if stmt.orelse is not None:
                sub(stmt.orelse.body, None)
        elif isinstance(stmt, cst.While):
            self._expr(stmt.test, env, out, follow)
            sub(stmt.body, Guard(stmt, _loop_kind(stmt), env.via))
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                self._expr(item.item, env, out, follow)
            sub(stmt.body, None)
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            sub(stmt.body, None)
            for h in stmt.handlers:
                sub(h.body, Guard(stmt, "except", env.via))
            if stmt.orelse is not None:
                sub(stmt.orelse.body, None)
            if stmt.finalbody is not None:
                sub(stmt.finalbody.body, None)
        elif isinstance(stmt, cst.Match):
            self._expr(stmt.subject, env, out, follow)
            for i, case in enumerate(stmt.cases):
                sub(case.body, Guard(stmt, f"case{i}", env.via))
        elif isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in stmt.body:
                self._expr(small, env, out, follow)

    # -- expressions (post-order: an inner call runs before the call that uses its value) ------
    def _expr(self, node: cst.CSTNode, env: _Env, out: list[Event], follow: bool) -> None:
        if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            return
        for child in self.model.children(node):
            self._expr(child, env, out, follow)
        if isinstance(node, cst.Call):
            self._call(node, env, out, follow)
        elif isinstance(node, cst.Attribute) and node.attr.value == "grad" and self._is_grad_read(node):
            out.append(self._event("grad_use", node, env))

    def _call(self, call: cst.Call, env: _Env, out: list[Event], follow: bool) -> None:
        func = call.func
        quals = self.model.names.resolve(func)
        last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
        if quals:
            self._library_call(call, quals, last, env, out)
            return
        target = self._callee(call, env)
        if isinstance(func, cst.Attribute):
            recv = func.value
            scaler = self._scaler(recv, env)
            if scaler is not None:
                self._scaler_call(call, func.attr.value, scaler, env, out)
                return
            # a method of this file (`self.backward(loss)` of a wrapper) is followed below
            if target is None and self._method_event(call, func, env, out):
                return
        if last in _CLIP and isinstance(func, cst.Name) and target is None:
            out.append(self._event("grad_use", call, env))
            return
        if target is not None:
            if follow and target not in env.stack and len(env.stack) < _MAX_DEPTH:
                self._inline(call, target, env, out)
            return
        if last not in _BUILTINS:
            handed = self._handed(call, env)
            if handed:
                out.append(self._event("opaque", call, env, target=frozenset(handed)))

    def _method_event(self, call: cst.Call, func: cst.Attribute, env: _Env, out: list[Event]) -> bool:
        recv, method = func.value, func.attr.value
        if method == "backward":
            self._backward(call, recv, env, out)
        elif method == "step" and self._is_optimizer(recv, env):
            out.append(self._event("opt_step", call, env, target=self._text(recv, env)))
        elif method == "zero_grad":
            out.append(self._event("zero_grad", call, env, target=self._text(recv, env)))
        else:
            return False
        return True

    def _library_call(self, call: cst.Call, quals: frozenset[str], last: Optional[str], env: _Env, out: list[Event]) -> None:
        if any(q == "torch.save" for q in quals):
            out.append(self._event("save", call, env))
        elif any(q in ("torch.autograd.grad",) for q in quals):
            out.append(self._event("autograd_grad", call, env))
        elif any(q == "torch.autograd.backward" for q in quals):
            self._backward(call, None, env, out)
        elif last in _CLIP and all(q.startswith("torch.") for q in quals):
            out.append(self._event("grad_use", call, env))
        elif not all(q.startswith("torch.") for q in quals):
            handed = self._handed(call, env)
            if handed:
                out.append(self._event("opaque", call, env, target=frozenset(handed)))

    def _scaler_call(self, call: cst.Call, method: str, scaler: tuple[str, Optional[Binding]], env: _Env, out: list[Event]) -> None:
        text, binding = scaler
        opt = self._text(call.args[0].value, env) if call.args and call.args[0].keyword is None else None
        kinds = {"unscale_": "unscale", "step": "scaler_step", "update": "update"}
        if method in ("unscale_", "step") and not call.args:
            return  # GradScaler's take the optimizer: `lr_scaler.step()` is something else
        if method in kinds:
            out.append(Event(kinds[method], call, env.guards, env.via, text, binding, opt, self.model))

    def _backward(self, call: cst.Call, recv: Optional[cst.BaseExpression], env: _Env, out: list[Event]) -> None:
        args = [a for a in call.args if a.keyword is None]
        if recv is None:  # torch.autograd.backward(tensors, ...)
            recv = args[0].value if args else None
        elif args and (not _tensor_like(recv) or self._is_optimizer(recv, env)):
            # accelerator.backward(loss), engine.backward(loss), fairseq's optimizer.backward(loss):
            # the framework scales
            out.append(self._event("opaque", call, env, target=frozenset({self._text(recv, env) or "backward"})))
            return
        scaled = self._scaled_by(recv, env) if recv is not None else None
        if scaled is not None:
            text, binding = scaled
            out.append(Event("scaled_backward", call, env.guards, env.via, text, binding, None, self.model))
        else:
            out.append(self._event("backward", call, env))

    def _inline(self, call: cst.Call, fn: cst.FunctionDef, env: _Env, out: list[Event]) -> None:
        params = _positional_params(fn)
        is_method = self.model.enclosing_class(fn) is not None and params[:1] in (["self"], ["cls"])
        if is_method and not (isinstance(call.func, cst.Name)):
            params = params[1:]
        args: dict[str, cst.BaseExpression] = {}
        for i, a in enumerate(x for x in call.args if x.keyword is None and not x.star):
            if i < len(params):
                args[params[i]] = a.value
        for a in call.args:
            if a.keyword is not None:
                args[a.keyword.value] = a.value
        inner = _Env(args, env, (*env.stack, fn), (*env.via, call), env.guards)
        self._block(_statements(fn.body), inner, out, follow=True)

    # -- resolving names in context -------------------------------------------------------------
    def _root(self, expr: cst.BaseExpression, env: Optional[_Env]) -> tuple[cst.BaseExpression, Optional[_Env]]:
        """A helper's parameter replaced by the argument its caller passed, recursively."""
        while env is not None and isinstance(expr, cst.Name) and expr.value in env.args:
            expr, env = env.args[expr.value], env.parent
        return expr, env

    def _text(self, expr: cst.BaseExpression, env: Optional[_Env]) -> Optional[str]:
        root, _ = self._root(expr, env)
        return dotted(root)

    def _lookup(self, expr: cst.BaseExpression, env: Optional[_Env]) -> Optional[Binding]:
        root, _ = self._root(expr, env)
        return self.b.lookup(root, root) if isinstance(root, (cst.Name, cst.Attribute)) else None

    def _scaler(self, expr: cst.BaseExpression, env: _Env) -> Optional[tuple[str, Optional[Binding]]]:
        root, _ = self._root(expr, env)
        text = dotted(root)
        if text is None:
            return None
        b = self._lookup(expr, env)
        if b is not None:
            return (text, b) if b.kind == "scaler" else None
        if "scaler" in text.rsplit(".", 1)[-1].lower() and not self.model.names.resolve(root):
            return (text, None)
        return None

    def _is_optimizer(self, expr: cst.BaseExpression, env: _Env) -> bool:
        root, _ = self._root(expr, env)
        return isinstance(root, (cst.Name, cst.Attribute)) and self.b.is_optimizer(root, root)

    def _scaled_by(self, expr: cst.BaseExpression, env: _Env) -> Optional[tuple[str, Optional[Binding]]]:
        root, renv = self._root(expr, env)
        if isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute) and root.func.attr.value == "scale":
            return self._scaler(root.func.value, renv) if renv is not None else self._scaler(root.func.value, env)
        if isinstance(root, cst.Name):
            value = self._scaled_names.get(self._name_key(root))
            if value is not None:
                latest = self._latest_assignment(root)
                if latest is value:
                    return self._scaled_by(value.value, renv if renv is not None else env)  # type: ignore[union-attr]
        return None

    def _handed(self, call: cst.Call, env: _Env) -> set[str]:
        """The scalers and optimizers a call receives as arguments."""
        found: set[str] = set()
        for e in (a.value for a in call.args):
            if not isinstance(e, (cst.Name, cst.Attribute)):
                continue
            text = self._text(e, env)
            if text is None:
                continue
            b = self._lookup(e, env)
            if (b is not None and b.kind in ("scaler", "optimizer", "opaque")) or self._scaler(e, env) or self._is_optimizer(e, env):
                found.add(text)
        return found

    def _callee(self, call: cst.Call, env: Optional[_Env]) -> Optional[cst.FunctionDef]:
        """The same-file function a call enters: a visible function, `self.method`, a method or
        `__call__` of an in-file class instance."""
        m = self.model
        func = call.func
        if isinstance(func, cst.Name):
            if m.names.resolve(func) or (env is not None and func.value in env.args):
                return None
            fn = m.enclosing_function(call)
            while fn is not None:
                nested = self._nested.get((fn, func.value))
                if nested is not None:
                    return nested
                fn = m.enclosing_function(fn)
            if func.value in self._module_functions:
                return self._module_functions[func.value]
            b = self._lookup(func, env)
            return self._method(b.cls, "__call__") if b is not None and b.cls is not None else None
        if isinstance(func, cst.Attribute):
            recv = func.value
            name = func.attr.value
            if isinstance(recv, cst.Name) and recv.value == "self":
                return self._method(m.enclosing_class(call), name)
            b = self._lookup(recv, env)
            if b is not None and b.cls is not None:
                return self._method(b.cls, name)
            if isinstance(func.value, (cst.Name, cst.Attribute)):
                b2 = self._lookup(func, env)
                if b2 is not None and b2.cls is not None:
                    return self._method(b2.cls, "__call__")
        return None

    def _method(self, cls: Optional[cst.ClassDef], name: str) -> Optional[cst.FunctionDef]:
        seen: set[str] = set()
        while cls is not None and cls.name.value not in seen:
            seen.add(cls.name.value)
            for stmt in _statements(cls.body):
                if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
                    return stmt
            bases = [b.value.value for b in cls.bases if isinstance(b.value, cst.Name)]
            cls = next((c for b in bases if (c := self.b.class_named(b)) is not None), None)
        return None

    # -- small facts ----------------------------------------------------------------------------
    def _event(self, kind: str, node: cst.CSTNode, env: _Env, target: Union[None, str, frozenset[str]] = None) -> Event:
        return Event(kind, node, env.guards, env.via, None, None, target, self.model)

    def _index_scaled_assignments(self) -> dict[tuple[Optional[cst.FunctionDef], str], cst.Assign]:
        """`scaled = scaler.scale(loss)`: names whose (last) value is a scaled loss."""
        out: dict[tuple[Optional[cst.FunctionDef], str], cst.Assign] = {}
        for node in self.model.assigns:
            if (
                isinstance(node, cst.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0].target, cst.Name)
                and isinstance(node.value, cst.Call)
                and isinstance(node.value.func, cst.Attribute)
                and node.value.func.attr.value == "scale"
            ):
                out[(self.model.enclosing_function(node), node.targets[0].target.value)] = node
        return out

    def _name_key(self, name: cst.Name) -> tuple[Optional[cst.FunctionDef], str]:
        return (self.model.enclosing_function(name), name.value)

    def _latest_assignment(self, name: cst.Name) -> Optional[cst.CSTNode]:
        """The assignment to `name` in its function that most recently precedes it."""
        fn = self.model.enclosing_function(name)
        best = None
        for node in self.model.assigns:
            if self.model.enclosing_function(node) is not fn or not isinstance(node, cst.Assign):
                continue
            if not any(isinstance(t.target, cst.Name) and t.target.value == name.value for t in node.targets):
                continue
            if self.b.precedes(node, name):
                best = node
        return best

    def _is_grad_read(self, node: cst.Attribute) -> bool:
        """A read of a parameter's gradient that sees its value (not `p.grad = None`,
        `p.grad is None`, `p.grad.zero_()`)."""
        m = self.model
        parent = m.parent(node)
        if isinstance(parent, (cst.AssignTarget, cst.Del)) or (isinstance(parent, cst.AugAssign) and parent.target is node):
            return False
        if isinstance(parent, cst.Comparison) or isinstance(parent, cst.ComparisonTarget):
            return False
        if isinstance(parent, cst.Attribute) and parent.attr.value in ("zero_", "data", "detach_", "requires_grad_", "fill_"):
            grand = m.parent(parent)
            if parent.attr.value != "data" or (isinstance(grand, cst.Attribute) and grand.attr.value in ("zero_", "fill_")):
                return False
            if parent.attr.value == "data" and isinstance(m.parent(grand) if grand else None, cst.AssignTarget):
                return False
        recv = node.value
        text = m.code_for(recv)
        if "param" in text.lower() or text.endswith((".weight", ".bias")):
            return True
        if isinstance(recv, cst.Name):
            for anc in m.ancestors(node):
                if isinstance(anc, (cst.For, cst.CompFor)) and isinstance(anc.target, (cst.Name, cst.Tuple)):
                    names = {n.value for n in _names_in(anc.target)}
                    if recv.value in names:
                        return "param" in m.code_for(anc.iter).lower()
        return False


def _scope_of(model: "FileModel", node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """The innermost function or class a node is defined in."""
    return next((a for a in model.ancestors(node) if isinstance(a, (cst.FunctionDef, cst.ClassDef))), None)


def _statements(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    if isinstance(node, cst.Module):
        return node.body
    if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return node.body if isinstance(node, cst.IndentedBlock) else [node]
    return [node]


def _exits(body: cst.BaseSuite) -> bool:
    stmts = _statements(body)
    if not stmts:
        return False
    last = stmts[-1]
    smalls = last.body if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else []
    return bool(smalls) and isinstance(smalls[-1], (cst.Continue, cst.Break, cst.Return, cst.Raise))


def _loop_kind(loop: Union[cst.For, cst.While]) -> str:
    """"retry" for a loop whose body ends by leaving it (`while True: try: ...; return`): it
    repeats only when a `continue` sends it round again, so it is no training iteration."""
    stmts = _statements(loop.body)
    last = stmts[-1] if stmts else None
    smalls = last.body if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else []
    return "retry" if smalls and isinstance(smalls[-1], (cst.Break, cst.Return, cst.Raise)) else "loop"


def _tensor_like(recv: cst.BaseExpression) -> bool:
    """A receiver that names a tensor rather than an engine (`loss`, `out.sum()`)."""
    text = dotted(recv) or ""
    last = text.rsplit(".", 1)[-1].lower()
    return last != "self" and not any(
        w in last for w in ("accelerator", "engine", "fabric", "model", "trainer", "wrapper", "runner")
    )


def _positional_params(fn: cst.FunctionDef) -> list[str]:
    p = fn.params
    return [x.name.value for x in (*p.posonly_params, *p.params)]


def _names_in(target: cst.BaseExpression) -> Iterator[cst.Name]:
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from _names_in(el.value)
