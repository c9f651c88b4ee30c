"""Assertions users write about a trace report (in their own test suites, via the pytest plugin).

Failure messages name what to fix: the ops and modules whose matmul FLOPs did not run in
fp16/bf16, largest first, with their user source line. Torch-free, like the report.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from ampcheck.trace.model import ReportData

SHOWN = 10


class FindingList(list):
    """The findings of a report; its repr is one `path:line:col: CODE message` line each, so
    `assert not report.findings(...)` fails with a message that reads like lint output."""

    def __repr__(self) -> str:
        if not self:
            return "[] (no findings)"
        return "\n" + "\n".join(f"{f.location}: {f.code} {f.message}" for f in self)


def assert_coverage(report: ReportData, min_lowp_flop_share: float,
                    phases: Sequence[str] = ("forward", "backward")) -> None:
    """Fail unless each traced phase ran at least `min_lowp_flop_share` of its matmul-class
    FLOPs in fp16/bf16."""
    if not 0.0 <= min_lowp_flop_share <= 1.0:
        raise ValueError(f"min_lowp_flop_share must be between 0 and 1, got {min_lowp_flop_share}")
    coverage = report.coverage()
    wanted = [p for p in phases if p in coverage]
    if not wanted:
        raise AssertionError(f"no matmul-class FLOPs were traced in phase(s) {', '.join(phases)}: "
                             "did the traced code run a forward/backward pass?")
    failing = [p for p in wanted if coverage[p]["share"] < min_lowp_flop_share]
    if not failing:
        return
    lines = [
        f"low-precision share of matmul FLOPs below {min_lowp_flop_share:.1%}: "
        + ", ".join(f"{p} {coverage[p]['share']:.1%}" for p in failing)
    ]
    for phase in failing:
        lines += _offenders(report, phase)
    raise AssertionError("\n".join(lines))


def _offenders(report: ReportData, phase: str) -> list[str]:
    """The fp32 (or other full-precision) matmul records of `phase`, grouped by op, module and
    source line, largest share of the phase's FLOPs first."""
    rows = [r for r in report.ops if r.phase == phase and r.flops]
    total = sum(r.flops for r in rows) or 1
    groups: dict[tuple, int] = defaultdict(int)
    for r in rows:
        if not r.low_precision:
            groups[(r.name, r.module, r.out_dtype, r.autocast, r.source)] += r.flops
    ranked = sorted(groups.items(), key=lambda kv: -kv[1])
    lines = [f"  {phase}: ops that did not run in fp16/bf16 (share of {phase} matmul FLOPs):"]
    for (name, module, dtype, autocast, source), flops in ranked[:SHOWN]:
        lines.append(f"    {name} in module {report.module_label(module)}: {flops / total:.1%} in {dtype}, "
                     f"autocast {autocast or 'off'}, at {source or '?'}")
    if len(ranked) > SHOWN:
        lines.append(f"    ... and {len(ranked) - SHOWN} more")
    modules = {name: cov[phase]["share"] for name, cov in report.module_coverage().items()
               if phase in cov and cov[phase]["share"] < 1.0}
    if modules:
        lines.append(f"  {phase}: modules below 100%: "
                     + ", ".join(f"{report.module_label(name)} {share:.1%}" for name, share in sorted(modules.items())))
    return lines
