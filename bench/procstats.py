"""Wall time, CPU time and peak RSS of one command, and the small statistics on top.

CPU time and peak RSS come from `os.wait4`, the kernel's own accounting of the command
and every process it waited for (worker pools included), the same figures
`/usr/bin/time -v` prints. Peak RSS is that of the largest single process, as there.
"""
from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence


@dataclass(frozen=True)
class Sample:
    wall_s: float
    cpu_s: float
    rss_mb: float
    returncode: int


class CommandFailed(Exception):
    """A measured command exited with a status it should not have."""


def measure(
    argv: Sequence[str],
    cwd: Optional[Path] = None,
    stdout: Optional[Path] = None,
    ok_codes: tuple[int, ...] = (0,),
    env: Optional[dict[str, str]] = None,
) -> Sample:
    """Run argv to completion. Output goes to files, never to pipes: wait4 must reap the
    child itself to get its rusage, and a pipe nobody drains would block a chatty tool."""
    with tempfile.TemporaryFile() as err, open(stdout or os.devnull, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in ok_codes:
            err.seek(0)
            lines = err.read().decode(errors="replace").strip().splitlines() or ["(no stderr)"]
            raise CommandFailed(f"{' '.join(map(str, argv))} exited {code}: {lines[-1]}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code)


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def machine() -> str:
    """CPU model and count, RAM, Python and torch versions, and the date: what a reader needs
    to compare these figures with their own (torch's version is read without importing it)."""
    cpu = platform.machine()
    ram = ""
    try:
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
        kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal"))
        ram = f", {kb / 2**20:.0f} GiB RAM"
    except (OSError, StopIteration, ValueError):
        pass
    try:
        torch = f", torch {importlib.metadata.version('torch')}"
    except importlib.metadata.PackageNotFoundError:
        torch = ""
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"{cpu} × {os.cpu_count()} cores{ram}, Python {platform.python_version()}{torch}; {when}"
