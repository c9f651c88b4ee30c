"""Trace benchmark: what `ampcheck.trace()` costs per training step and per aten op, next to
the floor for dispatch-level tracing (an empty TorchDispatchMode) and to PyTorch's own tools.

Builds on bench/trace_overhead.py (its fixtures, steady-state timing and empty mode). On the
MLP, CNN and transformer-block fixtures under CPU autocast bf16, one intra-op thread, each
round times, interleaved: untraced, an empty TorchDispatchMode, `torch.profiler` with
`record_shapes=True`, `FlopCounterMode`, `ampcheck.trace()` (default), with module attribution
off, and with numerics on. Reported per fixture: median ms per step, ratio to untraced,
added µs per aten op, and the default trace's added cost per op over the empty mode's (the
median of per-round ratios, so a busy machine moves both sides together).

Memory: peak RSS (VmHWM, the process's own high-water mark) after 10 and after 1,000 traced
steps, each in a fresh process, must be flat: the tracer aggregates as it goes.

    python bench/trace_bench.py --rounds 5 --results bench/RESULTS.md
    python bench/trace_bench.py --tiny      # seconds; what the test suite runs
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

import ampcheck  # noqa: E402
import trace_overhead  # noqa: E402  (bench scripts are run as files, not as a package)
from procstats import load_average, machine, median  # noqa: E402
from results_md import splice  # noqa: E402

CASES: dict[str, Callable[[], object]] = {
    "untraced": trace_overhead._Plain,
    "empty TorchDispatchMode": trace_overhead.EmptyMode,
    "torch.profiler (record_shapes)": lambda: profile(activities=[ProfilerActivity.CPU], record_shapes=True),
    "FlopCounterMode": lambda: FlopCounterMode(display=False),
    "ampcheck.trace() default": lambda: ampcheck.trace(),
    "ampcheck.trace(modules=False)": lambda: ampcheck.trace(modules=False),
    "ampcheck.trace(numerics=True)": lambda: ampcheck.trace(numerics=True),
}
PLAIN, EMPTY, DEFAULT = "untraced", "empty TorchDispatchMode", "ampcheck.trace() default"


@dataclass
class FixtureResult:
    name: str
    ops: int
    seconds: dict[str, list[float]]  # case -> per-round time of one step
    default_over_empty: list[float]  # per round: default's added per-op cost / empty mode's

    def step_ms(self, case: str) -> float:
        return median(self.seconds[case]) * 1e3

    def added_us_per_op(self, case: str) -> float:
        return (median(self.seconds[case]) - median(self.seconds[PLAIN])) / self.ops * 1e6


def time_fixture(name: str, rounds: int, steps: int) -> FixtureResult:
    step = trace_overhead.build_step(name)
    for ctx in CASES.values():  # warm up every path once (allocator, kernels, first records)
        with ctx():
            step()
    ops = trace_overhead.count_ops(step)
    seconds: dict[str, list[float]] = {case: [] for case in CASES}
    ratios = []
    order = list(CASES)
    for r in range(rounds):
        shift = r % len(order)
        this_round = {}
        for case in order[shift:] + order[:shift]:
            this_round[case] = trace_overhead._time(step, steps, CASES[case]) / steps
            seconds[case].append(this_round[case])
        plain = this_round[PLAIN]
        ratios.append((this_round[DEFAULT] - plain) / (this_round[EMPTY] - plain))
    return FixtureResult(name, ops, seconds, ratios)


def peak_rss_mb(name: str, steps: int) -> float:
    """Peak RSS of a fresh process after `steps` traced steps of one fixture."""
    out = subprocess.run(
        [sys.executable, __file__, "--rss-worker", name, str(steps)],
        capture_output=True, text=True, check=True,
    ).stdout
    return float(out.strip().splitlines()[-1])


def rss_worker(name: str, steps: int) -> None:
    torch.set_num_threads(1)
    step = trace_overhead.build_step(name)
    with ampcheck.trace():
        for _ in range(steps):
            step()
        status = Path("/proc/self/status").read_text()
        print(int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024)


def timing_table(results: list[FixtureResult]) -> str:
    lines = [
        "| fixture (aten ops/step) | case | ms/step | × untraced | added µs/op | × empty mode's µs/op |",
        "|---|---|---|---|---|---|",
    ]
    for res in results:
        empty_us = res.added_us_per_op(EMPTY)
        for case in CASES:
            if case == PLAIN:
                lines.append(f"| {res.name} ({res.ops}) | {case} | {res.step_ms(case):.2f} | 1.00 | — | — |")
                continue
            added = res.added_us_per_op(case)
            lines.append(
                f"| | {case} | {res.step_ms(case):.2f} | {res.step_ms(case) / res.step_ms(PLAIN):.2f} "
                f"| {added:.1f} | {added / empty_us:.2f} |"
            )
    return "\n".join(lines)


def target_table(results: list[FixtureResult]) -> str:
    lines = [
        "| fixture | default trace's added cost per op ÷ empty mode's (median of rounds) | ≤ 1.5 |",
        "|---|---|---|",
    ]
    for res in results:
        ratio = median(res.default_over_empty)
        spread = f"{min(res.default_over_empty):.2f}–{max(res.default_over_empty):.2f}"
        lines.append(f"| {res.name} | {ratio:.2f} ({spread}) | {'yes' if ratio <= 1.5 else '**no**'} |")
    return "\n".join(lines)


def memory_table(fixtures: list[str], short: int, long: int) -> str:
    lines = [
        f"| fixture | peak RSS after {short} traced steps, MB | after {long:,} | growth MB |",
        "|---|---|---|---|",
    ]
    for name in fixtures:
        a, b = peak_rss_mb(name, short), peak_rss_mb(name, long)
        lines.append(f"| {name} | {a:.1f} | {b:.1f} | {b - a:+.1f} |")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5, help="timed steps per case per round")
    parser.add_argument("--fixtures", help=f"comma-separated (default: {','.join(trace_overhead.FIXTURES)}; with --tiny: mlp)")
    parser.add_argument("--results", type=Path, help="Markdown file to splice the tables into")
    parser.add_argument("--tiny", action="store_true", help="the MLP, one round, few steps (smoke test)")
    parser.add_argument("--rss-worker", nargs=2, metavar=("FIXTURE", "STEPS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rss_worker:
        rss_worker(args.rss_worker[0], int(args.rss_worker[1]))
        return 0

    rounds, steps, (short, long) = (1, 1, (1, 3)) if args.tiny else (args.rounds, args.steps, (10, 1000))
    fixtures = (args.fixtures or ("mlp" if args.tiny else ",".join(trace_overhead.FIXTURES))).split(",")
    torch.set_num_threads(1)
    load_before = load_average()
    results = []
    for name in fixtures:
        results.append(time_fixture(name, rounds, steps))
        print(f"  timed {name}", file=sys.stderr)
    memory = memory_table(fixtures, short, long)
    text = "\n\n".join([
        f"CPU autocast bf16, 1 intra-op thread, {rounds} interleaved round(s) × {steps} steady-state steps per case; "
        f"{machine()}.",
        timing_table(results),
        target_table(results),
        memory,
        f"Load average (1/5/15 min) before {load_before}, after {load_average()}.",
    ])
    print(f"\n### trace_bench\n\n{text}")
    if args.results:
        splice(args.results, "trace", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
