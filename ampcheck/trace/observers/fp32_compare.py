"""`trace(compare_fp32=True)`: which module loses precision under autocast.

Every module call the trace sees in forward with autocast on is, once the module returns, run
again on the same inputs in float32: autocast off, its inputs copied and upcast, its
low-precision parameters and all its buffers replaced by float32 copies, under no_grad. Its
floating outputs are compared with the autocast outputs. A module's inputs are what the
autocast run gave it, so its error is what it (with everything it calls) adds on its own.

Transparency, so that the training run stays bitwise identical to an untraced one:
  * RNG: the generator states (CPU and the devices of the module's inputs and parameters) are
    captured before the autocast call; the rerun starts from them, so dropout draws the mask
    the autocast call drew (on CPU masks do not depend on the dtype: tested; on CUDA
    bench/gpu_check.py checks it), and the states the autocast call left are put back
    afterwards: the rerun consumes no random numbers. Running the rerun in
    eval mode instead would not do: it changes what BatchNorm computes, not only dropout.
  * State: the buffer copies take BatchNorm's running-statistics update; parameters stay as
    they are (float32 ones are read, not copied). The rerun calls `module.forward`, so the
    module's own hooks do not run twice (those of its submodules do, as part of it).
  * Inputs: copies. A call whose positional inputs the module modified in place (a
    `ReLU(inplace=True)`) is skipped: the values it was given are gone.
  * The tracer records none of the rerun's ops; autocast's weight cache is kept (the rerun's
    `autocast(enabled=False)` is nested in the running region).
  Not covered: Python attributes a forward assigns (counters, caches), in-place changes to
  keyword-argument tensors, and distributed wrappers (DDP, FSDP), which are skipped: their
  forward talks to the other ranks; the modules inside them are compared. An autocast region
  a forward enters itself runs in low precision in the rerun too, so its loss is not seen.

Errors, per call, over the output elements finite in both runs: max |amp - fp32| / max |fp32|
and mean |amp - fp32| / mean |fp32|; an autocast output holding inf/nan where float32 is finite
makes the call non-finite. They are reduced on the device and read back once per optimizer step.

Cost: a module reruns its whole subtree, so every op runs once more in float32 per enclosing
module; see bench/compare_fp32_overhead.py.
"""
from __future__ import annotations

import contextlib
import math
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, Optional

from ampcheck.trace.observers import Observer
from ampcheck.trace.runtime import dtype_name, untraced, user_source
from ampcheck.trace.sections.precision_loss import DEFAULT_THRESHOLD, SECTION

if TYPE_CHECKING:
    import torch

_FLUSH_AT = 10_000  # pending per-call errors kept on the device before a forced read back
_WRAPPERS = frozenset({"DistributedDataParallel", "DataParallel", "FullyShardedDataParallel", "FSDPModule"})


@dataclass
class _Call:
    """What the pre-hook saw of a compared call: the generator states and the positional
    inputs' versions."""

    name: str
    rng: list[tuple[Any, Any]]
    versions: list[tuple[Any, int]]


@dataclass
class _Module:
    """Host-side totals of one module (by name)."""

    cls: str
    parent: Optional[str]
    source: Optional[str]
    dtype: Optional[str]
    calls: int = 0
    nonfinite_calls: int = 0
    skipped_calls: int = 0
    max_rel_error: float = 0.0
    mean_rel_sum: float = 0.0
    mean_rel_count: int = 0
    rerun_error: Optional[str] = None

    def add(self, err_max: float, ref_max: float, err_sum: float, ref_sum: float, lost: float) -> None:
        """One compared call (a call whose fp32 output is all zero adds no relative error)."""
        self.calls += 1
        self.nonfinite_calls += lost > 0
        if ref_max > 0 and math.isfinite(err_max / ref_max):
            self.max_rel_error = max(self.max_rel_error, err_max / ref_max)
        if ref_sum > 0 and math.isfinite(err_sum / ref_sum):
            self.mean_rel_sum += err_sum / ref_sum
            self.mean_rel_count += 1

    def to_json(self, name: str) -> dict[str, Any]:
        return {
            "module": name, "class": self.cls, "parent": self.parent, "source": self.source, "dtype": self.dtype,
            "calls": self.calls, "nonfinite_calls": self.nonfinite_calls, "skipped_calls": self.skipped_calls,
            "max_rel_error": self.max_rel_error,
            "mean_rel_error": self.mean_rel_sum / self.mean_rel_count if self.mean_rel_count else 0.0,
            "rerun_error": self.rerun_error,
        }


class Fp32Comparison(Observer):
    """Reruns the modules called under autocast in float32; see the module docstring."""

    def __init__(self, threshold: float = DEFAULT_THRESHOLD) -> None:
        if not threshold > 0:
            raise ValueError(f"compare_threshold must be a positive relative error, got {threshold}")
        self.threshold = threshold
        self.modules: dict[str, _Module] = {}
        self.steps_compared = 0
        self._trace: Any = None
        # (module, its call, or None when this call is not compared), innermost last
        self._stack: list[tuple[Any, Optional[_Call]]] = []
        self._rerunning = False
        self._compared_this_step = False
        self._pending: list[tuple[str, "torch.Tensor"]] = []
        self._handles: list[Any] = []

    # -- tracer hooks ------------------------------------------------------------------------
    def on_start(self, trace: Any) -> None:
        import torch
        from torch.nn.modules import module as nn_module

        self._trace = trace
        self._torch = torch
        self._plain = (torch.Tensor, torch.nn.Parameter)
        self._low = frozenset({torch.float16, torch.bfloat16})
        self._handles = [
            nn_module.register_module_forward_pre_hook(self._pre),
            nn_module.register_module_forward_hook(self._post, with_kwargs=True),
        ]

    def on_step(self, trace: Any, optimizer: Any) -> None:
        self._stack.clear()  # calls that raised never reached their post-hook
        self._read_back()
        self.steps_compared += self._compared_this_step
        self._compared_this_step = False

    def on_stop(self, trace: Any) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []
        self._read_back()
        self.steps_compared += self._compared_this_step

    def contribute(self, report: Any) -> None:
        report.sections[SECTION] = {
            "threshold": self.threshold,
            "steps_compared": self.steps_compared,
            "modules": [m.to_json(name) for name, m in self.modules.items()],
        }

    # -- module hooks ------------------------------------------------------------------------
    def _pre(self, module: "torch.nn.Module", args: tuple) -> None:
        if self._torch.compiler.is_compiling():  # Dynamo inlining the hook into a graph: not a call
            return
        t = self._trace
        if (self._rerunning or not t.recording or t.in_optimizer or t.modules.recompute_depth
                or self._torch._C._current_graph_task_id() != -1 or not any(t.autocast.values())
                or _WRAPPERS.intersection(c.__name__ for c in type(module).__mro__)):
            self._stack.append((module, None))
            return
        from torch.utils._pytree import tree_leaves

        inputs = [x for x in tree_leaves(args) if isinstance(x, self._torch.Tensor)]
        devices = {x.device for x in inputs}
        param = next(module.parameters(), None)
        if param is not None:
            devices.add(param.device)
        name = t.modules.name_of(module)
        parent = next((c.name for _, c in reversed(self._stack) if c is not None), None)
        self._stack.append((module, _Call(name, _rng_states(devices), [(x, x._version) for x in inputs])))
        if name not in self.modules:
            dtype = next((d for d in t.autocast.values() if d is not None), None)
            self.modules[name] = _Module(type(module).__name__, parent, user_source(), dtype_name(dtype))

    def _post(self, module: "torch.nn.Module", args: tuple, kwargs: dict, output: Any) -> None:
        if self._torch.compiler.is_compiling():
            return
        call = self._pop(module)
        if call is None:
            return
        stats = self.modules[call.name]
        if any(x._version != version for x, version in call.versions) or not self._comparable(output):
            stats.skipped_calls += 1
            return
        try:
            reference = self._rerun(module, args, kwargs, call.rng)
        except Exception as exc:  # the fp32 rerun failed (code that insists on a dtype): training goes on
            stats.skipped_calls += 1
            stats.rerun_error = stats.rerun_error or f"{type(exc).__name__}: {exc}".splitlines()[0]
            return
        row = self._errors(output, reference)
        if row is None:
            stats.skipped_calls += 1
            return
        self._pending.append((call.name, row))
        self._compared_this_step = True
        if len(self._pending) >= _FLUSH_AT:
            self._read_back()

    def _pop(self, module: Any) -> Optional[_Call]:
        """This module's entry; entries above it belong to calls that raised (no post-hook ran)."""
        while self._stack:
            owner, call = self._stack.pop()
            if owner is module:
                return call
        return None

    def _comparable(self, output: Any) -> bool:
        from torch.utils._pytree import tree_leaves

        return any(x.__class__ in self._plain and x.is_floating_point() for x in tree_leaves(output))

    # -- the rerun ---------------------------------------------------------------------------
    def _rerun(self, module: "torch.nn.Module", args: tuple, kwargs: dict, rng: list[tuple[Any, Any]]) -> Any:
        from torch.utils._pytree import tree_map_only

        torch = self._torch
        t = self._trace
        recording = t.recording
        t.recording, self._rerunning = False, True
        try:
            with contextlib.ExitStack() as stack:
                stack.enter_context(torch.no_grad())
                for device, dtype in list(t.autocast.items()):
                    if dtype is not None:
                        stack.enter_context(torch.autocast(device, enabled=False))
                stack.enter_context(_fp32_state(module, self._low))
                stack.enter_context(_replayed(rng))
                upcast = tree_map_only(torch.Tensor, self._copy, (args, kwargs))
                return module.forward(*upcast[0], **upcast[1])
        finally:
            t.recording, self._rerunning = recording, False

    def _copy(self, tensor: "torch.Tensor") -> "torch.Tensor":
        if tensor.dtype in self._low:
            return tensor.detach().to(self._torch.float32, copy=True)
        return tensor.detach().clone()

    def _errors(self, output: Any, reference: Any) -> Optional["torch.Tensor"]:
        """[max |a-r|, max |r|, sum |a-r|, sum |r|, elements lost to inf/nan] over every floating
        output, on the device; None when the outputs cannot be paired."""
        from torch.utils._pytree import tree_leaves

        torch = self._torch
        amp = [x for x in tree_leaves(output) if isinstance(x, torch.Tensor)]
        ref = [x for x in tree_leaves(reference) if isinstance(x, torch.Tensor)]
        pairs = [(a, r) for a, r in zip(amp, ref)
                 if a.is_floating_point() and a.__class__ in self._plain and a.shape == r.shape and a.numel()]
        if len(amp) != len(ref) or not pairs:
            return None
        with untraced():
            rows = []
            for a, r in pairs:
                a, r = a.detach().float(), r.detach().float()
                finite = r.isfinite()
                both = finite & a.isfinite()
                err = torch.where(both, (a - r).abs(), 0.0)
                mag = torch.where(both, r.abs(), 0.0)
                rows.append(torch.stack([err.amax(), mag.amax(), err.sum(), mag.sum(), (finite & ~both).sum().float()]))
            table = torch.stack(rows)
            return torch.cat([table[:, :2].amax(0), table[:, 2:].sum(0)])

    def _read_back(self) -> None:
        """One device-to-host transfer per device for the calls compared since the last one."""
        if not self._pending:
            return
        by_device: dict[Any, list[tuple[str, "torch.Tensor"]]] = defaultdict(list)
        for name, row in self._pending:
            by_device[row.device].append((name, row))
        self._pending = []
        with untraced():
            for rows in by_device.values():
                values = self._torch.stack([row for _, row in rows]).tolist()
                for (name, _), values_of_call in zip(rows, values):
                    self.modules[name].add(*values_of_call)


def _rng_states(devices: set[Any]) -> list[tuple[Any, Any]]:
    """The CPU generator's state and that of each accelerator among `devices`."""
    import torch

    states: list[tuple[Any, Any]] = [(None, torch.get_rng_state())]
    for device in devices:
        if device.type not in ("cpu", "meta"):
            states.append((device, torch.get_device_module(device.type).get_rng_state(device)))
    return states


def _set_rng_states(states: list[tuple[Any, Any]]) -> None:
    import torch

    for device, state in states:
        if device is None:
            torch.set_rng_state(state)
        else:
            torch.get_device_module(device.type).set_rng_state(state, device)


@contextlib.contextmanager
def _replayed(before: list[tuple[Any, Any]]) -> Iterator[None]:
    """Run from the generator states `before`, then put back the states found on entry."""
    after = _rng_states({device for device, _ in before if device is not None})
    _set_rng_states(before)
    try:
        yield
    finally:
        _set_rng_states(after)


@contextlib.contextmanager
def _fp32_state(module: "torch.nn.Module", low: frozenset) -> Iterator[None]:
    """Swap float32 copies in for the low-precision parameters and for every buffer of the
    module tree (tied tensors stay tied), and swap the originals back on exit."""
    import torch

    copies: dict[int, Any] = {}
    swapped: list[tuple[dict, str, Any]] = []
    for owner in module.modules():
        for store, is_buffer in ((owner._parameters, False), (owner._buffers, True)):
            for name, value in list(store.items()):
                if value is None or (not is_buffer and value.dtype not in low):
                    continue
                copy = copies.get(id(value))
                if copy is None:
                    copy = copies[id(value)] = (value.detach().to(torch.float32, copy=True) if value.dtype in low
                                                else value.detach().clone())
                swapped.append((store, name, value))
                store[name] = copy
    try:
        yield
    finally:
        for store, name, value in reversed(swapped):
            store[name] = value
