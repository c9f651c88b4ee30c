"""Loads the tiny models of fixtures/models/ (each exposes `build(dtype, device, seed)`)."""
from __future__ import annotations

import importlib.util
import sys
from typing import Any, Callable

import torch

from tests.paths import FIXTURES

MODELS = FIXTURES / "models"
DTYPES = [torch.bfloat16, torch.float16]
DTYPE_IDS = ["bf16", "fp16"]


def build_step(name: str, dtype: torch.dtype = torch.bfloat16, **options: Any) -> Callable[[], torch.Tensor]:
    """`step()` for fixtures/models/<name>.py; `step.model` is its model."""
    spec = importlib.util.spec_from_file_location(f"models_{name}", MODELS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(MODELS))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(MODELS))
    return module.build(dtype=dtype, **options)


def records(report: Any, **match: Any) -> list:
    """The report's op records whose fields equal `match` (op is matched by its short name)."""
    def ok(r: Any) -> bool:
        return all((r.name if k == "op" else getattr(r, k)) == v for k, v in match.items())

    return [r for r in report.ops if ok(r)]
