"""Overhead of opt-in numerics (`trace(numerics=True)`) against the default trace.

    python bench/numerics_overhead.py [--rounds 5] [--steps 5]

For each fixture (MLP, CNN, transformer block; CPU autocast fp16, so the fp16-only statistics
run too) it times, interleaved in every round, `steps` training steps: plain, under the default
`ampcheck.trace()`, under `trace(numerics=True)` and under `trace(numerics=True,
numerics_every=10)`. Reported per fixture, as medians over rounds: µs per aten op above plain
for each traced variant, and the wall-time ratio of a numerics step to a default-trace step.
Timing helpers come from bench/trace_overhead.py, so both benchmarks measure the same way.
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ampcheck  # noqa: E402
from trace_overhead import FIXTURES, _Plain, _time, build_step, count_ops  # noqa: E402

CONTEXTS = {
    "plain": _Plain,
    "trace": lambda: ampcheck.trace(),
    "numerics": lambda: ampcheck.trace(numerics=True),
    "every10": lambda: ampcheck.trace(numerics=True, numerics_every=10),
}


def measure(name: str, rounds: int, steps: int) -> dict[str, float]:
    step = build_step(name, dtype=torch.float16)
    for _ in range(3):
        step()
    with ampcheck.trace(numerics=True):
        step()
    ops = count_ops(step)
    samples: dict[str, list[float]] = {key: [] for key in CONTEXTS}
    ratios, ratios_every = [], []
    for _ in range(rounds):
        times = {key: _time(step, steps, ctx) for key, ctx in CONTEXTS.items()}
        for key, value in times.items():
            samples[key].append(value)
        ratios.append(times["numerics"] / times["trace"])
        ratios_every.append(times["every10"] / times["trace"])
    plain = statistics.median(samples["plain"])

    def per_op(key: str) -> float:
        return (statistics.median(samples[key]) - plain) / (steps * ops) * 1e6

    return {
        "ops_per_step": ops,
        "trace_us": per_op("trace"),
        "numerics_us": per_op("numerics"),
        "every10_us": per_op("every10"),
        "ratio": statistics.median(ratios),
        "ratio_every10": statistics.median(ratios_every),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--fixtures", default=",".join(FIXTURES))
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"# torch {torch.__version__}, python {platform.python_version()}, {platform.machine()}, "
          f"{args.rounds} rounds x {args.steps} steps, fp16 CPU autocast, 1 intra-op thread")
    print(f"{'fixture':<12}{'ops/step':>9}{'trace µs/op':>13}{'numerics µs/op':>16}{'every=10 µs/op':>16}"
          f"{'numerics/trace':>16}{'every=10/trace':>16}")
    for name in args.fixtures.split(","):
        r = measure(name, args.rounds, args.steps)
        print(f"{name:<12}{r['ops_per_step']:>9}{r['trace_us']:>13.1f}{r['numerics_us']:>16.1f}"
              f"{r['every10_us']:>16.1f}{r['ratio']:>15.2f}x{r['ratio_every10']:>15.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
