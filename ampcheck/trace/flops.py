"""FLOP formulas per aten op: torch.utils.flop_counter's registry plus CPU attention.

The tracer asks `formula_for(func)` once per OpOverload; ops with a formula are the
"matmul-class" ops that the coverage headline is about (mm/addmm/bmm/baddbmm, convolutions,
attention, forward and backward).
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import torch
from torch.utils.flop_counter import flop_registry, sdpa_backward_flop_count, sdpa_flop_count

FlopFn = Callable[..., int]


def _cpu_sdpa(query: Any, key: Any, value: Any, *args: Any, out_val: Any = None, **kwargs: Any) -> int:
    return sdpa_flop_count(query.shape, key.shape, value.shape)


def _cpu_sdpa_backward(grad_out: Any, query: Any, key: Any, value: Any, *args: Any,
                       out_val: Any = None, **kwargs: Any) -> int:
    return sdpa_backward_flop_count(grad_out.shape, query.shape, key.shape, value.shape)


# CPU's fused attention kernels are absent from flop_counter's registry (it covers CUDA's).
_EXTRA: dict[str, FlopFn] = {
    "_scaled_dot_product_flash_attention_for_cpu": _cpu_sdpa,
    "_scaled_dot_product_flash_attention_for_cpu_backward": _cpu_sdpa_backward,
}


def formula_for(func: torch._ops.OpOverload) -> Optional[FlopFn]:
    """The FLOP formula for an op, called as `fn(*args, out_val=out, **kwargs)`, or None."""
    found = flop_registry.get(func.overloadpacket)
    if found is not None:
        return found
    return _EXTRA.get(func.overloadpacket.__name__)
