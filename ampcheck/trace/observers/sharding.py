"""FSDP2 and DDP precision as configured, read from the traced modules when the trace stops.

What a data-parallel wrapper was told to do: per `fully_shard` module its
`MixedPrecisionPolicy` (param_dtype, reduce_dtype, output_dtype, cast_forward_inputs), per
DDP module its communication hooks (`register_comm_hook`), read after the first optimizer
step (census.py). Only modules the trace saw are read, and `torch.distributed` only if the
program imported it.

What it did: the collectives reach the dispatcher as c10d ops (`c10d._allgather_base_`,
`c10d._reduce_scatter_base_`, `c10d.allreduce_`, or the `_c10d_functional` ones), on the
thread that traced (FSDP2 issues them from its hooks, DDP's C++ Reducer from the autograd
engine), so their real dtypes are seen at dispatch. Which fully_shard module a collective
ran for is not where the module tracker stands (FSDP2 prefetches the next module's
all-gather and reduces the root's gradients in a final callback); FSDP2 wraps each of its
collectives in a `torch.profiler.record_function` scope named for its module
(`FSDP::all_gather (encoder.0)`; the root's carries no name), and these scopes are ops too,
so the observer keeps their stack and files each collective under the innermost one.

The section (`report.sections["sharding"]`) is plain JSON, read by `ampcheck.trace.sections.sharding`.
"""
from __future__ import annotations

import sys
from typing import Any, Optional

from ampcheck.trace.observers.census import ModuleCensus
from ampcheck.trace.runtime import user_source
from ampcheck.trace.sections.sharding import COLLECTIVE_OPS, SECTION

_ENTER, _EXIT = "_record_function_enter_new", "_record_function_exit"
_FSDP_LABEL = "FSDP::"


def _dtype(dtype: Any) -> Optional[str]:
    return None if dtype is None else str(dtype).replace("torch.", "")


def _fsdp_policy(module: Any) -> Optional[dict[str, Any]]:
    """The MixedPrecisionPolicy a `fully_shard` module was given (FSDP2 keeps it in its state)."""
    policy = getattr(module._get_fsdp_state(), "_mp_policy", None)
    if policy is None:
        return None
    return {"param_dtype": _dtype(policy.param_dtype), "reduce_dtype": _dtype(policy.reduce_dtype),
            "output_dtype": _dtype(policy.output_dtype), "cast_forward_inputs": bool(policy.cast_forward_inputs)}


def _ddp_hooks(module: Any) -> list[str]:
    """The communication hooks registered on a DDP module (`register_comm_hook`), by name."""
    return [getattr(hook, "__qualname__", repr(hook)) for hook, _ in getattr(module, "_comm_hooks", [])]


def fsdp_module_of(label: str) -> Optional[str]:
    """The module an FSDP2 scope label names: `FSDP::all_gather (encoder.0) [pg=2]` ->
    `encoder.0`, the root's `FSDP::post_backward_reduce` -> "" ; None for other scopes."""
    if not label.startswith(_FSDP_LABEL):
        return None
    label = label.split(" [pg=", 1)[0]
    if label.endswith(")") and " (" in label:
        return label[label.rindex(" (") + 2:-1]
    return ""


class ShardingObserver(ModuleCensus):
    """A trace observer (see `ampcheck.trace.tracer.Observer`) of FSDP2 and DDP configuration
    and of the collectives that ran (only collectives and profiler scopes reach `on_op`)."""

    wants_ops = True
    op_names = frozenset({*COLLECTIVE_OPS, _ENTER, _EXIT})

    def __init__(self) -> None:
        super().__init__()
        self.fsdp: list[dict[str, Any]] = []
        self.ddp: list[dict[str, Any]] = []
        self.collectives: dict[tuple, list] = {}  # (op, phase, dtype, FSDP fqn) -> [calls, bytes, source]
        self._scopes: list[tuple[Any, Optional[str]]] = []  # (record handle, FSDP fqn or None)

    def on_op(self, trace: Any, func: Any, args: tuple, kwargs: dict, out: Any, key: Optional[tuple]) -> None:
        name = func.overloadpacket.__name__
        if name == _ENTER:
            self._scopes.append((out, fsdp_module_of(args[0])))
        elif name == _EXIT:
            for i in range(len(self._scopes) - 1, -1, -1):
                if self._scopes[i][0] is args[0]:
                    del self._scopes[i:]
                    break
        elif key is not None and key[3]:
            fqn = next((scope for _, scope in reversed(self._scopes) if scope is not None), None)
            tensors = [t for a in args for t in (a if isinstance(a, (list, tuple)) else (a,)) if hasattr(t, "nbytes")]
            slot_key = (name, key[1], str(key[3][0]).replace("torch.", ""), fqn)
            slot = self.collectives.get(slot_key)
            if slot is None:
                slot = self.collectives[slot_key] = [0, 0, user_source()]
            slot[0] += 1
            slot[1] += max((t.nbytes for t in tensors), default=0)

    def read_modules(self, modules: list[tuple[str, Any]]) -> None:
        fsdp_module = getattr(sys.modules.get("torch.distributed.fsdp"), "FSDPModule", None)
        ddp_module = getattr(sys.modules.get("torch.nn.parallel.distributed"), "DistributedDataParallel", None)
        for name, mod in modules:
            if fsdp_module is not None and isinstance(mod, fsdp_module):
                policy = _fsdp_policy(mod)
                if policy is not None:
                    self.fsdp.append({"module": name, "class": type(mod).__name__, **policy})
            elif ddp_module is not None and isinstance(mod, ddp_module):
                self.ddp.append({"module": name, "comm_hooks": _ddp_hooks(mod)})

    def _module_named(self, fqn: Optional[str]) -> Optional[str]:
        """The trace's name of the fully_shard module FSDP calls `fqn` (its root: "")."""
        if fqn is None:
            return None
        roots = set(self.tracker.roots) if self.tracker is not None else set()
        for row in self.fsdp:
            if row["module"] == fqn or (fqn == "" and row["module"] in roots):
                return row["module"]
        return fqn or None

    def contribute(self, report: Any) -> None:
        if not (self.fsdp or self.ddp or self.collectives):
            return
        report.sections[SECTION] = {
            "fsdp": self.fsdp,
            "ddp": self.ddp,
            "collectives": [
                {"op": op, "collective": COLLECTIVE_OPS[op].value, "phase": phase, "dtype": dtype,
                 "module": self._module_named(fqn), "calls": calls, "bytes": nbytes, "source": source}
                for (op, phase, dtype, fqn), (calls, nbytes, source) in self.collectives.items()
            ],
        }
