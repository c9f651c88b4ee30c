"""Step programs: what each function of a file does with scalers, optimizers, losses and
gradients, in order and under which conditions, over symbolic references to its parameters
and `self.` attributes.

A program is written once per file from its tree and bindings and says nothing yet about
what a parameter or attribute *is*: `sc.step(opt)` in `def helper(loss, sc, opt)` is a call
of `step` on parameter `sc`. The step sequences (steps.py) replay a program with the
arguments of one call site (in this file or in another module of the project) and only then
decide that `sc` is the caller's GradScaler. That is what lets a helper, a trainer method or a
base class in another module be followed: their programs are the module's `ModuleSummary`,
which is plain data, cached on disk by the module's text and read back without parsing.

API:

- `Ref`: `Param(name)`, `Attr(name)` (`self.<name>`; "" is `self`), `Value(text, binding,
  qualname)` (anything else: a local or global with what the file's bindings say of it, the
  qualified name it resolves to through the imports; a function of the file handed on as a
  value is bound as kind "function"), `Member(base, name, text)` (`model.fp16_scaler`, or a
  name assigned from it: an attribute of an object whose class the project may hold),
  `Scaled(scaler, text)` (the value of `scaler.scale(x)`, written in place or stored in a
  name first).
- `Op(kind, guards, callee, recv, args, kwargs, star, text)`: `kind` an `OpKind`: CALL (a
  call the sequences classify or follow: `callee` says what it calls), GRAD_USE (a gradient
  clip or a nonlinear read of a parameter's `.grad`), SAVE (`torch.save`), AUTOGRAD_GRAD,
  NONFINITE (a check for or repair of inf/NaN: `isfinite`, `isnan`, `nan_to_num_`, ...).
- `Callee`: `Local(key)` (a function of this file), `Imported(qualname)`, `SelfMethod(name,
  cls, super_)`, `Method(recv, name)` (also `__call__` of a value), `Unknown(name)`.
- `GuardSpec(kind, branch, stmt, test, case)`: a `GuardKind` statement and the `Branch` taken:
  an `if` body or else, a loop body (LOOP, or RETRY for a loop that leaves after one pass),
  the code after an early `continue`/`return`, an `except`, a `case`; `test` a `Test` (the
  `if`/`while` test or what a `for` iterates over, as names, calls and strings it holds).
- `FunctionProgram`, `ClassInfo`, `ModuleSummary`: a file's programs, classes (bases by
  qualified name, methods, `self.` attribute bindings, attributes that escape), re-exports.
- `build_summary(tree, bindings, module_name)` and `ModuleSummary.to_json / from_json` (the codec
  in codec.py, derived from the dataclass fields: a new field needs no codec change).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from ampcheck.lint.enums import StrEnum
from functools import cached_property
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence, Union

import libcst as cst

from ampcheck.lint.bindings import Binding, Bindings, is_get_scale
from ampcheck.lint.checkpoints import checkpoint_without_scaler, saved_state_keys
from ampcheck.lint.closures import keeps_alias
from ampcheck.lint.codec import Codec
from ampcheck.lint.consteval import named_param, param_names
from ampcheck.lint.kinds import MODULE_CHAIN, framework_clipper, is_optimizer_class, is_scaler_class
from ampcheck.lint.literals import literal
from ampcheck.lint.names import call_argument, compared_to_none, compared_to_string, dotted, equality, is_none, last_name
from ampcheck.lint.tree import SourceTree
from ampcheck.lint.walk import preorder

CLIP = frozenset({"clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grad_value"})
# clipping functions of other libraries documented to do what torch's does (apex's fused
# multi-tensor `clip_grad_norm_`; timm's `dispatch_clip_grad`, which calls torch's norm or
# value clipping or timm's adaptive clipping by `mode`): they read the gradients as torch's would
CLIP_LIKE_TORCH = frozenset(
    {
        "apex.contrib.clip_grad.clip_grad_norm_", "apex.contrib.clip_grad.clip_grad.clip_grad_norm_",
        "timm.utils.dispatch_clip_grad", "timm.utils.clip_grad.dispatch_clip_grad",
        "timm.utils.adaptive_clip_grad", "timm.utils.agc.adaptive_clip_grad",
    }
)
NONFINITE = frozenset({"isfinite", "isnan", "isinf", "nan_to_num", "nan_to_num_", "_amp_foreach_non_finite_check_and_unscale_"})
NONFINITE_TESTS = frozenset({"isfinite", "isnan", "isinf"})  # (the rest repair what they find)
# What only reports a value or converts it for a report: `print`, a logger's methods, `str(v)`
_REPORTING = re.compile(r"^(print|warnings\.warn|str|repr|float|int|round|(.*\.)?(debug|info|warning|warn|error|log|write))$")
_BUILTINS = frozenset(
    {"print", "len", "isinstance", "getattr", "setattr", "hasattr", "type", "id", "repr", "str",
     "int", "float", "bool", "list", "dict", "tuple", "set", "sorted", "enumerate", "zip", "range",
     "iter", "next", "min", "max", "sum", "any", "all", "vars", "super", "format"}
)
_TORCH_SAVE = "torch.save"
_AUTOGRAD_GRAD = "torch.autograd.grad"
_AUTOGRAD_BACKWARD = "torch.autograd.backward"
_TEXT_LIMIT = 80
_DEFERRED = frozenset({cst.Lambda, cst.FunctionDef, cst.ClassDef})  # bodies that run when called
_MAX_ALIASES = 4
_NOT_ON_DISK = {"disk": False}  # a tree node: meaningless in another process
# Calls whose value is the sum or the stack of the collection they are handed.
_GATHERS = frozenset({"torch.stack", "torch.cat", "torch.concat"})
# annotations that say nothing of the class of a value
_ANY = frozenset({"typing.Any", "typing_extensions.Any"})
# Methods whose result carries the scaled loss on, times a constant at most: its gradients
# stay multiplied by the loss scale.
_SCALED_KEEPERS = frozenset(
    {"sum", "mean", "float", "half", "double", "to", "clone", "contiguous", "squeeze", "view", "reshape",
     "mul", "div", "mul_", "div_", "multiply", "divide", "neg", "__mul__", "__truediv__"}
)
_LINEAR_OPERATORS = (cst.Multiply, cst.Divide)
_ORDER = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual)  # comparisons by magnitude
# What a read of a gradient's size is (a norm, an extreme, a power, a number out of a tensor)
# and what carries a gradient on linearly (its result scales with the gradient). `sign` is
# neither: the sign of a gradient times the (positive) loss scale is the gradient's own.
_MAGNITUDE_READS = frozenset(
    {"norm", "vector_norm", "matrix_norm", "_foreach_norm", "abs", "abs_", "max", "min", "amax", "amin", "pow", "pow_",
     "sqrt", "square", "item", "tolist", "numpy", "std", "var", "log", "exp", "clamp", "clamp_", "clip", "clip_",
     "topk"}
    | CLIP
)
# magnitude reads that scale with what they read (a norm of k·g is k times g's): one of
# scaled gradients divided by the loss scale is the true gradients' own
_HOMOGENEOUS_READS = frozenset({"norm", "vector_norm", "matrix_norm", "abs", "max", "min", "amax", "amin"})
_LINEAR_GRAD_METHODS = frozenset(
    {"view", "reshape", "flatten", "detach", "clone", "contiguous", "to", "float", "half", "double", "cpu", "cuda",
     "div", "div_", "mul", "mul_", "add", "add_", "sub", "sub_", "sum", "mean", "neg", "t", "squeeze", "unsqueeze",
     "narrow", "index_select", "masked_fill", "copy_", "data_ptr"}
)
_LINEAR_GRAD_FUNCTIONS = frozenset({"cat", "stack", "sum", "flatten", "_flatten_dense_tensors", "list", "tuple", "mean", "add", "mul", "div"})
_LOGGING = re.compile(r"(^|\.)(print|log|info|debug|warning|add_scalar|add_scalars|add_histogram|log_metrics|log_dict)$")


_FLAG_VALUES = frozenset({"True", "False", "None"})


def _only_reports(stmt: cst.If, also: Callable[[cst.BaseSmallStatement], bool] = lambda small: False) -> bool:
    """Whether the body of `stmt` only reports (`_reports`), or does what `also` accepts."""
    return all(
        isinstance(line, cst.SimpleStatementLine) and all(_reports(small) or also(small) for small in line.body)
        for line in stmt.body.body
    )


def _reports(small: cst.BaseSmallStatement) -> bool:
    """A statement that only prints or logs (`print(...)`, `logger.warning(...)`), or stores a
    value converted for a report (`v = str(v)`)."""
    value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    if isinstance(small, cst.Assign) and not all(isinstance(t.target, cst.Name) for t in small.targets):
        return False
    return isinstance(value, cst.Call) and bool(_REPORTING.match(dotted(value.func) or ""))


# -- what a binding says, as data ------------------------------------------------------------------
@dataclass(frozen=True)
class BindingInfo:
    """A `Binding` without its tree: what crosses module boundaries and the disk cache.
    `cls` is the qualified name of the class a value is an instance of (a class of this file,
    prefixed with its module name, or an imported name that may be a project class: kind
    "instance" until the project says what the class is); `toggles` the names in a scaler's
    `enabled=` expression (a condition on them switches AMP, not the step)."""

    kind: str
    qualname: Optional[str] = None
    enabled: Optional[bool] = True
    device: Optional[str] = None
    cls: Optional[str] = None
    inferred: bool = False
    toggles: tuple[str, ...] = ()
    made_by: Optional[str] = None  # an "instance" of what this function returns ("self.m" or a qualified name)
    made_item: Optional[int] = None  # ... in this place of the tuple it returns
    passed_as: Optional[str] = None  # an "instance" of what the class's constructions pass as this `__init__` parameter
    used_as_scaler: bool = False  # ... used in its file as only a GradScaler is (a scaler where the project cannot say what made it)
    unit_scale: bool = False  # a GradScaler built with `init_scale=1`
    # the conditions (canonical text, value) under each of which alone a scaler is on (None or
    # disabled elsewhere): `enabled=c`, `GradScaler() if c else None`, built under `if c:`
    on_when: tuple[tuple[str, bool], ...] = ()
    # an "instance" made by a call: the conditions under which each argument written as a test
    # holds, by keyword or position (`make_scaler(enabled=use_fp16)`: "enabled" -> use_fp16)
    made_args_on: tuple[tuple[str, tuple[tuple[str, bool], ...]], ...] = ()
    # an optimizer built from all the parameters of one module and no others (`Adam(self.policy.parameters())`):
    # the key of the class (for `self.` attributes) or function it was built in, and that module as written there
    owns: Optional[tuple[str, str]] = None


# -- references ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    name: str


@dataclass(frozen=True)
class Attr:
    name: str  # self.<name>; "" is self


@dataclass(frozen=True)
class Value:
    text: Optional[str]
    binding: Optional[BindingInfo] = None
    qualname: Optional[str] = None
    string: Optional[str] = None  # the value of a string literal (`'d_step'`)
    # the names an optimizer picked from a collection reads (`optimizers[start + i]`: a loop
    # binding `i` steps another optimizer each pass)
    reads: tuple[str, ...] = ()


@dataclass(frozen=True)
class Member:
    """`base.name` of a value whose class the project may hold (`model.fp16_scaler`), or a
    local name assigned from one (`fp16_scaler = model.fp16_scaler`)."""

    base: "Ref"
    name: str
    text: Optional[str] = None
    binding: Optional[BindingInfo] = None  # what its use says when the class does not (inferred)


@dataclass(frozen=True)
class Scaled:
    scaler: "Ref"
    text: Optional[str] = None
    # a name scaled on some paths only: its scaling assignment sits in a branch or loop the use
    # is outside of (`if scaler is not None: loss = scaler.scale(loss)`, then `model.backward(loss)`)
    partial: bool = False


Ref = Union[Param, Attr, Value, Member, Scaled]


# -- callees -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Local:
    key: str


@dataclass(frozen=True)
class Imported:
    qualname: str


@dataclass(frozen=True)
class SelfMethod:
    name: str
    cls: str  # the class the call is written in (for `super()`)
    super_: bool = False


@dataclass(frozen=True)
class Method:
    recv: Ref
    name: str


@dataclass(frozen=True)
class Unknown:
    name: str


Callee = Union[Local, Imported, SelfMethod, Method, Unknown]


# -- programs --------------------------------------------------------------------------------------------
class OpKind(StrEnum):
    CALL = "call"  # a call the sequences classify or follow
    GRAD_USE = "grad_use"  # a nonlinear read of gradients: a clip, a norm of `.grad`
    SAVE = "save"  # torch.save
    AUTOGRAD_GRAD = "autograd_grad"
    NONFINITE = "nonfinite"  # a check for or repair of inf/NaN


class GuardKind(StrEnum):
    IF = "if"
    FOR = "for"
    WHILE = "while"
    TRY = "try"
    MATCH = "match"
    EXIT = "exit"  # a statement some path through which leaves early (Branch LEFT / STAYED)


_GUARD_KINDS = {
    cst.If: GuardKind.IF, cst.For: GuardKind.FOR, cst.While: GuardKind.WHILE, cst.Try: GuardKind.TRY,
    cst.TryStar: GuardKind.TRY, cst.Match: GuardKind.MATCH, cst.IfExp: GuardKind.IF,
}


class Branch(StrEnum):
    BODY = "body"  # an `if` body
    ORELSE = "orelse"  # its `else`, or the code after an `if` whose body leaves
    LOOP = "loop"  # a loop body that repeats: a training iteration, or a loop over things
    RETRY = "retry"  # a loop body that runs once unless sent round again
    EXCEPT = "except"
    CASE = "case"  # a `case` of a `match` (which one: `GuardSpec.case`)
    LEFT = "left"  # a path through a statement that then leaves it (`...; break`, `...; return`)
    STAYED = "stayed"  # the code after that statement, which runs only where no path left


@dataclass(frozen=True)
class Test:
    """The test of an `if`/`while`, or what a `for` iterates over, as structured facts:
    `text` its canonical spelling (the identity of the test: two `if`s with the same text
    decide alike), `names` the dotted names it reads (`use_amp`, `self.scaler.is_enabled`),
    `calls` the last names of what it calls (`isfinite`, `len`), `strings` its string
    constants (`"fp16"`), `ordered` whether it compares by order (`scale > 32768.`: a
    threshold on a magnitude, never an on/off switch), `conjuncts` the tests of an `and`
    (each holds wherever the whole does), `disjuncts` those of an `or` (each fails wherever the
    whole does), `negated` the test under a `not` (it fails wherever the whole holds),
    `versions` which assignments reach each local name it reads (two tests of one text read
    one value only where the same ones reach both)."""

    text: str
    names: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()
    strings: tuple[str, ...] = ()
    ordered: bool = False
    conjuncts: tuple["Test", ...] = ()
    disjuncts: tuple["Test", ...] = ()
    negated: Optional["Test"] = None
    versions: tuple[tuple[str, tuple[int, ...]], ...] = ()
    # the test with each `x is not None` it holds through `and`s and `or`s read as `x`: it
    # fails wherever this one fails, as `x` is falsy wherever `x is None`
    stronger: Optional["Test"] = None
    # the test that holds exactly where this one fails: `x is not None` for `x is None`
    opposite: Optional["Test"] = None
    # `x == "rec"` or `x != "rec"` of a name or attribute chain: it, the string, whether it is `==`
    compared: Optional[tuple[str, str, bool]] = None
    # `n == 1` or `n != 1` of a name or attribute chain: it, the assignments of it the test
    # reads (`versions`), and whether `n` is 1 where the test holds (`==`) or where it fails
    pins_one: Optional[tuple[str, tuple[int, ...], bool]] = None
    # what the whole test is wherever a name it reads is 1, for each name that decides it
    # then: the name, the assignments of it read (None: read through a local's one value,
    # `accum_idx = i % accum`) and the value (`(i + 1) % accum == 0`, `accum > 1`: a count of
    # one makes every accumulation boundary test hold and every `> 1` fail)
    at_one: tuple[tuple[str, Optional[tuple[int, ...]], bool], ...] = ()
    # `x is None` or `x is not None` of a name or attribute chain: it, and whether the test
    # holds where it is None (so a test of one value in two functions can be told the same)
    none_of: Optional[tuple[str, bool]] = None

    def words(self) -> Iterator[str]:
        """Every identifier part and string the test holds."""
        for n in (*self.names, *self.calls):
            yield from n.split(".")
        yield from self.strings


@dataclass(eq=False)
class GuardSpec:
    """One condition as written; identity is the object (one per statement and branch)."""

    kind: GuardKind
    branch: Branch
    stmt: int  # the statement, the same for all its branches (unique within the module)
    test: Optional[Test] = None
    case: int = 0  # which `case` of a match
    # the names a `for` binds each pass (`opt` in `for opt in optimizers`; `self.iter` in `for
    # self.iter in range(...)`, which binds no `self`)
    binds: tuple[str, ...] = ()
    passes: Optional[int] = None  # how many passes a `for` over a sequence the code spells out makes
    # the code after an `if` whose body, or a statement each of whose early ways out, only
    # raises (uncaught in the function): a pass that does not get here ended the run, so every
    # pass that goes on runs it
    aborts: bool = False
    node: Optional[cst.CSTNode] = field(default=None, repr=False, metadata=_NOT_ON_DISK)

    @property
    def is_loop(self) -> bool:
        return self.branch is Branch.LOOP

    @property
    def side(self) -> tuple[Branch, int]:
        """Which way the statement went: its branch, and for a match which case."""
        return self.branch, self.case

    @cached_property
    def compares_strings(self) -> bool:
        """Whether the side of an `if` tells what a value equals (`Test.compared` in its test
        or a part of it): the only guards whose string facts the steps work out."""
        return self.kind is GuardKind.IF and self.branch in (Branch.BODY, Branch.ORELSE) \
            and self.test is not None and _compares_strings(self.test)


@dataclass(eq=False)
class Op:
    kind: OpKind
    guards: tuple[GuardSpec, ...]
    callee: Optional[Callee] = None
    args: tuple[Optional[Ref], ...] = ()  # positional; None for an argument that is not a plain value
    kwargs: tuple[tuple[str, Ref], ...] = ()
    star: bool = False  # `*args` / `**kwargs` forwarded
    text: str = ""  # one-line spelling of the call or read, for messages
    subject: str = ""  # one-line spelling of a method call's receiver (the loss of a backward)
    # a save of a checkpoint with optimizer state but not the scaler's: which checkpoint dict
    # of its module it writes (one finding per dict, however many files it is saved to): the
    # dict's identity in the tree the summary was built from, unique within its module like
    # `GuardSpec.stmt` (not a count, which would depend on the order programs are built in)
    checkpoint: Optional[int] = None
    # the keys under which that checkpoint holds optimizer state, when each is a string
    # constant, and those of the other states it holds (the model's): what the project may
    # read back from it
    optimizer_keys: tuple[str, ...] = ()
    state_keys: tuple[str, ...] = ()
    # a non-finite test whose `if` only reports (`if math.isnan(v): print(...)`, `v = str(v)`
    # for a JSON log): it neither skips a step nor repairs a gradient
    inert: bool = False
    # a clip whose threshold is a product of these values, or a gradient read divided by one
    # of them: right when one is the loss scale (`clip_grad_norm_(params, max_norm * scale)`,
    # `(p.grad / scale).norm()`, with a caller's `scale=scaler.get_scale()`)
    threshold: tuple[Ref, ...] = ()
    # a clip of the parameters of one module (`clip_grad_norm_(self.policy.parameters(), ...)`): that module, as written
    clips: Optional[str] = None
    # a backward of the loss apex's `amp.scale_loss` yields (`with amp.scale_loss(loss, opt)
    # as scaled_loss: scaled_loss.backward()`): scaled, by apex's own loss scaler
    apex_scaled: bool = False
    # ways out of a statement around it that every pass taking them ran it before, each as the
    # statement's STAYED guard and the way's number (`case` of its LEFT guard): those later in
    # its own block (`update(); if gave_up: return` in a non-finite branch that then continues)
    runs_before_leaving: tuple[tuple[GuardSpec, int], ...] = ()
    # for an op inside such a statement that may go either way: the ways out a pass may still
    # take after running it (later in a block around it, anywhere in a loop around it within
    # the statement, or in a handler of a `try` around it); an earlier `if nan_loss: return`
    # of the same loop body is no way out for what runs after it
    ways_ahead: tuple[tuple[GuardSpec, int], ...] = ()
    node: Optional[cst.CSTNode] = field(default=None, repr=False, metadata=_NOT_ON_DISK)


@dataclass(frozen=True)
class Asserted:
    """An `assert` among the top-level statements of a function's body: every op after it runs
    only where its test held, as a failing `assert` raises out of the function (betty's
    `assert not self._fp16, "FP16 training is not supported for IterativeProblem."` before the
    hand step of a functional optimizer)."""

    after: int  # how many of the function's ops come before it
    test: Test


@dataclass(eq=False)
class FunctionProgram:
    key: str  # "" for the module body, "f", "C.m", "f.inner"
    cls: Optional[str]  # the class key of a method
    params: tuple[str, ...]  # positional, `self` included
    kwonly: tuple[str, ...]
    param_bindings: dict[str, BindingInfo]  # what a parameter is when no caller says
    ops: list[Op]
    self_name: Optional[str] = None  # the receiver parameter of a method
    returns: Optional[str] = None  # the qualified name of the class whose instances it returns
    returns_items: tuple[Optional[str], ...] = ()  # the same for each place of the tuple every `return` returns
    # the parameters its body assigns anew: a test of one of them may read another value than
    # the caller passed
    rebound: tuple[str, ...] = ()
    # the qualified name of the function nested in it that every `return` returns: a factory of
    # a closure (`fwd_bwd = self.make_fwd_bwd(scaler)`, later `fwd_bwd(batch)`)
    returns_function: Optional[str] = None
    # the parameters whose default is `None`: a call that does not pass one runs with it None
    none_defaults: tuple[str, ...] = ()
    # the value of `scaler.scale()` a `return` returns (`return self.scaler.scale(loss)`, or a
    # name holding it), and the same for each place of the tuples the `return`s return
    # (`return loss, logs` after `loss = self.scaler.scale(loss)`): a backward of what a
    # caller receives there is scaled
    returns_scaled: Optional[Scaled] = None
    returns_scaled_items: tuple[Optional[Scaled], ...] = ()
    # the parameter that every GradScaler it returns is built `enabled=` by (`def make_scaler(enabled):
    # return GradScaler("cuda", enabled=enabled)`): what it makes is on where the caller's
    # argument for it holds
    returns_enabled_by: Optional[str] = None
    asserted: tuple[Asserted, ...] = ()
    node: Optional[cst.CSTNode] = field(default=None, repr=False, metadata=_NOT_ON_DISK)

    @property
    def name(self) -> str:
        return self.key.rsplit(".", 1)[-1]

    def calls_super(self, name: str) -> bool:
        """Whether it hands on to the base class's `name` (`super().name(...)`)."""
        return any(isinstance(op.callee, SelfMethod) and op.callee.super_ and op.callee.name == name for op in self.ops)


@dataclass
class ClassInfo:
    key: str
    bases: tuple[str, ...]  # qualified names
    methods: dict[str, str]  # name -> function key
    attrs: dict[str, BindingInfo]  # `self.<attr>` bindings made in the class's methods
    escapes: frozenset[str]  # attributes used other than as the receiver of a method call
    aliases: dict[str, str] = field(default_factory=dict)  # a `@property` -> the `self.<attr>` it returns
    # a method stores a scaled value in an attribute of the object under a name worked out at
    # run time (`setattr(self, name, scaler.scale(loss))` for each name of a list): a backward
    # of any `self.<attr>` in the class may run on it
    stores_scaled: bool = False
    # attributes handed whole, as an argument, to a call of a function or method (`clip(params,
    # scaler=self.scaler, optimizer=opt)`) and otherwise used only as the receiver of method
    # calls: what the callee does with it, the project says
    handed: frozenset[str] = frozenset()
    # attribute -> the attributes the class asserts are None wherever it sets that one (every
    # `self.x = <not None>` in its methods comes after `assert self.y is None` in its function,
    # and each `self.y = <not None>` of the class before that assert, or in `__init__`):
    # wherever `self.x is not None`, `self.y` is None (a CUDA-graph capture built only after
    # asserting there is no scaler)
    none_while: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass
class ModuleSummary:
    name: str
    functions: Mapping[str, FunctionProgram]  # (read from the cache: a LazyMapping)
    classes: dict[str, ClassInfo]
    exports: dict[str, str]  # a name the module imports -> its qualified name (re-exports)
    path: str = ""
    script: bool = False  # it runs as a program (`if __name__ == "__main__":`)
    star_imports: tuple[str, ...] = ()  # modules `from <module> import *` re-exports, in source order

    # -- the disk form --------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        codec = Codec(_TAGGED, GuardSpec)
        body = codec.encode(self)
        return {**body, "guards": codec.table}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ModuleSummary":
        codec = Codec(_TAGGED, GuardSpec)
        codec.load_table(data["guards"])
        # the functions are decoded one by one as they are looked up (`LazyMapping`)
        summary = codec.decode({k: v for k, v in data.items() if k not in ("guards", "functions")} | {"functions": {}}, ModuleSummary)
        summary.functions = codec.decode_lazily(data["functions"], FunctionProgram)
        return summary


# -- building ------------------------------------------------------------------------------------------
def build_summary(
    tree: SourceTree, bindings: Bindings, module_name: str, kept: "Optional[StatementPrograms]" = None
) -> ModuleSummary:
    """The summary of one file; with `kept` (a buffer's, from its previous analysis), the
    programs and classes of the definitions an edit did not touch are reused from it."""
    return _Builder(tree, bindings, module_name).summary(kept)


# What one top-level statement contributes: the programs of the functions and the classes in it.
_Part = tuple[list[FunctionProgram], list[ClassInfo]]
_DEFINITIONS = (cst.FunctionDef, cst.ClassDef)


class StatementPrograms:
    """The programs and classes of a buffer's top-level `def`s and `class`es, kept from one
    analysis to the next beside its re-parse (a language server's): a statement the re-parse
    kept is the same node, and what its programs say depends on that node and on what they
    read outside it, the file's context (`_Builder.context`: the import table, the module's
    own code and bindings, its classes and module functions). Where the context is the
    previous analysis's, an untouched definition's part is reused, unless a class in it
    derives from a class of a statement built anew (a method reads the attributes its base
    classes bind). The module body's program is always built anew.
    tests/lint/test_incremental_summary.py compares the result with a summary built whole."""

    def __init__(self) -> None:
        self._context: Optional[tuple[Any, ...]] = None
        self._parts: dict[cst.CSTNode, _Part] = {}
        self.reused = 0  # statements whose part the last build reused (for tests and benches)

    def reusable(self, context: tuple[Any, ...]) -> dict[cst.CSTNode, _Part]:
        return self._parts if context == self._context else {}

    def keep(self, context: tuple[Any, ...], parts: dict[cst.CSTNode, _Part], reused: int) -> None:
        self._context, self._parts, self.reused = context, parts, reused


def scope_key(tree: SourceTree, node: cst.CSTNode) -> str:
    """The dotted key of a function or class: its name after those of the scopes around it."""
    names = [node.name.value] if isinstance(node, (cst.FunctionDef, cst.ClassDef)) else []
    for anc in tree.ancestors(node):
        if isinstance(anc, (cst.FunctionDef, cst.ClassDef)):
            names.append(anc.name.value)
    return ".".join(reversed(names))




class _Builder:
    def __init__(self, tree: SourceTree, bindings: Bindings, module_name: str) -> None:
        self.tree = tree
        self.b = bindings
        self.module_name = module_name
        self._guard_cache: dict[tuple[int, str], GuardSpec] = {}
        self._exits: dict[int, list[tuple[cst.BaseSuite, bool]]] = {}  # (a statement: its blocks that leave it early)
        self._aliases = 0  # `x = y.a` ... `y = x.b`: how deep `ref` is in following them
        self._scale_calls = [c for c in tree.calls if _is_scale_call(c)]  # (`scaler.scale(loss)`, by its shape)
        self._scales = bool(self._scale_calls)
        self._scaled = self._index_scaled_assignments()
        self._scaled_attributes: dict[tuple[cst.ClassDef, str], Optional[Scaled]] = {}
        self._local_functions = self._index_local_functions()
        # whether any expression here can be the loss scale: `ref` asks of every argument
        self._gets_scale = any(is_get_scale(c) for c in tree.calls)

    def summary(self, kept: Optional[StatementPrograms] = None) -> ModuleSummary:
        parts = self._parts(kept) if kept is not None else None  # first: it decides what is walked
        functions = {"": self._program(None)}
        classes = {}
        if parts is None:
            for fn in self.tree.functions:
                self._define(functions, self._program(fn))
            for c in self.tree.classes:
                info = self._class(c)
                classes.setdefault(info.key, info)
        else:
            for programs, infos in parts:
                for p in programs:
                    self._define(functions, p)
                for info in infos:
                    classes.setdefault(info.key, info)
        for name in self._torch_stand_ins():
            classes.pop(name, None)
            for key in [k for k in functions if k == name or k.startswith(name + ".")]:
                del functions[key]
        exports = self.tree.names.exports()
        script = any(
            isinstance(s, cst.If) and "__main__" in self.tree.code_for(s.test) for s in self.tree.module.body
        )
        return ModuleSummary(self.module_name, functions, classes, exports, self.tree.path, script, self.tree.names.star_imports())

    def _torch_stand_ins(self) -> set[str]:
        """The module's classes and functions defined only where importing that name from
        torch failed (`try: from torch.cuda.amp import GradScaler` / `except ImportError:
        class GradScaler: ...`): on any torch that has the name, the module's name is torch's,
        and so is what another module imports by it from here."""
        return {
            d.name.value for d in (*self.tree.classes, *self.tree.functions)
            if isinstance(self._top(d), cst.Try) and self.tree.import_fallback(d, d.name.value)
        }

    def _define(self, functions: dict[str, FunctionProgram], p: FunctionProgram) -> None:
        """Add a program under its key. A second `def` of the name in the same block replaces
        the first, as Python runs it (a class body defining `_train_epoch` twice); one in
        another branch (`if ...: def f` / `else: def f`) leaves the first."""
        held = functions.get(p.key)
        if held is None:
            functions[p.key] = p
            return
        here, there = self.tree.parents.get(p.node), self.tree.parents.get(held.node)  # type: ignore[arg-type]
        if here is not None and here is there:
            functions[p.key] = p

    # -- reuse, statement by statement -----------------------------------------------------------
    def _parts(self, kept: StatementPrograms) -> list[_Part]:
        """Each top-level statement's programs and classes, in source order (the order a
        whole build makes them in), reused from `kept` where that is exact."""
        groups: dict[cst.CSTNode, tuple[list[cst.FunctionDef], list[cst.ClassDef]]] = {}
        for fn in self.tree.functions:
            groups.setdefault(self._top(fn), ([], []))[0].append(fn)
        for c in self.tree.classes:
            groups.setdefault(self._top(c), ([], []))[1].append(c)
        context = self.context()
        previous = kept.reusable(context)
        reused = {top for top in groups if isinstance(top, _DEFINITIONS) and top in previous}
        bases = {top: self._base_statements(classes) for top, (_, classes) in groups.items()}
        dropped = True
        while dropped:  # a class of a statement built anew makes its subclasses' statements built anew
            dropped = False
            for top in list(reused):
                if any(b is not top and b not in reused for b in bases[top]):
                    reused.discard(top)
                    dropped = True
        built = [self.tree.indexes_of(top) for top in self.tree.module.body if top not in reused]
        if all(b is not None for b in built):  # the expression walks enter only the statements built
            self._leads_to_ops = self._leading(
                (c for b in built if b is not None for c in b.calls), (a for b in built if b is not None for a in b.attributes)
            )
        parts: dict[cst.CSTNode, _Part] = {}
        out = []
        for top in self.tree.module.body:
            if top not in groups:
                continue
            fns, classes = groups[top]
            part = previous[top] if top in reused else ([self._program(f) for f in fns], [self._class(c) for c in classes])
            if isinstance(top, _DEFINITIONS):
                parts[top] = part
            out.append(part)
        kept.keep(context, parts, len(reused))
        return out

    def context(self) -> tuple[Any, ...]:
        """What a definition's programs and class read outside their own statement, as
        comparable data: the import table's answers; the module's code outside its
        top-level definitions, in order, with each definition's place and name (module
        bindings, constants and the order `precedes` sees); the constants assigned in class
        bodies; every class's name, key and bases; the module's functions by name; the
        globals inferred to be scalers from their use anywhere."""
        t = self.tree
        layout = tuple(
            (type(top).__name__, top.name.value) if isinstance(top, _DEFINITIONS) else t.code_for(top)
            for top in t.module.body
        )
        consts = self.b.consts
        assigned = tuple((name, tuple(t.code_for(n) for n in nodes)) for name, nodes in consts.module_assignments())
        classes = tuple(
            (c.name.value, scope_key(t, c), tuple(t.code_for(b.value) for b in c.bases)) for c in t.classes
        )
        functions = tuple(sorted(
            (name, scope_key(t, f)) for (scope, name), f in self._local_functions.items() if scope is None
        ))
        return (
            self.module_name, t.names.effective(), layout, assigned, consts.module_dynamic, classes, functions,
            tuple(self.b.module_inferred()),
        )

    def _top(self, node: cst.CSTNode) -> cst.CSTNode:
        """The top-level statement `node` is in."""
        module = self.tree.module
        while True:
            up = self.tree.parents.get(node)
            if up is None or up is module:
                return node
            node = up

    def _base_statements(self, classes: list[cst.ClassDef]) -> set[cst.CSTNode]:
        """The statements holding the in-file classes (by name) that `classes` derive from."""
        found = set()
        for c in classes:
            for base in c.bases:
                text = dotted(_base_class(base.value))
                cls = self.b.class_named(text) if text is not None else None
                if cls is not None:
                    found.add(self._top(cls))
        return found

    # -- classes -----------------------------------------------------------------------------------
    def _class(self, c: cst.ClassDef) -> ClassInfo:
        key = scope_key(self.tree, c)
        bases = []
        for base in c.bases:
            named = _base_class(base.value)
            q = self.tree.qualname(named)
            text = dotted(named)
            if q is not None:
                bases.append(q)
            elif text is not None and self.b.class_named(text) is not None:
                bases.append(f"{self.module_name}.{scope_key(self.tree, self.b.class_named(text))}")
            elif text is not None:
                bases.append(text)
        methods = {
            s.name.value: f"{key}.{s.name.value}" for s in _statements(c.body) if isinstance(s, cst.FunctionDef)
        }
        attrs = {}
        for attr_key, b in self.b.class_attributes(c).items():
            info = self._info(b)
            if info is not None:
                attrs[attr_key[len("self."):]] = info
        for attr, info in self._constructor_arguments(c).items():
            attrs.setdefault(attr, info)
        aliases = {}
        for s in _statements(c.body):
            held = self._property_of(s) if isinstance(s, cst.FunctionDef) else None
            if held is not None and held in attrs and (s.name.value not in attrs or attrs[s.name.value].inferred):
                attrs[s.name.value] = attrs[held]
            if held is not None and held != s.name.value:
                aliases[s.name.value] = held
        escapes, handed = self._escapes(c)
        return ClassInfo(
            key, tuple(bases), methods, attrs, escapes, aliases, c in self._storing_scaled, handed, self._none_while(c),
        )

    def _none_while(self, c: cst.ClassDef) -> dict[str, tuple[str, ...]]:
        """`ClassInfo.none_while`: for each attribute the class sets to something other than
        None, the attributes asserted None before every such assignment, where the class sets
        those only before the assert, in its function."""
        assigned = self._set_attributes.get(c, {})
        found = {}
        for attr, nodes in assigned.items():
            common: Optional[set[str]] = None
            for node in nodes:
                asserted = {
                    y for y, check in self._asserted_none(node).items()
                    if y != attr and all(self._set_before(n, check) for n in assigned.get(y, ()))
                }
                common = asserted if common is None else common & asserted
                if not common:
                    break
            if common:
                found[attr] = tuple(sorted(common))
        return found

    def _set_before(self, assign: cst.CSTNode, check: cst.Assert) -> bool:
        """Whether `assign` runs before `check` wherever both run: before it in its function,
        or in `__init__` when the assert is in another method (nothing runs a method of an
        object before its `__init__`)."""
        fn, there = self.tree.enclosing_function(assign), self.tree.enclosing_function(check)
        if fn is there:
            return self.tree.precedes(assign, check)
        return fn is not None and fn.name.value == "__init__" and self.tree.enclosing_class(fn) is self.tree.enclosing_class(there)

    @cached_property
    def _self_assignments(self) -> dict[cst.ClassDef, dict[str, list[cst.CSTNode]]]:
        """For each class, the assignments (and bare annotations) of `self.<attr>` in it, by
        attribute, in source order; one pass over the module's assignments."""
        found: dict[cst.ClassDef, dict[str, list[cst.CSTNode]]] = {}
        for node in self.tree.assigns:
            cls = self.tree.enclosing_class(node)
            if cls is None:
                continue
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for t in targets:
                for attr in _self_attributes(t):
                    found.setdefault(cls, {}).setdefault(attr, []).append(node)
        return found

    @cached_property
    def _set_attributes(self) -> dict[cst.ClassDef, dict[str, list[cst.CSTNode]]]:
        """`_self_assignments` that set the attribute, in a method, to anything but None (an
        augmented one included; a bare annotation sets nothing)."""
        found: dict[cst.ClassDef, dict[str, list[cst.CSTNode]]] = {}
        for cls, by_attr in self._self_assignments.items():
            for attr, nodes in by_attr.items():
                kept = [
                    n for n in nodes
                    if self.tree.enclosing_function(n) is not None and n.value is not None
                    and (isinstance(n, cst.AugAssign) or not is_none(n.value))
                ]
                if kept:
                    found.setdefault(cls, {})[attr] = kept
        return found

    def _asserted_none(self, node: cst.CSTNode) -> dict[str, cst.Assert]:
        """The attributes of the object that an `assert self.<y> is None` (or a part of an
        `and` it asserts) checks before `node` on every way to it: the statements before it in
        its block and in each block around it, up to its function."""
        found: dict[str, cst.Assert] = {}
        child = node
        for parent in self.tree.ancestors(node):
            if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                break
            if isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                for statement in parent.body:
                    if statement is child:
                        break
                    for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else (statement,):
                        if isinstance(small, cst.Assert):
                            for part in _operands(small.test, cst.And):
                                if isinstance(compared_to_none(part), cst.Is) and isinstance(part.left, cst.Attribute) \
                                        and self._is_self(part.left.value):  # type: ignore[attr-defined]
                                    found.setdefault(part.left.attr.value, small)  # type: ignore[attr-defined]
            child = parent
        return found

    @cached_property
    def _storing_scaled(self) -> set[cst.ClassDef]:
        """The classes of `ClassInfo.stores_scaled`, found in one pass over the module's calls:
        a `setattr(self, name, <scaled>)` in a method whose `name` is no string literal (an
        attribute named in the code is followed as written)."""
        return {
            cls for call in self.tree.calls
            if isinstance(call.func, cst.Name) and call.func.value == "setattr"
            and len(call.args) == 3 and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "self"
            and not isinstance(call.args[1].value, (cst.SimpleString, cst.ConcatenatedString))
            and (cls := self.tree.enclosing_class(call)) is not None and self._scaled_ref(call.args[2].value) is not None
        }

    def _constructor_arguments(self, c: cst.ClassDef) -> dict[str, BindingInfo]:
        """The attributes the class binds once, in `__init__`, to a parameter of it
        (`self.optimizer = optimizer`) and nowhere else: an instance of the class the
        parameter's annotation names (`distiller: Optional[KnowledgeDistiller]`), else, for one
        the class steps or back-propagates through, of whatever the project's constructions of
        the class pass there (`Trainer(optimizer=build_optimizer(...))`), for the project model
        to say."""
        init = next((f for f in _statements(c.body) if isinstance(f, cst.FunctionDef) and f.name.value == "__init__"), None)
        if init is None:
            return {}
        params = {p.name.value for p in (*init.params.posonly_params, *init.params.params[1:], *init.params.kwonly_params)}
        assigned = self._self_assignments.get(c, {})
        # (only those whose `step(...)` or `backward(...)` the class calls: what a wrapper's
        # class decides, and all the search for constructions is paid for)
        stepped = {
            call.func.value.attr.value for call in self.tree.calls
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("step", "backward")
            and isinstance(call.func.value, cst.Attribute) and self._is_self(call.func.value.value)
            and self.tree.enclosing_class(call) is c
        }
        out = {}
        for attr in sorted(assigned):
            nodes = assigned[attr]
            node = nodes[0] if len(nodes) == 1 else None
            if not isinstance(node, cst.Assign) or self.tree.enclosing_function(node) is not init:
                continue
            if isinstance(node.value, cst.Name) and node.value.value in params:
                name = node.value.value
                # (an annotation says it for any attribute; a search of the constructions is
                # paid for only where the class steps or back-propagates through it)
                found = self._annotated_instance(init, name)
                if found is None and attr in stepped:
                    found = BindingInfo("instance", passed_as=name)
                if found is not None:
                    out[attr] = found
        return out

    def _property_of(self, fn: cst.FunctionDef) -> Optional[str]:
        """The attribute a `@property` hands out: every `return` of it returns `self.<attr>`
        (LAVIS's `scaler` property building `self._scaler` on first use)."""
        if not any(dotted(d.decorator) in ("property", "cached_property", "functools.cached_property") for d in fn.decorators):
            return None
        held = {
            r.value.attr.value if isinstance(r.value, cst.Attribute) and self._is_self(r.value.value) else None
            for r in self.tree.returns_of(fn)
        }
        return held.pop() if len(held) == 1 else None

    def _escapes(self, c: cst.ClassDef) -> tuple[frozenset[str], frozenset[str]]:
        """`self.<attr>` uses that hand the attribute itself on (returned, stored, aliased):
        anything but calling one of its methods; and apart from those, the attributes passed
        whole as an argument of a call of a named function or method, which the calls' targets
        may be followed into."""
        out, handed = set(), set()
        for node in self.tree.attributes:
            if not (isinstance(node.value, cst.Name) and node.value.value == "self"):
                continue
            if self.tree.enclosing_class(node) is not c:
                continue
            parent = self.tree.parent(node)
            if isinstance(parent, cst.Attribute) and parent.value is node:
                continue  # self.x.method(...), self.x.attr
            if isinstance(parent, cst.AssignTarget) or (isinstance(parent, cst.AnnAssign) and parent.target is node):
                continue
            if self._only_tested(node, parent):
                continue  # `if self.scaler is not None:`, `if not self.scaler:`: nothing is handed on
            if self._kept_alias(node, parent):
                continue  # `scaler = self.scaler`, then only its methods called
            if isinstance(parent, cst.Return) and self._returned_by_property(node):
                continue  # `@property def scaler(self): return self._scaler`: its uses are the property's
            if self._passed_to_a_named_call(node, parent):
                handed.add(node.attr.value)
                continue
            out.add(node.attr.value)
        return frozenset(out), frozenset(handed - out)

    def _passed_to_a_named_call(self, node: cst.Attribute, parent: Optional[cst.CSTNode]) -> bool:
        """`f(..., self.scaler)`, `helper.clip(params, scaler=self.scaler)`: a whole argument
        (not unpacked) of a call of a name or an attribute, which the call's op records."""
        if not (isinstance(parent, cst.Arg) and parent.value is node and not parent.star):
            return False
        call = self.tree.parent(parent)
        return isinstance(call, cst.Call) and isinstance(call.func, (cst.Name, cst.Attribute)) and (
            not isinstance(call.func, cst.Name) or call.func.value not in _BUILTINS
        )

    def _only_tested(self, node: cst.Attribute, parent: Optional[cst.CSTNode]) -> bool:
        """`_tested_only`, also as an operand of `and`/`or` that is itself only tested (`if
        self.scaler and "scaler" in state:`): its value goes no further than the test."""
        while isinstance(parent, cst.BooleanOperation):
            node, parent = parent, self.tree.parent(parent)
        return _tested_only(node, parent)

    def _returned_by_property(self, node: cst.Attribute) -> bool:
        fn = self.tree.enclosing_function(node)
        return fn is not None and self._property_of(fn) == node.attr.value

    def _kept_alias(self, node: cst.Attribute, parent: Optional[cst.CSTNode]) -> bool:
        """`name = self.<attr>` in a method that only calls non-`update` methods on `name`."""
        if not (isinstance(parent, cst.Assign) and parent.value is node and len(parent.targets) == 1):
            return False
        target = parent.targets[0].target
        fn = self.tree.enclosing_function(node)
        return isinstance(target, cst.Name) and fn is not None and keeps_alias(fn, target.value, f"self.{node.attr.value}")

    # -- functions ------------------------------------------------------------------------------------
    def _program(self, fn: Optional[cst.FunctionDef]) -> FunctionProgram:
        ops: list[Op] = []
        if fn is None:
            self._block(_statements(self.tree.module), (), ops)
            return FunctionProgram("", None, (), (), {}, ops, node=self.tree.module)
        self._block(_statements(fn.body), (), ops)
        cls = self.tree.enclosing_class(fn)
        in_class = cls is not None and self.tree.parent(self.tree.parent(fn)) is cls
        params = _positional_params(fn)
        static = any(dotted(d.decorator) == "staticmethod" for d in fn.decorators)
        self_name = params[0] if in_class and params and not static else None
        param_bindings = {}
        for name in param_names(fn):
            info = self._info(self.b.param_binding(fn, name)) or self._annotated_instance(fn, name)
            if info is not None:
                param_bindings[name] = info
        kwonly = tuple(p.name.value for p in fn.params.kwonly_params)
        rebound = tuple(name for name in (*params, *kwonly) if self.b.consts.assigns(fn, name))
        scaled, scaled_items = self._returns_scaled(fn)
        return FunctionProgram(
            scope_key(self.tree, fn), scope_key(self.tree, cls) if in_class and cls is not None else None,
            tuple(params), kwonly, param_bindings, ops, self_name, self._returns(fn), self._returns_items(fn),
            rebound=rebound, returns_function=self._returns_function(fn), none_defaults=_none_defaults(fn),
            returns_scaled=scaled, returns_scaled_items=scaled_items, returns_enabled_by=self._returns_enabled_by(fn),
            asserted=self._asserted(fn, ops), node=fn,
        )

    def _asserted(self, fn: cst.FunctionDef, ops: list[Op]) -> tuple[Asserted, ...]:
        """The `assert` statements among the top-level statements of `fn`'s body, each with the
        number of `fn`'s ops written before it."""
        return tuple(
            Asserted(sum(1 for op in ops if op.node is not None and self.tree.precedes(op.node, small)), self._test(small.test))
            for stmt in _statements(fn.body) if isinstance(stmt, cst.SimpleStatementLine)
            for small in stmt.body if isinstance(small, cst.Assert)
        )

    def _returns_enabled_by(self, fn: cst.FunctionDef) -> Optional[str]:
        """The parameter (never assigned anew) whose value every `return` of `fn` builds the
        GradScaler it returns `enabled=` by, built there or bound to a local first."""
        found = set()
        for node in self.tree.returns_of(fn):
            value = node.value
            if isinstance(value, cst.Name):
                local = self.b.lookup(value, node)
                value = local.node if local is not None and local.kind == "scaler" and not local.inferred else None
            built = self.b.built_scaler(value) if isinstance(value, cst.Call) else None
            if built is None or built.enabled is not None or len(built.toggles) != 1 or (built.toggles[0], True) not in built.on_when:
                return None
            found.add(built.toggles[0])
        name = found.pop() if len(found) == 1 else None
        return name if name is not None and name in param_names(fn) and not self.b.consts.assigns(fn, name) else None

    def _returns_scaled(self, fn: cst.FunctionDef) -> tuple[Optional[Scaled], tuple[Optional[Scaled], ...]]:
        """The scaled value some `return` of `fn` returns, whole or in each place of a tuple
        literal (betty's `get_loss`: `loss = self.scaler.scale(loss)` when a scaler is set, then
        `return loss, loss_dict`). One such `return` is enough: on a path without it no scaler
        was at hand to scale with, so none unscales what the caller back-propagates."""
        whole: Optional[Scaled] = None
        items: list[Optional[Scaled]] = []
        for node in self.tree.returns_of(fn):
            if isinstance(node.value, cst.Tuple):
                for i, el in enumerate(node.value.elements):
                    found = None if isinstance(el, cst.StarredElement) else self._scaled_ref(el.value)
                    if found is not None:
                        items.extend([None] * (i + 1 - len(items)))
                        items[i] = items[i] or found
            elif node.value is not None:
                whole = whole or self._scaled_ref(node.value)
        return whole, tuple(items)

    def _returns_function(self, fn: cst.FunctionDef) -> Optional[str]:
        """The function defined in `fn` itself that every `return` of it returns by name."""
        found = set()
        for node in self.tree.returns_of(fn):
            name = node.value.value if isinstance(node.value, cst.Name) else None
            inner = self._local_functions.get((fn, name)) if name is not None else None
            if inner is None:
                return None
            found.add(scope_key(self.tree, inner))
        return f"{self.module_name}.{found.pop()}" if len(found) == 1 else None

    def _annotated_instance(self, fn: cst.FunctionDef, name: str) -> Optional[BindingInfo]:
        """A parameter annotated with a class the project may hold (`engine: SupervisedTrainer`,
        `Optional[Trainer]`, `Trainer | None`): an instance of it, so what the class binds its
        attributes to is what `engine.scaler` is. torch's own classes say nothing here."""
        p = named_param(fn, name)
        if p is None or p.annotation is None:
            return None
        cls = self._class_name(_without_none(p.annotation.annotation))
        return BindingInfo("instance", cls=cls) if cls is not None and not cls.startswith("torch.") else None

    def _returns(self, fn: cst.FunctionDef) -> Optional[str]:
        """The class a function's annotation says it returns (a class of the file named in a
        string too: `-> "Optimizers"`, a forward reference), else the one class every `return`
        constructs (`return Optimizers(config, groups)`) or returns a local GradScaler of
        (`scaler = make() if amp else None; return scaler`). `-> Any` names no class: what the
        `return`s build says it."""
        if fn.returns is not None:
            annotation = fn.returns.annotation
            if not isinstance(annotation, cst.SimpleString):
                named = self._class_name(annotation)
                if named not in _ANY:
                    return named
            else:
                local = self.b.class_named(annotation.raw_value)
                if local is not None:
                    return f"{self.module_name}.{scope_key(self.tree, local)}"
        found = {self._returned_class(node.value, node) for node in self.tree.returns_of(fn)}
        if len(found) > 1 and all(c is not None and is_scaler_class(c) for c in found):
            # `torch.amp.GradScaler(...)`, else `torch.cuda.amp.GradScaler(...)` on an older
            # torch: one class (the second is a subclass of the first), spelled two ways
            return min(c for c in found if c is not None)
        return found.pop() if len(found) == 1 else None

    def _returns_items(self, fn: cst.FunctionDef) -> tuple[Optional[str], ...]:
        """`_returns` for each place of the tuple literals its `return`s return (`return model,
        optimizer, scaler`), when all of them have one length. What a caller unpacks comes from
        those: a `return model` beside them (`get_model(train=False)`) is the path on which the
        caller could not unpack the value."""
        returns = self.tree.returns_of(fn)
        tuples = [node for node in returns if isinstance(node.value, cst.Tuple)]
        if not tuples:
            return ()
        widths = {len(node.value.elements) for node in tuples}
        if len(widths) != 1:
            return ()
        places: list[set[Optional[str]]] = [set() for _ in range(widths.pop())]
        for node in tuples:
            for place, el in zip(places, node.value.elements):
                place.add(None if isinstance(el, cst.StarredElement) else self._returned_class(el.value, node))
        return tuple(place.pop() if len(place) == 1 else None for place in places)

    def _returned_class(self, value: cst.BaseExpression, at: cst.CSTNode) -> Optional[str]:
        """The class of a returned value: a local GradScaler's, a local optimizer's built from
        its class (`optD = torch.optim.Adam(...)`), a local object's of a class named where it
        was built, or the class a call constructs, also moved as modules move (`return
        Agent(...).to(device)`: `Module.to` returns the module itself)."""
        while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in MODULE_CHAIN \
                and isinstance(value.func.value, cst.Call):
            value = value.func.value
        local = self.b.lookup(value, at) if isinstance(value, cst.Name) else None
        if local is not None and local.kind == "scaler" and not local.inferred:
            return local.qualname
        if local is not None and local.kind == "optimizer" and local.maker is None and local.qualname is not None \
                and is_optimizer_class(local.qualname, local.qualname.rsplit(".", 1)[-1]):
            return local.qualname
        if local is not None and local.kind in ("object", "model", "instance") and local.maker is None:
            # a local built from a class first (`multi_optim = MultiOptimizer(...); return multi_optim`)
            return f"{self.module_name}.{scope_key(self.tree, local.cls)}" if local.cls is not None else local.class_qualname
        if local is None and isinstance(value, cst.Name):
            # `clip = None; if cfg.clip: clip = ClipGrad(...); return clip`: what the caller
            # calls on the result (or calls it) runs on the object whenever it can run at all
            built = [v for v in self.b.reaching_values(value) or () if not is_none(v)]
            classes = {self._class_name(v.func) if isinstance(v, cst.Call) else None for v in built}
            return classes.pop() if len(classes) == 1 else None
        return self._class_name(value.func) if isinstance(value, cst.Call) else None

    def _class_name(self, expr: cst.BaseExpression) -> Optional[str]:
        text = dotted(expr)
        if text is None:
            return None
        local = self.b.class_named(text)
        if local is not None:
            return f"{self.module_name}.{scope_key(self.tree, local)}"
        q = self.tree.qualname(expr)
        return q if q is not None and q.rpartition(".")[2][:1].isupper() else None

    def _info(self, b: Optional[Binding]) -> Optional[BindingInfo]:
        if b is None:
            return None
        cls = f"{self.module_name}.{scope_key(self.tree, b.cls)}" if b.cls is not None else b.class_qualname
        return BindingInfo(
            b.kind, b.qualname, b.enabled, b.device, cls, b.inferred, b.toggles, self._maker(b), b.item, unit_scale=b.unit_scale, on_when=b.on_when,
            used_as_scaler=b.kind == "instance" and b.maker is not None and self.b.used_as_scaler(b),
            made_args_on=self.b.argument_conditions(b.node) if b.kind == "instance" and b.maker is not None and isinstance(b.node, cst.Call) else (),
            owns=self._owns(b) if b.kind == "optimizer" else None,
        )

    def _owns(self, b: Binding) -> Optional[tuple[str, str]]:
        """Where an optimizer was built, and the module whose parameters (all, and only those)
        it was built from, when that module is an object of its own (`_own_module`): a name
        means one object only in the scope it is written in."""
        receiver = _parameters_receiver(call_argument(b.node, "params", 0)) if isinstance(b.node, cst.Call) else None
        module = dotted(receiver) if receiver is not None and self._own_module(receiver) else None
        if module is None:
            return None
        where = self.tree.enclosing_class(b.node) if module.startswith("self.") else self.tree.enclosing_function(b.node)
        return (scope_key(self.tree, where), module) if where is not None else ("", module)

    def _own_module(self, expr: cst.BaseExpression) -> bool:
        """Whether a module (a name, or a `self.` attribute) is an object of its own, sharing
        no parameters with another: every value assigned to it constructs a class (`DiscreteFF(
        obs_size, ...).to(device)`) from arguments that name no other object of its scope (no
        `self.` attribute, no local assigned a call), so neither a wrapper of another module
        (`DDP(model)`, `nn.Sequential(self.backbone, self.head)`) nor an alias of one
        (`model_without_ddp = model.module`). A wrapper of the module itself, bound to its own
        name (`generator = torch.compile(generator)`), keeps its parameters."""
        values = self.tree.values_of(expr)
        return bool(values) and all(self._fresh_construction(v, dotted(expr)) for v in values)

    def _fresh_construction(self, value: cst.BaseExpression, own: Optional[str]) -> bool:
        """A construction of a class, or a call of a factory function (the module's own or an
        imported module's: `make_model(args.arch)`, `timm.create_model(...)`; not a method of
        an object, which may hand back a module it holds), moved or switched to a mode at most,
        handed nothing that names another object of its scope: no `self.` attribute, and no
        local assigned a call other than a builtin's number or string (`len(classes)`)."""
        while (
            isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in MODULE_CHAIN
        ):
            value = value.func.value
        if not isinstance(value, cst.Call):
            return False
        name = dotted(value.func)
        if name is None or (not name.rpartition(".")[2][:1].isupper() and "." in name and self.tree.qualname(value.func) is None):
            return False
        for arg in value.args:
            for node in preorder(arg.value):
                text = dotted(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
                if text is None or text == own:
                    continue
                if text.startswith("self.") or (
                    isinstance(node, cst.Name) and any(
                        isinstance(v, cst.Call) and not (isinstance(v.func, cst.Name) and v.func.value in _SCALAR_BUILTINS) for v in self.tree.values_of(node)
                    )
                ):
                    return False
        return True

    def _maker(self, b: Binding) -> Optional[str]:
        return self._maker_of(b.maker, b.node if isinstance(b.node, cst.Call) else None)

    def _maker_of(self, func: Optional[cst.BaseExpression], call: Optional[cst.Call]) -> Optional[str]:
        """What `call` calls by `func`, as `BindingInfo.made_by` names it: `self.<method>` for a
        method of the object, a function of this file by its qualified name, an imported one by
        what it resolves to (a name needs the call it is written in)."""
        if isinstance(func, cst.Attribute):
            return f"self.{func.attr.value}"
        if isinstance(func, cst.Name) and call is not None:
            local = self._local_function(call, func.value)
            return f"{self.module_name}.{local}" if local is not None else self.tree.qualname(func)
        return None

    # -- statements -------------------------------------------------------------------------------------
    def _guard(self, node: cst.CSTNode, branch: Branch, case: int = 0) -> GuardSpec:
        k = (id(node), branch, case)
        g = self._guard_cache.get(k)
        if g is None:
            kind = _GUARD_KINDS[type(node)]
            tested = node.test if isinstance(node, (cst.If, cst.While, cst.IfExp)) else node.iter if isinstance(node, cst.For) else None
            test = self._test(tested) if tested is not None else None
            binds = _loop_binds(node.target) if isinstance(node, cst.For) else ()
            passes = self._length(node.iter) if isinstance(node, cst.For) else None
            g = self._guard_cache[k] = GuardSpec(kind, branch, id(node), test, case, binds, passes, node=node)
        return g

    def _length(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[int]:
        """How many items a sequence the code spells out holds: a list, tuple or dict literal
        (or a local name bound to one), its `.values()` / `.items()`, `enumerate` of it, `zip`
        of such. None where the length is not written (`for opt in optimizers` of a parameter)."""
        if depth > 3:
            return None
        if isinstance(expr, (cst.List, cst.Tuple)):
            return None if any(isinstance(e, cst.StarredElement) for e in expr.elements) else len(expr.elements)
        if isinstance(expr, cst.Dict):
            return None if any(isinstance(e, cst.StarredDictElement) for e in expr.elements) else len(expr.elements)
        if isinstance(expr, cst.Name):
            value = self.b.reaching_value(expr)
            return self._length(value, depth + 1) if value is not None else None
        if not isinstance(expr, cst.Call) or any(a.keyword is not None or a.star for a in expr.args):
            return None
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("values", "items", "keys") and not expr.args:
            return self._length(func.value, depth + 1)
        if isinstance(func, cst.Name) and func.value == "enumerate" and len(expr.args) == 1:
            return self._length(expr.args[0].value, depth + 1)
        if isinstance(func, cst.Name) and func.value == "zip" and expr.args:
            lengths = [self._length(a.value, depth + 1) for a in expr.args]
            return None if None in lengths else min(lengths)  # type: ignore[type-var]
        return None

    def _test(self, expr: cst.BaseExpression) -> Test:
        names, calls, strings = [], [], []
        versions: dict[str, tuple[int, ...]] = {}
        ordered = False
        for node in preorder(expr):
            if isinstance(node, cst.ComparisonTarget):
                ordered = ordered or isinstance(node.operator, _ORDER)
            elif isinstance(node, (cst.Name, cst.Attribute)):
                parent = self.tree.parent(node)
                if isinstance(parent, cst.Attribute) and parent.attr is node:
                    continue
                if isinstance(node, cst.Name) and (found := self.b.reaching_defs(node)):
                    versions[node.value] = found
                if isinstance(parent, cst.Attribute) and parent.value is node:
                    continue  # a part of a longer name
                text = dotted(node)
                if text is not None:
                    names.append(text)
                if isinstance(parent, cst.Call) and parent.func is node:
                    calls.append(node.attr.value if isinstance(node, cst.Attribute) else node.value)
            elif isinstance(node, cst.SimpleString):
                value = literal(node)
                strings.append(value if isinstance(value, str) else value.decode("latin-1"))
        conjuncts, disjuncts = _operands(expr, cst.And), _operands(expr, cst.Or)
        negated = expr.expression if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not) else None
        named, called, said, read = tuple(dict.fromkeys(names)), tuple(dict.fromkeys(calls)), tuple(strings), tuple(sorted(versions.items()))
        present = frozenset(_not_none_tests(expr))
        return Test(
            self.tree.condition_text(expr), named, called, said, ordered,
            tuple(self._test(p) for p in conjuncts) if len(conjuncts) > 1 else (),
            tuple(self._test(p) for p in disjuncts) if len(disjuncts) > 1 else (),
            self._test(negated) if negated is not None else None, read,
            Test(self.tree.condition_text(expr, present), named, called, said, ordered, versions=read) if present else None,
            self._opposite(expr, named, read),
            compared_to_string(expr),
            _pins_one(expr, versions),
            self._at_one(expr, named, versions),
            _none_of(expr),
        )

    def _at_one(self, expr: cst.BaseExpression, names: tuple[str, ...], versions: dict[str, tuple[int, ...]]) -> tuple[tuple[str, Optional[tuple[int, ...]], bool], ...]:
        """`Test.at_one`: the test worked out with each name it reads, or that the one value
        of a local it reads reads, set to 1."""
        if not isinstance(expr, (cst.Comparison, cst.BooleanOperation, cst.UnaryOperation)):
            return ()  # (a bare name or call: nothing to work out)
        through: dict[str, None] = {}
        for node in preorder(expr):
            if isinstance(node, cst.Name):
                value = self.tree.only_value(node)
                if value is not None:
                    through.update((n, None) for n in _dotted_names(value))
        found = []
        for name in dict.fromkeys((*names, *through)):
            value = self.b.consts.assuming(name, 1).truth(expr)
            if value is not None:
                found.append((name, versions.get(name, ()) if name in names else None, value))
        return tuple(found)

    def _opposite(self, expr: cst.BaseExpression, names: tuple[str, ...], versions: tuple) -> Optional[Test]:
        """`x is not None` for the test `x is None`, and the other way round."""
        operator = compared_to_none(expr)
        if not isinstance(operator, (cst.Is, cst.IsNot)):
            return None
        other = "is" if isinstance(operator, cst.IsNot) else "is not"
        mine = _none_of(expr)
        return Test(
            f"({self.tree.condition_text(expr.left)} {other} None)", names, versions=versions,  # type: ignore[attr-defined]
            none_of=(mine[0], not mine[1]) if mine is not None else None,
        )

    def _loop_kind(self, loop: Union[cst.For, cst.While]) -> Branch:
        """"retry" for a loop that runs its body once: one whose body ends by leaving it
        (`while True: try: ...; return`), which repeats only when a `continue` sends it round
        again, or a `for _ in range(n)` with `n` a constant 1 (Applio's `d_step_per_g_step =
        1`). Neither is a training iteration."""
        if isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call) and dotted(loop.iter.func) == "range":
            args = loop.iter.args
            if len(args) == 1 and args[0].keyword is None and not args[0].star and self.b.consts.value(args[0].value) == 1:
                return Branch.RETRY
        return Branch.RETRY if _exits(loop.body, leaving=(cst.Break, cst.Return, cst.Raise)) else Branch.LOOP

    def _block(self, stmts: Sequence[cst.CSTNode], guards: tuple[GuardSpec, ...], out: list[Op]) -> None:
        for stmt in stmts:
            start = len(out)
            self._statement(stmt, guards, out)
            if isinstance(stmt, cst.If) and stmt.orelse is None and _exits(stmt.body):
                after = self._guard(stmt, Branch.ORELSE)
                after.aborts = _exits(stmt.body, (cst.Raise,)) and not self._caught(stmt)
                guards = (*guards, after)
                continue
            # (a loop's own `break` leaves only the loop: the code after it runs next)
            leaving = [b for b, by_loop in _exiting(stmt, self._exits) if not (by_loop and isinstance(stmt, _LOOPS))] \
                if isinstance(stmt, _COMPOUND) else []
            if not leaving:
                continue
            # a path through `stmt` leaves it (and the code after it) early: what runs on that
            # path and what runs after `stmt` never meet in one pass (imaginaire's skip branch:
            # `scaler.step(opt); scaler.update(); break`, then the regular step and update)
            # (LEFT's case numbers the path from 1, STAYED's counts them). An op inside `stmt`
            # from which no leaving path can follow stays too (the else of imaginaire's
            # if-chain); one that may go either way (before a `return` on its branch) has neither.
            # The ways out of different branches of an `if` are alternatives of their own: an op
            # of one branch can take none of another's, so each branch's are counted apart.
            for key, group in self._by_branch(stmt, leaving):
                lefts = [GuardSpec(GuardKind.EXIT, Branch.LEFT, key, case=i, node=stmt) for i in range(1, len(group) + 1)]
                stayed = GuardSpec(
                    GuardKind.EXIT, Branch.STAYED, key, case=len(group), node=stmt,
                    aborts=all(_exits(b, (cst.Raise,)) for b in group) and not self._caught(stmt),
                )
                for op in out[start:]:
                    if op.node is None:
                        continue
                    inside = [i for i, b in enumerate(group) if self.tree.within(op.node, b)]
                    on = lefts[inside[-1]] if inside else None  # (the innermost way out it is in)
                    op.runs_before_leaving += tuple((stayed, case) for case in self._taken_after(op.node, group))
                    if on is None:
                        ahead = tuple((stayed, case) for case in self._ways_ahead(op.node, stmt, group))
                        if ahead:
                            op.ways_ahead += ahead
                        else:
                            on = stayed
                    if on is not None:
                        op.guards = (*op.guards, on)
                guards = (*guards, stayed)

    def _by_branch(self, stmt: cst.CSTNode, leaving: list[cst.BaseSuite]) -> Iterator[tuple[int, list[cst.BaseSuite]]]:
        """The blocks that leave a statement early, in groups that exclude each other: no
        two blocks of different groups can run in one pass, as they lie in different branches
        of an `if` inside the statement (or of the statement itself). Each group is keyed by
        the statement (the first) or its first block."""
        paths = [self._branches(b, stmt) for b in leaving]
        groups: list[list[int]] = []
        for i, path in enumerate(paths):
            joined = [g for g in groups if any(_compatible(path, paths[j]) for j in g)]
            merged = [i] + [j for g in joined for j in g]
            groups = [g for g in groups if g not in joined] + [sorted(merged)]
        for n, g in enumerate(sorted(groups)):
            yield (id(stmt) if n == 0 else id(leaving[g[0]])), [leaving[j] for j in g]

    def _branches(self, block: cst.CSTNode, stmt: cst.CSTNode) -> dict[int, int]:
        """For each `if` from `block` up to `stmt` (included), which of its blocks holds it."""
        out: dict[int, int] = {}
        for anc in self.tree.ancestors(block):
            if isinstance(anc, cst.If):
                out[id(anc)] = next(i for i, suite in enumerate(_child_suites(anc)) if self.tree.within(block, suite))
            if anc is stmt:
                break
        return out

    def _taken_after(self, node: cst.CSTNode, leaving: list[cst.BaseSuite]) -> tuple[int, ...]:
        """The `leaving` blocks (numbered from 1) in a statement after `node`'s own, in the
        block that holds it: a pass that leaves by one of them ran `node` first."""
        child: cst.CSTNode = node
        for anc in self.tree.ancestors(node):
            if isinstance(anc, cst.BaseSuite):
                return self._held_by(leaving, _later_in_block(anc, child))
            child = anc
        return ()

    def _held_by(self, leaving: list[cst.BaseSuite], containers: Sequence[cst.CSTNode]) -> tuple[int, ...]:
        """The `leaving` blocks (numbered from 1) inside one of `containers`."""
        return tuple(i for i, b in enumerate(leaving, 1) if any(self.tree.within(b, c) for c in containers))

    def _caught(self, stmt: cst.CSTNode) -> bool:
        """Whether an exception raised in `stmt` may be handled in its function: a `try` around
        it there with a handler (the pass may go on after it)."""
        child: cst.CSTNode = stmt
        for anc in self.tree.ancestors(stmt):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda)):
                return False
            if isinstance(anc, (cst.Try, cst.TryStar)) and child is anc.body and anc.handlers:
                return True
            child = anc
        return False

    def _ways_ahead(self, node: cst.CSTNode, stmt: cst.CSTNode, leaving: list[cst.BaseSuite]) -> tuple[int, ...]:
        """The `leaving` blocks of `stmt` (numbered from 1) a path through it that runs `node`
        can still go on into: one later in a block around `node` (inside `stmt`), anywhere in a
        loop around it that runs again, or an `except` of a `try` whose body holds it (an
        exception in the `try` sends it to a handler that leaves)."""
        found: set[int] = set()
        child: cst.CSTNode = node
        for anc in self.tree.ancestors(node):
            if isinstance(anc, (cst.Try, cst.TryStar)) and child is anc.body and not (
                self._scaler_call(node) and self._completes(node, anc.body)
            ):
                found.update(self._held_by(leaving, anc.handlers))
            if anc is stmt:
                break
            if isinstance(anc, (cst.For, cst.While)):
                found.update(self._held_by(leaving, [anc]))
            if isinstance(anc, cst.BaseSuite):
                found.update(self._held_by(leaving, _later_in_block(anc, child)))
            child = anc
        return tuple(sorted(found))

    def _completes(self, node: cst.CSTNode, body: cst.BaseSuite) -> bool:
        """Whether `node` returning completes the `try` body `body`: it is the whole of an
        expression statement that ends its block but for GradScaler updates (`_updates`), that
        block ends the `if` or `else` holding it, and so on up to `body`, with no loop or `with`
        between. Once it has returned, nothing of the body that can raise in a valid run is left,
        so no handler runs after it (a `scaler.step(opt)` that ends a `try` whose handler skips
        the `update()` after it has not stepped when the handler runs; nor has one followed by
        `scaler.update()` alone, in a `try` around the whole step that catches an OOM)."""
        child: cst.CSTNode = node
        for anc in self.tree.ancestors(node):
            if isinstance(anc, cst.SimpleStatementSuite):  # (`try: scaler.step(opt); log()` on one line)
                ok = anc.body[-1] is child
                if anc is body:
                    return ok
            elif isinstance(anc, cst.BaseSuite):
                ok = all(self._updates(later) for later in _later_in_block(anc, child))
                if anc is body:
                    return ok
            elif isinstance(anc, cst.Expr):
                ok = anc.value is child
            elif isinstance(anc, cst.SimpleStatementLine):
                ok = len(anc.body) == 1 and anc.body[0] is child
            else:
                ok = isinstance(anc, cst.Else) or (isinstance(anc, cst.If) and child is not anc.test)
            if not ok:
                return False
            child = anc
        return False

    def _updates(self, stmt: cst.CSTNode) -> bool:
        """Whether `stmt` is a GradScaler's `update()` alone (`scaler.update()`,
        `scaler.update(new_scale)`): it raises only where no inf check was recorded, a misuse
        the rules report themselves, never in a run the protocol allows."""
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)):
            return False
        call = stmt.body[0].value
        return self._scaler_call(call) and call.func.attr.value == "update" and len(call.args) <= 1  # type: ignore[union-attr]

    def _scaler_call(self, node: cst.CSTNode) -> bool:
        """Whether `node` calls a method of an object bound to a GradScaler here: torch's code,
        whose effect on the scaler is done once it returns (a call of a project function runs
        its own steps inside the call, each of which something after it may still follow)."""
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            return False
        b = self.b.lookup(node.func.value, node)
        return b is not None and b.kind == "scaler"

    def _statement(self, stmt: cst.CSTNode, guards: tuple[GuardSpec, ...], out: list[Op]) -> None:
        def sub(body: cst.CSTNode, guard: Optional[GuardSpec]) -> None:
            self._block(_statements(body), guards if guard is None else (*guards, guard), out)

        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return
        if isinstance(stmt, cst.If):
            self._expr(stmt.test, guards, out)
            holds = self.b.consts.truth(stmt.test)  # a branch a constant test never takes runs nothing
            if holds is not False:
                sub(stmt.body, self._guard(stmt, Branch.BODY))
            if holds is True:
                return
            if isinstance(stmt.orelse, cst.If):
                self._block([stmt.orelse], (*guards, self._guard(stmt, Branch.ORELSE)), out)
            elif stmt.orelse is not None:
                sub(stmt.orelse.body, self._guard(stmt, Branch.ORELSE))
        elif isinstance(stmt, cst.For):
            self._expr(stmt.iter, guards, out)
            sub(stmt.body, self._guard(stmt, self._loop_kind(stmt)))
            if stmt.orelse is not None:
                sub(stmt.orelse.body, None)
        elif isinstance(stmt, cst.While):
            self._expr(stmt.test, guards, out)
            sub(stmt.body, self._guard(stmt, self._loop_kind(stmt)))
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                self._expr(item.item, guards, out)
            sub(stmt.body, None)
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            sub(stmt.body, None)
            for h in stmt.handlers:
                sub(h.body, self._guard(stmt, Branch.EXCEPT))
            if stmt.orelse is not None:
                sub(stmt.orelse.body, None)
            if stmt.finalbody is not None:
                sub(stmt.finalbody.body, None)
        elif isinstance(stmt, cst.Match):
            self._expr(stmt.subject, guards, out)
            for i, case in enumerate(stmt.cases):
                sub(case.body, self._guard(stmt, Branch.CASE, i))
        elif isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in stmt.body:
                self._expr(small, guards, out)

    # -- expressions (post-order: an inner call runs before the call that uses its value) -----------
    def _expr(self, node: cst.CSTNode, guards: tuple[GuardSpec, ...], out: list[Op]) -> None:
        kind = type(node)  # exact types: libcst's classes are ABCs, whose isinstance is slow
        if kind in _DEFERRED or node not in self._leads_to_ops:
            return
        if kind is cst.IfExp:  # `scaler.step(opt) if scaler is not None else opt.step()`: each side under its test
            self._expr(node.test, guards, out)  # type: ignore[attr-defined]
            self._expr(node.body, (*guards, self._guard(node, Branch.BODY)), out)  # type: ignore[attr-defined]
            self._expr(node.orelse, (*guards, self._guard(node, Branch.ORELSE)), out)  # type: ignore[attr-defined]
            return
        for child in self.tree.children(node):
            self._expr(child, guards, out)
        if kind is cst.Call:
            op = self._call(node, guards)  # type: ignore[arg-type]
            if op is not None:
                out.append(op)
        elif kind is cst.Attribute and node.attr.value == "grad" and self._is_grad_read(node):  # type: ignore[attr-defined]
            divisors: list[Ref] = []
            if self._reads_magnitude(node, divisors=divisors):  # type: ignore[arg-type]
                out.append(Op(OpKind.GRAD_USE, guards, text=self._text(node), threshold=tuple(divisors), node=node))

    @cached_property
    def _leads_to_ops(self) -> set[cst.CSTNode]:
        """Every call and `.grad` attribute, and the nodes above them: the only subtrees an
        expression walk need enter."""
        return self._leading(self.tree.calls, self.tree.attributes)

    def _leading(self, calls: Iterable[cst.Call], attributes: Iterable[cst.Attribute]) -> set[cst.CSTNode]:
        found: set[cst.CSTNode] = set()
        starts = [*calls, *(a for a in attributes if a.attr.value == "grad")]
        for node in starts:
            while node is not None and node not in found:
                found.add(node)
                node = self.tree.parents.get(node)
        return found

    def _nonfinite(self, call: cst.Call, last: str, guards: tuple[GuardSpec, ...]) -> Op:
        return Op(
            OpKind.NONFINITE, guards, text=self._text(call.func), node=call,
            inert=last in NONFINITE_TESTS and self._only_reported(call),
        )

    def _only_reported(self, call: cst.Call) -> bool:
        """Whether the test `call` decides only an `if` that reports (`if math.isnan(grad_norm):
        print(...)`) or converts a value for a report (`if math.isnan(v): v = str(v)` before a
        JSON log): nothing there leaves the code path, repairs or touches a gradient."""
        found = self._deciding_if(call)
        return found is not None and _only_reports(found, also=self._flag_for_reports)

    def _deciding_if(self, node: cst.CSTNode) -> Optional[cst.If]:
        """The `if` (with no `else`) whose test `node` is in, when that test is all it is part of."""
        for anc in self.tree.ancestors(node):
            if isinstance(anc, cst.If):
                return anc if self.tree.within(node, anc.test) and anc.orelse is None else None
            if isinstance(anc, (cst.BaseCompoundStatement, cst.SimpleStatementLine)):
                return None
        return None

    def _flag_for_reports(self, small: cst.BaseSmallStatement) -> bool:
        """A constant stored in a name that only report-only `if`s of its function read
        (`bad_grad = True`, then `if bad_grad: print(name, grad.mean())`): setting it reports."""
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)):
            return False
        if not isinstance(small.value, (cst.Name, cst.Integer)) or (isinstance(small.value, cst.Name) and small.value.value not in _FLAG_VALUES):
            return False
        target = small.targets[0].target
        fn = self.tree.enclosing_function(small)
        for use in self.tree.name_nodes.get(target.value, ()):
            parent = self.tree.parent(use)
            if self.tree.enclosing_function(use) is not fn or isinstance(parent, (cst.AssignTarget, cst.Param)) or (
                isinstance(parent, cst.Attribute) and parent.attr is use
            ) or (isinstance(parent, cst.Arg) and parent.keyword is use):
                continue  # (a store, another scope's name, `x.bad_grad`, `f(bad_grad=...)`)
            found = self._deciding_if(use)
            if found is None or not _only_reports(found):
                return False
        return True

    def _apex_scaled(self, call: cst.Call, recv: cst.BaseExpression) -> bool:
        """Whether `recv` is the name an enclosing `with apex.amp.scale_loss(...) as <name>:`
        binds: the loss multiplied by apex's scale."""
        if not isinstance(recv, cst.Name):
            return False
        for node in self.tree.ancestors(call):
            if isinstance(node, (cst.FunctionDef, cst.Module)):
                return False
            if isinstance(node, cst.With) and any(
                item.asname is not None and isinstance(item.asname.name, cst.Name) and item.asname.name.value == recv.value
                and isinstance(item.item, cst.Call) and self.tree.qualname(item.item.func) == "apex.amp.scale_loss"
                for item in node.items
            ):
                return True
        return False

    def _result_used(self, call: cst.Call) -> bool:
        """Whether the value of a call is put to use: assigned (but to `_`), passed on, or an
        operand. `Tensor.backward()` returns None, so a `.backward(...)` whose result is kept
        (`feats[i] = trans.backward(feats[i])`, a data transform's inverse) is some other
        object's method, not autograd's. A `return loss.backward()` hands None on, as a
        helper's last line may, and stays a backward; so does one of a loss a scaler scaled
        (`res = scaler.scale(loss).backward()`), which is a tensor whatever is kept."""
        parent = self.tree.parent(call)
        if isinstance(parent, cst.Assign):
            return not all(isinstance(t.target, cst.Name) and t.target.value == "_" for t in parent.targets)
        return isinstance(parent, (cst.AnnAssign, cst.AugAssign, cst.Arg, cst.BinaryOperation, cst.Attribute, cst.Subscript))

    def _own_method(self, call: cst.Call, recv: cst.BaseExpression, name: str) -> bool:
        """Whether `recv.name(...)` calls a method the enclosing class defines itself
        (`self.clip_grad_norm_(...)` of a trainer whose own `clip_grad_norm_` unscales first)."""
        if not self._is_self(recv):
            return False
        cls = self.tree.enclosing_class(call)
        return cls is not None and any(isinstance(s, cst.FunctionDef) and s.name.value == name for s in _statements(cls.body))

    def _call(self, call: cst.Call, guards: tuple[GuardSpec, ...]) -> Optional[Op]:
        func = call.func
        quals = self.tree.names.resolve(func)
        last = last_name(func)
        if quals:
            return self._library_call(call, quals, last, guards)
        if last in NONFINITE:
            return self._nonfinite(call, last, guards)
        if isinstance(func, cst.Attribute):
            recv = func.value
            if _is_super_call(recv):
                return self._op(call, guards, self._self_method(call, func.attr.value, super_=True))
            if func.attr.value in CLIP and not framework_clipper(self._text(recv)) and not self._own_method(call, recv, func.attr.value):
                return self._clip(call, guards)  # FSDP's model.clip_grad_norm_
            if self._is_self(recv):
                return self._op(call, guards, self._self_method(call, func.attr.value))
            if func.attr.value == "backward" and (
                _identically_zero(recv) or (self._result_used(call) and self._scaled_ref(recv) is None)
            ):
                return None  # no gradient changes, scaled or not; or not autograd's backward
            op = self._op(call, guards, Method(self._returned_ref(recv) if func.attr.value == "backward" else self.ref(recv), func.attr.value))
            op.subject = self._text(recv)
            op.apex_scaled = func.attr.value == "backward" and self._apex_scaled(call, recv)
            return op
        if not isinstance(func, cst.Name):
            return None
        if last in CLIP:
            return self._clip(call, guards)
        local = self._local_function(call, func.value) or self._aliased_function(func)
        if local is not None:
            return self._op(call, guards, Local(local))
        if func.value in _BUILTINS:
            return None
        ref = self.ref(func)
        if isinstance(ref, Param) or (isinstance(ref, Value) and ref.binding is not None):
            return self._op(call, guards, Method(ref, "__call__"))
        return self._op(call, guards, Unknown(func.value))

    def _library_call(self, call: cst.Call, quals: frozenset[str], last: Optional[str], guards: tuple[GuardSpec, ...]) -> Optional[Op]:
        if _TORCH_SAVE in quals:
            d = checkpoint_without_scaler(self.tree, self.b, call)
            if d is None:
                return Op(OpKind.SAVE, guards, text=self._text(call.func), node=call)
            optimizer_keys, state_keys = saved_state_keys(self.b, d)
            return Op(
                OpKind.SAVE, guards, text=self._text(call.func), checkpoint=id(d),
                optimizer_keys=optimizer_keys, state_keys=state_keys, node=call,
            )
        if _AUTOGRAD_GRAD in quals:
            outputs = call_argument(call, "outputs", 0)  # (`[scaler.scale(out)]`: a list of one)
            return Op(OpKind.AUTOGRAD_GRAD, guards, args=(self.ref(_only_element(outputs)),) if outputs is not None else (), text=self._text(call.func), node=call)
        torch_only = all(q.startswith("torch.") for q in quals)
        if _AUTOGRAD_BACKWARD in quals:
            positional = [a for a in call.args if a.keyword is None and not a.star]
            if not positional:
                return None
            tensor = _only_element(positional[0].value)
            if _identically_zero(tensor):
                return None
            seed = positional[1] if len(positional) > 1 else next((a for a in call.args if a.keyword is not None and a.keyword.value == "grad_tensors"), None)
            kwargs = (("gradient", self.ref(_only_element(seed.value))),) if seed is not None else ()
            return Op(
                OpKind.CALL, guards, Method(self._returned_ref(tensor), "backward"), kwargs=kwargs, text=self._text(call.func),
                subject=self._text(tensor), node=call,
            )
        if quals and all(q in CLIP_LIKE_TORCH or (q.startswith("torch.") and last in CLIP) for q in quals):
            return self._clip(call, guards)  # (apex's fused clip where installed, torch's where not: either way a clip)
        if last in NONFINITE:
            return self._nonfinite(call, last, guards)
        if torch_only or any(q.startswith("torch.") for q in quals):
            return None
        callee: Callee = Imported(next(iter(quals))) if len(quals) == 1 else Unknown(last or "")
        return self._op(call, guards, callee)

    def _op(self, call: cst.Call, guards: tuple[GuardSpec, ...], callee: Callee) -> Op:
        args: list[Optional[Ref]] = []
        kwargs: list[tuple[str, Ref]] = []
        star = False
        for a in call.args:
            if a.star:
                star = True
            elif a.keyword is not None:
                kwargs.append((a.keyword.value, self.ref(a.value)))
            else:
                args.append(self.ref(a.value))
        return Op(OpKind.CALL, guards, callee, tuple(args), tuple(kwargs), star, self._text(call.func), node=call)

    def _self_method(self, call: cst.Call, name: str, super_: bool = False) -> Callee:
        cls = self.tree.enclosing_class(call)
        if cls is None:
            return Unknown(name)
        return SelfMethod(name, f"{self.module_name}.{scope_key(self.tree, cls)}", super_)

    # -- references -------------------------------------------------------------------------------------
    def ref(self, expr: cst.BaseExpression) -> Ref:
        """What an expression stands for at its place in its function."""
        if isinstance(expr, cst.IfExp) and is_none(expr.orelse) != is_none(expr.body):
            # `scaler if use_amp else None`: the object, where there is one (calls on None raise)
            return self.ref(expr.orelse if is_none(expr.body) else expr.body)
        if isinstance(expr, cst.IfExp) and self.b.is_optimizer(expr.body, expr) and self.b.is_optimizer(expr.orelse, expr):
            # `opt_crt if epoch >= stage2 else opt_feat`: an optimizer, one of the two, which
            # one the names its test reads decide (written in parentheses, as a receiver needs)
            reads = tuple(sorted({n.value for n in _walk_names(self.tree, expr.test)}))
            return Value(f"({self._text(expr)})", BindingInfo("optimizer"), reads=reads)
        if not isinstance(expr, cst.Name):
            scaled = self._scaled_ref(expr)
            if scaled is not None:
                return scaled
            if not isinstance(expr, cst.Attribute) and self._loss_scale(expr):
                return Value(self._text(expr), BindingInfo("loss_scale"))
        text = dotted(expr)
        if isinstance(expr, cst.SimpleString) and isinstance(literal(expr), str):
            return Value(None, string=literal(expr))
        if text is None:
            if not self.b.indexes_optimizers(expr):
                return Value(None)
            reads = tuple(sorted({n.value for n in _walk_names(self.tree, expr)}))
            # picked by a constant (`self.optimizer["d_optimizer"]`): that key is its identity
            return Value(_constant_item(expr), BindingInfo("optimizer"), reads=reads)
        if isinstance(expr, cst.Name):
            if self._is_self(expr):
                return Attr("")
            scaled = self._scaled_value(expr)
            if scaled is not None:
                return scaled
            fn = self.tree.enclosing_function(expr)
            if fn is not None and expr.value in param_names(fn) and not self.b.assigned_before(fn, expr.value, expr):
                return Param(expr.value)
            local = self._local_function(expr, expr.value)
            if local is not None and self.b.lookup(expr, expr) is None:
                # a function handed on (`gpu_timer(train_step)`): its callee may call it
                return Value(text, BindingInfo("function", f"{self.module_name}.{local}"))
        elif isinstance(expr, cst.Attribute) and self._is_self(expr.value) and isinstance(expr.value, cst.Name):
            return Attr(expr.attr.value)
        found = self.b.lookup(expr, expr)
        qualname = self.tree.qualname(expr)
        if (found is None or found.inferred) and qualname is None and self._aliases < _MAX_ALIASES:
            self._aliases += 1
            try:
                member = self._member(expr, text)
            finally:
                self._aliases -= 1
            if member is not None:
                return replace(member, binding=self._info(found))
        if found is None and qualname is None and isinstance(expr, cst.Name) and self.b.iterates_optimizers(expr):
            return Value(text, BindingInfo("optimizer"))
        return Value(text, self._info(found), qualname)

    def _returned_ref(self, expr: cst.BaseExpression) -> Ref:
        """What a tensor to back-propagate stands for: as `ref` says, and a call of a function
        the project may hold (`self.scale_loss(loss).backward()`, a method returning
        `self.scaler.scale(loss)`) is what that function returns, as when a name holds it."""
        ref = self.ref(expr)
        if not (isinstance(ref, Value) and ref.text is None and ref.binding is None and isinstance(expr, cst.Call)):
            return ref
        func = expr.func
        maker = self._maker_of(func, expr) if isinstance(func, cst.Name) or (isinstance(func, cst.Attribute) and self._is_self(func.value)) else None
        if maker is None or maker.startswith("torch."):
            return ref
        return Value(None, BindingInfo("instance", made_by=maker))

    def _member(self, expr: cst.BaseExpression, text: str) -> Optional[Member]:
        """`a.b` on a name or on another attribute (`self.executor.scaler`), or a name whose
        one reaching value is such an `a.b`."""
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, (cst.Name, cst.Attribute)):
            return Member(self.ref(expr.value), expr.attr.value, text)
        if isinstance(expr, cst.Name):
            value = self.b.reaching_value(expr)
            if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name):
                return Member(self.ref(value.value), value.attr.value, text)
        return None

    def _is_self(self, expr: cst.BaseExpression) -> bool:
        """The receiver parameter of the method `expr` sits in (`self`, whatever it is named)."""
        if not isinstance(expr, cst.Name):
            return False
        fn = self.tree.enclosing_function(expr)
        while fn is not None:
            cls = self.tree.enclosing_class(fn)
            if cls is not None and self.tree.parent(self.tree.parent(fn)) is cls:
                params = _positional_params(fn)
                return bool(params) and params[0] == expr.value and expr.value in ("self", "cls")
            fn = self.tree.enclosing_function(fn)
        return False

    def _scaled_ref(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[Scaled]:
        """`scaler.scale(x)`, or a value that carries it unchanged up to a constant factor:
        `typing.cast(Tensor, scaled)`, `scaled / n`, `k * scaled`, `-scaled`, `scaled.sum()`,
        `.mean()`, `.float()`, `.mul_(k)`, ..., one side of a conditional expression, or a
        name assigned one (its gradients stay multiplied by the loss scale)."""
        if depth > _MAX_ALIASES * 2:
            return None
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            name = expr.func.attr.value
            if name == "scale":
                return Scaled(self.ref(expr.func.value), self._text(expr))
            if name in _SCALED_KEEPERS:
                return self._scaled_ref(expr.func.value, depth + 1)
        if isinstance(expr, cst.Call) and "typing.cast" in self.tree.names.resolve(expr.func) and len(expr.args) == 2:
            return self._scaled_ref(expr.args[1].value, depth + 1)
        if isinstance(expr, cst.Call) and expr.args and expr.args[0].keyword is None and not expr.args[0].star \
                and self._gathers(expr.func):
            return self._scaled_items(expr.args[0].value, depth + 1)
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.List, cst.Tuple, cst.Set)):
            return self._scaled_items(expr, depth + 1)  # (`torch.autograd.backward([scaler.scale(l) for l in losses])`)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _LINEAR_OPERATORS):
            left = self._scaled_ref(expr.left, depth + 1)
            if left is not None or isinstance(expr.operator, cst.Divide):
                return left
            return self._scaled_ref(expr.right, depth + 1)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return self._scaled_ref(expr.expression, depth + 1)
        if isinstance(expr, cst.IfExp):  # `scaler.scale(loss) if scaler else loss`: the other side runs without AMP
            return self._scaled_ref(expr.body, depth + 1) or self._scaled_ref(expr.orelse, depth + 1)
        if isinstance(expr, cst.Name):
            return self._scaled_value(expr, depth + 1)
        if isinstance(expr, cst.NamedExpr):  # `(scaled := scaler.scale(loss))`
            return self._scaled_ref(expr.value, depth + 1)
        if isinstance(expr, cst.Subscript):
            return self._scaled_entry(expr, depth + 1)
        if isinstance(expr, cst.Attribute) and self._scales and self._is_self(expr.value):
            return self._scaled_attribute(expr, depth + 1)
        return None

    def _gathers(self, func: cst.BaseExpression) -> bool:
        """A call that adds up or stacks a collection of tensors, so that its value carries the
        scale every item carries: the builtin `sum`, `torch.stack`, `torch.cat`."""
        if isinstance(func, cst.Name) and func.value == "sum":
            return not self.tree.names.resolve(func) and self.b.lookup(func, func) is None
        return bool(self.tree.names.resolve(func) & _GATHERS)

    def _scaled_value(self, name: cst.Name, depth: int = 0) -> Optional[Scaled]:
        """`y = scaler.scale(x)` (or a value carrying it, or its place in a tuple assigned
        whole: `y, n = scaler.scale(x), len(x)`) ... `y`: the scaled value, when that
        assignment is the latest; or `for y in ys:` over a collection of scaled values (`ys =
        {scaler.scale(v) for v in losses}`) where no assignment in the loop comes first."""
        fn = self.tree.enclosing_function(name)
        if (fn, name.value) not in self._scaled:
            return None
        best = self._latest_assignment(name, fn)
        loop = next((
            a for a in self.tree.ancestors(name)
            if isinstance(a, cst.For) and isinstance(a.target, cst.Name) and a.target.value == name.value
            and self.tree.enclosing_function(a) is fn and name not in self.tree.ancestors(a.iter)
        ), None)
        if loop is not None and (best is None or not self.tree.precedes(loop, best[0])):
            return self._scaled_items(loop.iter, depth + 1)
        found = self._scaled_ref(best[1], depth) if best is not None else None
        if found is not None and best is not None and not self.b.dominates(best[0], name):
            return replace(found, partial=True)  # (scaled in a branch or loop the use is outside of)
        return found

    def _latest_assignment(self, name: cst.Name, fn: Optional[cst.FunctionDef]) -> Optional[tuple[cst.Assign, cst.BaseExpression]]:
        """The last assignment to `name` in its function written before it (not around it),
        with the value it gives the name: the whole value, or the value's element in the
        name's place of a tuple written on both sides. None also where the last one binds the
        name some other way (`a = b = ...`, `a, b = pair`)."""
        best: Optional[tuple[cst.Assign, Optional[cst.BaseExpression]]] = None
        for node in self._assignments_before(name, fn):
            value = _assigned_to(node, name.value)
            if value is not False:
                best = (node, value)  # type: ignore[assignment]
        return best if best is not None and best[1] is not None else None  # type: ignore[return-value]

    def _assignments_before(self, at: cst.CSTNode, fn: Optional[cst.FunctionDef]) -> Iterator[cst.Assign]:
        """The assignments of `fn` (None: the module body) written before `at` and not around
        it, in source order."""
        for node in self.tree.assigns:
            if isinstance(node, cst.Assign) and self.tree.enclosing_function(node) is fn \
                    and self.tree.precedes(node, at) and node not in self.tree.ancestors(at):
                yield node

    def _scaled_entry(self, subscript: cst.Subscript, depth: int) -> Optional[Scaled]:
        """`d["loss"]` where `d`'s last assignment is a dict literal whose "loss" is scaled, or
        where `d["loss"] = scaler.scale(...)` is the last assignment of that entry."""
        key = _string_index(subscript)
        name = subscript.value
        if key is None or not isinstance(name, cst.Name):
            return None
        fn = self.tree.enclosing_function(subscript)
        if (fn, name.value) not in self._scaled:
            return None
        best: Optional[cst.BaseExpression] = None
        for node in self._assignments_before(subscript, fn):
            if len(node.targets) != 1:
                continue
            target = node.targets[0].target
            if isinstance(target, cst.Name) and target.value == name.value:
                best = next((
                    el.value for el in node.value.elements
                    if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString) and literal(el.key) == key
                ), None) if isinstance(node.value, cst.Dict) else None
            elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value == name.value \
                    and _string_index(target) == key:
                best = node.value
        return self._scaled_ref(best, depth + 1) if best is not None else None

    def _scaled_attribute(self, attr: cst.Attribute, depth: int) -> Optional[Scaled]:
        """`self.scaled_loss` where every value its class (or a base in this file) assigns it
        is scaled (`None` aside: an attribute reset between steps): the backward of one method
        reads what the forward of another left there."""
        cls = self.tree.enclosing_class(attr)
        if cls is None:
            return None
        key = (cls, attr.attr.value)
        if key in self._scaled_attributes:
            return self._scaled_attributes[key]
        self._scaled_attributes[key] = None  # (while it is worked out: an attribute assigned itself carries nothing)
        values = [v for v in self.tree.values_of(attr) if not is_none(v)]
        found = [self._scaled_ref(v, depth + 1) for v in values]
        scaled = found[0] if found and all(f is not None for f in found) else None
        self._scaled_attributes[key] = scaled
        return scaled

    def _scaled_items(self, expr: cst.BaseExpression, depth: int) -> Optional[Scaled]:
        """The scaled value each item of a collection is: a comprehension of `scaler.scale(v)`,
        a list, tuple or set every element of which is scaled, or a name assigned one last."""
        if depth > _MAX_ALIASES * 2:
            return None
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return self._scaled_ref(expr.elt, depth + 1)
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set)) and expr.elements:
            found = [None if isinstance(e, cst.StarredElement) else self._scaled_ref(e.value, depth + 1) for e in expr.elements]
            return found[0] if all(f is not None for f in found) else None
        if isinstance(expr, cst.Name):
            best = self._latest_assignment(expr, self.tree.enclosing_function(expr))
            if best is not None:
                return self._scaled_items(best[1], depth + 1)
        return None

    def _index_scaled_assignments(self) -> set[tuple[Optional[cst.FunctionDef], str]]:
        """The names a `scaler.scale(...)` call's value may be assigned to, in the function
        they are local to: those assigned an expression holding such a call, then those
        assigned an expression holding one of those names (`scaled = scaler.scale(loss)`,
        `scaled_loss = scaled / n`), and the targets of loops over what holds one."""
        out: set[tuple[Optional[cst.FunctionDef], str]] = set()
        if not self._scales:
            return out
        holders = {anc for call in self._scale_calls for anc in self.tree.ancestors(call) if isinstance(anc, cst.Assign)}
        targets: list[tuple[cst.Assign, Optional[cst.FunctionDef], str]] = []
        for node in self.tree.assigns if holders else ():  # (none holds one: none holds a name assigned one)
            if isinstance(node, cst.Assign) and len(node.targets) == 1:
                fn = self.tree.enclosing_function(node)
                targets.extend((node, fn, name) for name in _bound_names(node.targets[0].target))
        scoped: set[Optional[cst.FunctionDef]] = set()  # the functions `out` has a name of
        for _ in range(2):
            for node, fn, name in targets:
                if node in holders or (fn in scoped and any((fn, n.value) in out for n in _walk_names(self.tree, node.value))):
                    out.add((fn, name))
                    scoped.add(fn)
        for loop in self.tree.loops:  # `for v in scaled_losses:` binds scaled values
            if isinstance(loop, cst.For) and isinstance(loop.target, cst.Name):
                fn = self.tree.enclosing_function(loop)
                if any(self.tree.within(c, loop.iter) for c in self._scale_calls) \
                        or (fn in scoped and any((fn, n.value) in out for n in _walk_names(self.tree, loop.iter))):
                    out.add((fn, loop.target.value))
        return out

    # -- functions a name call enters -------------------------------------------------------------------
    def _index_local_functions(self) -> dict[tuple[Optional[cst.FunctionDef], str], cst.FunctionDef]:
        """(enclosing function or None, name) -> the last function of that name defined there
        (module level: outside any class)."""
        out = {}
        for f in self.tree.functions:
            if self.tree.enclosing_class(f) is not None and self.tree.parent(self.tree.parent(f)) is self.tree.enclosing_class(f):
                continue  # a method
            out[(self.tree.enclosing_function(f), f.name.value)] = f
        return out

    def _local_function(self, at: cst.CSTNode, name: str) -> Optional[str]:
        fn = self.tree.enclosing_function(at)
        while True:
            found = self._local_functions.get((fn, name))
            if found is not None:
                return scope_key(self.tree, found)
            if fn is None:
                return None
            fn = self.tree.enclosing_function(fn)

    def _aliased_function(self, name: cst.Name) -> Optional[str]:
        """The function of this file a name is an alias of, where every value assigned to it
        names that one function (`grad_cache = naive_model_fn`, later `grad_cache(...)`)."""
        found = {
            self._local_function(v, v.value) if isinstance(v, cst.Name) else None for v in self.tree.values_of(name)
        }
        return found.pop() if len(found) == 1 else None

    # -- small facts --------------------------------------------------------------------------------------
    def _text(self, node: cst.CSTNode) -> str:
        text = " ".join(self.tree.code_for(node).split())
        return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 3] + "..."

    def _clip(self, call: cst.Call, guards: tuple[GuardSpec, ...]) -> Optional[Op]:
        """A gradient clip: a nonlinear read, unless its threshold is multiplied by the loss
        scale (`max_norm * scaler.get_scale()`), which clips the scaled gradients right."""
        threshold = next((a.value for a in call.args if a.keyword is not None and a.keyword.value in ("max_norm", "clip_value")), None)
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        if threshold is None and len(positional) > 1:
            threshold = positional[1]
        receiver = _parameters_receiver(positional[0]) if positional else None
        clips = dotted(receiver) if receiver is not None and self._own_module(receiver) else None
        if threshold is None:
            return Op(OpKind.GRAD_USE, guards, text=self._text(call.func), clips=clips, node=call)
        if self._loss_scale(threshold):
            return None
        # what the factors are, the caller (or the object) says
        by = tuple(r for r in map(self.ref, _factors(threshold)) if isinstance(r, (Param, Attr, Member)))
        return Op(OpKind.GRAD_USE, guards, text=self._text(call.func), threshold=by, clips=clips, node=call)

    def _loss_scale(self, expr: cst.BaseExpression) -> bool:
        """Whether an expression is a scaler's current scale, or a product with it: it holds a
        `get_scale()` call (`scaler.get_scale() if amp else 1.0`), or a factor is a name bound
        to one (`scale = scaler.get_scale()`; `max_norm * scale`)."""
        if not self._gets_scale:
            return False
        if _holds_loss_scale(expr):
            return True
        return any(
            isinstance(f, (cst.Name, cst.Attribute)) and (b := self.b.lookup(f, f)) is not None and b.kind == "loss_scale"
            for f in _factors(expr)
        )

    def _reads_magnitude(self, node: cst.BaseExpression, stored: bool = True, divisors: Optional[list[Ref]] = None) -> bool:
        """Whether a `.grad` read depends nonlinearly on the gradient's size: a norm, a max or
        abs, a power, a comparison with a threshold, a value logged or turned into a number, an
        inf/NaN check. Linear uses (an all-reduce, a sum or average, `div_(world_size)`, a
        copy into a bucket, `torch.cat` of views) scale with the gradient and stay right once
        it is unscaled. A value stored in a local name (`g = p.grad`, `grads = [p.grad for p in
        params]`, `grads.append(p.grad)`) is followed one step, with `stored`: to the uses of
        that name in its function, and of the loop variable that walks it; a list kept in a dict
        (`groups.setdefault(key, []).append(p.grad)`, `buckets[key].append(p.grad)`) is followed
        through the loops over the dict's values. With `divisors`, the values the gradient is divided
        by on the way that a caller may make the loss scale (`(p.grad / scale).norm()`, `scale` a
        parameter) are collected."""
        cur: cst.CSTNode = node
        for _ in range(12):
            parent = self.tree.parent(cur)
            if isinstance(parent, cst.Attribute) and parent.value is cur:
                name = parent.attr.value
                call = self.tree.parent(parent)
                if name in _MAGNITUDE_READS:
                    return not (
                        name in _HOMOGENEOUS_READS and isinstance(call, cst.Call) and call.func is parent
                        and (self._divided_by_scale(call) or self._normalizes(call, cur))
                    )  # (`p.grad.norm() / scaler.get_scale()`: the true gradient's norm; `g / g.norm()`)
                if name == "data" or name in ("T", "mT"):
                    cur = parent
                elif name in _LINEAR_GRAD_METHODS and isinstance(call, cst.Call) and call.func is parent:
                    cur = call
                else:
                    return False
            elif isinstance(parent, cst.Arg):
                call = self.tree.parent(parent)
                if not isinstance(call, cst.Call):
                    return False
                last = last_name(call.func) or ""
                if last in _HOMOGENEOUS_READS and (self._divided_by_scale(call) or self._normalizes(call, cur)):
                    return False  # (`torch.norm(p.grad) / scaler.get_scale()`; `p.grad / torch.norm(p.grad)`)
                if last in _MAGNITUDE_READS or last in NONFINITE or _LOGGING.search(self._text(call.func)):
                    return True
                if last == "append" and stored and isinstance(call.func, cst.Attribute):
                    store = _container(call.func.value)
                    return store is not None and self._measured(store, call)
                if last in _LINEAR_GRAD_FUNCTIONS:
                    cur = call
                else:
                    return False
            elif isinstance(parent, cst.BinaryOperation):
                if isinstance(parent.operator, cst.Power):
                    return True
                if self._unscales(parent, cur):
                    return False  # (`p.grad / scaler.get_scale()`: the true gradient, whatever reads it)
                if divisors is not None and isinstance(parent.operator, cst.Divide) and parent.left is cur:
                    by = self.ref(parent.right)  # (`p.grad / scale`: what `scale` is, the caller says)
                    if isinstance(by, (Param, Attr, Member)):
                        divisors.append(by)
                cur = parent
            elif isinstance(parent, (cst.Element, cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp, cst.Subscript, cst.SubscriptElement, cst.Index, cst.UnaryOperation)):
                cur = parent
            elif isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
                return True
            elif stored and isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is cur:
                targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
                return len(targets) == 1 and isinstance(targets[0], cst.Name) and self._measured(targets[0].value, parent)
            else:
                return False
        return False

    def _unscales(self, op: cst.BinaryOperation, operand: cst.CSTNode) -> bool:
        """Whether `op` divides `operand` by the loss scale (`p.grad / scaler.get_scale()`, `g
        * inv_scale` with `inv_scale = 1.0 / scaler.get_scale()`): it gives the value unscaled."""
        if isinstance(op.operator, cst.Divide):
            return op.left is operand and self._loss_scale(op.right)
        if not isinstance(op.operator, cst.Multiply):
            return False
        other = op.right if op.left is operand else op.left
        if isinstance(other, cst.Name):
            other = self.tree.only_value(other) or other
        return isinstance(other, cst.BinaryOperation) and isinstance(other.operator, cst.Divide) \
            and self._loss_scale(other.right) and not self._loss_scale(other.left)

    def _divided_by_scale(self, read: cst.Call) -> bool:
        """Whether what a magnitude read gives (through more reads that scale with it, and as a
        number: `.abs().max().item()`) is divided by the loss scale."""
        cur: cst.CSTNode = read
        for _ in range(4):
            parent = self.tree.parent(cur)
            if isinstance(parent, cst.BinaryOperation):
                return self._unscales(parent, cur)
            call = self.tree.parent(parent) if isinstance(parent, cst.Attribute) and parent.value is cur else None
            if not (isinstance(call, cst.Call) and call.func is parent and parent.attr.value in (*_HOMOGENEOUS_READS, "item")):  # type: ignore[union-attr]
                return False
            cur = call
        return False

    def _normalizes(self, read: cst.Call, grad: cst.CSTNode) -> bool:
        """Whether a norm (or max, abs) of gradients only normalises those same gradients:
        it divides them (`eps * p.grad / torch.norm(p.grad)`, a small constant added to it or
        not), directly or through a local name used for nothing else but a test against zero
        (`if norm != 0:`) or for NaN/inf (`torch.isnan(norm)`). The direction of a gradient (FGM's,
        AWP's and PGD's adversarial step along it) is the same whatever the loss scale, S*g / (S*|g|) =
        g / |g|, and so are a zero test and a NaN/inf test (dividing by the scale, as `unscale_`
        does, keeps a value zero, NaN, inf or finite)."""
        uses: list[cst.CSTNode] = [read]
        parent = self.tree.parent(read)
        if isinstance(parent, cst.Assign) and parent.value is read:
            if len(parent.targets) != 1 or not isinstance(parent.targets[0].target, cst.Name):
                return False
            target = parent.targets[0].target
            fn = self.tree.enclosing_function(parent)
            uses = [
                u for u in self.tree.name_nodes.get(target.value, ())
                if u is not target and self.tree.enclosing_function(u) is fn and _variable(self.tree, u)
            ]
            if not uses:
                return False
        text = self.tree.code_for(grad)
        return all(self._divides_itself(u, text) or _tested_against_zero(self.tree, u) or self._tested_finite(u) for u in uses)

    def _tested_finite(self, node: cst.CSTNode) -> bool:
        """Whether `node` is what a NaN/inf test asks about (`torch.isnan(norm)`, `math.isinf(norm)`)."""
        arg = self.tree.parent(node)
        call = self.tree.parent(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(call, cst.Call) or len(call.args) != 1:
            return False
        return last_name(call.func) in NONFINITE_TESTS

    def _divides_itself(self, divisor: cst.CSTNode, grad: str) -> bool:
        """Whether `divisor` (plus a number, `norm + 1e-8`, or a name holding only one: `e =
        1e-6`) divides a product holding `grad`."""
        parent = self.tree.parent(divisor)
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Add) \
                and self._number(parent.right if parent.left is divisor else parent.left):
            divisor, parent = parent, self.tree.parent(parent)
        return isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Divide) and parent.right is divisor \
            and any(self.tree.code_for(f) == grad for f in _factors(parent.left))

    def _number(self, expr: cst.BaseExpression) -> bool:
        """A numeric literal, or a local that only ever holds one."""
        value = self.tree.only_value(expr) if isinstance(expr, cst.Name) else expr
        return isinstance(value, (cst.Integer, cst.Float))

    def _measured(self, name: str, at: cst.CSTNode) -> bool:
        """Whether the gradients stored in the local `name` at `at` are read for their size in
        that function: the name itself (`torch.stack(grads).norm()`), or the variable of a loop
        or comprehension over it (`[g.norm() for g in grads]`)."""
        fn = self.tree.enclosing_function(at)
        for use in self.tree.name_nodes.get(name, ()):
            if use is at or self.tree.enclosing_function(use) is not fn or not self.tree.precedes(at, use):
                continue
            if self._reads_magnitude(use, stored=False):
                return True
            walked = _walked_values(self.tree, use)
            if walked is None:
                continue
            loop, target = walked
            body = self.tree.parent(loop) if isinstance(loop, cst.CompFor) else loop
            if any(
                v is not target and self.tree.within(v, body) and self._reads_magnitude(v, stored=False)
                for v in self.tree.name_nodes.get(target.value, ())
            ):
                return True
        return False

    def _is_grad_read(self, node: cst.Attribute) -> bool:
        """A read of a parameter's gradient that sees its value (not `p.grad = None`,
        `p.grad is None`, `p.grad.zero_()`)."""
        m = self.tree
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
                loops: list[cst.CSTNode] = [anc]
                if isinstance(anc, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                    loops = []  # (the element is no descendant of the comprehension's `for`)
                    comp_for: Optional[cst.CompFor] = anc.for_in
                    while comp_for is not None:
                        loops.append(comp_for)
                        comp_for = comp_for.inner_for_in
                for loop in loops:
                    if isinstance(loop, (cst.For, cst.CompFor)) and isinstance(loop.target, (cst.Name, cst.Tuple)):
                        names = {n.value for n in _names_in(loop.target)}
                        if recv.value in names:
                            return "param" in m.code_for(loop.iter).lower()
        return False


def _container(expr: cst.BaseExpression) -> Optional[str]:
    """The local name a list being appended to is kept in: the list itself (`grads`), or the
    dict that holds it (`groups.setdefault(key, [])`, `groups[key]`)."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name):
        return expr.value.value
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "setdefault" \
            and isinstance(expr.func.value, cst.Name):
        return expr.func.value.value
    return None


def _walked_values(tree: SourceTree, use: cst.Name) -> Optional[tuple[Union[cst.For, cst.CompFor], cst.Name]]:
    """The loop (or comprehension) that walks the values a name holds, and the variable bound
    to each: `for g in grads`, `for g in groups.values()`, `for key, g in groups.items()`."""
    node: cst.CSTNode = use
    parent = tree.parent(use)
    method = None
    if isinstance(parent, cst.Attribute) and parent.value is use and parent.attr.value in ("values", "items"):
        call = tree.parent(parent)
        if not isinstance(call, cst.Call) or call.func is not parent or call.args:
            return None
        node, method, parent = call, parent.attr.value, tree.parent(call)
    if not isinstance(parent, (cst.For, cst.CompFor)) or parent.iter is not node:
        return None
    target = parent.target
    if method == "items":
        pair = target.elements if isinstance(target, (cst.Tuple, cst.List)) else ()
        target = pair[1].value if len(pair) == 2 else None
    return (parent, target) if isinstance(target, cst.Name) else None


def _without_none(annotation: cst.BaseExpression) -> cst.BaseExpression:
    """`X` of `Optional[X]` and `X | None`; any other annotation as it is."""
    if isinstance(annotation, cst.Subscript) and dotted(annotation.value) in ("Optional", "typing.Optional") and len(annotation.slice) == 1:
        element = annotation.slice[0].slice
        return element.value if isinstance(element, cst.Index) else annotation
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        if is_none(annotation.right):
            return annotation.left
        if is_none(annotation.left):
            return annotation.right
    return annotation


def _none_defaults(fn: cst.FunctionDef) -> tuple[str, ...]:
    """The parameters of `fn` written with the default `None` (`scaler=None`)."""
    params = (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)
    return tuple(
        p.name.value for p in params if is_none(p.default)
    )


def _base_class(expr: cst.BaseExpression) -> cst.BaseExpression:
    """The class a base expression names: `SGDUpdate` in `class T(SGDUpdate[Exp, In, Out])`
    (a generic base, parameterized) is the class `SGDUpdate` itself."""
    return expr.value if isinstance(expr, cst.Subscript) else expr


def _statements(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    if isinstance(node, cst.Module):
        return node.body
    if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return node.body if isinstance(node, cst.IndentedBlock) else [node]
    return [node]


def _later_in_block(block: cst.BaseSuite, child: cst.CSTNode) -> list[cst.CSTNode]:
    """The statements of `block` after `child`, the one of them that holds what is asked about."""
    stmts = list(_statements(block))
    return stmts[next((i for i, s in enumerate(stmts) if s is child), len(stmts)) + 1:]


def _exits(body: cst.BaseSuite, leaving: tuple[type, ...] = (cst.Continue, cst.Break, cst.Return, cst.Raise)) -> bool:
    """Whether a block ends with a statement that leaves it (`continue`, `break`, `return`,
    `raise`, or those of `leaving`)."""
    stmts = _statements(body)
    if not stmts:
        return False
    last = stmts[-1]
    smalls = last.body if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else []
    return bool(smalls) and isinstance(smalls[-1], leaving)


_LOOPS = (cst.For, cst.While)
_COMPOUND = (cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.With, cst.Match)


def _child_suites(stmt: cst.CSTNode) -> Iterator[cst.BaseSuite]:
    """The blocks of a compound statement (an `elif`'s as the `if`'s own)."""
    if isinstance(stmt, cst.If):
        yield stmt.body
        if isinstance(stmt.orelse, cst.If):
            yield from _child_suites(stmt.orelse)
        elif stmt.orelse is not None:
            yield stmt.orelse.body
    elif isinstance(stmt, (cst.For, cst.While)):
        yield stmt.body
        if stmt.orelse is not None:
            yield stmt.orelse.body
    elif isinstance(stmt, (cst.Try, cst.TryStar)):
        yield stmt.body
        for h in stmt.handlers:
            yield h.body
        if stmt.orelse is not None:
            yield stmt.orelse.body
        if stmt.finalbody is not None:
            yield stmt.finalbody.body
    elif isinstance(stmt, cst.With):
        yield stmt.body
    elif isinstance(stmt, cst.Match):
        for case in stmt.cases:
            yield case.body


def _compatible(a: dict[int, int], b: dict[int, int]) -> bool:
    """Whether two blocks may run in one pass: no `if` around both holds them in different branches."""
    return all(b.get(k, v) == v for k, v in a.items())


def _exiting(stmt: cst.CSTNode, memo: dict[int, list[tuple[cst.BaseSuite, bool]]]) -> list[tuple[cst.BaseSuite, bool]]:
    """The blocks nested in a compound statement that end by leaving it, each with whether it
    leaves by `break`/`continue` (as far as the innermost loop around it) rather than by
    `return`/`raise`: a statement-level walk, each statement once (`memo`)."""
    found = memo.get(id(stmt))
    if found is not None:
        return found
    found = []
    # (the body a loop, `with` or `try` always enters is no path of its own: a loop body ending
    # in `return` is a retry loop, whose passes the loop guard already tells apart)
    own = stmt.body if isinstance(stmt, (cst.For, cst.While, cst.With, cst.Try, cst.TryStar)) else None
    for suite in _child_suites(stmt):
        if suite is not own and _exits(suite):
            found.append((suite, not _exits(suite, (cst.Return, cst.Raise))))
        for inner in _statements(suite):
            if isinstance(inner, _COMPOUND):
                found.extend(e for e in _exiting(inner, memo) if not (e[1] and isinstance(inner, _LOOPS)))
    memo[id(stmt)] = found
    return found


def _is_super_call(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "super"


def _only_element(expr: cst.BaseExpression) -> cst.BaseExpression:
    """The one element of a one-element list or tuple (`[features]`), else the expression."""
    if isinstance(expr, (cst.List, cst.Tuple)) and len(expr.elements) == 1 and isinstance(expr.elements[0], cst.Element):
        return expr.elements[0].value
    return expr


def _positional_params(fn: cst.FunctionDef) -> list[str]:
    p = fn.params
    return [x.name.value for x in (*p.posonly_params, *p.params)]


def _is_scale_call(call: cst.Call) -> bool:
    """`<x>.scale(...)`: what a GradScaler's `scale` call looks like (which `x` is, the
    replay decides)."""
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "scale"


def _bound_names(target: cst.BaseExpression) -> Iterator[str]:
    """The local names an assignment target binds or fills: `x`, each name of `x, y`, and
    the dict `d` of `d["k"]`."""
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            if isinstance(el.value, cst.Name):
                yield el.value.value
    elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
        yield target.value.value


def _assigned_to(node: cst.Assign, name: str) -> Union[bool, None, cst.BaseExpression]:
    """What `node` gives the local `name`: False when it does not bind it; its value, or its
    element in the name's place (`scaled, n = scaler.scale(loss), len(x)`); None when it binds
    it another way (`a = b = v`, `a, b = pair`, `*a, b = ...`)."""
    found: Union[bool, None, cst.BaseExpression] = False
    for t in node.targets:
        target = t.target
        if isinstance(target, cst.Name):
            if target.value == name:
                found = node.value if len(node.targets) == 1 else None
        elif isinstance(target, (cst.Tuple, cst.List)):
            places = [i for i, el in enumerate(target.elements) if isinstance(el.value, cst.Name) and el.value.value == name]
            if places:
                value = node.value
                whole = isinstance(value, (cst.Tuple, cst.List)) and len(node.targets) == 1 \
                    and len(value.elements) == len(target.elements) \
                    and not any(isinstance(e, (cst.StarredElement,)) for e in (*value.elements, *target.elements))
                found = value.elements[places[-1]].value if whole else None
    return found


def _string_index(subscript: cst.Subscript) -> Optional[str]:
    """The string literal a subscript indexes by (`d["loss"]`), else None."""
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return None
    key = subscript.slice[0].slice.value
    value = literal(key) if isinstance(key, cst.SimpleString) else None
    return value if isinstance(value, str) else None


def _holds_loss_scale(expr: cst.CSTNode) -> bool:
    """Whether an expression holds a scaler's current scale (`scaler.get_scale()`, `scaler.get_scale()
    if amp else 1.0`)."""
    return any(is_get_scale(c) for c in _walk_calls(expr))


def _compares_strings(test: Test) -> bool:
    """Whether a test, or a part of it, compares a value with a string (`Test.compared`)."""
    if test.compared is not None:
        return True
    parts = (*test.conjuncts, *test.disjuncts, *((test.negated,) if test.negated is not None else ()))
    return any(_compares_strings(t) for t in parts)


def _pins_one(expr: cst.BaseExpression, versions: dict[str, tuple[int, ...]]) -> Optional[tuple[str, tuple[int, ...], bool]]:
    """`Test.pins_one` of a test: a name or attribute chain compared by `==` or `!=` with 1."""
    found = equality(expr)
    if found is None or not isinstance(found[1], cst.Integer) or literal(found[1]) != 1:
        return None
    return found[0], versions.get(found[0], ()), found[2]


def _dotted_names(expr: cst.BaseExpression) -> Iterator[str]:
    """Every name and attribute chain in an expression: each chain whole, then each name in it
    (`self.accum`, `self`, `accum`)."""
    for node in preorder(expr):
        if isinstance(node, (cst.Name, cst.Attribute)):
            text = dotted(node)
            if text is not None:
                yield text


def _tested_only(node: cst.BaseExpression, parent: Optional[cst.CSTNode]) -> bool:
    """Whether a value is only tested where it is read: compared (`is None`, `is not None`),
    or the whole test of an `if`/`while` or of a conditional expression (`x.state_dict() if
    x else None`), or negated; not handed on or stored."""
    if isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
        return True
    if isinstance(parent, (cst.If, cst.While, cst.IfExp)):
        return parent.test is node
    return isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not)


def _identically_zero(expr: cst.BaseExpression) -> bool:
    """Whether a tensor expression is zero whatever it reads: a product with a literal 0
    (`(out * 0.0).sum()`, `0 * loss`), or its sum or mean. Back-propagating it adds zero to
    every gradient (what DDP code does to reach unused parameters, or to free a graph after a
    skipped step), which a loss scale cannot change."""
    if isinstance(expr, (cst.Integer, cst.Float)):
        return float(literal(expr)) == 0.0
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        return _identically_zero(expr.left) or _identically_zero(expr.right)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return _identically_zero(expr.expression)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in ("sum", "mean"):
        return _identically_zero(expr.func.value)
    return False


def _not_none_tests(expr: cst.BaseExpression) -> Iterator[cst.Comparison]:
    """The `x is not None` comparisons a test holds through its `and`s and `or`s only, where
    reading `x` in their place gives a test that implies it (under a `not` it would not)."""
    if isinstance(expr, cst.BooleanOperation):
        yield from _not_none_tests(expr.left)
        yield from _not_none_tests(expr.right)
    elif isinstance(compared_to_none(expr), cst.IsNot):
        yield expr  # type: ignore[misc]


def _none_of(expr: cst.BaseExpression) -> Optional[tuple[str, bool]]:
    """`Test.none_of` of a test: `x is None` or `x is not None` of a name or attribute chain."""
    operator = compared_to_none(expr)
    if not isinstance(operator, (cst.Is, cst.IsNot)):
        return None
    name = dotted(expr.left)  # type: ignore[attr-defined]
    return (name, isinstance(operator, cst.Is)) if name is not None else None


def _operands(expr: cst.BaseExpression, op: type) -> list[cst.BaseExpression]:
    """The operands of an `and` or an `or` (`op`; `a and (b and c)`: all three), or the
    expression itself."""
    if isinstance(expr, cst.BooleanOperation) and isinstance(expr.operator, op):
        return [*_operands(expr.left, op), *_operands(expr.right, op)]
    return [expr]


def _constant_item(expr: cst.BaseExpression) -> Optional[str]:
    """`base[key]` for a subscript of a dotted name by one string or integer literal, written
    one way whatever its quotes (`self.optimizer['d_optimizer']`), else None."""
    if not isinstance(expr, cst.Subscript) or len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
        return None
    base, index = dotted(expr.value), expr.slice[0].slice.value
    if base is None:
        return None
    if isinstance(index, cst.Integer) or (isinstance(index, cst.SimpleString) and isinstance(literal(index), str)):
        return f"{base}[{literal(index)!r}]"
    return None


def _variable(tree: SourceTree, name: cst.Name) -> bool:
    """Whether a name node names a variable (not an attribute's or a keyword argument's
    name: `norm` in `torch.norm`, `dim` in `f(dim=1)`)."""
    parent = tree.parent(name)
    return not (isinstance(parent, cst.Attribute) and parent.attr is name) and not (isinstance(parent, cst.Arg) and parent.keyword is name)


def _tested_against_zero(tree: SourceTree, node: cst.CSTNode) -> bool:
    """Whether `node` is compared with a literal zero (`norm != 0`, `0 < norm`)."""
    parent = tree.parent(node)
    comparison = tree.parent(parent) if isinstance(parent, cst.ComparisonTarget) else parent
    if not isinstance(comparison, cst.Comparison) or len(comparison.comparisons) != 1:
        return False
    sides = (comparison.left, comparison.comparisons[0].comparator)
    other = sides[1] if sides[0] is node else sides[0] if sides[1] is node else None
    return isinstance(other, (cst.Integer, cst.Float)) and literal(other) == 0


def _factors(expr: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The operands of a product (`max_norm * scale * k`), or the expression itself."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        yield from _factors(expr.left)
        yield from _factors(expr.right)
    else:
        yield expr


def _walk_calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    return (n for n in preorder(node) if isinstance(n, cst.Call))


def _walk_names(tree: SourceTree, node: cst.CSTNode) -> Iterator[cst.Name]:
    """The names an expression reads (not attribute names, not inside a lambda)."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.Name):
            yield cur
        elif isinstance(cur, cst.Attribute):
            stack.append(cur.value)
        elif not isinstance(cur, cst.Lambda):
            stack.extend(tree.children(cur))


def _loop_binds(target: cst.BaseExpression) -> tuple[str, ...]:
    """What a `for` target binds each pass: its names and dotted attributes (`i`, `opt`,
    `self.iter`), through tuples and lists (a starred element's too)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return tuple(name for el in target.elements for name in _loop_binds(el.value))
    text = dotted(target)
    return (text,) if text is not None else ()


def _self_attributes(target: cst.BaseExpression) -> Iterator[str]:
    """The `self.<attr>` names an assignment target binds (`self.a`, `self.a, self.b = ...`)."""
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
        yield target.attr.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from _self_attributes(el.value)


def _names_in(target: cst.BaseExpression) -> Iterator[cst.Name]:
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from _names_in(el.value)


# builtins whose value is a number or a string: a local holding one is no module
_SCALAR_BUILTINS = frozenset({"len", "int", "float", "str", "bool", "round", "abs"})


def _parameters_receiver(expr: Optional[cst.BaseExpression]) -> Optional[cst.BaseExpression]:
    """`m` of `m.parameters()` (no arguments: every parameter of `m`, recursively)."""
    if isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "parameters":
        return expr.func.value
    return None


# -- the disk form -------------------------------------------------------------------------------------
_TAGGED = (Param, Attr, Value, Member, Scaled, Local, Imported, SelfMethod, Method, Unknown)
