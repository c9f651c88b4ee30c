"""Float8 training while a trace runs: the scaled matmuls that ran and the linears left out.

Every float8 matmul reaches the dispatcher as `torch._scaled_mm(a, b, scale_a, scale_b, ...)`
on float8 data (the tracer unwraps torchao's Float8TrainingTensor, see
ampcheck.trace.subclasses). The op record already holds its dtypes and FLOPs; what it cannot
hold is the scaling recipe, read here from the scales' shapes: one scale per tensor is
tensorwise, one per row of `a` and per column of `b` is rowwise, anything finer is blockwise.

After the first optimizer step (see census.py), the linears of the traced model are sorted
into float8 (an instance of torchao's `Float8Linear`, looked up only if the program imported
torchao) and plain `nn.Linear`s left out of the conversion. The section it writes
(`report.sections["float8"]`) is plain JSON, read by `ampcheck.trace.sections.float8`
without torch.
"""
from __future__ import annotations

import sys
from typing import Any, Optional

import torch

from ampcheck.trace.observers.census import ModuleCensus
from ampcheck.trace.sections.float8 import SECTION, Recipe

_FLOAT8_LINEAR_MODULE = "torchao.float8.float8_linear"


def recipe_of(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor) -> Recipe:
    """The scaling granularity of `_scaled_mm(a, b, scale_a, scale_b)` from the scales' shapes."""
    if scale_a.numel() == 1 and scale_b.numel() == 1:
        return Recipe.TENSORWISE
    if scale_a.numel() == a.shape[0] and scale_b.numel() == b.shape[-1]:
        return Recipe.ROWWISE
    return Recipe.BLOCKWISE


def _float8_linear_class() -> Optional[type]:
    module = sys.modules.get(_FLOAT8_LINEAR_MODULE)
    return getattr(module, "Float8Linear", None)


class Float8Observer(ModuleCensus):
    """A trace observer (see `ampcheck.trace.tracer.Observer`) of `_scaled_mm` calls only."""

    wants_ops = True
    op_names = frozenset({"_scaled_mm"})

    def __init__(self) -> None:
        super().__init__()
        self.calls: dict[tuple, list[int]] = {}  # (phase, module, a, b, out, recipe) -> [calls, FLOPs]
        self.linears: list[dict[str, Any]] = []

    def on_op(self, trace: Any, func: Any, args: tuple, kwargs: dict, out: Any, key: tuple) -> None:
        a, b, scale_a, scale_b = args[:4]
        recipe = recipe_of(a, b, scale_a, scale_b)
        slot_key = (key[1], key[2], str(a.dtype), str(b.dtype), str(out.dtype), recipe.value)
        slot = self.calls.setdefault(slot_key, [0, 0])
        slot[0] += 1
        slot[1] += 2 * a.shape[0] * a.shape[1] * b.shape[-1]

    def read_modules(self, modules: list[tuple[str, torch.nn.Module]]) -> None:
        float8_linear = _float8_linear_class()
        if float8_linear is None:
            return
        linears = [(name, mod) for name, mod in modules if isinstance(mod, torch.nn.Linear)]
        if not any(isinstance(mod, float8_linear) for _, mod in linears):
            return
        self.linears = [
            {"module": name, "class": type(mod).__name__, "float8": isinstance(mod, float8_linear),
             "in_features": mod.in_features, "out_features": mod.out_features}
            for name, mod in linears
        ]

    def contribute(self, report: Any) -> None:
        if not self.calls and not self.linears:
            return
        report.sections[SECTION] = {
            "scaled_mm": [
                {"phase": phase, "module": module, "a_dtype": a.replace("torch.", ""),
                 "b_dtype": b.replace("torch.", ""), "out_dtype": out.replace("torch.", ""), "recipe": recipe,
                 "calls": calls, "flops": flops}
                for (phase, module, a, b, out, recipe), (calls, flops) in self.calls.items()
            ],
            "linears": self.linears,
        }
