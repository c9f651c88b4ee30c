"""Ops on tensor subclasses: record the kernels that really run, not the wrapper's call.

A wrapper subclass (torchao's `Float8TrainingTensor`, DTensor, NestedTensor) advertises one
dtype and computes in another: a Float8TrainingTensor says bfloat16 while its `mm` runs
`torch._scaled_mm` on float8_e4m3fn data. A dispatch mode is asked first, before the
subclass; when the mode returns NotImplemented, torch hands the op to the subclass's own
`__torch_dispatch__` with the mode still on the stack, so the plain-tensor ops the subclass
runs come back to the mode one by one, with their real dtypes and shapes. The tracer does
that for every op with such a subclass among its arguments.

FakeTensor is the exception: it defers to any mode above it (both would return
NotImplemented). Fake tensors met with no FakeTensorMode active are DTensor's sharding
propagation computing output shapes, not kernels: those ops run unrecorded. Under an active
FakeTensorMode the program itself chose to run on fake tensors, and its ops are recorded.
"""
from __future__ import annotations

import enum
from typing import Optional

import torch
from torch._subclasses.fake_tensor import FakeTensor

_NO_DISPATCH = torch._C._disabled_torch_dispatch_impl


class SubclassDispatch(enum.Enum):
    """What the tracer does with an op, given the subclasses among its arguments."""

    RECORD = "record"  # plain tensors (and Parameters): record the op
    UNWRAP = "unwrap"  # a wrapper subclass: let it run, record the ops it runs
    UNRECORDED = "unrecorded"  # FakeTensor outside a FakeTensorMode: shape computation, no kernel


_CACHE: dict[tuple, Optional[SubclassDispatch]] = {}  # None: fake, decided per call
_FAKE_MODE = torch._C._TorchDispatchModeKey.FAKE
_fake_mode = torch._C._get_dispatch_mode


def _overrides_dispatch(cls: type) -> bool:
    handler = getattr(cls, "__torch_dispatch__", _NO_DISPATCH)
    return getattr(handler, "__func__", handler) is not _NO_DISPATCH


def dispatch_for(types: tuple) -> SubclassDispatch:
    """The handling for the `types` a dispatch mode receives (cached per tuple of classes)."""
    if types in _CACHE:
        handling = _CACHE[types]
    else:
        if any(issubclass(cls, FakeTensor) for cls in types):
            handling = None
        elif any(_overrides_dispatch(cls) for cls in types):
            handling = SubclassDispatch.UNWRAP
        else:
            handling = SubclassDispatch.RECORD
        _CACHE[types] = handling
    if handling is None:
        return SubclassDispatch.RECORD if _fake_mode(_FAKE_MODE) is not None else SubclassDispatch.UNRECORDED
    return handling
