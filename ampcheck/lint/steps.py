"""The training step as ordered event sequences: the step programs of a file replayed from
each root, calls followed into helpers, methods and base classes anywhere in the project.

A program (program.py) says `sc.step(opt)`; replayed from a caller that passed its
GradScaler as `sc`, that is a `scaler_step` of the caller's scaler. Every call into the
project is followed with the caller's arguments (a function of this file or of another
module, a method of `self` as the concrete class resolves it, a method or `__call__` of an
object whose class the project defines, a constructor's `__init__`); a call into code outside
the project that is handed a scaler or optimizer is an `opaque` event, after which the rules
do not judge that scaler.

API (facet `model.steps`):

- `Event(kind, op, path, guards, via, scaler, binding, target, target_binding)`: `kind` one
  of KINDS; `op` the program op (its `text`, `subject`, `loc`, and `node` in the file it was
  parsed from); `path` the file the op is written in; `guards` the `Guard`s it sits under,
  outermost first, the callers' included; `via` the call sites it was reached through;
  `scaler` the scaler as the root spells it, `binding` what is known of it; `target` the
  optimizer of a step/unscale_/opt_step (for an opaque call: what it was handed).
  `event.node` is the op's node when the op is in the linted file, else None;
  `event.region` the innermost autocast region around it (or around the call that leads to it).
- `model.steps.roots()`: `(FunctionProgram, [Event])` for the module body and every function
  no code of the file calls, and for each method a base class of another module calls on
  `self` that this file's subclass overrides (the base's loop around the override).
- `model.steps.of(fn)`: the sequence of one function on its own, calls not followed.
- `model.steps.events`: every event of the file once, as written: for region rules.
- `model.steps.standalone(module, fn)`: a function of any module replayed on its own (a root
  there), to tell a helper's own bug from one its caller makes.
- `exclusive(a, b)`: two events on different branches of one `if` never run together.

Kinds: scaled_backward, backward, unscale, grad_use, scaler_step, opt_step, update, zero_grad,
save, autograd_grad, nonfinite (a check or repair of inf/NaN), opaque.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Iterator, Optional, Union

from ampcheck.lint.bindings import OPTIMIZER_NAME
from ampcheck.lint.program import (
    Attr, BindingInfo, ClassInfo, FunctionProgram, GuardSpec, Imported, Local, Method, ModuleSummary, Op,
    Param, Ref, Scaled, SelfMethod, Unknown, Value,
)
from ampcheck.lint.project import Project

if TYPE_CHECKING:
    from ampcheck.lint.regions import AutocastRegion, Regions

KINDS = (
    "scaled_backward", "backward", "unscale", "grad_use", "scaler_step", "opt_step",
    "update", "zero_grad", "save", "autograd_grad", "nonfinite", "opaque",
)
_MAX_DEPTH = 6
_MAX_EVENTS = 4000
_SCALER_METHODS = {"unscale_": "unscale", "step": "scaler_step", "update": "update"}
_ENGINE_WORDS = ("accelerator", "engine", "fabric", "model", "trainer", "wrapper", "runner")
_HANDED_KINDS = ("scaler", "optimizer", "opaque")

ClassRef = tuple[ModuleSummary, ClassInfo]


@dataclass(frozen=True)
class Call:
    """A call site an event was reached through."""

    path: str
    op: Op


@dataclass(frozen=True)
class Guard:
    """One condition instance: a helper entered from two call sites has two of each of its
    guards (`via` tells them apart), so its loops are not one loop."""

    spec: GuardSpec
    path: str
    via: tuple[Call, ...] = ()

    @property
    def branch(self) -> str:
        return self.spec.branch

    @property
    def is_loop(self) -> bool:
        return self.spec.is_loop

    @property
    def test(self) -> Optional[str]:
        return self.spec.test

    @property
    def kind(self) -> str:
        return self.spec.kind


@dataclass(frozen=True, eq=False)
class Event:
    kind: str
    op: Op
    path: str
    guards: tuple[Guard, ...] = ()
    via: tuple[Call, ...] = ()
    scaler: Optional[str] = None
    binding: Optional[BindingInfo] = None
    target: Union[None, str, frozenset[str]] = None
    target_binding: Optional[BindingInfo] = None
    home: Optional["StepEvents"] = field(default=None, repr=False)

    @property
    def node(self):  # type: ignore[no-untyped-def]
        """The op's node in the linted file's tree; None for an op of another module."""
        return self.op.node if self.home is not None and self.path == self.home.path else None

    @property
    def region(self) -> Optional["AutocastRegion"]:
        """The innermost autocast region around the event (a helper's event: around its call)."""
        if self.home is None:
            return None
        for path, op in ((self.path, self.op), *((c.path, c.op) for c in reversed(self.via))):
            if path == self.home.path and op.node is not None:
                r = self.home.regions.enclosing(op.node)
                if r is not None:
                    return r
        return None

    @property
    def framework_backward(self) -> bool:
        """An opaque `accelerator.backward(loss)` / `engine.backward(loss)`: a backward all the
        same, run by a framework that scales the loss itself."""
        callee = self.op.callee
        return self.kind == "opaque" and isinstance(callee, (Method, SelfMethod)) and callee.name == "backward"

    @property
    def loops(self) -> tuple[Guard, ...]:
        return tuple(g for g in self.guards if g.is_loop)

    @property
    def enabled(self) -> Optional[bool]:
        """The scaler's state: True on, False off, None maybe (unknown binding included)."""
        return self.binding.enabled if self.binding is not None else None


def exclusive(a: Event, b: Event) -> bool:
    branches = {(g.path, g.spec.stmt, g.via): g.branch for g in a.guards if not g.is_loop}
    return any(
        branches.get((g.path, g.spec.stmt, g.via), g.branch) != g.branch and g.kind in ("if", "match")
        for g in b.guards
    )


@dataclass(frozen=True, eq=False)
class Val:
    """What a reference is at one point of a replay."""

    text: Optional[str]
    binding: Optional[BindingInfo] = None
    scaled_by: Optional["Val"] = None
    cls: Optional[ClassRef] = None
    qualname: Optional[str] = None  # it names something imported: never a scaler by its name

    @property
    def kind(self) -> Optional[str]:
        return self.binding.kind if self.binding is not None else None


@dataclass(frozen=True)
class _Frame:
    module: ModuleSummary
    fn: FunctionProgram
    args: dict[str, Val]
    self_cls: Optional[ClassRef]
    via: tuple[Call, ...] = ()
    guards: tuple[Guard, ...] = ()
    stack: tuple[int, ...] = ()


class StepEvents:
    def __init__(self, project: Project, home: ModuleSummary, regions: "Regions") -> None:
        self.project = project
        self.home = home
        self.path = home.path
        self.regions = regions
        self._standalone: dict[int, list[Event]] = {}

    # -- public questions ------------------------------------------------------------------------
    def roots(self) -> Iterator[tuple[FunctionProgram, list[Event]]]:
        return iter(self._roots)

    def of(self, fn: FunctionProgram) -> list[Event]:
        out: list[Event] = []
        self._replay(self._root_frame(self.home, fn), out, follow=False)
        return out

    @cached_property
    def events(self) -> list[Event]:
        return [e for fn in self.home.functions.values() for e in self.of(fn)]

    def standalone(self, module: ModuleSummary, fn: FunctionProgram) -> list[Event]:
        found = self._standalone.get(id(fn))
        if found is None:
            found = self._standalone[id(fn)] = []
            self._replay(self._root_frame(module, fn), found, follow=True)
        return found

    @cached_property
    def _roots(self) -> list[tuple[FunctionProgram, list[Event]]]:
        called = self._called_functions()
        found = []
        for fn in self.home.functions.values():
            if id(fn) in called:
                continue
            out: list[Event] = []
            self._replay(self._root_frame(self.home, fn), out, follow=True)
            if out:
                found.append((fn, out))
        for fn, frame in self._template_roots():
            out = []
            self._replay(frame, out, follow=True)
            if any(e.path == self.path for e in out):
                found.append((fn, out))
        return found

    def _root_frame(self, module: ModuleSummary, fn: FunctionProgram) -> _Frame:
        cls = module.classes.get(fn.cls) if fn.cls is not None else None
        return _Frame(module, fn, {}, (module, cls) if cls is not None else None, stack=(id(fn),))

    def _called_functions(self) -> set[int]:
        """The functions of this file that code of this file calls (they are replayed there)."""
        found: set[int] = set()
        for fn in self.home.functions.values():
            frame = self._root_frame(self.home, fn)
            for op in fn.ops:
                if op.kind != "call" or op.callee is None:
                    continue
                target = self._static_target(op, frame)
                if target is not None and target is not fn:
                    found.add(id(target))
        return found

    def _static_target(self, op: Op, frame: _Frame) -> Optional[FunctionProgram]:
        callee = op.callee
        if isinstance(callee, Local):
            return self.home.functions.get(callee.key)
        if isinstance(callee, SelfMethod) and frame.self_cls is not None:
            found = self.project.method(*frame.self_cls, callee.name, after=callee.super_)
            return found[2] if found is not None and found[0] is self.home else None
        if isinstance(callee, Method) and isinstance(callee.recv, Value):
            cls = self._class_of(callee.recv.binding, self.home)
            if cls is not None:
                found = self.project.method(*cls, callee.name)
                return found[2] if found is not None and found[0] is self.home else None
        return None

    def _template_roots(self) -> Iterator[tuple[FunctionProgram, _Frame]]:
        """A base class of another module whose methods call, on `self`, a method this file's
        subclass overrides (`Brain.fit` looping over `self.fit_batch(batch)`): those base
        methods, replayed for the subclass, are where the override runs once per iteration."""
        for cls in self.home.classes.values():
            own = set(cls.methods)
            ref: ClassRef = (self.home, cls)
            for module, base in list(self.project.mro(self.home, cls))[1:]:
                if module is self.home:
                    continue
                for name, key in base.methods.items():
                    fn = module.functions.get(key)
                    if fn is None or name in own:
                        continue
                    if any(
                        isinstance(op.callee, SelfMethod) and not op.callee.super_ and op.callee.name in own
                        for op in fn.ops
                    ):
                        yield fn, _Frame(module, fn, {}, ref, stack=(id(fn),))

    # -- replay ------------------------------------------------------------------------------------
    def _replay(self, frame: _Frame, out: list[Event], follow: bool) -> None:
        for op in frame.fn.ops:
            if len(out) > _MAX_EVENTS:
                return
            guards = frame.guards + tuple(Guard(g, frame.module.path, frame.via) for g in op.guards)
            if op.kind == "call":
                self._call(op, frame, guards, out, follow)
            else:
                out.append(self._event(op.kind, op, frame, guards))

    def _event(self, kind: str, op: Op, frame: _Frame, guards: tuple[Guard, ...], **kw: object) -> Event:
        return Event(kind, op, frame.module.path, guards, frame.via, home=self, **kw)  # type: ignore[arg-type]

    def _call(self, op: Op, frame: _Frame, guards: tuple[Guard, ...], out: list[Event], follow: bool) -> None:
        callee = op.callee
        if isinstance(callee, Method):
            self._method(op, self.val(callee.recv, frame), callee.name, frame, guards, out, follow)
            return
        target: Optional[tuple[ModuleSummary, FunctionProgram, Optional[ClassRef], bool]] = None
        if isinstance(callee, Local):
            fn = frame.module.functions.get(callee.key)
            if fn is not None:
                target = (frame.module, fn, frame.self_cls if fn.cls is None else self._class_ref(frame.module, fn), fn.cls is None)
        elif isinstance(callee, SelfMethod):
            owner = frame.self_cls or self._class_ref_by_key(frame.module, callee.cls)
            found = self.project.method(*owner, callee.name, after=callee.super_) if owner is not None else None
            if found is None:
                self._method(op, Val("self", cls=owner), callee.name, frame, guards, out, follow, resolve=False)
                return
            target = (found[0], found[2], owner, False)
        elif isinstance(callee, Imported):
            target = self._imported(callee.qualname, frame)
        if target is None:
            self._opaque(op, frame, guards, out)
            return
        if follow:
            module, fn, self_cls, bound = target
            self._enter(op, frame, guards, out, module, fn, self_cls, skip_self=not bound)

    def _imported(self, qualname: str, frame: _Frame) -> Optional[tuple[ModuleSummary, FunctionProgram, Optional[ClassRef], bool]]:
        symbol = self.project.lookup(qualname, frame.module)
        if symbol is None:
            return None
        if symbol.function is not None:
            cls = (symbol.module, symbol.cls) if symbol.cls is not None else None
            return symbol.module, symbol.function, cls, True
        if symbol.cls is not None:  # a constructor: its __init__
            found = self.project.method(symbol.module, symbol.cls, "__init__")
            if found is not None:
                return found[0], found[2], (symbol.module, symbol.cls), False
        return None

    def _method(
        self, op: Op, recv: Val, name: str, frame: _Frame, guards: tuple[Guard, ...], out: list[Event],
        follow: bool, resolve: bool = True,
    ) -> None:
        positional = [a for a in op.args if a is not None]
        if name == "backward":
            scaled = self._scaler(recv.scaled_by) if recv.scaled_by is not None else None
            if scaled is not None:
                out.append(self._event("scaled_backward", op, frame, guards, scaler=scaled[0], binding=scaled[1]))
            elif positional and (not _tensor_like(recv.text) or self._is_optimizer(recv)):
                # accelerator.backward(loss), engine.backward(loss), fairseq's
                # optimizer.backward(loss): the framework scales
                if not (resolve and self._follow_method(op, recv, name, frame, guards, out, follow)):
                    out.append(self._event("opaque", op, frame, guards, target=frozenset({recv.text or "backward"})))
            else:
                out.append(self._event("backward", op, frame, guards))
            return
        scaler = self._scaler(recv)
        if scaler is not None:
            kind = _SCALER_METHODS.get(name)
            if kind is not None and (kind == "update" or positional):
                opt = self.val(positional[0], frame) if positional else None
                out.append(self._event(
                    kind, op, frame, guards, scaler=scaler[0], binding=scaler[1],
                    target=opt.text if opt is not None else None, target_binding=opt.binding if opt is not None else None,
                ))
            return
        if resolve and self._follow_method(op, recv, name, frame, guards, out, follow):
            return
        if name == "step" and self._is_optimizer(recv):
            out.append(self._event("opt_step", op, frame, guards, target=recv.text))
        elif name == "zero_grad":
            out.append(self._event("zero_grad", op, frame, guards, target=recv.text))
        else:
            self._opaque(op, frame, guards, out)

    def _follow_method(self, op: Op, recv: Val, name: str, frame: _Frame, guards: tuple[Guard, ...], out: list[Event], follow: bool) -> bool:
        """Enter `recv.name(...)` when the project defines the class of `recv` (a method of it
        or of a base); False when it does not."""
        if recv.cls is None:
            return False
        found = self.project.method(*recv.cls, name)
        if found is None:
            return False
        if follow:
            self._enter(op, frame, guards, out, found[0], found[2], recv.cls, skip_self=True)
        return True

    def _enter(
        self, op: Op, frame: _Frame, guards: tuple[Guard, ...], out: list[Event],
        module: ModuleSummary, fn: FunctionProgram, self_cls: Optional[ClassRef], skip_self: bool,
    ) -> None:
        if id(fn) in frame.stack or len(frame.stack) > _MAX_DEPTH:
            return
        params = list(fn.params[1:] if skip_self and fn.self_name is not None else fn.params)
        args: dict[str, Val] = {}
        for name, ref in zip(params, op.args):
            if ref is not None:
                args[name] = self.val(ref, frame)
        for name, ref in op.kwargs:
            if name in fn.params or name in fn.kwonly:
                args[name] = self.val(ref, frame)
        inner = _Frame(
            module, fn, args, self_cls, (*frame.via, Call(frame.module.path, op)), guards,
            (*frame.stack, id(fn)),
        )
        self._replay(inner, out, follow=True)

    def _opaque(self, op: Op, frame: _Frame, guards: tuple[Guard, ...], out: list[Event]) -> None:
        """A call into code the project does not hold: opaque when it is handed a scaler or an
        optimizer."""
        handed = set()
        for ref in (*op.args, *(v for _, v in op.kwargs)):
            if ref is None or isinstance(ref, Scaled):
                continue
            v = self.val(ref, frame)
            if v.text is None:
                continue
            if v.kind in _HANDED_KINDS or self._scaler(v) is not None or self._is_optimizer(v):
                handed.add(v.text)
        if handed:
            out.append(self._event("opaque", op, frame, guards, target=frozenset(handed)))

    # -- what a reference is -------------------------------------------------------------------------
    def val(self, ref: Ref, frame: _Frame) -> Val:
        if isinstance(ref, Param):
            if ref.name in frame.args:
                return frame.args[ref.name]
            b = frame.fn.param_bindings.get(ref.name)  # no caller says: what it is by itself
            return Val(ref.name, b, cls=self._class_of(b, frame.module))
        if isinstance(ref, Attr):
            if not ref.name:
                return Val("self", cls=frame.self_cls)
            b = self._attribute(frame.self_cls, ref.name)
            return Val(f"self.{ref.name}", b, cls=self._class_of(b, frame.module if frame.self_cls is None else frame.self_cls[0]))
        if isinstance(ref, Scaled):
            return Val(ref.text, scaled_by=self.val(ref.scaler, frame))
        b = ref.binding
        cls = self._class_of(b, frame.module)
        if b is not None and b.kind == "instance":
            kind = self.project.base_kind(*cls) if cls is not None else None
            b = BindingInfo(kind or "object", b.qualname, cls=b.cls) if cls is not None else None
        return Val(ref.text, b, cls=cls, qualname=ref.qualname)

    def _attribute(self, cls: Optional[ClassRef], name: str) -> Optional[BindingInfo]:
        if cls is None:
            return None
        for _, c in self.project.mro(*cls):
            b = c.attrs.get(name)
            if b is not None:
                return b
        return None

    def _class_of(self, b: Optional[BindingInfo], module: ModuleSummary) -> Optional[ClassRef]:
        if b is None or b.cls is None or b.kind not in ("object", "model", "loss", "instance"):
            return None
        return self.project.find_class(b.cls, module)

    def _class_ref(self, module: ModuleSummary, fn: FunctionProgram) -> Optional[ClassRef]:
        cls = module.classes.get(fn.cls) if fn.cls is not None else None
        return (module, cls) if cls is not None else None

    def _class_ref_by_key(self, module: ModuleSummary, qualified: str) -> Optional[ClassRef]:
        return self.project.find_class(qualified, module)

    def _scaler(self, v: Val) -> Optional[tuple[str, Optional[BindingInfo]]]:
        """(text, binding) of a GradScaler: bound to one, or named like one and bound nowhere
        the project shows."""
        if v.text is None:
            return None
        if v.binding is not None:
            return (v.text, v.binding) if v.binding.kind == "scaler" else None
        if v.cls is not None:
            if self.project.base_kind(*v.cls) == "scaler":
                return v.text, BindingInfo("scaler", enabled=None, inferred=True)
            return None
        if v.qualname is None and "scaler" in v.text.rsplit(".", 1)[-1].lower():
            return v.text, None
        return None

    def _is_optimizer(self, v: Val) -> bool:
        if v.binding is not None and v.binding.kind != "instance":
            return v.binding.kind == "optimizer"
        if v.cls is not None:
            return self.project.base_kind(*v.cls) == "optimizer"
        if v.text is None:
            return False
        last = v.text.rsplit(".", 1)[-1]
        return bool(OPTIMIZER_NAME.search(last)) and "sched" not in last.lower()


def _tensor_like(text: Optional[str]) -> bool:
    """A receiver that names a tensor rather than an engine (`loss`, `out.sum()`)."""
    last = (text or "").rsplit(".", 1)[-1].lower()
    return last != "self" and not any(w in last for w in _ENGINE_WORDS)

