"""The runtime tracer: `ampcheck.trace(...)` records what really ran under autocast.

Layout: `tracer.py` (the dispatch mode, aggregation, Observer seam), `modules.py` (module
attribution), `policy.py` (autocast policy data per device), `flops.py` (FLOP formulas),
`tensor_cores.py` (shape alignment per matmul record, AMP509), `report.py` (TraceReport: JSON,
coverage, findings seam; torch-free), `rules.py` (AMP501-AMP503), `text.py` (the text summary),
`fp32_compare.py` (the opt-in float32 rerun of each module) and `precision_loss.py` (its
ranking and AMP510). Only `tracer.py`, `modules.py`, `flops.py` and the observers (GradScaler,
numerics, fp32 comparison, when they run) import torch.

`ampcheck.trace` is both this package and the function users call
(`with ampcheck.trace(steps=3) as t:`): once the package is imported, Python binds the
attribute `ampcheck.trace` to it, so the package itself is made callable and forwards to
`ampcheck.trace.tracer.trace`.
"""
from __future__ import annotations

import sys
import types
from typing import Any


class _CallableModule(types.ModuleType):
    def __call__(self, **options: Any) -> Any:
        from ampcheck.trace.tracer import trace

        return trace(**options)


sys.modules[__name__].__class__ = _CallableModule
