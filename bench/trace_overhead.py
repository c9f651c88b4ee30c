"""Per-op overhead of `ampcheck.trace()` against an empty TorchDispatchMode.

    python bench/trace_overhead.py [--rounds 7] [--steps 5] [--compiled]

For each fixture (MLP, CNN, transformer block; CPU autocast bf16) it times, interleaved in
every round, `steps` training steps: plain, under an empty TorchDispatchMode, and under
`ampcheck.trace()` (default options). Overhead per op = (time - plain time) / aten ops per
step, in steady state (entering the trace and building its report are per trace, not
per op, and are left out); the ratio trace/empty is taken per round and the median over rounds is reported, so
a busy machine moves both sides together. Times are this process's CPU time
(`time.process_time`, one intra-op thread), which a machine shared with other jobs disturbs far
less than wall-clock time. Reusable: `FIXTURES`, `build_step(name)`,
`count_ops(step)` and `measure(...)` serve bigger benchmarks.

`--compiled` adds the MLP with its model `torch.compile`d (inductor): per-step time untraced,
traced compiled (`ampcheck.trace()`, the compiled code runs compiled) and traced eagerly
(`ampcheck.trace(compiled=False)`, the fallback: the compiled code runs eagerly), interleaved per
round, medians; the compile itself happens before the timed rounds.
"""
from __future__ import annotations

import argparse
import importlib.util
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Callable

import torch
from torch.utils._python_dispatch import TorchDispatchMode

import ampcheck

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = {"mlp": "mlp.py", "cnn": "cnn.py", "transformer": "transformer.py"}


class EmptyMode(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class CountingMode(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.ops = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops += 1
        return func(*args, **(kwargs or {}))


def build_step(name: str, dtype: torch.dtype = torch.bfloat16, **options: object) -> Callable[[], torch.Tensor]:
    """One training step of fixtures/models/<name>.py under CPU autocast (`options` go to its build)."""
    path = ROOT / "fixtures" / "models" / FIXTURES[name]
    spec = importlib.util.spec_from_file_location(f"fixture_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module.build(dtype=dtype, **options)


def count_ops(step: Callable[[], object]) -> int:
    mode = CountingMode()
    with mode:
        step()
    return mode.ops


def _time(step: Callable[[], object], steps: int, context: Callable[[], object]) -> float:
    """Steady-state time of `steps` steps inside an entered context: one untimed step first
    (new records capture their source line once), and entering/leaving the context (building
    the report) are left out; they are per trace, not per op."""
    with context():
        step()
        start = time.process_time()
        for _ in range(steps):
            step()
        return time.process_time() - start


class _Plain:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


CONTEXTS: dict[str, Callable[[], object]] = {
    "plain": _Plain,
    "empty_mode": EmptyMode,
    "trace": lambda: ampcheck.trace(),
}


def measure(name: str, rounds: int, steps: int) -> dict[str, float]:
    step = build_step(name)
    for _ in range(3):  # warm up allocator, kernels, first-record stack captures
        step()
    with ampcheck.trace():
        step()
    ops = count_ops(step)
    per_op: dict[str, list[float]] = {"empty_mode": [], "trace": []}
    ratios = []
    for _ in range(rounds):
        times = {key: _time(step, steps, ctx) for key, ctx in CONTEXTS.items()}
        empty = (times["empty_mode"] - times["plain"]) / (steps * ops)
        traced = (times["trace"] - times["plain"]) / (steps * ops)
        per_op["empty_mode"].append(empty)
        per_op["trace"].append(traced)
        ratios.append(traced / empty)
    return {
        "ops_per_step": ops,
        "empty_us": statistics.median(per_op["empty_mode"]) * 1e6,
        "trace_us": statistics.median(per_op["trace"]) * 1e6,
        "ratio": statistics.median(ratios),
    }


COMPILED_CONTEXTS: dict[str, Callable[[], object]] = {
    "untraced": _Plain,
    "traced compiled": lambda: ampcheck.trace(),
    "traced eagerly": lambda: ampcheck.trace(compiled=False),
}


def measure_compiled(rounds: int, steps: int) -> dict[str, float]:
    """ms per step of the compiled MLP in each of COMPILED_CONTEXTS (medians over rounds)."""
    step = build_step("mlp", compile=True)
    # the eager fallback warns that it runs compiled code eagerly: known, and not what is timed
    warnings.filterwarnings("ignore", message=r".*(runs eagerly while traced|when there are global hooks)")
    for context in COMPILED_CONTEXTS.values():  # compile, and warm every path up
        with context():
            step()
            step()
    times: dict[str, list[float]] = {key: [] for key in COMPILED_CONTEXTS}
    for _ in range(rounds):
        for key, context in COMPILED_CONTEXTS.items():
            times[key].append(_time(step, steps, context) / steps * 1e3)
    return {key: statistics.median(values) for key, values in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--fixtures", default=",".join(FIXTURES))
    parser.add_argument("--compiled", action="store_true", help="also time the torch.compile'd MLP")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"# torch {torch.__version__}, python {platform.python_version()}, {platform.machine()}, "
          f"{args.rounds} rounds x {args.steps} steps, 1 intra-op thread")
    print(f"{'fixture':<12}{'ops/step':>9}{'empty µs/op':>13}{'trace µs/op':>13}{'ratio':>7}")
    worst = 0.0
    for name in args.fixtures.split(","):
        r = measure(name, args.rounds, args.steps)
        worst = max(worst, r["ratio"])
        print(f"{name:<12}{r['ops_per_step']:>9}{r['empty_us']:>13.1f}{r['trace_us']:>13.1f}{r['ratio']:>7.2f}")
    print(f"worst ratio {worst:.2f} (target <= 1.5)")
    if args.compiled:
        ms = measure_compiled(args.rounds, args.steps)
        print("compiled mlp, ms/step: " + ", ".join(f"{key} {value:.2f}" for key, value in ms.items()))
        compiled, eager = (ms[key] - ms["untraced"] for key in ("traced compiled", "traced eagerly"))
        print(f"compiled mlp, tracing cost per step: compiled {compiled:.2f} ms, eagerly {eager:.2f} ms "
              f"(traced compiled step / traced eager step {ms['traced compiled'] / ms['traced eagerly']:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
