"""Which rank of a distributed run this process is, and where its trace goes.

Launchers (torchrun, torch.distributed.launch, SLURM wrappers, mpirun scripts that export
the torch variables) describe the job through RANK / LOCAL_RANK / WORLD_SIZE before the
script starts, so the environment gives the rank up front. The backend only exists once
the script calls `init_process_group`, and scripts usually destroy the group before they
exit, so `ampcheck.trace.observers.ranks.RankObserver` polls the group while the trace runs and
keeps what it saw.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional

DEFAULT_OUT = "ampcheck-trace.json"


class OutputPathError(ValueError):
    """`--out` names something a rank cannot write its trace into."""


@dataclass(frozen=True)
class RankInfo:
    """This process's place in the job; all None outside a distributed launch."""

    rank: Optional[int] = None
    local_rank: Optional[int] = None
    world_size: Optional[int] = None
    backend: Optional[str] = None

    @property
    def distributed(self) -> bool:
        return self.world_size is not None and self.world_size > 1

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "local_rank": self.local_rank,
            "world_size": self.world_size,
            "backend": self.backend,
        }

    @classmethod
    def from_json(cls, data: Optional[Mapping[str, Any]]) -> "RankInfo":
        data = data or {}
        return cls(data.get("rank"), data.get("local_rank"), data.get("world_size"), data.get("backend"))


def _env_int(environ: Mapping[str, str], name: str) -> Optional[int]:
    value = environ.get(name, "").strip()
    return int(value) if value.isdigit() else None


def from_environment(environ: Optional[Mapping[str, str]] = None) -> RankInfo:
    """The rank the launcher assigned, read before the script runs."""
    env = os.environ if environ is None else environ
    return RankInfo(
        rank=_env_int(env, "RANK"),
        local_rank=_env_int(env, "LOCAL_RANK"),
        world_size=_env_int(env, "WORLD_SIZE"),
    )


def from_process_group() -> Optional[RankInfo]:
    """Rank, world size and backend of the default process group, if one is initialised.

    Imports nothing new: when the script never imported torch.distributed there is no group.
    """
    import sys

    dist = sys.modules.get("torch.distributed")
    if dist is None or not dist.is_available() or not dist.is_initialized():
        return None
    return RankInfo(rank=dist.get_rank(), world_size=dist.get_world_size(), backend=str(dist.get_backend()))


def output_path(out: Optional[str], info: RankInfo) -> Path:
    """Where this process writes its report.

    A directory (an existing one, or any path once WORLD_SIZE > 1) receives
    `trace.rank{R}.json`, so ranks never collide; a single process may also name a file.
    Without `--out`, a single process writes `ampcheck-trace.json` and the ranks of a
    distributed run share the directory `ampcheck-trace/`.
    """
    if out is None:
        target = Path(DEFAULT_OUT).with_suffix("") if info.distributed else Path(DEFAULT_OUT)
    else:
        target = Path(out)
    if not info.distributed and not target.is_dir():
        return target
    if target.exists() and not target.is_dir():
        raise OutputPathError(
            f"--out {target}: is a file, but {info.world_size} ranks need a directory for their traces"
        )
    return target / f"trace.rank{info.rank or 0}.json"
