"""What `trace(compare_fp32=True)` costs against a plain `ampcheck.trace()`.

    python bench/compare_fp32_overhead.py --rounds 7 --results bench/RESULTS.md

For each fixture (MLP, CNN with batch norm, transformer encoder; CPU autocast bf16, one
intra-op thread) it times, interleaved in every round, steady-state training steps untraced,
under the default trace and under `trace(compare_fp32=True)`, with the same timing as
bench/trace_overhead.py (process CPU time inside an entered context). Reported per fixture,
medians over rounds: ms per step for each, and the ratio of a compare step to a default-trace
step taken per round (a busy machine moves both sides together). The comparison reruns every
module's subtree in float32, so its cost grows with the depth of the module tree: the table
gives the module calls per step and the aten ops the reruns add per step.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Optional

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import torch  # noqa: E402

import ampcheck  # noqa: E402
from procstats import load_average, machine, median  # noqa: E402
from results_md import splice  # noqa: E402
from trace_overhead import FIXTURES, CountingMode, _Plain, _time, build_step, count_ops  # noqa: E402

CONTEXTS: dict[str, Callable[[], object]] = {
    "untraced": _Plain,
    "trace": lambda: ampcheck.trace(),
    "compare_fp32": lambda: ampcheck.trace(compare_fp32=True),
}


def rerun_ops(step: Callable[[], object]) -> tuple[int, int]:
    """(module calls compared, aten ops the float32 reruns add) in one step: a counting mode
    under the trace sees the reruns' ops, which the trace itself does not record."""
    with CountingMode() as counter, ampcheck.trace(compare_fp32=True) as t:
        step()
    calls = sum(m["calls"] for m in t.report.sections["compare_fp32"]["modules"])
    return calls, counter.ops - count_ops(step)


def measure(name: str, rounds: int, steps: int) -> dict[str, float]:
    step = build_step(name)
    for context in CONTEXTS.values():  # warm up every path once
        with context():
            step()
    calls, added = rerun_ops(step)
    seconds: dict[str, list[float]] = {key: [] for key in CONTEXTS}
    ratios = []
    for r in range(rounds):
        order = list(CONTEXTS)[r % len(CONTEXTS):] + list(CONTEXTS)[:r % len(CONTEXTS)]
        this_round = {key: _time(step, steps, CONTEXTS[key]) / steps for key in order}
        for key, value in this_round.items():
            seconds[key].append(value)
        ratios.append(this_round["compare_fp32"] / this_round["trace"])
    return {
        "ops_per_step": count_ops(step),
        "module_calls": calls,
        "rerun_ops": added,
        **{f"{key}_ms": median(values) * 1e3 for key, values in seconds.items()},
        "ratio": median(ratios),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
    }


def table(results: dict[str, dict[str, float]]) -> str:
    lines = ["| fixture | aten ops/step | module calls compared/step | ops the reruns add/step | untraced ms/step "
             "| trace ms/step | compare_fp32 ms/step | compare_fp32 ÷ trace (median, range) |",
             "|---|---|---|---|---|---|---|---|"]
    for name, r in results.items():
        lines.append(f"| {name} | {r['ops_per_step']} | {r['module_calls']} | {r['rerun_ops']} | {r['untraced_ms']:.2f} "
                     f"| {r['trace_ms']:.2f} | {r['compare_fp32_ms']:.2f} | {r['ratio']:.2f}× "
                     f"({r['ratio_min']:.2f}–{r['ratio_max']:.2f}) |")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=5, help="timed steps per case per round")
    parser.add_argument("--fixtures", default=",".join(FIXTURES))
    parser.add_argument("--results", type=Path, help="Markdown file to splice the table into")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    load_before = load_average()
    results = {name: measure(name, args.rounds, args.steps) for name in args.fixtures.split(",")}
    text = "\n\n".join([
        f"CPU autocast bf16, 1 intra-op thread, {args.rounds} interleaved round(s) × {args.steps} steady-state "
        f"steps per case; {machine()}.",
        table(results),
        f"Load average (1/5/15 min) before {load_before}, after {load_average()}.",
    ])
    print(f"\n### compare_fp32_overhead\n\n{text}")
    if args.results:
        splice(args.results, "compare_fp32", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
