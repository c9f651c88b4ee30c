"""Opt-in numerics (`trace(numerics=True)`): overflow, non-finite values and fp16 underflow
(the section `ampcheck.trace.sections.numerics` reads).

Per aggregated op record: how many outputs held inf/nan, and the first (step, op, module,
phase, user line) where one appeared (AMP504); the largest magnitude in fp16 outputs against
fp16's 65504 (AMP505); for fp16 outputs, the share of values that are zero or subnormal
(|x| < 6.1e-5), backward (gradients) against forward (AMP506).

Cost model. Every output is reduced on its device as the op runs (one `aminmax`, plus
`abs < tiny` and a `sum` for fp16), and the 0-dim results wait on the device; they are read
back together once per optimizer step (one transfer per device and step), never per op.
`every=N` samples one step in N. View ops (they repeat their input's values) and `empty`-like
ops (uninitialised memory) are skipped.
"""
from __future__ import annotations

import math
from collections import defaultdict
from typing import TYPE_CHECKING, Any, Optional

from ampcheck.trace.model import ReportData
from ampcheck.trace.observers import Observer
from ampcheck.trace.runtime import dtype_name, untraced
from ampcheck.trace.sections.numerics import FP16_TINY, SECTION

if TYPE_CHECKING:
    import torch

DEFAULT_HEADROOM_FACTOR = 4.0
_FLUSH_AT = 100_000  # pending reductions kept on the device before a forced read back
# outputs that hold uninitialised memory, not values anything computed
_UNINITIALISED = frozenset({"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided",
                            "empty_permuted"})


class _Stats:
    """Host-side totals of one op record."""

    __slots__ = ("outputs", "nonfinite", "first", "max_abs", "tiny", "elements")

    def __init__(self) -> None:
        self.outputs = 0
        self.nonfinite = 0
        self.first: Optional[tuple[int, int]] = None  # (step, sequence number in the step)
        self.max_abs = 0.0
        self.tiny = 0
        self.elements = 0


class NumericsObserver(Observer):
    """Runs on every recorded op; see the module docstring."""

    wants_ops = True

    def __init__(self, every: int = 1, headroom_factor: float = DEFAULT_HEADROOM_FACTOR) -> None:
        if every < 1:
            raise ValueError(f"numerics_every must be a positive number of steps, got {every}")
        if headroom_factor < 1:
            raise ValueError(f"numerics headroom factor must be at least 1, got {headroom_factor}")
        self.every = every
        self.headroom_factor = headroom_factor
        self.stats: dict[tuple, _Stats] = defaultdict(_Stats)
        self.steps_sampled = 0
        self.readbacks = 0
        self._trace: Any = None
        self._sampling = True
        self._seq = 0
        # per (device, dtype): the 0-dim reductions waiting on that device
        self._extremes: dict[tuple[Any, Any], list["torch.Tensor"]] = defaultdict(list)
        self._tiny: dict[Any, list["torch.Tensor"]] = defaultdict(list)
        # host side of each pending output: (key, seq, extremes slot, tiny slot or None, numel)
        self._pending: list[tuple[tuple, int, tuple[Any, Any], int, Optional[int], int]] = []

    # -- tracer hooks ------------------------------------------------------------------------
    def on_start(self, trace: Any) -> None:
        import torch

        self._trace = trace
        self._torch = torch
        self._fp16 = torch.float16
        self._checked = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64})
        self._plain = (torch.Tensor, torch.nn.Parameter)
        self._strided = torch.strided
        self._sampling = trace.steps % self.every == 0

    def on_op(self, trace: Any, func: Any, args: tuple, kwargs: dict, out: Any, key: tuple) -> None:
        info = key[0]
        if not self._sampling or key[1] == "optimizer" or info.is_view or info.name in _UNINITIALISED:
            return
        if isinstance(out, self._torch.Tensor):
            self._reduce(out, key)
        elif out.__class__ is tuple or out.__class__ is list:
            for tensor in out:
                if isinstance(tensor, self._torch.Tensor):
                    self._reduce(tensor, key)
        if len(self._pending) >= _FLUSH_AT:
            self._read_back(trace.steps)

    def on_step(self, trace: Any, optimizer: Any) -> None:
        if self._sampling:
            self._read_back(trace.steps - 1)  # the hook runs after the step was counted
            self.steps_sampled += 1
        self._sampling = trace.steps % self.every == 0

    def on_stop(self, trace: Any) -> None:
        self._read_back(trace.steps)  # ops after the last optimizer step (a partial step)
        self._sampling = False

    def contribute(self, report: ReportData) -> None:
        sources = {key: rec[4] for key, rec in self._trace.records.items()}
        records = [_record_json(key, s, sources.get(key)) for key, s in self.stats.items()]
        firsts = [(s.first, r) for s, r in zip(self.stats.values(), records) if s.first is not None]
        first = min(firsts, key=lambda fr: fr[0])[1] if firsts else None
        report.sections[SECTION] = {
            "every": self.every,
            "headroom_factor": self.headroom_factor,
            "tiny_threshold": FP16_TINY,
            "steps_sampled": self.steps_sampled,
            "readbacks": self.readbacks,
            "first_nonfinite": first,
            "records": records,
        }

    # -- the hot path ------------------------------------------------------------------------
    def _reduce(self, tensor: "torch.Tensor", key: tuple) -> None:
        dtype = tensor.dtype
        # plain dense tensors only: a subclass (DTensor, FakeTensor) would run its own
        # machinery (collectives, no data), sparse and meta tensors have no values to reduce
        if (dtype not in self._checked or tensor.__class__ not in self._plain or tensor.is_meta
                or tensor.layout is not self._strided or tensor.numel() == 0):
            return
        torch = self._torch
        device = tensor.device
        lo, hi = torch.aminmax(tensor)
        bucket = self._extremes[(device, dtype)]
        slot = len(bucket)
        bucket.append(lo)
        bucket.append(hi)
        tiny_slot = None
        if dtype is self._fp16:
            tiny = self._tiny[device]
            tiny_slot = len(tiny)
            tiny.append((tensor.abs() < FP16_TINY).sum())
        self._seq += 1
        self._pending.append((key, self._seq, (device, dtype), slot, tiny_slot, tensor.numel()))

    def _read_back(self, step: int) -> None:
        """The one device-to-host transfer per device for everything pending from `step`
        (0-based: the number of optimizer steps completed before those ops ran)."""
        if not self._pending:
            return
        torch = self._torch
        host: dict[tuple[Any, Any], list[float]] = {}
        tiny_host: dict[Any, list[float]] = {}
        with untraced():
            for device in {d for d, _ in self._extremes} | set(self._tiny):
                parts = [torch.stack(v).double() for (d, _), v in self._extremes.items() if d == device]
                tiny = self._tiny.get(device, [])
                if tiny:
                    parts.append(torch.stack(tiny).double())
                values = torch.cat(parts).tolist()
                offset = 0
                for (d, dtype), v in self._extremes.items():
                    if d == device:
                        host[(d, dtype)] = values[offset:offset + len(v)]
                        offset += len(v)
                tiny_host[device] = values[offset:]
        self.readbacks += 1
        for key, seq, bucket, slot, tiny_slot, numel in self._pending:
            lo, hi = host[bucket][slot], host[bucket][slot + 1]
            stats = self.stats[key]
            stats.outputs += 1
            if math.isfinite(lo) and math.isfinite(hi):
                if bucket[1] is self._fp16:
                    stats.max_abs = max(stats.max_abs, -lo, hi)
            else:
                stats.nonfinite += 1
                if stats.first is None:
                    stats.first = (step, seq)
            if tiny_slot is not None:
                stats.tiny += int(tiny_host[bucket[0]][tiny_slot])
                stats.elements += numel
        self._pending.clear()
        self._extremes.clear()
        self._tiny.clear()


def _record_json(key: tuple, stats: _Stats, source: Optional[str]) -> dict[str, Any]:
    info, phase, module, _, out_dtype, _, device = key[:7]
    return {
        "op": info.op,
        "phase": phase,
        "module": module,
        "out_dtype": dtype_name(out_dtype),
        "device": device,
        "source": source,
        "outputs": stats.outputs,
        "nonfinite": stats.nonfinite,
        "first_step": stats.first[0] if stats.first else None,
        "max_abs": stats.max_abs if out_dtype is not None and dtype_name(out_dtype) == "float16" else None,
        "tiny": stats.tiny,
        "elements": stats.elements,
    }
