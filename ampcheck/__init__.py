"""ampcheck: find mixed-precision (AMP) mistakes in PyTorch training code.

The package root stays import-light: `ampcheck --version` and `ampcheck lint` must never
import torch, so the tracer is reached lazily through `ampcheck.trace`.
"""
from __future__ import annotations

from typing import Any

from ampcheck.version import __version__

__all__ = ["__version__", "trace"]


def __getattr__(name: str) -> Any:
    if name == "trace":
        from ampcheck.trace.tracer import trace

        return trace
    raise AttributeError(f"module 'ampcheck' has no attribute {name!r}")
