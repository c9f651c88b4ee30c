"""What torch.compile compiled while a trace ran (`trace(compiled=True)`, the default where
torch supports it): the section `ampcheck.trace.sections.compiled` reads.

At run time the tracer's mode sees the kernels compiled code calls outside its fused kernels
(inductor's extern kernels: `mm.out`, `addmm.out`, convolutions, attention), with their real
dtypes, attributed to the compiled module (the region). What the fused kernels compute is
known only at compile time, so this observer records it there:

  * graphs: every forward and backward graph AOTAutograd hands inductor during the trace, as
    it will be compiled: per op, the dtypes of its inputs and output (`node.meta["val"]`, the
    fake tensors inductor compiles from) and the FLOPs of matmul-class ops. Captured by
    wrapping the `inner_compile` function inductor's `compile_fx` passes each graph to (its
    `is_backward` argument says which graph it is); the compiled result is inductor's own,
    untouched. `compile_fx` is wrapped when Dynamo starts a compile (a callback), so a trace of
    code that never compiles never imports inductor.
  * graph breaks: the reasons Dynamo records (`torch._dynamo.utils.graph_break_reasons`), with
    the user's line; a break splits what one graph, and one autocast region in it, covers.
  * frames: how many graphs Dynamo compiled during the trace (none, for a model compiled before).
Regions that ran compiled code but compiled no graph during the trace were compiled before
it: their kernels are known, the dtypes of their fused kernels are not ("compiled unseen").
"""
from __future__ import annotations

import functools
import sys
import traceback
from collections import Counter
from typing import Any, Callable, Optional

import torch

from ampcheck.trace import flops
from ampcheck.trace.model import ReportData
from ampcheck.trace.observers import Observer
from ampcheck.trace.runtime import dtype_name
from ampcheck.trace.sections.compiled import SECTION


class CompileWatch(Observer):
    """Watches Dynamo and inductor while a trace runs; see the module docstring."""

    def __init__(self) -> None:
        self.graphs: list[dict[str, Any]] = []
        self._trace: Any = None
        self._watching = False
        self._breaks_from = 0
        self._frames_from = 0
        self._undo: list[Callable[[], None]] = []
        self._breaks: list[Any] = []
        self._frames = 0
        self._hooks_off = False

    def on_start(self, trace: Any) -> None:
        self._trace = trace
        if "torch._dynamo" in sys.modules:  # else nothing is compiled yet; torch.compile calls watch_dynamo
            self.watch_dynamo()

    def watch_dynamo(self) -> None:
        """Start watching Dynamo (once): its graph breaks, frame count and compile starts."""
        if self._watching:
            return
        self._watching = True
        from torch._dynamo.callback import callback_handler
        from torch._dynamo.utils import counters, graph_break_reasons

        self._breaks_from = len(graph_break_reasons)
        self._frames_from = counters["stats"]["unique_graphs"]
        callback_handler.register_start_callback(self._compile_starts)
        callback_handler.register_end_callback(self._compile_ends)
        self._undo.append(lambda: callback_handler.remove_start_callback(self._compile_starts))
        self._undo.append(lambda: callback_handler.remove_end_callback(self._compile_ends))
        if "torch._inductor.compile_fx" in sys.modules:
            self._wrap_inductor()

    def on_stop(self, trace: Any) -> None:
        if self._watching:
            from torch._dynamo.utils import counters, graph_break_reasons

            # `torch._dynamo.reset()` during the trace empties the list: then all of it is new
            start = self._breaks_from if len(graph_break_reasons) >= self._breaks_from else 0
            self._breaks = list(graph_break_reasons[start:])
            self._frames = counters["stats"]["unique_graphs"] - self._frames_from
        while self._undo:
            self._undo.pop()()

    def contribute(self, report: ReportData) -> None:
        tracker = self._trace.modules
        ran = sorted({r.module for r in report.ops if r.compiled and r.module is not None})
        seen = {g["region"] for g in self.graphs}
        breaks = Counter((b.reason, _where(b.user_stack)) for b in self._breaks)
        if not (ran or self.graphs or breaks or self._frames):
            return  # no compiled code ran: nothing to say
        report.sections[SECTION] = {
            "frames_compiled": self._frames,
            "graphs": self.graphs,
            "graph_breaks": [{"reason": reason, "where": where, "count": n} for (reason, where), n in breaks.items()],
            "regions": [{"module": name, "class": tracker.classes.get(name), "compiled_unseen": name not in seen}
                        for name in ran],
        }

    # -- compile time ------------------------------------------------------------------------
    def _compile_starts(self, args: Any) -> None:
        """Dynamo starts compiling: it would inline the tracer's global module hooks into the
        graph and guard on them (so the same code, run after the trace, would compile again),
        so they are off while it compiles; no module runs eagerly meanwhile."""
        self._hooks_off = self._trace.modules.hooked
        if self._hooks_off:
            self._trace.modules.stop()
        self._wrap_inductor()

    def _compile_ends(self, args: Any) -> None:
        if self._hooks_off:
            self._trace.modules.start()
            self._hooks_off = False

    def _wrap_inductor(self) -> None:
        import torch._functorch.config as aot_config
        import torch._inductor.compile_fx as compile_fx_module
        import torch._inductor.config as inductor_config

        original = compile_fx_module.compile_fx
        if getattr(original, "_ampcheck_watch", None) is self:
            return
        watch = self
        # a graph found in inductor's or AOTAutograd's cache is never handed to inner_compile:
        # while tracing, graphs are lowered again (the same code: its kernels come from the cache)
        for config, name in ((aot_config, "enable_autograd_cache"), (inductor_config, "fx_graph_cache")):
            self._undo.append(functools.partial(setattr, config, name, getattr(config, name)))
            setattr(config, name, False)

        @functools.wraps(original)
        def compile_fx(model: Any, example_inputs: Any, inner_compile: Any = compile_fx_module.compile_fx_inner,
                       *args: Any, **kwargs: Any) -> Any:
            return original(model, example_inputs, watch._recording(inner_compile), *args, **kwargs)

        compile_fx._ampcheck_watch = self  # type: ignore[attr-defined]
        compile_fx_module.compile_fx = compile_fx

        def undo() -> None:
            compile_fx_module.compile_fx = original

        self._undo.append(undo)

    def _recording(self, inner_compile: Any) -> Any:
        """`inner_compile`, recording each graph first (once: compile_fx may call itself)."""
        if getattr(inner_compile, "_ampcheck_records", False):
            return inner_compile

        @functools.wraps(inner_compile)
        def record(gm: torch.fx.GraphModule, example_inputs: Any, *args: Any, **kwargs: Any) -> Any:
            self._record(gm, backward=bool(kwargs.get("is_backward", False)))
            return inner_compile(gm, example_inputs, *args, **kwargs)

        record._ampcheck_records = True  # type: ignore[attr-defined]
        return record

    def _record(self, gm: torch.fx.GraphModule, backward: bool) -> None:
        ops: dict[tuple, list[int]] = {}
        for node in gm.graph.nodes:
            if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
                continue
            args = torch.fx.node.map_arg(node.args, _value)
            kwargs = torch.fx.node.map_arg(node.kwargs, _value)
            out = node.meta.get("val")
            key = (str(node.target), tuple(_dtypes(args)), _first_dtype(out))
            slot = ops.setdefault(key, [0, 0])
            slot[0] += 1
            formula = flops.formula_for(node.target)
            if formula is not None:
                slot[1] += _flops(formula, args, kwargs, out)
        tracker = self._trace.modules
        region = tracker.current
        node = torch._C._current_autograd_node()
        if backward and node is not None:  # compiled when its backward first runs
            region = tracker.module_of(node)
        self.graphs.append({
            "region": region,
            "phase": "backward" if backward else "forward",
            "ops": [{"op": op, "in_dtypes": list(ins), "out_dtype": out, "count": n, "flops": f}
                    for (op, ins, out), (n, f) in ops.items()],
        })


def _value(node: torch.fx.Node) -> Any:
    return node.meta.get("val")


def _dtypes(args: Any) -> list[Optional[str]]:
    found = []
    for a in args:
        if isinstance(a, torch.Tensor):
            found.append(dtype_name(a.dtype))
        elif isinstance(a, (list, tuple)):
            found += [dtype_name(b.dtype) for b in a if isinstance(b, torch.Tensor)]
    return found


def _first_dtype(out: Any) -> Optional[str]:
    if isinstance(out, torch.Tensor):
        return dtype_name(out.dtype)
    if isinstance(out, (list, tuple)):
        return next((dtype_name(o.dtype) for o in out if isinstance(o, torch.Tensor)), None)
    return None


def _flops(formula: Any, args: tuple, kwargs: dict, out: Any) -> int:
    """The op's FLOPs from its fake tensors' shapes; 0 where a shape is symbolic (dynamic
    shapes: the count is per call, and reading a symbolic size would add a guard to the graph)."""
    tensors = [t for t in (*args, *kwargs.values(), out) if isinstance(t, torch.Tensor)]
    if not all(isinstance(d, int) for t in tensors for d in t.shape):
        return 0
    return int(formula(args, kwargs, out))


def _where(stack: list[traceback.FrameSummary]) -> Optional[str]:
    """`path:line` of the innermost frame of the user's stack Dynamo recorded."""
    return f"{stack[-1].filename}:{stack[-1].lineno}" if stack else None
