"""Reading the traced modules' configuration once, while the program still holds them.

Observers that report how modules were set up (FSDP2 policies, DDP hooks, float8 linears)
cannot wait for the trace to stop: `ampcheck trace script.py` stops after the script has
returned, and by then a model held only by the script's locals is gone. A script holds its
model while it steps, so the census runs after the first optimizer step, or when the trace
stops if no step came.
"""
from __future__ import annotations

from typing import Any

import torch

from ampcheck.trace.observers import Observer


class ModuleCensus(Observer):
    """Observer base: `read_modules(named_modules)` runs once, with every module the trace
    named that is still alive (see `ModuleTracker.named_modules`)."""

    def __init__(self) -> None:
        self.tracker: Any = None  # the trace's ModuleTracker, once started
        self._done = False

    def on_start(self, trace: Any) -> None:
        self.tracker = trace.modules

    def on_step(self, trace: Any, optimizer: Any) -> None:
        self._census()

    def on_stop(self, trace: Any) -> None:
        self._census()

    def _census(self) -> None:
        if self._done or self.tracker is None:
            return
        self._done = True
        self.read_modules(sorted(self.tracker.named_modules(), key=lambda item: item[0]))

    def read_modules(self, modules: list[tuple[str, torch.nn.Module]]) -> None:
        raise NotImplementedError
