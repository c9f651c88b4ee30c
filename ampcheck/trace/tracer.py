"""`ampcheck.trace()`: record what really ran, in which dtype, where, at what cost.

    with ampcheck.trace(steps=3) as t:
        train(...)
    print(t.report.to_text())

How it works. A TorchDispatchMode sees every aten op (forward, backward, autocast's own
`_to_copy` casts, the optimizer) with its real dtypes, and aggregates as it goes into one
record per distinct (op, phase, module, input dtypes, output dtype, autocast dtype, device
type, cast kind): count, FLOPs, bytes, and for low-precision matmul-class records the FLOPs of
calls whose shapes Tensor Cores cannot tile (tensor_cores.py). Memory stays flat and no tensor
is referenced.
Autocast state cannot be read inside `__torch_dispatch__` (autocast's keys are excluded
there), so the tracer wraps `torch.autocast.__enter__/__exit__` and keeps the state per device
type itself; user-written casts are told from autocast's by wrapping the Tensor cast methods
(`to`, `half`, `bfloat16`, `float`, `double`, `type`, `type_as`) with a depth counter.

Seams (for the GradScaler observer, numerics, the pytest plugin):
  * `Observer` (`ampcheck.trace.observers`): subclass and pass `trace(observers=[...])`, or
    append a zero-argument factory to `DEFAULT_OBSERVERS` to run in every trace.
  * `Trace.steps` (optimizer steps so far), `Trace.recording`, `Trace.modules` (the
    ModuleTracker: current module name, `param_name(parameter)`).

Threads: only the thread that entered the trace is traced, plus the autograd engine's
threads running its backward. Autocast entered in another thread is not seen (the wrapper
ignores it), and ops of other threads are not recorded. Nesting traces raises RuntimeError,
as does entering a finished trace again. Higher-order ops (flex_attention, torch.cond) refuse
to run under a dispatch mode that does not handle them, this one included.
Tensor subclasses: an op on a wrapper subclass (torchao's Float8TrainingTensor, DTensor) is
recorded as the plain-tensor kernels the subclass runs, with their real dtypes (subclasses.py).
`torch.compile`: where torch lets a dispatch mode ignore compile internals (2.13 does) the
mode stays out of Dynamo's way, so compiled code runs compiled and the records of its kernels
are marked `compiled`; the module hooks and the patched methods do nothing while Dynamo traces
them. `observers/compiled.py` adds what the compiled graphs compute. Elsewhere, or with
`compiled=False`, compiled code runs eagerly and the trace warns once.
"""
from __future__ import annotations

import functools
import threading
import time
import warnings
from typing import Any, Callable, Iterable, Optional

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook
from torch.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode

from ampcheck.trace import flops, policy
from ampcheck.trace.modules import ModuleTracker
from ampcheck.trace.observers import Observer
from ampcheck.trace.observers.compiled import CompileWatch
from ampcheck.trace.observers.float8 import Float8Observer
from ampcheck.trace.observers.fp32_compare import Fp32Comparison
from ampcheck.trace.observers.numerics import NumericsObserver
from ampcheck.trace.observers.ranks import RankObserver
from ampcheck.trace.observers.scaler import ScalerObserver
from ampcheck.trace.observers.sharding import ShardingObserver
from ampcheck.trace.report import OpRecord, TraceReport, WeightCasts
from ampcheck.trace.runtime import dtype_name, user_source
from ampcheck.trace.sections import tensor_cores
from ampcheck.trace.sections.precision_loss import DEFAULT_THRESHOLD
from ampcheck.trace.subclasses import SubclassDispatch, dispatch_for
from ampcheck.version import __version__

__all__ = ["trace", "Trace", "Observer", "DEFAULT_OBSERVERS"]

_ACTIVE: Optional["Trace"] = None
# torch lets a mode stay out of torch.compile's way (2.13 does): off while Dynamo compiles, on while
# the compiled code runs (before, Dynamo falls back to eager under any dispatch mode)
COMPILED_SUPPORTED = hasattr(TorchDispatchMode, "ignore_compile_internals")
_compiling = torch.compiler.is_compiling
_graph_task_id = torch._C._current_graph_task_id
_current_node = torch._C._current_autograd_node
_Tensor = torch.Tensor
_Parameter = torch.nn.Parameter
_CAST_OPS = frozenset({torch.ops.aten._to_copy.default})
_TENSORS = frozenset({"Tensor", "Optional[Tensor]"})
_TENSOR_LISTS = frozenset({"List[Tensor]", "List[Optional[Tensor]]"})
_DTYPE_CHANGING_VIEWS = frozenset({"view_as_real", "view_as_complex", "real", "imag"})
_SKIP_NAMESPACES = frozenset({"profiler"})  # record_function markers, not computation
_CAST_METHODS = ("to", "half", "bfloat16", "float", "double", "type", "type_as")
ALL_PHASES = ("forward", "backward", "recompute", "optimizer")


# the GradScaler history (recorded only when a scaler is used), the rank of a distributed run
# (all None otherwise), float8 matmuls and linears, FSDP2/DDP precision come with every trace
DEFAULT_OBSERVERS: list[Callable[[], Observer]] = [ScalerObserver, RankObserver, Float8Observer,
                                                   ShardingObserver]


class OpInfo:
    """What the hot path needs to know about an OpOverload, computed once."""

    __slots__ = ("op", "name", "skip", "flop", "align", "is_cast", "is_view", "plain_view", "unary", "slots",
                 "kw_tensors", "observers")

    def __init__(self, func: Any, op_observers: Iterable["Observer"] = ()) -> None:
        self.op = str(func)
        arguments = func._schema.arguments
        # (position, holds a list) of each positional tensor argument; the rest are never tensors
        self.slots = tuple(
            (i, str(a.type) in _TENSOR_LISTS)
            for i, a in enumerate(a for a in arguments if not a.kwarg_only)
            if str(a.type) in _TENSORS or str(a.type) in _TENSOR_LISTS
        )
        self.kw_tensors = tuple(a.name for a in arguments if a.kwarg_only and str(a.type) in _TENSORS)
        self.unary = self.slots == ((0, False),) and not self.kw_tensors  # the common case, unrolled
        self.name = func.overloadpacket.__name__
        self.skip = func.namespace in _SKIP_NAMESPACES
        # the op observers that want this op: every recorded op, or this op among their `op_names`
        self.observers = tuple(o for o in op_observers if (
            self.name in o.op_names if o.op_names is not None else not self.skip))
        self.flop = flops.formula_for(func)
        self.align = tensor_cores.check_for(self.name) if self.flop is not None else None
        self.is_cast = func in _CAST_OPS
        self.is_view = func.is_view
        returns = func._schema.returns
        # a view of its one tensor argument, returning one tensor of the same dtype and device:
        # the hot path reads both from the output and counts no bytes (views move no data)
        self.plain_view = (
            self.is_view and self.unary and len(returns) == 1 and str(returns[0].type) == "Tensor"
            and func._overloadname != "dtype" and self.name not in _DTYPE_CHANGING_VIEWS
        )


class _Mode(TorchDispatchMode):
    def __init__(self, trace: "Trace") -> None:
        super().__init__()
        self.trace = trace

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        if types:  # a tensor subclass among the arguments (see ampcheck.trace.subclasses)
            handling = dispatch_for(types)
            if handling is SubclassDispatch.UNWRAP:
                return NotImplemented
            if handling is SubclassDispatch.UNRECORDED:
                return func(*args, **kwargs) if kwargs else func(*args)
        out = func(*args, **kwargs) if kwargs else func(*args)
        t = self.trace
        if not t.recording:
            return out
        info = t.infos.get(id(func))  # OpOverloads are immortal singletons; their __hash__ is Python
        if info is None:
            info = t.infos[id(func)] = OpInfo(func, t.op_observers)
        if info.skip:  # profiler scopes: not computation, but observers may follow them
            for observer in info.observers:
                observer.on_op(t, func, args, kwargs or {}, out, None)
            return out
        tracker = t.modules
        if _graph_task_id() == -1:
            if t.in_optimizer:
                phase, module = "optimizer", None
            else:
                phase, module = "forward", tracker.current
        elif tracker.recompute_depth:
            phase, module = "recompute", tracker.current
        else:
            phase, module = "backward", None
            if t.attribute:
                tracker.backward_ran = True
                node = _current_node()
                if node is not None:
                    module = tracker.module_of(node)
        if phase not in t.phases:
            return out
        if info.plain_view:
            out_dtype = out.dtype
            dtypes = (out_dtype,)
            device = "cuda" if out.is_cuda else ("cpu" if out.is_cpu else out.device.type)
            nread = nwritten = 0
        else:
            count_bytes = not info.is_view
            nread = 0
            first = None  # the first tensor argument: its device when no tensor comes out
            if info.unary:
                first = args[0] if args else None  # an optional argument may be left out
                if isinstance(first, _Tensor):  # a Tensor argument may be None or a Python number
                    dtypes = (first.dtype,)
                    if count_bytes:
                        nread = first.nbytes
                else:
                    dtypes, first = (), None
            else:
                dtype_list = []
                n = len(args)
                for i, is_list in info.slots:
                    if i >= n:
                        break
                    a = args[i]
                    if is_list:
                        for b in a:
                            if b is not None:
                                dtype_list.append(b.dtype)
                                if count_bytes:
                                    nread += b.nbytes
                                if first is None:
                                    first = b
                    elif isinstance(a, _Tensor):
                        dtype_list.append(a.dtype)
                        if count_bytes:
                            nread += a.nbytes
                        if first is None:
                            first = a
                if kwargs and info.kw_tensors:
                    for name in info.kw_tensors:
                        a = kwargs.get(name)
                        if isinstance(a, _Tensor):
                            dtype_list.append(a.dtype)
                            if count_bytes:
                                nread += a.nbytes
                dtypes = tuple(dtype_list)
            if isinstance(out, _Tensor):
                out_dtype = out.dtype
                nwritten = out.nbytes if count_bytes else 0
                first = out  # an op runs where its output lives (a `.to(device)` copy included)
            else:
                out_dtype = None
                nwritten = 0
                if out.__class__ is tuple or out.__class__ is list:
                    for o in out:
                        if isinstance(o, _Tensor):
                            if out_dtype is None:
                                out_dtype = o.dtype
                                first = o
                            if count_bytes:
                                nwritten += o.nbytes
            device = None if first is None else (
                "cuda" if first.is_cuda else ("cpu" if first.is_cpu else first.device.type))
        autocast = t.autocast.get(device)
        cast = None
        if info.is_cast and dtypes and out_dtype is not dtypes[0]:
            if phase == "backward":
                cast = "backward"
            elif t.user_cast_depth or autocast is None:
                cast = "user"
            else:
                cast = "autocast"
        key = (info, phase, module, dtypes, out_dtype, autocast, device, cast,
               module in tracker.compiled if tracker.compiled else False)
        rec = t.records.get(key)
        if rec is None:
            multiple = tensor_cores.multiple_for(dtype_name(out_dtype)) if info.align is not None else None
            # count, FLOPs, bytes read, written, source, alignment multiple, misaligned FLOPs, calls, example
            rec = t.records[key] = [0, 0, 0, 0, user_source(), multiple, 0, 0, None]
        rec[0] += 1
        rec[2] += nread
        rec[3] += nwritten
        if info.flop is not None:
            nflop = info.flop(args, kwargs, out)
            rec[1] += nflop
            if rec[5] is not None:
                odd = info.align(args, rec[5])
                if odd is not None:
                    rec[6] += nflop
                    rec[7] += 1
                    if rec[8] is None:
                        rec[8] = odd
        if cast is not None and cast != "backward":
            weight = args[0]
            kind = type(weight)  # Parameter's isinstance runs a Python metaclass hook: test the type first
            if kind is _Parameter or (kind is not _Tensor and isinstance(weight, _Parameter)):
                t._weight_cast(weight, key, nread + nwritten, rec[4])
        if info.observers:
            for observer in info.observers:
                observer.on_op(t, func, args, kwargs or {}, out, key)
        return out


class _CompiledMode(_Mode):
    """The mode that lets compiled code run compiled: Dynamo compiles under it (the mode is off
    while it does) and the mode sees the kernels the compiled code runs."""

    @classmethod
    def ignore_compile_internals(cls) -> bool:
        return True


class Trace:
    """The context manager `ampcheck.trace()` returns; `report` is set when it exits."""

    key_fields = ("op", "phase", "module", "in_dtypes", "out_dtype", "autocast", "device", "cast", "compiled")

    def __init__(
        self,
        *,
        phases: Iterable[str] = ("forward", "backward"),
        modules: bool = True,
        steps: Optional[int] = None,
        model: Optional[torch.nn.Module] = None,
        observers: Iterable[Observer] = (),
        numerics: bool = False,
        numerics_every: int = 1,
        compare_fp32: bool = False,
        compare_threshold: float = DEFAULT_THRESHOLD,
        compiled: bool = True,
    ) -> None:
        if numerics:
            observers = [*observers, NumericsObserver(every=numerics_every)]
        if compare_fp32:
            observers = [*observers, Fp32Comparison(threshold=compare_threshold)]
        phases = tuple(phases)
        unknown = sorted(set(phases) - set(ALL_PHASES))
        if unknown:
            raise ValueError(f"unknown trace phase(s) {unknown}; choose from {list(ALL_PHASES)}")
        if steps is not None and steps < 1:
            raise ValueError(f"steps must be a positive number of optimizer steps, got {steps}")
        # recompute runs forward again during backward: traced whenever backward is
        self.phases = frozenset(phases + (("recompute",) if "backward" in phases else ()))
        self.attribute = modules
        self.step_limit = steps
        self.observers = [factory() for factory in DEFAULT_OBSERVERS] + list(observers)
        self.op_observers = [o for o in self.observers if o.wants_ops]
        # compiled code runs compiled where torch lets a mode stay out of its way, and
        # `compiled=False` asks for today's fallback anyway: compiled code run eagerly
        self.compiled = compiled and COMPILED_SUPPORTED
        if self.compiled:
            self.observers.append(CompileWatch())
        self.modules = ModuleTracker(on_compiled=self._warn_compiled)
        if model is not None:
            self.modules.add_root(model)
        self.records: dict[tuple, list] = {}
        self.weights: dict[tuple, list] = {}
        self.infos: dict[int, OpInfo] = {}
        self.autocast: dict[Optional[str], Optional[torch.dtype]] = {}
        self.recording = False
        self.in_optimizer = False
        self.user_cast_depth = 0
        self.steps = 0
        self.report: Optional[TraceReport] = None
        self._autocast_depth = 0
        self._region = 0
        self._outside_region = 0
        self._owner = 0
        self._mode: Optional[_Mode] = None
        self._undo: list[Callable[[], None]] = []
        self._started = 0.0
        self._warned_compile = False
        self._stopped = False

    # -- lifecycle -------------------------------------------------------------------
    def __enter__(self) -> "Trace":
        global _ACTIVE
        if _ACTIVE is not None:
            raise RuntimeError("ampcheck.trace() is already active; traces cannot be nested")
        if self._stopped:
            raise RuntimeError("this trace has already run; start a new one with ampcheck.trace()")
        _ACTIVE = self
        try:
            self._owner = threading.get_ident()
            self._started = time.perf_counter()
            self._refresh_autocast()
            if any(v is not None for v in self.autocast.values()):
                self._autocast_depth, self._region = 1, 1
            self._install()
            for observer in self.observers:
                observer.on_start(self)
            self.recording = True
            self._mode = (_CompiledMode if self.compiled else _Mode)(self)
            self._mode.__enter__()
        except BaseException:
            self._stop()
            _ACTIVE = None
            raise
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        global _ACTIVE
        try:
            self._stop()
            if self._mode is not None:  # could not be popped mid-block: another mode was above it
                self._mode.__exit__(None, None, None)
                self._mode = None
        finally:
            _ACTIVE = None
        self.report = self._build_report()

    def _stop(self) -> None:
        """Stop recording and remove every hook and patch; the program goes on untraced."""
        if self._stopped:
            return
        self._stopped = True
        self.recording = False
        if self._mode is not None and _get_current_dispatch_mode() is self._mode:
            self._mode.__exit__(None, None, None)
            self._mode = None
        while self._undo:
            self._undo.pop()()
        for observer in self.observers:
            observer.on_stop(self)

    # -- hooks -----------------------------------------------------------------------
    def _install(self) -> None:
        if self.attribute:
            self.modules.start()
            self._undo.append(self.modules.stop)
        pre = register_optimizer_step_pre_hook(self._optimizer_pre)
        post = register_optimizer_step_post_hook(self._optimizer_post)
        self._undo.append(pre.remove)
        self._undo.append(post.remove)
        self._patch_autocast()
        for name in _CAST_METHODS:
            self._patch_cast_method(name)
        self._patch_compile()
        if self.compiled:
            self._quiet_hook_warning()

    def _patch(self, owner: Any, name: str, replacement: Any) -> None:
        had_own = name in owner.__dict__
        original = owner.__dict__[name] if had_own else None

        def undo() -> None:
            if had_own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)

        setattr(owner, name, replacement)
        self._undo.append(undo)

    def _patch_autocast(self) -> None:
        cls = torch.amp.autocast_mode.autocast
        enter, exit_ = cls.__enter__, cls.__exit__
        trace = self

        @functools.wraps(enter)
        def __enter__(ac: Any) -> Any:
            if _compiling():  # Dynamo traces this into a graph: no Python side effects there
                return enter(ac)
            result = enter(ac)
            trace._autocast_changed(ac, +1)
            return result

        @functools.wraps(exit_)
        def __exit__(ac: Any, *exc: Any) -> Any:
            if _compiling():
                return exit_(ac, *exc)
            result = exit_(ac, *exc)
            trace._autocast_changed(ac, -1)
            return result

        self._patch(cls, "__enter__", __enter__)
        self._patch(cls, "__exit__", __exit__)

    def _patch_cast_method(self, name: str) -> None:
        original = getattr(torch.Tensor, name)
        trace = self

        @functools.wraps(original)
        def method(tensor: Any, *args: Any, **kwargs: Any) -> Any:
            if _compiling():
                return original(tensor, *args, **kwargs)
            trace.user_cast_depth += 1
            try:
                return original(tensor, *args, **kwargs)
            finally:
                trace.user_cast_depth -= 1

        self._patch(torch.Tensor, name, method)

    def _patch_compile(self) -> None:
        original = torch.compile
        trace = self

        @functools.wraps(original)
        def compile(*args: Any, **kwargs: Any) -> Any:
            trace._warn_compiled()
            result = original(*args, **kwargs)
            for observer in trace.observers:  # Dynamo is imported now: watch what it compiles
                if isinstance(observer, CompileWatch):
                    observer.watch_dynamo()
            return result

        self._patch(torch, "compile", compile)

    def _quiet_hook_warning(self) -> None:
        """torch warns on every call of a torch.compile'd module while global module hooks
        exist: the tracer's are, and the tracer expects the extra call they see."""
        caught = warnings.catch_warnings()
        caught.__enter__()
        warnings.filterwarnings("ignore", message=r"Using `torch.compile\(module\)` when there are global hooks")
        self._undo.append(lambda: caught.__exit__(None, None, None))

    def _warn_compiled(self) -> None:
        if not self.compiled and not self._warned_compile:
            self._warned_compile = True
            warnings.warn(
                "ampcheck.trace: torch.compile'd code runs eagerly while traced "
                "(the report shows eager ops and dtypes, not the compiled graph)",
                RuntimeWarning,
                stacklevel=3,
            )

    def _refresh_autocast(self, devices: Iterable[str] = tuple(policy.DISPATCH_KEYS)) -> None:
        for dev in devices:
            enabled = torch.is_autocast_enabled(dev)
            self.autocast[dev] = torch.get_autocast_dtype(dev) if enabled else None

    def _autocast_changed(self, ac: Any, delta: int) -> None:
        if threading.get_ident() != self._owner:
            return
        self._autocast_depth = max(self._autocast_depth + delta, 0)
        if delta > 0 and self._autocast_depth == 1:
            self._region += 1
        self._refresh_autocast((ac.device,))

    def _optimizer_pre(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        self.in_optimizer = True

    def _optimizer_post(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        self.in_optimizer = False
        if not self.recording:
            return
        self.steps += 1
        for observer in self.observers:
            observer.on_step(self, optimizer)
        if self.step_limit is not None and self.steps >= self.step_limit:
            self._stop()

    def _weight_cast(self, param: Any, key: tuple, nbytes: int, source: Optional[str]) -> None:
        name = self.modules.param_name(param)
        if name is None:
            return
        if self._autocast_depth:
            region = self._region
        else:  # outside autocast nothing is cached: each cast is its own "region"
            self._outside_region -= 1
            region = self._outside_region
        wkey = (id(param), name, key[3][0], key[4], key[7])
        slot = self.weights.get(wkey)
        if slot is None:
            slot = self.weights[wkey] = [0, 0, 0, None, source]
        slot[0] += 1
        slot[2] += nbytes
        if slot[3] != region:
            slot[3] = region
            slot[1] += 1

    # -- report ----------------------------------------------------------------------
    def _build_report(self) -> TraceReport:
        ops = []
        for (info, phase, module, dtypes, out_dtype, autocast, device, cast, compiled), rec in self.records.items():
            count, nflops, nread, nwritten, source, multiple, misaligned_flops, misaligned_calls, shapes = rec
            ops.append(OpRecord(
                op=info.op,
                phase=phase,
                module=module,
                in_dtypes=tuple(dtype_name(d) for d in dtypes),
                out_dtype=dtype_name(out_dtype),
                autocast=dtype_name(autocast),
                device=device or "none",
                cast=cast,
                policy=policy.policy_of(device or "", info.name),
                count=count,
                flops=nflops,
                bytes_read=nread,
                bytes_written=nwritten,
                source=source,
                misaligned_flops=None if multiple is None else misaligned_flops,
                misaligned_calls=misaligned_calls,
                misaligned_shapes=shapes,
                compiled=compiled,
            ))
        weights = [
            WeightCasts(weight=name, src_dtype=dtype_name(src), dst_dtype=dtype_name(dst), kind=kind,
                        casts=casts, regions=regions, bytes=nbytes, source=source)
            for (_, name, src, dst, kind), (casts, regions, nbytes, _, source) in self.weights.items()
        ]
        report = TraceReport(
            meta={
                "torch_version": torch.__version__,
                "ampcheck_version": __version__,
                "phases": sorted(self.phases),
                "modules": self.attribute,
                "roots": list(self.modules.roots),
                "compiled_code": "compiled" if self.compiled else "eager",
                "steps": self.steps,
                "step_limit": self.step_limit,
                "autocast_seen": any(r.autocast is not None for r in ops),
                "policy": {
                    "tables": policy.TABLES_FROM,
                    "devices": {d: policy.DISPATCH_KEYS.get(d) for d in sorted({r.device for r in ops} - {"none"})},
                },
                "wall_s": round(time.perf_counter() - self._started, 6),
            },
            ops=ops,
            weights=weights,
            module_classes=self._module_classes(ops),
        )
        for observer in self.observers:
            observer.contribute(report)
        return report

    def _module_classes(self, ops: list[OpRecord]) -> dict[str, str]:
        """The classes of the modules the records name, and of the modules enclosing them."""
        named = {m for r in ops if r.module is not None for m in _enclosing(r.module)}
        return {name: cls for name, cls in sorted(self.modules.classes.items()) if name in named}


def _enclosing(name: str) -> Iterable[str]:
    """`a`, `a.b`, `a.b.c` for `a.b.c`: the modules whose coverage a record adds to."""
    parts = name.split(".")
    return (".".join(parts[:depth]) for depth in range(1, len(parts) + 1))


def trace(
    *,
    phases: Iterable[str] = ("forward", "backward"),
    modules: bool = True,
    steps: Optional[int] = None,
    model: Optional[torch.nn.Module] = None,
    observers: Iterable[Observer] = (),
    numerics: bool = False,
    numerics_every: int = 1,
    compare_fp32: bool = False,
    compare_threshold: float = DEFAULT_THRESHOLD,
    compiled: bool = True,
) -> Trace:
    """Trace the ops run inside the `with` block.

    phases: which of forward, backward, optimizer to record (recompute goes with backward).
    modules: attribute ops to modules (state_dict names), forward and backward.
    steps: stop recording after this many `optimizer.step()` calls; the block runs on untraced.
    model: name modules and parameters from this root even when `modules=False`.
    observers: extra `Observer`s (GradScaler history, numerics, ...).
    numerics: also record inf/nan, fp16 headroom and underflow statistics (AMP504-AMP506);
        `numerics_every=N` samples one optimizer step in N.
    compare_fp32: also rerun each module called under autocast in float32 on the same inputs and
        rank modules by the relative error of their autocast output (AMP510 above
        `compare_threshold`); the training itself is unchanged (see ampcheck.trace.fp32_compare).
    compiled: let torch.compile'd code run compiled (where torch supports it) and
        report what the compiled program computes (see ampcheck.trace.observers.compiled);
        False runs it eagerly (as on a torch without that support) and warns.
    """
    return Trace(phases=phases, modules=modules, steps=steps, model=model, observers=observers,
                 numerics=numerics, numerics_every=numerics_every, compare_fp32=compare_fp32,
                 compare_threshold=compare_threshold, compiled=compiled)

