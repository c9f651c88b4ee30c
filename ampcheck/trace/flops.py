"""FLOP formulas per aten op: torch.utils.flop_counter's registry plus CPU attention.

The tracer asks `formula_for(func)` once per OpOverload; ops with a formula are the
"matmul-class" ops that the coverage headline is about (mm/addmm/bmm/baddbmm, convolutions,
attention, forward and backward). The registry's own entry points convert arguments with
pytree (tens of µs per call), so this module calls the unwrapped shape formulas with shapes
it extracts itself (about 1 µs).
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import torch
from torch.utils.flop_counter import flop_registry

Formula = Callable[[tuple, dict, Any], int]
_Tensor = torch.Tensor


def _cpu_sdpa(query: Any, key: Any, value: Any, *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
    """flop_counter.sdpa_flop_count: scores q@k^T, then scores@v (query heads count)."""
    b, h, s_q, d_q = query
    return 2 * b * h * s_q * key[2] * (d_q + value[3])


def _cpu_sdpa_backward(grad_out: Any, query: Any, key: Any, value: Any, *args: Any,
                       out_shape: Any = None, **kwargs: Any) -> int:
    """flop_counter.sdpa_backward_flop_count: recomputed scores, grad scores, grad v, grad q,
    grad k: five batched matmuls."""
    b, h, s_q, d_q = query
    return 2 * b * h * s_q * key[2] * (3 * d_q + 2 * value[3])


def _mm(a: Any, b: Any, *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
    return 2 * a[0] * a[1] * b[1]


def _addmm(bias: Any, a: Any, b: Any, *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
    return 2 * a[0] * a[1] * b[1]


def _bmm(a: Any, b: Any, *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
    return 2 * a[0] * a[1] * a[2] * b[2]


def _baddbmm(bias: Any, a: Any, b: Any, *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
    return 2 * a[0] * a[1] * a[2] * b[2]


# Checked before the registry: the matmul family with flop_counter's own formulas, minus the
# pytree re-wrapping its addmm/baddbmm pay on every call; and CPU's fused attention kernels,
# which the registry (written for CUDA's) lacks.
_OWN: dict[str, Callable[..., int]] = {
    "mm": _mm,
    "addmm": _addmm,
    "bmm": _bmm,
    "baddbmm": _baddbmm,
    "_scaled_dot_product_flash_attention_for_cpu": _cpu_sdpa,
    "_scaled_dot_product_flash_attention_for_cpu_backward": _cpu_sdpa_backward,
}


def _shape(value: Any) -> Any:
    if isinstance(value, _Tensor):
        return value.shape
    if value.__class__ is tuple or value.__class__ is list:
        return value.__class__(_shape(v) for v in value)
    return value


def formula_for(func: torch._ops.OpOverload) -> Optional[Formula]:
    """A function `(args, kwargs, out) -> FLOPs` for this op, or None if it has no formula."""
    raw = _OWN.get(func.overloadpacket.__name__)
    if raw is None:
        raw = getattr(flop_registry.get(func.overloadpacket), "__wrapped__", None)
    if raw is None:
        return None

    def count(args: tuple, kwargs: dict, out: Any) -> int:
        shaped_kwargs = {k: _shape(v) for k, v in kwargs.items()} if kwargs else {}
        return int(raw(*[_shape(a) for a in args], out_shape=_shape(out), **shaped_kwargs))

    return count
