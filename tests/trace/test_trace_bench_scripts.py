"""The trace benchmarks and the GPU check run end to end here (not timed: they only prove the
scripts work, so bench/RESULTS.md can be regenerated and gpu_check.py run on a CUDA machine)."""
from __future__ import annotations

import subprocess
import sys

from tests.paths import ROOT


def run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_overhead_bench_prints_a_ratio_per_fixture():
    result = run("trace_overhead.py", "--rounds", "1", "--steps", "1", "--fixtures", "mlp")
    assert result.returncode == 0, result.stderr
    (row,) = [line for line in result.stdout.splitlines() if line.startswith("mlp")]
    assert float(row.split()[-1]) > 0


def test_gpu_check_passes_on_cuda_and_says_plainly_when_there_is_none():
    import torch

    result = run("gpu_check.py")
    if torch.cuda.is_available():
        assert result.returncode == 0 and "all checks passed" in result.stdout, result.stdout
        return
    assert result.returncode == 0 and result.stdout.strip() == "no CUDA device: nothing checked"
    assert run("gpu_check.py", "--require-cuda").returncode == 2


def test_compare_fp32_bench_prints_a_ratio_against_the_plain_trace():
    result = run("compare_fp32_overhead.py", "--rounds", "1", "--steps", "1", "--fixtures", "mlp")
    assert result.returncode == 0, result.stderr
    (row,) = [line for line in result.stdout.splitlines() if line.startswith("| mlp |")]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert int(cells[2]) == 4 and int(cells[3]) > 0  # MLP, fc1, act, fc2 compared; their reruns' ops
    assert float(cells[-1].split("×")[0]) > 1
