"""Launch real multi-process runs for the distributed tests: torchrun on loopback, gloo, CPU.

Each distinct run happens once per test process (cached) because starting ranks costs
seconds; tests only read the traces it leaves behind.
"""
from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.paths import FIXTURES, ROOT

DISTRIBUTED = FIXTURES / "distributed"
RUN_TIMEOUT_S = 120

LAUNCH_OUTPUT: dict[Path, str] = {}  # trace directory -> what its torchrun run printed to stderr
_scratch = Path(tempfile.mkdtemp(prefix="ampcheck-distributed-"))
atexit.register(shutil.rmtree, _scratch, ignore_errors=True)


def launch_env() -> dict[str, str]:
    """One thread per rank (two ranks share a small machine), quiet fixture scripts, and gloo
    kept on the loopback interface whatever the host name resolves to."""
    env = {key: value for key, value in os.environ.items() if key not in ("RANK", "LOCAL_RANK", "WORLD_SIZE")}
    env.update(OMP_NUM_THREADS="1", TOYNET_QUIET="1", PYTHONPATH=str(ROOT))
    if sys.platform == "linux":
        env["GLOO_SOCKET_IFNAME"] = "lo"
    return env


# what a rank prints when torch's C++ teardown at interpreter exit destroys a thread still
# joinable (gloo's, seen about once in twenty loaded runs, after the rank's work and its trace
# were done): the process aborts, and torchrun stops the other rank
_TEARDOWN_ABORT = "terminate called without an active exception"


def torchrun(*args: str) -> subprocess.CompletedProcess:
    """Two ranks; `torchrun --standalone` picks a free localhost port, so parallel runs never
    collide. A run that failed only by aborting in torch's teardown after both ranks wrote their
    traces is run once more: what is under test finished; the abort is the process exit's."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", "--max-restarts=0", *args]
    for _ in range(2):
        result = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, env=launch_env(), cwd=_scratch)
        if result.returncode == 0 or _TEARDOWN_ABORT not in result.stderr or result.stderr.count("trace report written to") < 2:
            break
    return result


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ampcheck", *args],
        capture_output=True, text=True, timeout=RUN_TIMEOUT_S, env=launch_env(), cwd=_scratch,
    )


@functools.lru_cache(maxsize=None)
def traced(script: str, *script_args: str) -> Path:
    """Trace `fixtures/distributed/<script> [ARGS]` on two ranks; return the directory of rank traces."""
    out = _scratch / "".join((Path(script).stem, *script_args))
    result = torchrun("-m", "ampcheck", "trace", "--out", str(out), str(DISTRIBUTED / script), *script_args)
    assert result.returncode == 0, result.stdout + result.stderr
    LAUNCH_OUTPUT[out] = result.stderr
    return out
