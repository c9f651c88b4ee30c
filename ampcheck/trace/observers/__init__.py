"""Observers: what a trace records beside the op records (loss scaling, numerics, the fp32
comparison, the rank), each writing its own `report.sections[...]` or `report.meta[...]`.

`Observer` is the base class (torch-free: the rank observer runs without torch's help). Pass
instances to `ampcheck.trace(observers=[...])`, or append a zero-argument factory to
`ampcheck.trace.tracer.DEFAULT_OBSERVERS` to run in every trace. The modules of this package
import the section they write (`ampcheck.trace.sections`), never the tracer: it imports them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from ampcheck.trace.model import ReportData


class Observer:
    """Extension point: override the hooks you need.

    `on_start(trace)`, `on_stop(trace)`, `on_step(trace, optimizer)` after every
    `optimizer.step()`, `contribute(report)` to add `report.sections[...]`/`report.meta[...]`.
    With `wants_ops = True`, `on_op(trace, func, args, kwargs, out, key)` runs after every
    recorded op, or only after the ops named in `op_names` when an observer sets it (the
    others then cost it nothing; profiler scopes such as `_record_function_enter_new`, which
    no record holds, reach it with key None); `key` is the record key (OpInfo, phase, module,
    input dtypes, output dtype, autocast dtype, device type, cast kind, ...), names in
    `Trace.key_fields`, hashable and cheap to use as a dict key. Keep it cheap, it is on the
    hot path, and never keep tensors.
    """

    wants_ops = False
    op_names: Optional[frozenset[str]] = None  # with wants_ops: only these ops (`_scaled_mm`); None: all

    def on_start(self, trace: Any) -> None:
        pass

    def on_stop(self, trace: Any) -> None:
        pass

    def on_step(self, trace: Any, optimizer: Any) -> None:
        pass

    def on_op(self, trace: Any, func: Any, args: tuple, kwargs: dict, out: Any, key: tuple) -> None:
        pass

    def contribute(self, report: "ReportData") -> None:
        pass
