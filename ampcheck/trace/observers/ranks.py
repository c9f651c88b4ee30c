"""The rank observer: this process's place in a distributed job, in `report.meta`."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Optional

from ampcheck.trace.observers import Observer
from ampcheck.trace.ranks import RankInfo, from_environment, from_process_group


class RankObserver(Observer):
    """Records this process's rank, local rank, world size and backend in `report.meta`.

    The environment is read when the trace starts; the live process group is polled after
    every optimizer step (a training script holds its group while it steps) and when the
    trace stops, so the backend is known even when the script destroys its group before the
    trace ends. Torch-free: it only reads `torch.distributed` if the script imported it.
    """

    def __init__(self, environ: Optional[Mapping[str, str]] = None) -> None:
        self._environ = environ
        self.info = RankInfo()

    def poll(self) -> RankInfo:
        group = from_process_group()
        if group is not None:
            self.info = replace(self.info, rank=group.rank, world_size=group.world_size, backend=group.backend)
        return self.info

    def on_start(self, trace: Any) -> None:
        self.info = from_environment(self._environ)
        self.poll()

    def on_step(self, trace: Any, optimizer: Any) -> None:
        self.poll()

    def on_stop(self, trace: Any) -> None:
        self.poll()

    def contribute(self, report: Any) -> None:
        report.meta.update(self.info.to_json())
