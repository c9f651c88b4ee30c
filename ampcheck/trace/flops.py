"""FLOP formulas per aten op: torch.utils.flop_counter's registry plus CPU attention.

The tracer asks `formula_for(func)` once per OpOverload and calls the result as
`fn(args, kwargs, out) -> FLOPs` on every call of that op; ops with a formula are the
"matmul-class" ops the coverage headline is about (mm/addmm/bmm/baddbmm, convolutions,
attention, forward and backward). The registry's own entry points convert every argument
with pytree (tens of µs per call, and addmm/baddbmm/attention re-enter them), so:
  * the matmul family, convolution forward and backward, and CPU's fused attention (absent
    from the registry, which covers CUDA's kernels) are counted here from the tensors'
    shapes, with the registry's formulas;
  * every other registered op calls the registry's unwrapped shape formula with shapes
    extracted here. `tests/trace/test_records.py` checks the totals against FlopCounterMode.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import torch
from torch.utils.flop_counter import flop_registry

Formula = Callable[[tuple, dict, Any], int]
_Tensor = torch.Tensor


def _mm(args: tuple, kwargs: dict, out: Any) -> int:
    m, k = args[0].shape
    return 2 * m * k * args[1].shape[1]


def _addmm(args: tuple, kwargs: dict, out: Any) -> int:
    m, k = args[1].shape
    return 2 * m * k * args[2].shape[1]


def _bmm(args: tuple, kwargs: dict, out: Any) -> int:
    b, m, k = args[0].shape
    return 2 * b * m * k * args[1].shape[2]


def _baddbmm(args: tuple, kwargs: dict, out: Any) -> int:
    b, m, k = args[1].shape
    return 2 * b * m * k * args[2].shape[2]


def _cpu_sdpa(args: tuple, kwargs: dict, out: Any) -> int:
    """sdpa_flop_count: scores q@k^T, then scores@v (query heads count)."""
    b, h, s_q, d_q = args[0].shape
    return 2 * b * h * s_q * args[1].shape[2] * (d_q + args[2].shape[3])


def _cpu_sdpa_backward(args: tuple, kwargs: dict, out: Any) -> int:
    """sdpa_backward_flop_count: recomputed scores, grad scores, grad v, grad q, grad k."""
    b, h, s_q, d_q = args[1].shape
    return 2 * b * h * s_q * args[2].shape[2] * (3 * d_q + 2 * args[3].shape[3])


def _conv_count(x: Any, w: Any, out: Any, transposed: bool) -> int:
    """conv_flop_count: every output point (input point if transposed) times the filter,
    times batch and both channel counts."""
    flop = 2 * x[0] * w[0] * w[1]
    for d in (x if transposed else out)[2:]:
        flop *= d
    for d in w[2:]:
        flop *= d
    return flop


def _swap(shape: Any) -> tuple:
    return (shape[1], shape[0], *shape[2:])


def _convolution(args: tuple, kwargs: dict, out: Any) -> int:
    """convolution / _convolution(input, weight, bias, stride, padding, dilation, transposed, ...)."""
    return _conv_count(args[0].shape, args[1].shape, out.shape, args[6])


def _convolution_backward(args: tuple, kwargs: dict, out: Any) -> int:
    """conv_backward_flop: grad input as the transposed conv, grad weight as a conv of input
    and grad output, each only when `output_mask` asks for it."""
    grad_out, x, w = args[0].shape, args[1].shape, args[2].shape
    transposed, mask = args[7], args[10]
    flop = 0
    if mask[0]:
        flop += _conv_count(grad_out, w, out[0].shape, not transposed)
    if mask[1]:
        grad_w = out[1].shape
        first, second = (grad_out, x) if transposed else (x, grad_out)
        flop += _conv_count(_swap(first), _swap(second), _swap(grad_w), False)
    return flop


_OWN: dict[str, Formula] = {
    "convolution": _convolution,
    "_convolution": _convolution,
    "convolution_backward": _convolution_backward,
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
    if (value.__class__ is tuple or value.__class__ is list) and any(isinstance(v, _Tensor) for v in value):
        return value.__class__(_shape(v) for v in value)
    return value  # scalars and lists of ints (strides, paddings) as they are


def formula_for(func: torch._ops.OpOverload) -> Optional[Formula]:
    """A function `(args, kwargs, out) -> FLOPs` for this op, or None if it has no formula."""
    own = _OWN.get(func.overloadpacket.__name__)
    if own is not None:
        return own
    raw = getattr(flop_registry.get(func.overloadpacket), "__wrapped__", None)
    if raw is None:
        return None

    def count(args: tuple, kwargs: dict, out: Any) -> int:
        shaped_kwargs = {k: _shape(v) for k, v in kwargs.items()} if kwargs else {}
        return int(raw(*[_shape(a) for a in args], out_shape=_shape(out), **shaped_kwargs))

    return count
