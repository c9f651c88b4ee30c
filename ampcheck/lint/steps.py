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
  of KINDS; `op` the program op (its `text`, `subject`, and `node` in the file it was
  parsed from); `path` the file the op is written in; `guards` the `Guard`s it sits under,
  outermost first, the callers' included; `via` the call sites it was reached through;
  `scaler` the scaler (one name for all its spellings, the linted file's first), `binding`
  what is known of it; `target` the
  optimizer of a step/unscale_/opt_step (for an opaque call: what it was handed).
  `event.node` is the op's node when the op is in the linted file, else None;
  `event.region` the innermost autocast region around it (or around the call that leads to it).
- `model.steps.roots()`: `(FunctionProgram, [Event])` for the module body and every function
  no code of the file calls; for each method a base class (here or in another module) calls
  on `self` that a subclass of this file overrides (the base's loop around the override); and
  for the steps of other modules of the project that call into this file's scaler-working
  functions nothing here calls (a helper judged inside its callers' loops).
- `model.steps.of(fn)`: the sequence of one function on its own, calls not followed.
- `model.steps.events`: every event of the file once, as written: for region rules.
- `model.steps.standalone(module, fn)`: a function of any module replayed on its own (a root
  there), to tell a helper's own bug from one its caller makes.
- `exclusive(a, b)`: two events on different branches of one `if` never run together.

Kinds (`EventKind`): scaled_backward, backward, unscale, grad_use, scaler_step, opt_step,
update (`scaler.update()`: reads the inf checks recorded since the last update and grows or
backs off the scale), set_scale (`scaler.update(new_scale)`: sets the scale and, like update,
makes every optimizer READY again, but reads no inf check), zero_grad, save, autograd_grad,
nonfinite (a check or repair of inf/NaN), opaque.
"""
from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field, replace
from ampcheck.lint.enums import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Hashable, Iterable, Iterator, Optional, Sequence, TypeVar, Union

import libcst as cst

from ampcheck.lint.closures import LocalUse, handed_out, keeps_alias, local_use
from ampcheck.lint.kinds import (
    framework_backward, is_optimizer_class, is_scaler_class, named_like_optimizer, replays_captured_work, scaler_shaped,
)
from ampcheck.lint.program import (
    Attr, BindingInfo, Branch, ClassInfo, FunctionProgram, GuardKind, GuardSpec, Imported, Local, Member, Method,
    ModuleSummary, Op, OpKind, Param, Ref, Scaled, SelfMethod, Test, Unknown, Value,
)
from ampcheck.lint.project import Project
from ampcheck.lint.timings import Phase, timed

if TYPE_CHECKING:
    from ampcheck.lint.regions import AutocastRegion, Regions



class EventKind(StrEnum):
    """What an event does (a str, so an op kind of the program reads as its event kind)."""

    SCALED_BACKWARD = "scaled_backward"
    BACKWARD = "backward"
    UNSCALE = "unscale"
    GRAD_USE = "grad_use"
    SCALER_STEP = "scaler_step"
    OPT_STEP = "opt_step"
    UPDATE = "update"
    SET_SCALE = "set_scale"
    ZERO_GRAD = "zero_grad"
    SAVE = "save"
    AUTOGRAD_GRAD = "autograd_grad"
    # `torch.autograd.grad(outputs=scaler.scale(out), ...)`: the gradients it returns are scaled
    # (a gradient penalty divides them by `get_scale()`, as StyleGAN2's does)
    SCALED_AUTOGRAD_GRAD = "scaled_autograd_grad"
    NONFINITE = "nonfinite"
    OPAQUE = "opaque"


KINDS = tuple(EventKind)
_MAX_DEPTH = 6
_MAX_EVENTS = 4000
_CONSTANTS = frozenset({"None", "True", "False"})
_SCALER_METHODS = {"unscale_": EventKind.UNSCALE, "step": EventKind.SCALER_STEP, "update": EventKind.UPDATE}
_HANDED_KINDS = ("scaler", "optimizer", "opaque")
# a helper named for a part of the step (`dispatch_clip_grad(parameters, ...)`) is read even
# when what it is handed (a parameter list) says nothing
_TRAINING_NAME = re.compile(r"clip|grad|norm|step|backward|scal|optim|update|amp", re.I)
_TRAINING_METHODS = frozenset({"backward", "step", "update", "unscale_", "zero_grad", "scale"})
_AMP_STATE = ("scaler", "optimizer", "opaque", "model", "loss", "object", "function")

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
    # what its tests read that holds still through the pass (None: nothing known)
    scope: Optional["_Scope"] = field(default=None, compare=False)

    @property
    def branch(self) -> Branch:
        return self.spec.branch

    @property
    def side(self) -> tuple[Branch, int]:
        return self.spec.side

    @property
    def is_loop(self) -> bool:
        return self.spec.is_loop

    @property
    def binds(self) -> tuple[str, ...]:
        return self.spec.binds

    @property
    def passes(self) -> Optional[int]:
        return self.spec.passes

    @property
    def test(self) -> Optional[Test]:
        return self.spec.test

    @property
    def kind(self) -> GuardKind:
        return self.spec.kind

    @cached_property
    def condition(self) -> tuple:
        """What decides the branch: an `if` test by its text (two `if`s with the same test in
        one call of a function decide alike: `if step_now: unscale_ ... if step_now: update`),
        anything else by its statement. A test of the object's own state or of values a
        caller handed down decides alike in every function of the pass that reads them (a
        trainer's `if self.use_sam:` in its `backward` helper and in its `step`)."""
        if self.spec.kind is GuardKind.IF and self.spec.test is not None:
            return self._key(self.spec.test)
        return (self.path, self.via, "stmt", self.spec.stmt)

    @cached_property
    def facts(self) -> tuple[tuple[tuple, tuple[Branch, int], Test], ...]:
        """What else is known on this branch of an `if`, each test by the key `condition`
        gives a test of its own and the side it went: the parts of an `and` that holds (`if
        accumulated and clip:` runs only where `if accumulated:` does), of an `or` that fails,
        and the test under a `not` (the code after `if not step_optimizer: raise` runs only
        where `if step_optimizer:` does)."""
        test = self.spec.test
        if self.spec.kind is not GuardKind.IF or test is None or self.spec.branch not in (Branch.BODY, Branch.ORELSE):
            return ()
        implied = tuple(self._implied(test, self.spec.branch is Branch.BODY))
        if self.scope is None or not self.scope.none_while:
            return implied
        settled = [
            fact for t, holds in ((test, self.spec.branch is Branch.BODY), *((t, side[0] is Branch.BODY) for _, side, t in implied))
            for held in self.scope.settled(t, holds) for fact in ((self._key(held), (Branch.BODY, 0), held), *self._implied(held, True))
        ]
        return implied + tuple(settled)

    def _implied(self, test: Test, holds: bool) -> Iterator[tuple[tuple, tuple[Branch, int], Test]]:
        if not holds and test.stronger is not None:  # (`x is not None and y` fails: so does `x and y`)
            yield self._key(test.stronger), (Branch.ORELSE, 0), test.stronger
        if test.opposite is not None:  # (`x is None` holds: `x is not None` fails)
            yield self._key(test.opposite), ((Branch.ORELSE if holds else Branch.BODY), 0), test.opposite
        parts = test.conjuncts if holds else test.disjuncts
        if test.negated is not None:
            parts = (test.negated,)
            holds = not holds
        for part in parts:
            yield self._key(part), ((Branch.BODY if holds else Branch.ORELSE), 0), part
            yield from self._implied(part, holds)

    @cached_property
    def equalities(self) -> tuple[tuple[tuple, str, bool], ...]:
        """What this branch says a value is compared to a string (`if amp_type == "none":`, a
        part of an `and` that holds, the `else` of a `!=`): the value (by the key `condition`
        gives a test of that value alone), the string, and whether the value equals it. Two
        `==` of one value with two strings never both hold, nor an `==` and a `!=` of one."""
        if not self.spec.compares_strings:
            return ()  # (most tests compare no string: their facts are not worked out for this)
        return tuple(
            (self._key(replace(test, text=test.compared[0], names=(test.compared[0],), strings=(), compared=None)),
             test.compared[1], test.compared[2] == (side[0] is Branch.BODY))
            for _, side, test in ((self.condition, self.side, self.test), *self.facts)
            if test is not None and test.compared is not None
        )

    @property
    def frame(self) -> tuple:
        """The call of a function its test is read in: its module and the calls that entered
        it (one name means one variable there)."""
        return self.path, self.via

    def _key(self, test: Test) -> tuple:
        shared = self.scope.key(test) if self.scope is not None else None
        return shared if shared is not None else (self.path, self.via, "test", test.text, test.versions)


@dataclass(frozen=True, eq=False)
class Event:
    kind: EventKind
    op: Op
    path: str
    guards: tuple[Guard, ...] = ()
    via: tuple[Call, ...] = ()
    scaler: Optional[str] = None
    binding: Optional[BindingInfo] = None
    target: Union[None, str, frozenset[str]] = None
    target_binding: Optional[BindingInfo] = None
    # the names the expression picking the optimizer of a step or unscale_ reads, where it
    # has no name of its own (`optimizers[start + i]`)
    target_reads: tuple[str, ...] = ()
    function: str = ""  # the key of the function the op is written in ("" for a module body)
    spelled: Optional[str] = None  # the scaler as written where the op is
    # a backward started from an intermediate tensor with an upstream gradient (`features.backward(
    # scaler.scale(grad))`): it reaches only the part of the graph below that tensor
    seeded: bool = False
    # an optimizer step handed a closure that zeroes the gradients and back-propagates anew
    # (LBFGS's): torch's optimizers run the closure before reading any gradient, so the step
    # takes those, not what an earlier backward left
    recomputed: bool = False
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
        same, run by a framework that scales the loss itself; or a CUDA graph's `replay()`,
        which runs again the backward it captured."""
        callee = self.op.callee
        if self.kind is not EventKind.OPAQUE or not isinstance(callee, (Method, SelfMethod)):
            return False
        return callee.name == "backward" or (callee.name == "replay" and isinstance(callee, Method) and _cuda_graph(callee.recv))

    @property
    def loops(self) -> tuple[Guard, ...]:
        return tuple(g for g in self.guards if g.is_loop)

    @cached_property
    def reachable(self) -> bool:
        """Whether a pass can run it: no two of its guards, nor what their tests imply
        (`Guard.facts`), send one condition both ways (a helper's `if training and not
        eval_model:` step, entered only from its caller's `if eval_model and debug:` loop, is
        dead on that path; two events are told apart by the same keys, `separating`)."""
        sides: dict[tuple, tuple[Branch, int]] = {}
        for g in self.guards:
            if g.kind not in (GuardKind.IF, GuardKind.MATCH):
                continue  # (a statement's own ways, one per op: a `try` keys its handlers and its exits alike)
            for key, side in ((g.condition, g.side), *((k, s) for k, s, _ in g.facts)):
                if sides.setdefault(key, side) != side:
                    return False
        return True

    @cached_property
    def ways_out(self) -> frozenset[tuple[tuple, int]]:
        """The early ways out of statements around it that a pass takes only after running
        it: on one (a LEFT guard), or later in its block (`Op.runs_before_leaving`); each as
        the statement's `Guard.condition` and the way's number."""
        return frozenset(
            (g.condition, g.side[1]) for g in self.guards if g.branch is Branch.LEFT
        ) | self._ways(self.op.runs_before_leaving)

    @cached_property
    def ways_ahead(self) -> frozenset[tuple[tuple, int]]:
        """The early ways out of statements around it that a pass may still take after running
        it (`Op.ways_ahead`), each as the statement's `Guard.condition` and the way's number."""
        return self._ways(self.op.ways_ahead)

    def _ways(self, ways: tuple[tuple[GuardSpec, int], ...]) -> frozenset[tuple[tuple, int]]:
        """Ways out, each named by its statement's STAYED guard, as `Guard.condition` keys
        them in this event's call."""
        return frozenset((Guard(stayed, self.path, self.via).condition, case) for stayed, case in ways)

    @cached_property
    def strings(self) -> "_Strings":
        """What its guards say values equal (`Guard.equalities`)."""
        return _Strings(self.guards)

    @cached_property
    def ones(self) -> "OnePins":
        """What its guards say is 1 (`OnePins`)."""
        return OnePins(c for g in self.guards if not g.is_loop for c in _conditions_of(g))

    @property
    def enabled(self) -> Optional[bool]:
        """The scaler's state: True on, False off, None maybe (unknown binding included)."""
        return self.binding.enabled if self.binding is not None else None


def separating(a: Event, b: Event) -> list[Guard]:
    """The guards of `b` whose condition sends `a` down another branch (an `if` or `match`),
    what the `if`s around either tell beyond their own tests included (`Guard.facts`: `if
    ready and clip:` against the `else` of `if ready:`), and an `==` with another string of
    the same value (`if amp_type == "none":` against `if amp_type == "torch_amp":`)."""
    sides = {g.condition: g.side for g in a.guards if not g.is_loop}
    sides.update((key, side) for g in a.guards for key, side, _ in g.facts)
    strings, ones = a.strings, a.ones
    found = [
        g for g in b.guards
        if g.kind in (GuardKind.IF, GuardKind.MATCH, GuardKind.EXIT) and (
            sides.get(g.condition, g.side) != g.side or any(sides.get(key, side) != side for key, side, _ in g.facts)
            or strings.contradicted(g) or ones.runs(g.frame, g.side, g.test) is False
        )
    ]
    if not found and b.ones.pinned and any(b.ones.runs(g.frame, g.side, g.test) is False for g in a.guards):
        found = [g for g in b.guards if not g.is_loop and OnePins(_conditions_of(g)).pinned]  # (`n > 1` against `n == 1`: those that say n is 1)
    return found


def _conditions_of(g: Guard) -> Iterator[tuple[tuple, tuple[Branch, int], Optional[Test]]]:
    """A guard's test and what its side tells beyond it (`Guard.facts`), each with its call."""
    yield g.frame, g.side, g.test
    for _, side, test in g.facts:
        yield g.frame, side, test


class OnePins:
    """What the conditions of one path say is 1 (`Test.pins_one`: `if accum == 1:`), and so
    what another test of the same function call that reads it is there (`Test.at_one`): a
    count of one makes every accumulation boundary test hold (`(i + 1) % accum == 0`) and
    `accum > 1` fail. Each condition comes with the call it is tested in (`Guard.frame`)."""

    def __init__(self, conditions: Iterable[tuple[tuple, tuple[Branch, int], Optional[Test]]]) -> None:
        self.pinned: dict[tuple[tuple, str], tuple[int, ...]] = {}
        for frame, side, test in conditions:
            if test is None or test.pins_one is None or side[0] not in (Branch.BODY, Branch.ORELSE):
                continue
            name, versions, where = test.pins_one
            if (side[0] is Branch.BODY) == where:
                self.pinned[(frame, name)] = versions

    def value(self, frame: tuple, test: Optional[Test]) -> Optional[bool]:
        """What `test`, read in the call `frame`, is on this path; None where no pin decides it."""
        if not self.pinned or test is None:
            return None
        for name, versions, value in test.at_one:
            pin = self.pinned.get((frame, name))
            if pin is not None and (versions is None or versions == pin):
                return value
        return None

    def runs(self, frame: tuple, side: tuple[Branch, int], test: Optional[Test]) -> Optional[bool]:
        """Whether the side `side` of the test runs where this path does: True wherever it
        does, False never, None where no pin decides it."""
        value = self.value(frame, test) if side[0] in (Branch.BODY, Branch.ORELSE) else None
        return None if value is None else value == (side[0] is Branch.BODY)


class _Strings:
    """What the guards of one path say a value equals or does not (`Guard.equalities`)."""

    def __init__(self, guards: tuple["Guard", ...]) -> None:
        self.equal: dict[tuple, str] = {}
        self.unequal: set[tuple[tuple, str]] = set()
        for g in guards:
            for subject, string, holds in g.equalities:
                if holds:
                    self.equal[subject] = string
                else:
                    self.unequal.add((subject, string))

    def contradicted(self, g: "Guard") -> bool:
        """Whether `g` asks a value to equal a string this path found it does not, or the
        reverse: `g`'s side never runs on this path."""
        return any(
            (self.equal.get(subject, string) != string or (subject, string) in self.unequal) if holds
            else self.equal.get(subject) == string
            for subject, string, holds in g.equalities
        )


def exclusive(a: Event, b: Event) -> bool:
    """Whether `a` and `b` never run in the same pass (the two branches of one `if`)."""
    return bool(separating(a, b))


# What follows `<object>.<attr>` where code outside a class reaches the scaler on it
_METHOD = re.compile(r"\s*\.\s*(\w+)\s*(\()?")
_WRITE = re.compile(r"\s*\.\s*\w+\s*(?:[-+*/@%&|^]|//|<<|>>|\*\*)?=(?!=)")
_COMPARED = re.compile(r"\s*(?:[=!]=|[<>]=?|is\b|in\b|not\s+in\b)")
_TYPE_OF = re.compile(r"\b(?:isinstance|type)\s*\(\s*[\w.]*$")


def _may_call(line: str, start: int, end: int, method: str) -> bool:
    """Whether code that reaches a scaler through another object (`<obj>.<attr>` at
    `line[start:end]`) may call `method` on it (or, for `update`, reset its per-optimizer
    state by writing it): a call of any other GradScaler method (`step`, `state_dict()`,
    ...), a read of another attribute (`.loss_scale`), a comparison (`is None`,
    `== "mean_var"`), a test of its type, or a module path that happens to end in the same
    word (`torch.cuda.amp.grad_scaler`) cannot; anything else (handed on, stored, replaced,
    written) may. A comment is no code."""
    rest = line[end:]
    if line.lstrip().startswith(("from ", "import ")) or "#" in line[:start]:
        return False
    if _COMPARED.match(rest) or _TYPE_OF.search(line[:start]):
        return False
    called = _METHOD.match(rest)
    if called is None:
        return True
    return called.group(1) == method or _WRITE.match(rest) is not None


def _attr_names(line: list[ClassRef], attr: str) -> set[str]:
    """The names one attribute goes by in a class and its bases: the attribute itself and
    the properties that return it (`scaler` for `self._grad_scaler`), from either name."""
    held = _held(line, attr)
    return {held} | {a for _, c in line for a, h in c.aliases.items() if h == held}


def _held(line: list[ClassRef], attr: str) -> str:
    """The attribute a property returns (`_grad_scaler` for `scaler`), or `attr` itself."""
    return next((c.aliases[attr] for _, c in line if attr in c.aliases), attr)


def _calls_on_attr(module: ModuleSummary, cls: ClassInfo, attr: str, methods: tuple[str, ...]) -> bool:
    """Whether a method of `cls` calls `self.<attr>.<one of methods>(...)`."""
    return any(_calls_on(c, Attr(attr), methods) for c in _callees(module, cls))


def _calls_on(callee: object, recv: Ref, methods: tuple[str, ...]) -> bool:
    """Whether a call's callee is `<recv>.<one of methods>`."""
    return isinstance(callee, Method) and callee.recv == recv and callee.name in methods


def _callees(module: ModuleSummary, cls: ClassInfo) -> Iterator[object]:
    for key in cls.methods.values():
        for op in module.functions[key].ops if key in module.functions else ():
            yield op.callee


def _live_calls_on_attr(line: list[ClassRef], attr: str, method: str) -> bool:
    """`_calls_on_attr` over the methods that can run on an instance of `line`'s first class
    (`line` its mro): a base's method that a class before it overrides runs only where each
    override hands on to it (`super().name(...)`), so a base's `training_step` that updates
    the scaler says nothing of a subclass whose own `training_step` replaces it."""
    handed: dict[str, bool] = {}  # method name -> whether the overrides so far call the base's
    for module, cls in line:
        for name, key in cls.methods.items():
            if not handed.get(name, True):
                continue
            fn = module.functions.get(key)
            handed[name] = fn is not None and fn.calls_super(name)
            if fn is None or any(_calls_on(op.callee, Attr(attr), (method,)) for op in fn.ops):
                return True
    return False


# bases outside the project that never touch a subclass's scaler: torch's (nn.Module,
# Optimizer), the standard library's (ABC, Generic), object
_INERT_BASES = ("torch.", "abc.", "typing.", "builtins.")


@dataclass(frozen=True, eq=False)
class Val:
    """What a reference is at one point of a replay."""

    text: Optional[str]
    binding: Optional[BindingInfo] = None
    scaled_by: Optional["Val"] = None
    cls: Optional[ClassRef] = None
    qualname: Optional[str] = None  # it names something imported: never a scaler by its name
    key: Optional[str] = None  # its identity when it has several spellings (a class attribute)
    string: Optional[str] = None  # a string literal's value

    @property
    def ident(self) -> Optional[str]:
        return self.key or self.text

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
    # which object `self` is: the root's own, `()`, for methods entered through
    # `self.method()`; the variable a method was called on (`manager.step()`, where the
    # frame that called it named it); else the call that bound it
    owner: tuple = ()
    # the parameters bound to a value that holds still through the pass (a parameter of the
    # root's, or a variable of a caller's, handed down unchanged) -> that value; None in a
    # root, whose own parameters are such values
    handed: Optional[tuple[tuple[str, Hashable], ...]] = None

    @cached_property
    def scope(self) -> "_Scope":
        none_while = self.self_cls[1].none_while if self.self_cls is not None else {}  # (the class's own, not a base's)
        if self.handed is None:
            return _Scope(self.owner, self.fn.self_name, {p: p for p in (*self.fn.params, *self.fn.kwonly)}, none_while)
        return _Scope(self.owner, self.fn.self_name, dict(self.handed), none_while)

    @cached_property
    def decided(self) -> dict[tuple, tuple[Branch, int]]:
        """The side each `if` its callers' path is on went (by `Guard.condition`)."""
        return {g.condition: g.side for g in self.guards if g.kind is GuardKind.IF}

    @cached_property
    def strings(self) -> "_Strings":
        """What its callers' path says values equal (`Guard.equalities`)."""
        return _Strings(self.guards)


@dataclass(frozen=True)
class _Scope:
    """What the `if` tests of one function call read that holds still through the pass: the
    object `self` is, and the values its parameters are bound to (the root's parameters, a
    caller's variables or attributes, handed down unchanged)."""

    owner: tuple
    self_name: Optional[str]
    handed: dict[str, Hashable] = field(hash=False)  # parameter -> the value it is bound to
    # the class's `ClassInfo.none_while`: attribute -> those None wherever it is not
    none_while: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False)

    def key(self, test: Test) -> Optional[tuple]:
        """The identity of an `if` test within the pass when it reads only the object's own
        state and parameters bound to values that hold still (no call, which may read
        anything): its text, its object and the value each parameter it reads is bound to;
        None for any other test, which means one thing in one call of its function only.
        A test of one such value against None is that value's, however it is spelled: a
        helper's `if grad_scaler is not None:`, handed `self.grad_scaler`, and the caller's
        `if self.grad_scaler is not None:` decide alike."""
        if test.calls:
            return None
        if test.none_of is not None:
            value = self.value_of(test.none_of[0], test)
            if value is not None:
                return ("none", value, test.none_of[1])
        handed = self.handed
        bound = []
        own = False
        for name in test.names:
            first = name.split(".", 1)[0]
            if name in _CONSTANTS:
                continue
            if first == self.self_name and "." in name:
                own = True
            elif first in handed:
                bound.append(handed[first])
            else:
                return None
        return ("pass", self.owner if own else None, test.text, test.versions, tuple(bound))

    def value_of(self, name: str, test: Test) -> Optional[Hashable]:
        """The value a name a test reads holds still at through the pass: an attribute of the
        object (`self.scaler`), or a parameter bound to one that the function never rebinds;
        None for anything else."""
        first, _, rest = name.partition(".")
        if first == self.self_name and rest and "." not in rest:
            return ("attr", self.owner, rest)
        if not rest and first in self.handed and first not in dict(test.versions):
            return self.handed[first]
        return None

    def settled(self, test: Test, holds: bool) -> Iterator[Test]:
        """The tests `ClassInfo.none_while` says hold where `test` goes the way `holds`
        says: `self.y is None` wherever `self.x is not None` is true."""
        if test.none_of is None or not self.none_while:
            return
        name, is_none = test.none_of
        first, _, attr = name.partition(".")
        if holds == is_none or first != self.self_name or attr not in self.none_while:
            return
        for other in self.none_while[attr]:
            held = f"{first}.{other}"
            opposite = Test(f"({held} is not None)", (held,), none_of=(held, False))
            yield Test(f"({held} is None)", (held,), opposite=opposite, none_of=(held, True))


class StepEvents:
    def __init__(self, project: Project, home: ModuleSummary, regions: "Regions") -> None:
        self.project = project
        self.home = home
        self.path = home.path
        self.regions = regions
        # the scalers reached as attributes of objects no project class holds, by identity,
        # in the sequence being replayed
        self._reached_scalers: dict[str, BindingInfo] = {}
        self._through: dict[int, set[str]] = {}  # `_scalers_through` of this file's functions
        self._standalone: dict[int, list[Event]] = {}
        # calls whose replay, by what it reads (`_quiet_key`), emits nothing: entered from
        # hundreds of paths (an engine's constructor and accessors), each replayed once; the
        # value is the smallest depth it is known quiet from (a call entered deeper is cut
        # sooner)
        self._quiet: dict[tuple, int] = {}
        # ops skipped as never running on the path and recursive calls cut, and calls cut for
        # depth: a replay that skipped or cut nothing says what every replay of that call does
        self._narrowed = 0
        self._cut_deep = 0
        # (class, `__init__` parameter) -> the one class its constructions pass there
        self._passed: dict[tuple[int, str], Optional[str]] = {}

    # -- public questions ------------------------------------------------------------------------
    def roots(self) -> Iterator[tuple[FunctionProgram, list[Event]]]:
        return iter(self._roots)

    def of(self, fn: FunctionProgram) -> list[Event]:
        """As written: no call followed, and no other module read to classify what is called."""
        return self._written._sequence(self._root_frame(self.home, fn), follow=False)

    @cached_property
    def _written(self) -> "StepEvents":
        return StepEvents(self.project.alone(), self.home, self.regions)

    def _sequence(self, frame: _Frame, follow: bool) -> list[Event]:
        out: list[Event] = []
        outer, self._reached_scalers = self._reached_scalers, {}
        try:
            self._replay(frame, out, follow)
        finally:
            self._reached_scalers = outer
        return self._spell([e for e in out if e.reachable])

    def _spell(self, events: list[Event]) -> list[Event]:
        """Each scaler named one way: an attribute reached under several spellings
        (`self.fp16_scaler` in the model, `fp16_scaler = model.fp16_scaler` in the loop) is
        named as the linted file writes it, nearest the root first."""
        names: dict[str, str] = {}
        for e in sorted(events, key=lambda e: (e.path != self.path, len(e.via))):
            if e.scaler is not None and e.spelled is not None:
                names.setdefault(e.scaler, e.spelled)
        if all(k == v for k, v in names.items()):
            return events
        return [
            replace(e, scaler=names.get(e.scaler, e.scaler)) if e.scaler is not None
            else replace(e, target=frozenset(names.get(t, t) for t in e.target)) if e.kind is EventKind.OPAQUE and isinstance(e.target, frozenset)
            else e
            for e in events
        ]

    @cached_property
    @timed(Phase.STEPS)
    def events(self) -> list[Event]:
        return [e for fn in self.home.functions.values() for e in self.of(fn)]

    def written_in(self, e: Event) -> Optional[tuple[ModuleSummary, FunctionProgram]]:
        """The module and function an event is written in (this file's, or another module's)."""
        module = self.home if e.path == self.path else self.project.summary(e.path)
        fn = module.functions.get(e.function) if module is not None else None
        return (module, fn) if module is not None and fn is not None else None

    @timed(Phase.STEPS)
    def never_updated(self, e: Event) -> bool:
        """Whether no code can ever `update()` the scaler `e` steps, so that its second step
        raises wherever the loop around it is: a GradScaler its class constructs and keeps
        to itself (`self.<attr>`, never handed out) that no method of the class, of its
        project bases or of its project subclasses updates, and, for a public attribute, that
        no code of the project reaches through another object; or a GradScaler an enclosing
        function constructs and shares only with the nested function that steps it, which it
        hands out to be called again (closures.py)."""
        text, b = e.scaler or "", e.binding
        if b is None or b.kind != "scaler" or b.inferred:
            return False
        found = self.written_in(e)
        if found is None:
            return False
        module, fn = found
        cls = module.classes.get(fn.cls) if fn.cls is not None else None
        attr = text[len("self."):]
        if text.startswith("self.") and attr.isidentifier():
            return cls is not None and self._attr_never_calls(module, cls, attr, "update")
        owner, _, name = text.partition(".")
        if name.isidentifier() and owner in fn.params:
            held = self._instance_of(module, fn, owner)  # `engine.scaler`, `engine: SupervisedTrainer`
            return held is not None and self._attr_never_calls(*held, name, "update")
        if not text.isidentifier():
            return False
        if cls is not None and isinstance(fn.node, cst.FunctionDef) and fn.self_name is not None:
            for alias in local_use(fn.node, text).aliases:
                owner, _, name = alias.partition(".")
                if owner == fn.self_name and keeps_alias(fn.node, text, alias):
                    return self._attr_never_calls(module, cls, name, "update")  # `scaler = self.scaler`
        return self._closure_never_updated(module, fn, text)

    @timed(Phase.STEPS)
    def never_scaled(self, e: Event) -> Optional[tuple[str, BindingInfo]]:
        """For a backward written in a method: the GradScaler its class keeps to itself
        (`self.<attr>`, the one the class and its project bases step or unscale) when no code
        can ever `scale()` with it, so that every step divides gradients no one multiplied:
        no method of the class, its bases or its project subclasses calls `scale` on anything,
        and, for a public attribute, no code of the project reaches it to scale (a wrapper
        whose `backward(loss)` and `step()` the framework calls apart)."""
        found = self.written_in(e)
        if found is None or found[1].cls is None or found[1].self_name is None:
            return None
        module, fn = found
        cls = module.classes.get(fn.cls)
        if cls is None:
            return None
        line = list(self.project.mro(module, cls))
        if any(isinstance(c, Method) and c.name == "scale" for m, k in line for c in _callees(m, k)):
            return None  # (through an alias too: `scaler = self.scaler; scaler.scale(loss)`)
        stepped = {  # by the attribute that holds it: a property returning it is the same scaler
            _held(line, attr): b for m, k in line for attr, b in k.attrs.items()
            if b.kind == "scaler" and not b.inferred and any(
                _calls_on_attr(m2, k2, name, ("step", "unscale_")) for name in _attr_names(line, attr) for m2, k2 in line
            )
        }
        if len(stepped) != 1:
            return None
        [(attr, binding)] = stepped.items()
        if not self._attr_never_calls(module, cls, attr, "scale"):
            return None
        return f"{fn.self_name}.{attr}", binding

    def _instance_of(self, module: ModuleSummary, fn: FunctionProgram, param: str) -> Optional[ClassRef]:
        """The project class a parameter of `fn` is an instance of, by its annotation (an
        ignite engine's iteration function, handed the trainer that is `self`)."""
        b = fn.param_bindings.get(param)
        return self.project.find_class(b.cls, module) if b is not None and b.kind == "instance" and b.cls else None

    def _attr_never_calls(self, module: ModuleSummary, cls: ClassInfo, attr: str, method: str) -> bool:
        """Whether no code can call `method` on the scaler `cls` keeps on `self.<attr>`:
        neither the class nor its project bases hand it on or call it; for a public
        attribute, no code reaching it through another object may, nor a project subclass.
        For `scale`, no base outside the project either (but torch's or the standard
        library's): scaling the loss in the base for the subclass's step is a framework
        plugin's usual shape (Lightning's `MixedPrecision.pre_backward`), while a subclass
        that builds and steps a scaler of its own (a detectron2 `SimpleTrainer`'s) keeps
        its update to itself."""
        line = list(self.project.mro(module, cls))
        return all(self._name_never_calls(module, cls, line, name, method) for name in sorted(_attr_names(line, attr)))

    def _name_never_calls(
        self, module: ModuleSummary, cls: ClassInfo, line: list[ClassRef], attr: str, method: str,
    ) -> bool:
        """`_attr_never_calls` for one name of the attribute, `line` the class's mro."""
        if _live_calls_on_attr(line, attr, method):
            return False
        for m, c in line:
            if attr in c.escapes:
                return False
            if attr in c.handed and not self._handed_never_calls(m, c, attr, method):
                return False
            if method == "scale" and self._foreign_base(m, c):
                return False  # a framework's base class may scale the loss for it
        if attr.startswith("_"):
            return True  # private: the class and its bases are all the code that uses it
        outside = re.compile(rf"(?<!\bself)\.{re.escape(attr)}\b")
        if any(_may_call(text, start, end, method) for _, text, start, end in self.project.lines_matching(outside, module.path)):
            return False  # reached through another object (`trainer.{attr}`) by code that may call it
        own = (module.name, cls.key)
        for path in self.project.files_matching(re.compile(rf"\bself\.{re.escape(attr)}\.{method}\b"), module.path):
            other = self.project.summary(path)
            if other is None:
                return False
            for c in other.classes.values():
                if _calls_on_attr(other, c, attr, (method,)) and any((m.name, k.key) == own for m, k in self.project.mro(other, c)):
                    return False  # a project subclass calls it
        return True

    def _handed_never_calls(self, module: ModuleSummary, cls: ClassInfo, attr: str, method: str) -> bool:
        """Whether every call of `cls`'s code (its methods and the functions nested in them)
        that is handed `self.<attr>` whole enters a project function that never calls `method`
        on what it receives and hands it on only to such functions (an AMP-safe clipping helper
        that only unscales: `clip_grad_norm(params, mg, scaler=self.scaler, optimizer=opt)`)."""
        prefix = f"{cls.key}."
        return all(
            self._param_never_calls(target, name, method, depth=0)
            for key, fn in module.functions.items() if key.startswith(prefix)
            for op in fn.ops
            for target, name in self._receivers(module, cls, op, Attr(attr))
        )

    def _receivers(
        self, module: ModuleSummary, cls: Optional[ClassInfo], op: Op, ref: Ref,
    ) -> Iterator[tuple[Optional[tuple[ModuleSummary, FunctionProgram]], str]]:
        """For each place `op` passes `ref`, the project function it enters and the parameter
        there that receives it; (None, "") where the call or the parameter cannot be told."""
        places = [i for i, r in enumerate(op.args) if r == ref]
        names = [k for k, r in op.kwargs if r == ref]
        if not places and not names:
            return
        found = self._call_target(module, cls, op)
        if found is None or op.star:
            yield None, ""
            return
        target_module, fn, bound = found
        target = (target_module, fn)
        positional = fn.params if bound or fn.self_name is None else fn.params[1:]
        for i in places:
            yield (target, positional[i]) if i < len(positional) else (None, "")
        for k in names:
            yield (target, k) if k in fn.params or k in fn.kwonly else (None, "")

    def _call_target(
        self, module: ModuleSummary, cls: Optional[ClassInfo], op: Op,
    ) -> Optional[tuple[ModuleSummary, FunctionProgram, bool]]:
        """The project function a call enters, where the call names it, and whether it is
        called as written (its first parameter takes the first argument): a function of the
        module, an imported one, or a method of the class of the code that calls it. A
        constructor is none: what its `__init__` stores in the object, ops do not show."""
        callee = op.callee
        if isinstance(callee, Local):
            fn = module.functions.get(callee.key)
            return (module, fn, fn.cls is None) if fn is not None else None
        if isinstance(callee, Imported):
            hit = self._imported(callee.qualname, module)
            return (hit[0], hit[1], True) if hit is not None and hit[3] else None
        if isinstance(callee, SelfMethod) and cls is not None:
            found = self.project.method(module, cls, callee.name, after=callee.super_)
            return (found[0], found[2], False) if found is not None else None
        return None

    def _param_never_calls(
        self, target: Optional[tuple[ModuleSummary, FunctionProgram]], param: str, method: str, depth: int,
    ) -> bool:
        """Whether the function `target` never calls `method` on its parameter `param` and
        hands it on only to project functions of which the same holds (three calls deep)."""
        if target is None or depth > 3:
            return False
        module, fn = target
        cls = module.classes.get(fn.cls) if fn.cls is not None else None
        for op in fn.ops:
            if _calls_on(op.callee, Param(param), (method,)):
                return False
            if not all(self._param_never_calls(t, name, method, depth + 1) for t, name in self._receivers(module, cls, op, Param(param))):
                return False
        return True

    def _foreign_base(self, module: ModuleSummary, cls: ClassInfo) -> bool:
        """Whether `cls` has a base outside the project that may use its attributes."""
        return any(
            self.project.find_class(b, module) is None and not b.startswith(_INERT_BASES) and b != "object"
            for b in cls.bases
        )

    def _closure_never_updated(self, module: ModuleSummary, fn: FunctionProgram, name: str) -> bool:
        uses = _enclosing_uses(module, fn, name)
        if uses is None:
            return False
        outer, inner, use = uses
        if inner.as_parameter or not handed_out(outer, fn.node):  # type: ignore[arg-type]
            return False  # a function the enclosing one only calls
        return _kept_by_enclosing(use) and "update" not in use.methods

    def kept_by_enclosing(self, e: Event, name: str) -> bool:
        """Whether `name`, as the function `e` is written in reads it, is a local its enclosing
        function builds and shares only with its nested functions: no code outside them can
        reach it (an engine's `backward_pass(engine, loss)` steps a scaler built around it)."""
        found = self.written_in(e)
        uses = _enclosing_uses(*found, name) if found is not None else None
        return uses is not None and _kept_by_enclosing(uses[2])

    @timed(Phase.STEPS)
    def standalone(self, module: ModuleSummary, fn: FunctionProgram) -> list[Event]:
        found = self._standalone.get(id(fn))
        if found is None:
            found = self._standalone[id(fn)] = self._sequence(self._root_frame(module, fn), follow=True)
        return found

    @cached_property
    @timed(Phase.STEPS)
    def _roots(self) -> list[tuple[FunctionProgram, list[Event]]]:
        """The file's own roots and its callers' (other modules'). A function whose
        parameter receives GradScaler calls is what its callers hand it: once a caller in
        the project reaches it, it is judged there only (a `grad_scaler` every caller passes
        as `None` is no scaler); with no caller it stays a root, its parameter "maybe"."""
        callers = list(self._caller_roots())
        reached = {
            key for _, events in callers for e in events if e.path == self.path and e.via
            for key, call in self._entered_here(e) if self._fills_scalers(key, call)
        }
        found = []
        for fn, frame in self._root_frames(self.home):
            if fn.key and fn.key in reached and (self._scalers_through(fn) or _backward_of_param(fn)):
                continue
            out = self._sequence(frame, follow=True)
            if any(self._touches(e) for e in out):
                found.append((fn, out))
        return found + callers

    def _entered_here(self, e: Event) -> Iterator[tuple[str, Op]]:
        """The functions of this file a caller's replay went through to reach `e` (of this
        file), each with the call that entered it: `e`'s own, and each around a call of the
        path written here (`train` around `self.train_session(...)`)."""
        yield e.function, e.via[-1].op
        for before, call in zip(e.via, e.via[1:]):
            key = self._function_of.get(id(call.op)) if call.path == self.path else None
            if key is not None:
                yield key, before.op

    @cached_property
    def _function_of(self) -> dict[int, str]:
        """The function of this file each of its ops is written in."""
        return {id(op): fn.key for fn in self.home.functions.values() for op in fn.ops}

    def _fills_scalers(self, key: str, call: Op) -> bool:
        """Whether `call`, entering the function `key` of this file, hands a value to each of
        its parameters that work as a GradScaler (there or where it hands them on) with the
        default `None`, or forwards `*args`/`**kwargs`. A call that leaves one to its default
        runs the function without a scaler (a test's `model.train_step(data, optim)`), which
        says nothing of the callers the project cannot resolve (a framework's runner passing
        `loss_scaler=...`)."""
        fn = self.home.functions.get(key or "")
        if fn is None:
            return True
        return not _left_to_none(fn, call, _positional(fn, skip_self=True), self._scalers_through(fn))

    def _scalers_through(self, fn: FunctionProgram, seen: frozenset[int] = frozenset()) -> set[str]:
        """The parameters of `fn` (of this file) that work as a GradScaler in it (`_scaler_params`)
        or in a function of this file it hands them to (`train(..., scaler)` calling
        `self.train_session(..., scaler, session)`): what its callers hand it decides them."""
        if not seen and id(fn) in self._through:
            return self._through[id(fn)]
        found = _scaler_params(fn)
        frame = self._root_frame(self.home, fn)
        for op in fn.ops:
            target = self._static_target(op, frame) if op.kind is OpKind.CALL else None
            if target is None or id(target) in seen or target is fn:
                continue
            params = _positional(target, skip_self=isinstance(op.callee, (SelfMethod, Method)))
            forwarded = {
                name: ref.name for name, ref in _bound_arguments(target, op, params) if isinstance(ref, Param) and ref.name not in found
            }
            if forwarded:
                inner = self._scalers_through(target, seen | {id(fn)})
                found |= {mine for theirs, mine in forwarded.items() if theirs in inner}
        if not seen:
            self._through[id(fn)] = found
        return found

    def _touches(self, e: Event) -> bool:
        """Whether an event is written in this file or reached through a call written here."""
        return e.path == self.path or any(c.path == self.path for c in e.via)

    def _root_frames(self, module: ModuleSummary) -> Iterator[tuple[FunctionProgram, _Frame]]:
        """Where a module's training steps start: its body, every function nothing in it
        calls, and the template methods of base classes around its overrides."""
        yield from self._plain_roots(module)
        yield from self._template_roots(module)

    def _plain_roots(self, module: ModuleSummary) -> Iterator[tuple[FunctionProgram, _Frame]]:
        """The module's body and every function nothing in it calls, each in its own frame."""
        called = self._called_functions(module)
        for fn in module.functions.values():
            if id(fn) not in called:
                yield fn, self._root_frame(module, fn)

    def _root_frame(self, module: ModuleSummary, fn: FunctionProgram) -> _Frame:
        cls = module.classes.get(fn.cls) if fn.cls is not None else None
        return _Frame(module, fn, {}, (module, cls) if cls is not None else None, stack=(id(fn),))

    def _called_functions(self, module: ModuleSummary) -> set[int]:
        """The functions of a module that its own code calls (they are replayed there)."""
        found: set[int] = set()
        for fn in module.functions.values():
            frame = self._root_frame(module, fn)
            for op in fn.ops:
                if op.kind is not OpKind.CALL or op.callee is None:
                    continue
                target = self._static_target(op, frame)
                if target is not None and target is not fn:
                    found.add(id(target))
        return found

    def _static_target(self, op: Op, frame: _Frame) -> Optional[FunctionProgram]:
        """The function of the same module a call enters, if any (asked of the module alone:
        a base class of another module is not read to learn that its method is not here)."""
        module, callee, local = frame.module, op.callee, self._written.project
        if isinstance(callee, Local):
            return module.functions.get(callee.key)
        if isinstance(callee, SelfMethod) and frame.self_cls is not None:
            found = local.method(*frame.self_cls, callee.name, after=callee.super_)
            return found[2] if found is not None and found[0] is module else None
        if isinstance(callee, Method) and isinstance(callee.recv, Value):
            b = callee.recv.binding
            cls = local.find_class(b.cls, module) if b is not None and b.cls is not None else None
            if cls is not None:
                found = local.method(*cls, callee.name)
                return found[2] if found is not None and found[0] is module else None
        return None

    def _template_roots(self, module: ModuleSummary) -> Iterator[tuple[FunctionProgram, _Frame]]:
        """A base class (in this module or another) whose methods call, on `self`, a method a
        subclass of this module overrides (`Brain.fit` looping over `self.fit_batch(batch)`):
        those base methods, replayed for the subclass, are where the override runs once per
        iteration."""
        for cls in module.classes.values():
            own = set(cls.methods)
            if not any(_steps_train(module.functions[k]) for k in cls.methods.values() if k in module.functions):
                continue  # nothing it overrides backs a loss up or steps: no base class is read
            ref: ClassRef = (module, cls)
            resolved = set(own)  # names an earlier class of the MRO already defines
            for base_module, base in list(self.project.mro(module, cls))[1:]:
                for name, key in base.methods.items():
                    fn = base_module.functions.get(key)
                    if fn is None or name in resolved:
                        continue
                    resolved.add(name)
                    if any(
                        isinstance(op.callee, SelfMethod) and not op.callee.super_ and op.callee.name in own
                        for op in fn.ops
                    ):
                        yield fn, _Frame(base_module, fn, {}, ref, stack=(id(fn),))

    def _caller_roots(self) -> Iterator[tuple[FunctionProgram, list[Event]]]:
        """The training steps of other modules that reach a function of this file whose
        meaning depends on its caller (it works a scaler it is handed or holds, takes one, or
        back-propagates a loss the caller may have meant to scale), directly or through the
        file's own functions, or that build an object of its class (by the class or a factory
        here returning one) for code elsewhere to call: replayed from there, the function is
        seen in its callers' loops, so linting its module alone still judges it in context."""
        if self.home.script:
            return  # a program: what it defines is for itself (and no file is read to find out)
        wanted = {fn.name for fn in self._in_context if fn.key}
        if not wanted:
            return
        # and the classes those methods are of, and the functions here that return one: a
        # caller may build the object and hand it to code of a third module that calls the
        # method (`fit_one_epoch(model, trainer, ...)`)
        classes = {fn.cls for fn in self._in_context if fn.key and fn.cls is not None and "." not in fn.cls}
        wanted |= classes | {
            fn.key for fn in self.home.functions.values()
            if fn.cls is None and fn.key and "." not in fn.key and fn.returns is not None and fn.returns.rpartition(".")[2] in classes
        }
        defined = [*self.home.classes, *(k for k in self.home.functions if k and "." not in k)]
        paths = self._naming(self.path, wanted, defined) - {self.path}
        for path in sorted(paths | self._subclass_callers(wanted)):
            module = self.project.summary(path)
            if module is None:
                continue
            plain = ((fn, frame) for fn, frame in self._plain_roots(module) if self._names_any(module, fn, wanted))
            for fn, frame in itertools.chain(plain, self._template_roots(module)):
                out = self._sequence(frame, follow=True)
                if any(e.path == self.path for e in out):
                    yield fn, out

    def _naming(self, path: str, wanted: set[str], defined: list[str]) -> set[str]:
        """The project's files that name the module at `path` (or what it `defined`, taken
        from a package re-exporting it) and any of `wanted`."""
        modules = tuple(dict.fromkeys((*self.project.import_names(path), *self.project.script_import_names(path))))
        return set(self.project.files_mentioning(modules, wanted, self.project.reexported_by(path), defined, home=path))

    def _subclass_callers(self, wanted: set[str]) -> set[str]:
        """The files that name `wanted` and a module defining a project subclass of a class of
        this file, or of such a subclass, up to three modules away: a training step of a class
        two levels down (`TrainerLineCTC(OCRManager)`, `OCRManager(GenericTrainingManager)`),
        whose module never names this one, still calls the methods it inherits from here. The
        subclasses are found in the project's index of class statements (a file that names
        this module and writes `class X(... Base ...)`), no module is read for them: what the
        callers found run is replayed, and only what reaches this file counts."""
        found: set[str] = set()
        frontier, seen = [(self.path, list(self.home.classes))], {self.path}
        for _ in range(3):
            heirs: dict[str, list[str]] = {}
            for path, classes in frontier:
                names = (*self.project.import_names(path), *self.project.script_import_names(path), *self.project.reexported_by(path))
                for candidate, subclasses in self.project.subclasses_named(classes, names).items():
                    if candidate not in seen and candidate != path:
                        heirs.setdefault(candidate, []).extend(subclasses)
            if not heirs:
                break
            seen |= set(heirs)
            for path, classes in heirs.items():
                found |= self._naming(path, wanted, classes)
            frontier = list(heirs.items())
        return found - {self.path}

    def _names_any(self, module: ModuleSummary, fn: FunctionProgram, wanted: set[str]) -> bool:
        """Whether `fn`, or a function of its module it calls (and so on), calls something
        by one of the names `wanted`: a plain root that does not is not replayed (template
        roots are, their overrides being in another class) (DeepSpeed's 55
        modules that name the engine hold hundreds of roots; its edited engine replays the few
        that call `backward` or `step`). A root that reaches this file only through a function
        of a third module is left out too: that module names this one, so its function is
        searched and replayed as a root of its own, without the loop around it."""
        pending, seen = [fn], {id(fn)}
        while pending:
            cur = pending.pop()
            frame = self._root_frame(module, cur)
            for op in cur.ops:
                if op.kind is not OpKind.CALL or op.callee is None:
                    continue
                callee = op.callee
                name = callee.qualname.rpartition(".")[2] if isinstance(callee, Imported) else getattr(callee, "name", None)
                if name in wanted:
                    return True
                target = self._static_target(op, frame)
                if target is not None and id(target) not in seen:
                    seen.add(id(target))
                    pending.append(target)
        return False

    def has_caller_context(self) -> bool:
        """Whether some function here means what its callers in other modules hand it (a
        backward a caller may have meant to scale, a scaler-shaped call on a parameter)."""
        return not self.home.script and any(fn.key for fn in self._in_context)

    @cached_property
    def _in_context(self) -> list[FunctionProgram]:
        """The functions of this file whose meaning depends on a caller, and the functions of
        this file that call them (what another module calls may be any of those)."""
        functions = list(self.home.functions.values())
        found = {id(fn) for fn in functions if self._depends_on_caller(fn)}
        targets = {
            id(fn): [t for op in fn.ops if op.kind is OpKind.CALL for t in [self._static_target(op, self._root_frame(self.home, fn))] if t is not None]
            for fn in functions
        }
        changed = True
        while changed:
            changed = False
            for fn in functions:
                if id(fn) not in found and any(id(t) in found for t in targets[id(fn)]):
                    found.add(id(fn))
                    changed = True
        return [fn for fn in functions if id(fn) in found]

    def _depends_on_caller(self, fn: FunctionProgram) -> bool:
        """A scaler call on a parameter or `self.` attribute that may be a GradScaler, a
        scaler parameter handed on or left out of a checkpoint (`_hands_on`), or a backward:
        what the function does depends on what its caller hands it or how its object is used."""
        handed = (*(fn.params[1:] if fn.self_name is not None else fn.params), *fn.kwonly)
        scalers = {p for p in handed if (fn.param_bindings.get(p) or BindingInfo("")).kind == "scaler"}
        if scalers and self._hands_on(fn, scalers):
            return True
        cls = self.home.classes.get(fn.cls) if fn.cls is not None else None
        for op in fn.ops:
            callee = op.callee
            if not isinstance(callee, Method):
                continue
            if callee.name == "backward":
                return True
            if not scaler_shaped(callee.name, len(op.args)):
                continue
            recv = callee.recv.scaler if isinstance(callee.recv, Scaled) else callee.recv
            if isinstance(recv, Param) and recv.name in handed:
                return True  # what it is, its callers say
            if isinstance(recv, Attr) and recv.name and not _dunder(recv.name):  # (`self.__dict__.update(d)`)
                b = cls.attrs.get(recv.name) if cls is not None else None
                if b is None or b.kind in ("scaler", "instance"):
                    return True  # set where this file cannot see, or a scaler the object holds
        return False

    def _hands_on(self, fn: FunctionProgram, scalers: set[str]) -> bool:
        """Whether what `fn` does with its scaler parameters is for the caller's scaler to
        decide beyond the scaler calls (judged in `_depends_on_caller`): it hands one to code
        of another module or code this file cannot resolve, or saves a checkpoint without it.
        Reading or restoring its state (`state_dict()`, `load_state_dict()`) and handing it to
        a function of this file (judged on its own) are the same whatever the caller passes:
        icefall's checkpoint module needs none of its ~540 callers read."""
        frame = self._root_frame(self.home, fn)
        for op in fn.ops:
            if op.kind is OpKind.SAVE and op.checkpoint is not None:
                return True
            if op.kind is not OpKind.CALL:
                continue
            refs = (*op.args, *(v for _, v in op.kwargs))
            if any(isinstance(r, Param) and r.name in scalers for r in refs) and self._static_target(op, frame) is None:
                return True
        return False

    # -- replay ------------------------------------------------------------------------------------
    def _replay(self, frame: _Frame, out: list[Event], follow: bool) -> None:
        for op in frame.fn.ops:  # the scalers it reaches through objects, met before their uses
            refs = (op.callee.recv,) if isinstance(op.callee, Method) else ()
            for ref in (*refs, *op.args, *(v for _, v in op.kwargs)):
                if isinstance(ref, Member) and ref.binding is not None and ref.binding.kind == "scaler":
                    self.val(ref, frame)
        placed: dict[tuple[int, ...], Optional[tuple[Guard, ...]]] = {}  # (the ops of a block share their guards)
        for op in frame.fn.ops:
            if len(out) > _MAX_EVENTS:
                return
            key = tuple(map(id, op.guards))
            guards = placed[key] if key in placed else placed.setdefault(key, self._guards(frame, op.guards))
            if guards is None:
                self._narrowed += 1
                continue
            if op.kind is OpKind.CALL:
                self._call(op, frame, guards, out, follow)
            elif all(self.val(r, frame).kind != "loss_scale" for r in op.threshold):
                out.append(self._event(self._kind(op, frame), op, frame, guards))

    def _kind(self, op: Op, frame: _Frame) -> EventKind:
        """The event of an op that is not a call: its own kind, but SCALED_AUTOGRAD_GRAD for an
        `autograd.grad` of outputs scaled by a GradScaler or by an object nothing in the
        project pins down (a parameter no caller fills): either way its gradients come back
        multiplied by a loss scale, and no state of a scaler changes."""
        if op.kind is OpKind.AUTOGRAD_GRAD and op.args and isinstance(op.args[0], Scaled):
            by = self.val(op.args[0], frame).scaled_by
            if by is not None and (self._scaler(by) is not None or (by.binding is None and by.cls is None)):
                return EventKind.SCALED_AUTOGRAD_GRAD
        return EventKind(op.kind)

    @staticmethod
    def _guards(frame: _Frame, specs: tuple[GuardSpec, ...]) -> Optional[tuple[Guard, ...]]:
        """The guards an op under `specs` sits under in `frame`, the callers' first; None
        when it never runs there."""
        sides = [_side_of_a_constant_argument(frame, g) for g in specs] if frame.via else [None] * len(specs)
        if False in sides:
            return None  # (the `if training:` body of an epoch function its caller runs with `training=False`)
        guards = frame.guards + tuple(
            Guard(g, frame.module.path, frame.via, frame.scope) for g, side in zip(specs, sides) if side is None
        )  # (a side the caller's constant always takes is no condition)
        if frame.via and _retested_the_other_way(frame, guards[len(frame.guards):]):
            return None  # (a helper's `if use_amp:` body, entered from its caller's `else`: never runs)
        return guards

    def _event(self, kind: EventKind, op: Op, frame: _Frame, guards: tuple[Guard, ...], **kw: object) -> Event:
        return Event(kind, op, frame.module.path, guards, frame.via, function=frame.fn.key, home=self, **kw)  # type: ignore[arg-type]

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
                held = self.val(Attr(callee.name), frame) if owner is not None and not callee.super_ else None
                if held is not None and held.cls is not None and self.project.method(*held.cls, "__call__") is not None:
                    # `self.clip_grad(self.model)`: no method of that name, an attribute holding an
                    # object of a project class, which calling runs its `__call__`
                    self._method(op, held, "__call__", frame, guards, out, follow)
                    return
                self._method(op, Val("self", cls=owner), callee.name, frame, guards, out, follow, resolve=False)
                return
            target = (found[0], found[2], owner, False)
        elif isinstance(callee, Imported):
            if not _TRAINING_NAME.search(callee.qualname.rpartition(".")[2]) and not self._hands_amp_state(op, frame):
                return  # nothing of the step goes in: no need to read the module it lives in
            target = self._imported(callee.qualname, frame.module)
        if target is None:
            self._opaque(op, frame, guards, out)
            return
        if follow:
            module, fn, self_cls, bound = target
            self._enter(op, frame, guards, out, module, fn, self_cls, skip_self=not bound, same_self=isinstance(callee, SelfMethod))

    def _imported(self, qualname: str, module: ModuleSummary) -> Optional[tuple[ModuleSummary, FunctionProgram, Optional[ClassRef], bool]]:
        symbol = self.project.lookup(qualname, module)
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
            held = self._reached_through(recv)  # the scalers it holds (`accel.scaler`)
            if scaled is not None:
                out.append(self._event(EventKind.SCALED_BACKWARD, op, frame, guards, scaler=scaled[0], binding=scaled[1], spelled=_spelling(op, scaled=True)))
            elif resolve and recv.cls is not None and self._follow_method(op, recv, name, frame, guards, out, follow):
                pass  # an object of a project class (an AMP manager's `backward(loss)`): what its method does
            elif not positional and recv.cls is not None and self.project.base_kind(*recv.cls) == "model":
                # a module's own `backward()` that its subclasses define (torch-points3d's models
                # back-propagate the losses their base class scaled): a method, not a tensor's backward
                out.append(self._event(EventKind.OPAQUE, op, frame, guards, target=frozenset({recv.text or "backward"})))
            elif positional and (framework_backward(recv.text) or self._is_optimizer(recv) or held):
                # accelerator.backward(loss), engine.backward(loss), fairseq's
                # optimizer.backward(loss), an object that holds the scaler (`accel.backward(loss)`
                # beside `accel.scaler`): the framework scales
                if resolve and self._follow_method(op, recv, name, frame, guards, out, follow):
                    pass
                elif isinstance(positional[0], Scaled) and not positional[0].partial \
                        and (by := self._scaler(self.val(positional[0], frame).scaled_by)) is not None:
                    # `accelerator.backward(scaler.scale(loss))`, `self.backward(scaler.scale(loss))` of
                    # a Fabric: the framework back-propagates the loss it is handed, scaled by the scaler
                    # (a loss scaled on some paths only stays an opaque call: which path, the model
                    # cannot tell at the framework's call)
                    out.append(self._event(
                        EventKind.SCALED_BACKWARD, op, frame, guards, scaler=by[0], binding=by[1], spelled=_spelled(positional[0]),
                    ))
                elif len(held) == 1:  # it scales with the one scaler it holds (`accel.scaler`)
                    [s] = held
                    out.append(self._event(
                        EventKind.SCALED_BACKWARD, op, frame, guards, scaler=s, binding=self._reached_scalers[s], spelled=s,
                    ))
                else:
                    out.append(self._event(EventKind.OPAQUE, op, frame, guards, target=frozenset({recv.text or "backward"})))
            else:
                seed = _seed(op)
                seeded = self.val(seed, frame).scaled_by if seed is not None else None
                by = self._scaler(seeded) if seeded is not None else None
                if by is not None:  # `features.backward(scaler.scale(grad))`: every gradient is scaled
                    out.append(self._event(EventKind.SCALED_BACKWARD, op, frame, guards, scaler=by[0], binding=by[1], spelled=_spelled(seed), seeded=True))
                else:
                    out.append(self._event(EventKind.BACKWARD, op, frame, guards))
            return
        scaler = self._scaler(recv)
        if scaler is not None:
            kind = _SCALER_METHODS.get(name)
            opt_ref = positional[0] if positional else dict(op.kwargs).get("optimizer")
            if kind == EventKind.UPDATE and _sets_scale(op):
                kind = EventKind.SET_SCALE
            if kind is not None and (kind in (EventKind.UPDATE, EventKind.SET_SCALE) or opt_ref is not None):
                opt = self.val(opt_ref, frame) if opt_ref is not None else None
                out.append(self._event(
                    kind, op, frame, guards, scaler=scaler[0], binding=scaler[1], spelled=_spelling(op),
                    target=opt.text if opt is not None else None, target_binding=opt.binding if opt is not None else None,
                    target_reads=opt_ref.reads if isinstance(opt_ref, Value) else (),
                ))
            return
        if name == "step" and recv.cls is not None and self.project.base_kind(*recv.cls) == "optimizer" \
                and not self._holds_a_scaler(recv.cls):
            # a torch optimizer class of the project (LARS): stepping it is an optimizer step,
            # whatever its own `step` reads of the gradients; one that holds a GradScaler (an
            # AMP wrapper of another optimizer) steps through it, as its method says
            out.append(self._event(EventKind.OPT_STEP, op, frame, guards, target=recv.text))
            return
        if resolve and self._follow_method(op, recv, name, frame, guards, out, follow):
            return
        if name == "step" and _optimizer_step_arguments(op) and self._is_optimizer(recv) and not self._hands_a_scaler(op, frame):
            out.append(self._event(
                EventKind.OPT_STEP, op, frame, guards, target=recv.text, target_binding=recv.binding,
                recomputed=self._closure_recomputes(op, frame),
            ))
        elif name == "zero_grad":
            out.append(self._event(EventKind.ZERO_GRAD, op, frame, guards, target=recv.text))
        elif name == "replay" and isinstance(op.callee, Method) and _cuda_graph(op.callee.recv):
            out.append(self._event(EventKind.OPAQUE, op, frame, guards, target=frozenset({recv.text or "graph"})))
        else:
            self._opaque(op, frame, guards, out)

    def _closure_recomputes(self, op: Op, frame: _Frame) -> bool:
        """Whether a `step(closure)` hands the optimizer a project function that zeroes
        gradients before its first backward (LBFGS's closure, `opt.zero_grad(); loss =
        ...; loss.backward()`): the step then reads the gradients the closure made, not
        those a scaled backward left."""
        ref = op.args[0] if op.args else dict(op.kwargs).get("closure")
        b = ref.binding if isinstance(ref, Value) else None
        if b is None or b.kind != "function" or b.qualname is None:
            return False
        symbol = self.project.lookup(b.qualname, frame.module)
        fn = symbol.function if symbol is not None else None
        for o in fn.ops if fn is not None else ():
            name = o.callee.name if isinstance(o.callee, Method) else None
            if name == "zero_grad":
                return True
            if name == "backward":
                return False
        return False

    def _follow_method(self, op: Op, recv: Val, name: str, frame: _Frame, guards: tuple[Guard, ...], out: list[Event], follow: bool) -> bool:
        """Enter `recv.name(...)` when the project defines the class of `recv` (a method of it
        or of a base), or `recv(...)` when `recv` is a project function handed on as a value;
        False when it is neither."""
        if name == "__call__" and recv.cls is None:
            named = recv.binding.qualname if recv.binding is not None and recv.binding.kind == "function" else recv.qualname
            symbol = self.project.lookup(named, frame.module) if named else None
            if symbol is None or symbol.function is None or symbol.cls is not None:
                return False
            if follow:
                self._enter(op, frame, guards, out, symbol.module, symbol.function, frame.self_cls, skip_self=False)
            return True
        if recv.cls is None:
            return False
        found = self.project.method(*recv.cls, name)
        if found is None:
            return False
        if follow:
            self._enter(op, frame, guards, out, found[0], found[2], recv.cls, skip_self=True, owner=_object(recv, frame))
        return True

    def _enter(
        self, op: Op, frame: _Frame, guards: tuple[Guard, ...], out: list[Event],
        module: ModuleSummary, fn: FunctionProgram, self_cls: Optional[ClassRef], skip_self: bool,
        same_self: bool = False, owner: Optional[tuple] = None,
    ) -> None:
        """Replay `fn` called by `op` (`same_self`: a `self.method()` call, on the caller's own
        object; `owner`: the object a method is called on, where it is known)."""
        if not fn.ops:
            return  # (an accessor `return self._config.fp16`: nothing to replay)
        if id(fn) in frame.stack:
            self._narrowed += 1
            return
        if len(frame.stack) > _MAX_DEPTH:
            self._cut_deep += 1
            return
        params = _positional(fn, skip_self)
        args: dict[str, Val] = {}
        handed: list[tuple[str, Hashable]] = []
        outer = frame.scope.handed
        args.update((name, Val("None")) for name in _scalers_left_to_none(fn, op, params))  # (`scaler=None`: no scaler)
        for name, ref in _bound_arguments(fn, op, params):
            if ref is None:
                continue
            args[name] = self.val(ref, frame)
            if isinstance(ref, Param) and ref.name in outer:
                handed.append((name, outer[ref.name]))
            elif isinstance(ref, Attr) and ref.name:
                handed.append((name, ("attr", frame.owner, ref.name)))  # (an attribute of the caller's object)
            elif ((isinstance(ref, Value) and ref.qualname is None) or isinstance(ref, Member)) and ref.text is not None:
                handed.append((name, ("local", frame.via, frame.fn.key, ref.text)))  # (a variable of the caller's)
        via = (*frame.via, Call(frame.module.path, op))
        inner = _Frame(
            module, fn, args, self_cls, via, guards, (*frame.stack, id(fn)),
            frame.owner if same_self else owner if owner is not None else via, tuple(handed),
        )
        quiet, depth = self._quiet_key(inner), len(inner.stack)
        known = self._quiet.get(quiet, _MAX_DEPTH + 2)
        if known <= depth:
            self._cut_deep += known > 0  # (quiet because it is entered this deep: so is the caller)
            return
        before, cut_deep = (len(out), self._narrowed, len(self._reached_scalers)), self._cut_deep
        self._replay(inner, out, follow=True)
        if before[0] <= _MAX_EVENTS and (len(out), self._narrowed, len(self._reached_scalers)) == before:
            self._quiet[quiet] = min(self._quiet.get(quiet, depth), depth if self._cut_deep != cut_deep else 0)

    def _quiet_key(self, frame: _Frame) -> tuple:
        """What a replay of `frame` that emits nothing, skips no op and cuts no call reads: the
        function, the class of `self`, the values handed to it and the scalers met so far.
        Another path into it differs in what it does not read (its call sites, its `if`s
        decided, its object's identity): those may only skip more of it, and a replay of
        part of a quiet call is quiet."""
        cls = (id(frame.self_cls[0]), id(frame.self_cls[1])) if frame.self_cls is not None else None
        handed = tuple((name, _signature(v)) for name, v in frame.args.items())
        return id(frame.fn), id(frame.module), cls, handed, tuple(self._reached_scalers.items())

    def _hands_amp_state(self, op: Op, frame: _Frame) -> bool:
        """Whether a call hands on anything a training step is made of: a scaler, an
        optimizer, a model, a loss or a scaled one, an object of a project class, a function."""
        for ref in (*op.args, *(v for _, v in op.kwargs)):
            if ref is None:
                continue
            if isinstance(ref, Scaled):
                return True
            v = self.val(ref, frame)
            if v.cls is not None or v.kind in _AMP_STATE or self._scaler(v) is not None or self._is_optimizer(v) \
                    or self._reached_through(v):
                return True
        return False

    def _holds_a_scaler(self, cls: ClassRef) -> bool:
        """Whether objects of a project class keep a GradScaler in an attribute (its own or a
        project base's)."""
        return any(b.kind == "scaler" for _, c in self.project.mro(*cls) for b in c.attrs.values())

    def _hands_a_scaler(self, op: Op, frame: _Frame) -> bool:
        """Whether a call is handed a GradScaler: a `step(...)` that is (`optimizer.step("gen",
        scaler=scaler)`) is no torch `Optimizer.step(closure)` but a wrapper's that works the
        scaler itself, out of sight."""
        return any(
            ref is not None and not isinstance(ref, Scaled) and self._scaler(self.val(ref, frame)) is not None
            for ref in (*op.args, *(v for _, v in op.kwargs))
        )

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
                handed.add(v.ident)
            else:
                handed.update(self._reached_through(v))
        if handed:
            out.append(self._event(EventKind.OPAQUE, op, frame, guards, target=frozenset(handed)))

    # -- what a reference is -------------------------------------------------------------------------
    def val(self, ref: Ref, frame: _Frame) -> Val:
        if isinstance(ref, Param):
            b = frame.fn.param_bindings.get(ref.name)  # what it is by itself (annotation, use)
            if ref.name in frame.args:
                v = frame.args[ref.name]
                if b is not None and v.binding is None and v.cls is None and v.qualname is None and v.text not in (None, "None"):
                    if b.kind == "scaler":
                        return replace(v, binding=b)  # a value the caller cannot say more of, used as a GradScaler here
                    if b.kind == "instance":
                        return self._bound(v.text, b, frame.module, self_cls=frame.self_cls)  # ... annotated with a class
                return v
            return self._bound(ref.name, b, frame.module, self_cls=frame.self_cls)
        if isinstance(ref, Attr):
            if not ref.name:
                return Val("self", cls=frame.self_cls)
            return self._member(f"self.{ref.name}", frame.self_cls, ref.name, frame.module)
        if isinstance(ref, Member):
            base = self.val(ref.base, frame)
            # one spelling for an attribute of an object no project class holds, whatever a
            # helper or an alias calls it: the caller's (`engine.scaler` for a handler's `e.scaler`)
            text = f"{base.text}.{ref.name}" if base.cls is None and base.text is not None else ref.text
            v = self._member(text, base.cls, ref.name, frame.module)
            if v.binding is None and v.cls is None:
                # what its use says here, or where this replay met it before (a helper
                # handed `engine` that only calls `e.state.scaler.update()`)
                found = ref.binding or self._reached_scalers.get(v.ident or "")
                v = replace(v, binding=found) if found is not None else v
            if v.binding is not None and v.binding.kind == "scaler" and v.cls is None and v.ident:
                self._reached_scalers.setdefault(v.ident, v.binding)
            return v
        if isinstance(ref, Scaled):
            return Val(ref.text, scaled_by=self.val(ref.scaler, frame))
        if isinstance(ref, Value) and ref.string is not None:
            return Val(None, string=ref.string)
        return self._bound(ref.text, ref.binding, frame.module, ref.qualname, frame.self_cls)

    def _member(self, text: Optional[str], cls: Optional[ClassRef], name: str, module: ModuleSummary) -> Val:
        """An attribute of an object of a project class: what the class (or a base) binds it
        to, and one identity for every spelling of it (`self.scaler` in the trainer,
        `trainer.scaler` or an alias of it outside)."""
        if cls is None:
            return Val(text)
        found: Optional[tuple[ModuleSummary, ClassInfo, str, BindingInfo]] = None
        for m, c in self.project.mro(*cls):
            name = c.aliases.get(name, name)  # (`self.scaler`, a property returning `self._grad_scaler`)
            b = c.attrs.get(name)
            if b is not None and (found is None or not b.inferred):
                found = (m, c, name, b)
                if not b.inferred:
                    break  # a subclass that only uses it (inferred a scaler) holds what its base binds
        if found is None:
            return Val(text)
        m, c, name, b = found
        v = self._bound(text, b, m, self_cls=cls)
        if b.passed_as is not None and v.binding is None and v.cls is None:
            return Val(text)  # the constructions say nothing: as if the class bound nothing
        return Val(v.text, v.binding, cls=v.cls, key=f"{m.name}.{c.key}.{name}")

    def _bound(
        self, text: Optional[str], b: Optional[BindingInfo], module: ModuleSummary,
        qualname: Optional[str] = None, self_cls: Optional[ClassRef] = None,
    ) -> Val:
        """A value bound to `b` in `module`, an instance of an imported class (or of what a
        project function returns) made what the project says the class is: one of its own
        classes (a model, an optimizer, a scaler subclass, or any object whose methods can be
        followed), a GradScaler or optimizer it re-exports, else unknown."""
        if b is not None and b.kind == "optimizer" and b.cls is None and b.qualname is not None and not b.qualname.startswith("torch."):
            # an optimizer by the name of its factory (`build_optimizer(...)`): a project
            # function says what it returns (a wrapper class of the project, say)
            made = self._made(b.qualname, module, self_cls)
            if made is not None:
                b = BindingInfo("instance", b.qualname, b.enabled, cls=made)
        if b is not None and b.kind == "instance" and b.cls is None:
            if b.passed_as is not None:
                made = self._passed_to(self_cls, b.passed_as) if self_cls is not None else None
            else:
                closure = self._made_closure(b.made_by, module, self_cls) if b.made_item is None else None
                if closure is not None:
                    return Val(text, BindingInfo("function", closure), qualname=qualname)
                made = self._made(b.made_by, module, self_cls, b.made_item)
                scaled = self._made_scaled(b.made_by, module, self_cls, b.made_item) if made is None else None
                if scaled is not None:
                    return Val(text, scaled_by=scaled, qualname=qualname)  # (`loss, logs = self.get_loss(batch)`)
            if made is None and b.used_as_scaler:
                # what the project cannot follow (`instantiate(cfg.scaler)`, a registry's build)
                # used as only a GradScaler is: one, maybe on; made outside the project, a new
                # object like one constructed here, else (a project function returning what it
                # was handed) known only from use
                made_here = self._outside_project(b.made_by, module)
                on_when = self._made_on_when(b, module, self_cls)
                return Val(text, BindingInfo("scaler", enabled=None, inferred=not made_here, on_when=on_when), qualname=qualname)
            b = replace(b, cls=made, on_when=self._made_on_when(b, module, self_cls)) if made is not None else None
        cls = self._class_of(b, module)
        if b is not None and b.kind == "instance":
            if cls is not None:
                b = BindingInfo(self.project.base_kind(*cls) or "object", b.qualname, b.enabled, cls=b.cls, on_when=b.on_when)
            else:
                b = _external_instance(self.project.canonical(b.cls or "", module), b)
        return Val(text, b, cls=cls, qualname=qualname)

    def _made(
        self, maker: Optional[str], module: ModuleSummary, self_cls: Optional[ClassRef], item: Optional[int] = None,
    ) -> Optional[str]:
        """The qualified name of the class a project function returns (`self.setup_optimizers`
        resolved on the object's class, or a function by name), or returns in place `item` of
        the tuple it returns."""
        found = self._maker(maker, module, self_cls) if maker is not None else None
        if found is None:
            return None
        home, fn = found
        returned = _in_place(fn.returns, fn.returns_items, item)
        return self._qualified(returned, home) if returned is not None else None

    def _made_scaled(
        self, maker: Optional[str], module: ModuleSummary, self_cls: Optional[ClassRef], item: Optional[int],
    ) -> Optional[Val]:
        """The scaler whose `scale()` a method of the object returns a value of, whole or in
        place `item` of its tuple, when it is an attribute of the object (`self.scaler`): the
        same scaler as the caller's `self.scaler`. What a plain function returns scaled by a
        scaler it was handed belongs to call arguments this value no longer knows."""
        found = self._maker(maker, module, self_cls) if maker is not None and maker.startswith("self.") else None
        if found is None:
            return None
        home, fn = found
        scaled = _in_place(fn.returns_scaled, fn.returns_scaled_items, item)
        if scaled is None or not isinstance(scaled.scaler, Attr):
            return None
        return self.val(scaled.scaler, _Frame(home, fn, {}, self_cls))

    def _maker(self, maker: str, module: ModuleSummary, self_cls: Optional[ClassRef]) -> Optional[tuple[ModuleSummary, FunctionProgram]]:
        """The project function a maker names (`self.setup_optimizers` resolved on the
        object's class, or a function by name), with its module."""
        if maker.startswith("self."):
            found = self.project.method(*self_cls, maker[len("self."):]) if self_cls is not None else None
            return (found[0], found[2]) if found is not None else None
        symbol = self.project.lookup(maker, module)
        return (symbol.module, symbol.function) if symbol is not None and symbol.function is not None else None

    def _made_on_when(self, b: BindingInfo, module: ModuleSummary, self_cls: Optional[ClassRef]) -> tuple[tuple[str, bool], ...]:
        """The conditions under which what a project factory made is on: its own, and where the
        factory builds the GradScaler it returns `enabled=` by a parameter, those of the argument
        the call passes for it (`make_scaler(enabled=use_fp16)` is on only where `use_fp16`
        holds, as `GradScaler(enabled=use_fp16)` written there would be)."""
        found = self._maker(b.made_by, module, self_cls) if b.made_by is not None and b.made_item is None else None
        param = found[1].returns_enabled_by if found is not None else None
        if found is None or param is None:
            return b.on_when
        positional = _positional(found[1], skip_self=True)
        keys = {param, *([str(positional.index(param))] if param in positional else [])}
        for key, conditions in b.made_args_on:
            if key in keys:
                return tuple(dict.fromkeys((*b.on_when, *conditions)))
        return b.on_when

    def _made_closure(self, maker: Optional[str], module: ModuleSummary, self_cls: Optional[ClassRef]) -> Optional[str]:
        """The qualified name of the function a project factory returns (a closure it defines),
        so that calling what it made runs that function."""
        found = self._maker(maker, module, self_cls) if maker is not None else None
        return found[1].returns_function if found is not None else None

    def _outside_project(self, maker: Optional[str], module: ModuleSummary) -> bool:
        """Whether `maker` is a function by name that no module of the project defines."""
        return maker is not None and not maker.startswith("self.") and not self.project.holds(maker, module)

    def _passed_to(self, cls: ClassRef, param: str) -> Optional[str]:
        """The qualified name of the class of what every construction of `cls` in the project
        passes as `param` of its `__init__` (`Trainer(optimizer=build_optimizer(...))`, the
        class `build_optimizer` returns); None when one passes something else, or something
        this model cannot name (a caller's own parameter), or there is none."""
        key = (id(cls[1]), param)
        if key in self._passed:
            return self._passed[key]
        self._passed[key] = None  # (a construction that passes another object of the class)
        found = self.project.method(*cls, "__init__")
        names: set[Optional[str]] = set()
        if found is not None:
            for module, fn, op in self._constructions(cls):
                known, ref = _argument(op, found[2], param)
                if not known:
                    names.add(None)
                elif ref is not None:
                    v = self.val(ref, _Frame(module, fn, {}, self._class_ref(module, fn), stack=(id(fn),)))
                    names.add(f"{v.cls[0].name}.{v.cls[1].key}" if v.cls is not None else None)
        answer = names.pop() if len(names) == 1 else None
        self._passed[key] = answer
        return answer

    def _constructions(self, cls: ClassRef) -> Iterator[tuple[ModuleSummary, FunctionProgram, Op]]:
        """The calls of the project that construct `cls` by its name: in its module, and in
        the files that import that module and name the class."""
        module, info = cls
        if "." in info.key or not module.path:
            return  # (a nested class is built by its outer one)
        home = os.path.abspath(module.path)
        paths: list[str] = []
        if self.project.reads:
            paths = self.project.files_mentioning(
                self.project.import_names(home), {info.key}, self.project.reexported_by(home), (info.key,), home=home,
            )
        for m in (module, *(self.project.summary(p) for p in sorted(set(paths) - {home}))):
            if m is None:
                continue
            for fn in m.functions.values():
                for op in fn.ops:
                    if op.kind is OpKind.CALL and self._constructs(op, m, cls):
                        yield m, fn, op

    def _constructs(self, op: Op, module: ModuleSummary, cls: ClassRef) -> bool:
        callee = op.callee
        if isinstance(callee, Unknown):
            return module is cls[0] and callee.name == cls[1].key
        if isinstance(callee, Imported):
            symbol = self.project.lookup(callee.qualname, module)
            return symbol is not None and symbol.function is None and symbol.cls is cls[1]
        return False

    def _qualified(self, cls: str, module: ModuleSummary) -> Optional[str]:
        """A class name as the module that names it sees it, made absolute for any module."""
        found = self.project.find_class(cls, module)
        return f"{found[0].name}.{found[1].key}" if found is not None else self.project.canonical(cls, module)

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
        """(identity, binding) of a GradScaler (kinds.py): bound to one (constructed, annotated,
        inferred from use, or handed in by a caller), or an object of a project subclass of one.
        Its name says nothing."""
        if v.text is None:
            return None
        if v.binding is not None and v.binding.kind == "scaler":
            return v.ident, v.binding  # type: ignore[return-value]
        if v.cls is not None and self.project.base_kind(*v.cls) == "scaler":
            enabled = v.binding.enabled if v.binding is not None and v.binding.kind != "instance" else None
            on_when = v.binding.on_when if v.binding is not None else ()
            return v.ident, BindingInfo("scaler", enabled=enabled, inferred=v.binding is None, on_when=on_when)  # type: ignore[return-value]
        return None

    def _reached_through(self, v: Val) -> set[str]:
        """The scalers of this replay reached as attributes of `v` (`fire_event(engine)` hands
        on `engine.state.scaler`: the code it runs may update it)."""
        return {s for s in self._reached_scalers if v.text is not None and s.startswith(f"{v.text}.")}

    def _is_optimizer(self, v: Val) -> bool:
        if v.binding is not None and v.binding.kind != "instance":
            return v.binding.kind == "optimizer"
        if v.cls is not None:
            return self.project.base_kind(*v.cls) == "optimizer"
        if v.text is None:
            return False
        return named_like_optimizer(v.text.rsplit(".", 1)[-1])


def _optimizer_step_arguments(op: Op) -> bool:
    """Whether a `step(...)` call may be an optimizer's: `torch.optim.Optimizer.step(closure=None)`
    takes a closure, and a subclass may add parameters after it (SAM's `step(closure,
    current_iter)`), but a call that passes no closure and only keywords torch's step does not
    know (`meta_optimizer.step(val_loss=..., train_loss=..., parameters=...)`, a hypergradient
    step that computes its own gradients) steps something else, whatever the receiver's name."""
    return op.star or bool(op.args) or not op.kwargs or any(k == "closure" for k, _ in op.kwargs)


_Returned = TypeVar("_Returned")


def _in_place(whole: Optional[_Returned], items: tuple[Optional[_Returned], ...], item: Optional[int]) -> Optional[_Returned]:
    """What a function returns (`whole`), or in place `item` of the tuple it returns."""
    if item is None:
        return whole
    return items[item] if item < len(items) else None


def _signature(v: Val) -> tuple:
    """A value of a replay as comparable data (`Val` compares by identity)."""
    cls = (id(v.cls[0]), id(v.cls[1])) if v.cls is not None else None
    scaled = _signature(v.scaled_by) if v.scaled_by is not None else None
    return v.text, v.binding, scaled, cls, v.qualname, v.key, v.string


def _retested_the_other_way(frame: _Frame, inner: tuple[Guard, ...]) -> bool:
    """Whether a function's own `if`s send it down the other side of a test its caller's path
    already decided (`_Frame.decided`: the test of the object's own state, or of a value the
    caller handed down, that `Guard.condition` gives one identity across the pass), or ask
    a value the caller's path found equal to one string to equal another (`if amp_type ==
    "none":` in a helper called under `if amp_type == "torch_amp":`): that path never runs."""
    decided, strings = frame.decided, frame.strings
    return any((g.kind is GuardKind.IF and decided.get(g.condition, g.side) != g.side) or strings.contradicted(g) for g in inner)


def _side_of_a_constant_argument(frame: _Frame, g: GuardSpec) -> Optional[bool]:
    """Whether an op under `g` runs, where `g` is a side of an `if param:` (or `if not
    param:`, `if param is None:`, `if param == "d_step":`) and the caller passes a constant
    as `param` that the function never rebinds: True on the side the constant takes
    (`run_epoch(..., training=True)`, the `if training:` body; `forward_backward(batch,
    behaviour="d_step")`, the `if behaviour == "g_step":` `else`), False on the other; None
    for any other guard."""
    if g.kind is not GuardKind.IF or g.test is None or g.branch not in (Branch.BODY, Branch.ORELSE):
        return None
    test, flip = (g.test.negated, True) if g.test.negated is not None else (g.test, False)
    tested = _none_comparison(test)
    if tested is not None:  # `if scaler is not None:` with `scaler` handed None (or left to default to it)
        name, holds = tested
        if name not in frame.args or name in frame.fn.rebound or frame.args[name].text != "None":
            return None
        return (holds != flip) == (g.branch is Branch.BODY)
    if test.compared is not None:  # `if step == "d_step":` with `step` handed the string "d_step"
        name, string, equal = test.compared
        handed = frame.args.get(name)
        if handed is None or handed.string is None or name in frame.fn.rebound:
            return None
        return (((handed.string == string) == equal) != flip) == (g.branch is Branch.BODY)
    name = test.text
    if name not in frame.args or name in frame.fn.rebound or test.names != (name,):
        return None
    value = _CONSTANT_TRUTH.get(frame.args[name].text or "")
    if value is None:
        return None
    return (value != flip) == (g.branch is Branch.BODY)


def _none_comparison(test: Test) -> Optional[tuple[str, bool]]:
    """For `x is None` or `x is not None` (the tests that have an `opposite`): `x`, and whether
    the test holds where `x` is None (only `x is not None` is read as `x`, its `stronger`)."""
    if test.opposite is None or len(test.names) != 2 or test.names[1] != "None":
        return None
    return test.names[0], test.stronger is None


# the truth of a constant argument as written
_CONSTANT_TRUTH = {"True": True, "False": False, "None": False, "0": False, "1": True}


def _object(recv: Val, frame: _Frame) -> Optional[tuple]:
    """Which object a method is called on, where the caller names it: an attribute of its own
    object (`self.manager`) by that object, a variable (`manager`) by the call of the function
    that holds it; None for anything else (a new object each time)."""
    text = recv.text  # (as the caller spells it: `ident` may be the class attribute's key)
    if text is None:
        return None
    first, _, rest = text.partition(".")
    if first == frame.fn.self_name and rest.isidentifier():
        return ("attr", frame.owner, rest)
    if text.isidentifier():
        return ("name", frame.via, frame.fn.key, text)
    return None


def _argument(op: Op, init: FunctionProgram, param: str) -> tuple[bool, Optional[Ref]]:
    """What a construction passes as `param` of the class's `__init__`: (True, its reference),
    (True, None) when it leaves the default, (False, None) when `*args`/`**kwargs` may hold it."""
    for name, ref in op.kwargs:
        if name == param:
            return True, ref
    positional = list(init.params[1:])
    if param in positional and positional.index(param) < len(op.args):
        return True, op.args[positional.index(param)]
    return (not op.star), None


def _external_instance(qualname: str, b: BindingInfo) -> Optional[BindingInfo]:
    if is_scaler_class(qualname):
        return BindingInfo("scaler", qualname, None if b.enabled is not False else False, on_when=b.on_when)
    return BindingInfo("optimizer", qualname) if is_optimizer_class(qualname, qualname.rsplit(".", 1)[-1]) else None


def _dunder(name: str) -> bool:
    """`__dict__`, `__class__`: attributes Python gives every object, never a GradScaler."""
    return name.startswith("__") and name.endswith("__")


def _positional(fn: FunctionProgram, skip_self: bool) -> list[str]:
    """The parameters a call's positional arguments fill: all of `fn`'s, less its `self` where
    the call binds it (`obj.method(...)`, `self.method(...)`)."""
    return list(fn.params[1:] if skip_self and fn.self_name is not None else fn.params)


def _bound_arguments(fn: FunctionProgram, call: Op, params: Sequence[str]) -> Iterator[tuple[str, Optional[Ref]]]:
    """Each parameter of `fn` that `call` hands a value, with that value: its positional
    arguments fill `params` in order, and its keywords the parameters of those names."""
    yield from zip(params, call.args)
    yield from ((n, r) for n, r in call.kwargs if n in fn.params or n in fn.kwonly)


def _scalers_left_to_none(fn: FunctionProgram, call: Op, params: Sequence[str]) -> set[str]:
    """The parameters of `fn` that work as a GradScaler, default to `None` and are not passed
    by `call` (whose positional arguments fill `params`): None in that call. Nothing for a
    call that forwards `*args`/`**kwargs`."""
    return _left_to_none(fn, call, params, _scaler_params(fn))


def _left_to_none(fn: FunctionProgram, call: Op, params: Sequence[str], scalers: set[str]) -> set[str]:
    """Those of `scalers`, parameters of `fn`, that default to `None` and are not passed by
    `call` (`_scalers_left_to_none`)."""
    if call.star or not fn.none_defaults:
        return set()
    passed = {*params[:len(call.args)], *(name for name, _ in call.kwargs)}
    return (scalers & set(fn.none_defaults)) - passed


def _scaler_params(fn: FunctionProgram) -> set[str]:
    """The parameters of `fn` that receive a call a GradScaler makes (`sc.step(opt)`,
    `sc.scale(loss)`)."""
    found = set()
    for op in fn.ops:
        callee = op.callee
        if isinstance(callee, Method) and scaler_shaped(callee.name, len(op.args)):
            recv = callee.recv.scaler if isinstance(callee.recv, Scaled) else callee.recv
            if isinstance(recv, Param):
                found.add(recv.name)
    return found


def _enclosing_uses(module: ModuleSummary, fn: FunctionProgram, name: str) -> Optional[tuple[cst.FunctionDef, LocalUse, LocalUse]]:
    """For a function nested in another, that does not build `name` itself: the enclosing
    function, and how the nested one and the enclosing one use `name`."""
    outer_key = fn.key.rpartition(".")[0]
    outer = module.functions.get(outer_key) if outer_key else None
    if outer is None or not isinstance(fn.node, cst.FunctionDef) or not isinstance(outer.node, cst.FunctionDef):
        return None
    inner = local_use(fn.node, name)
    if inner.assigned_calls:
        return None  # its own local
    return outer.node, inner, local_use(outer.node, name)


def _kept_by_enclosing(use: LocalUse) -> bool:
    """Whether the enclosing function builds the name and never hands it on."""
    return use.assigned_calls > 0 and not use.as_parameter and not use.handed_on


def _cuda_graph(ref: Ref) -> bool:
    """A value built as a CUDA graph (`g = torch.cuda.CUDAGraph()`)."""
    b = getattr(ref, "binding", None)
    return b is not None and replays_captured_work(b.qualname)


def _backward_of_param(fn: FunctionProgram) -> bool:
    """Whether `fn` back-propagates a loss it is handed (`def _backward(self, loss):
    loss.backward()`): whether that loss was scaled, its callers say."""
    return any(
        isinstance(op.callee, Method) and op.callee.name == "backward" and isinstance(op.callee.recv, Param)
        for op in fn.ops
    )


def _sets_scale(op: Op) -> bool:
    """`scaler.update(new_scale)` / `update(new_scale=...)`: an argument other than `None`."""
    given = [*op.args, *(v for k, v in op.kwargs if k == "new_scale")]
    return bool(given) and not (len(given) == 1 and isinstance(given[0], Value) and given[0].text == "None")


def _steps_train(fn: FunctionProgram) -> bool:
    """Whether a function does any of a training step itself (backward, a step, an update,
    unscale_, zero_grad, a gradient read or clip)."""
    return any(
        op.kind is OpKind.GRAD_USE or (isinstance(op.callee, Method) and op.callee.name in _TRAINING_METHODS)
        for op in fn.ops
    )


def _seed(op: Op) -> Optional[Ref]:
    """The upstream gradient a tensor's backward starts from (`gradient` of
    `Tensor.backward`, `grad_tensors` of `torch.autograd.backward`), when the call gives one."""
    return op.args[0] if op.args else dict(op.kwargs).get("gradient")


def _spelling(op: Op, scaled: bool = False) -> Optional[str]:
    """How the code at `op` writes the scaler it calls (`sc` in `sc.step(opt)`, `scaler` in
    `scaler.scale(loss).backward()`)."""
    return _spelled(op.callee.recv if isinstance(op.callee, Method) else None, scaled)


def _spelled(recv: Optional[Ref], scaled: bool = True) -> Optional[str]:
    """How the code writes the scaler behind `recv` (the scaler itself, or with `scaled`, the
    scaler of a scaled value; None for a value scaled out of sight, as a parameter a caller
    scaled: `loss` in `loss.backward()` is no spelling of the scaler)."""
    if scaled:
        if not isinstance(recv, Scaled):
            return None
        recv = recv.scaler
    if isinstance(recv, Param):
        return recv.name
    if isinstance(recv, Attr):
        return f"self.{recv.name}" if recv.name else "self"
    return recv.text if isinstance(recv, (Value, Member)) else None
