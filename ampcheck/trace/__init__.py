"""The runtime tracer: `ampcheck.trace(...)` records what really ran under autocast.

Layers, each importing only those below it (tests/test_layers.py keeps it so):
  1. `model.py`: the report's data (op records, weight casts, sections, meta) and its JSON;
     `units.py`, `columns.py`, `markup.py` (number formats, text tables, HTML blocks), `ranks.py`
     (rank facts), `policy.py`, `flops.py`.
  2. `sections/`: one module per feature turning a report into findings, text and HTML lines,
     found like lint's checks (see its docstring).
  3. `text.py`, `html.py`, `assertions.py`, `merge.py`, `diff.py`: the renderers and what
     combines reports.
  4. `report.py`: `TraceReport`, the data with those as methods.
  5. `observers/` (loss scaler, numerics, fp32 comparison, rank, compiled code, float8,
     FSDP2/DDP sharding; torch) and `modules.py`, `runtime.py`, `subclasses.py` (module
     attribution, frames and dtypes, tensor subclasses) under `tracer.py`, the dispatch mode.
Everything below the observers is torch-free, so `ampcheck report FILE` runs without torch.

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
