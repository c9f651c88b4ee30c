"""What changed between two traces (torch-free): for checking a refactor or a torch upgrade.

`diff(before, after)` (also `TraceReport.diff`) compares the headline coverage per phase,
the casts, the share of low-precision matmul FLOPs Tensor Cores cannot tile, the modules
whose error against float32 grew (when both traces compared), the matmul-class ops that now
run in float32, and the findings that are new.
Traces of different lengths compare fairly: shares are ratios, and casts are compared per
optimizer step when both traces stepped.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Optional

from ampcheck.findings import Finding
from ampcheck.trace import sections
from ampcheck.trace.model import PHASES, ReportData
from ampcheck.trace.sections.precision_loss import SECTION as COMPARE
from ampcheck.trace.sections.precision_loss import relative
from ampcheck.trace.units import pct, si

CAST_KINDS = ("autocast", "user", "backward")
LISTED = 8  # modules listed whose error grew


@dataclass
class TraceDiff:
    """`coverage`: phase -> {before, after, change} low-precision shares (None: phase absent).
    `casts`: kind -> {before, after} counts and bytes, and `repeated_weight_casts` {before,
    after} (per optimizer step when `per_step`).
    `misaligned_share`: {before, after} share of low-precision matmul FLOPs whose shapes Tensor
    Cores cannot tile (None: no low-precision matmul).
    `precision_loss`: modules compared against float32 in both traces whose max relative error
    at least doubled (less is run-to-run rounding noise), {module, before, after}, the largest
    growth first.
    `new_fp32_matmuls`: matmul-class (op, phase, module) that ran in float32 after but not before.
    `new_findings`: findings of `after` with no counterpart (code, place, op, module) in `before`."""

    coverage: dict[str, dict[str, Optional[float]]]
    casts: dict[str, dict[str, dict[str, float]]]
    repeated_weight_casts: dict[str, float]
    per_step: bool
    misaligned_share: dict[str, Optional[float]] = field(default_factory=dict)
    precision_loss: list[dict[str, Any]] = field(default_factory=list)
    new_fp32_matmuls: list[dict[str, Any]] = field(default_factory=list)
    new_findings: list[Finding] = field(default_factory=list)

    def worse(self, tolerance: float) -> dict[str, float]:
        """Phases whose low-precision share dropped by more than `tolerance` (a fraction)."""
        return {phase: c["change"] for phase, c in self.coverage.items()
                if c["change"] is not None and -c["change"] > tolerance}

    def to_json(self) -> dict[str, Any]:
        return {
            "coverage": self.coverage,
            "casts": self.casts,
            "repeated_weight_casts": self.repeated_weight_casts,
            "per_step": self.per_step,
            "misaligned_share": self.misaligned_share,
            "precision_loss": self.precision_loss,
            "new_fp32_matmuls": self.new_fp32_matmuls,
            "new_findings": [f.to_json() for f in self.new_findings],
        }

    def to_text(self, tolerance: float) -> str:
        lines = ["coverage (matmul-class FLOPs in float16/bfloat16):"]
        for phase, c in self.coverage.items():
            change = "" if c["change"] is None else f"  ({c['change'] * 100:+.1f} points)"
            lines.append(f"  {phase:<10}{pct(c['before']):>8} -> {pct(c['after'])}{change}")
        unit = "per optimizer step" if self.per_step else "in the whole trace"
        lines += ["", f"casts ({unit}):"]
        for kind, c in self.casts.items():
            before, after = c["before"], c["after"]
            lines.append(f"  {kind:<24}{before['count']:>10,.1f} -> {after['count']:,.1f} casts, "
                         f"{si(before['bytes'], 'B')} -> {si(after['bytes'], 'B')}")
        repeated = self.repeated_weight_casts
        lines.append(f"  {'repeated weight casts':<24}{repeated['before']:>10,.1f} -> {repeated['after']:,.1f}")
        misaligned = self.misaligned_share
        lines += ["", f"low-precision matmul FLOPs Tensor Cores cannot tile: {pct(misaligned['before'])} -> "
                      f"{pct(misaligned['after'])}"]
        if self.precision_loss:
            lines += ["", "modules whose error against float32 grew (max relative error):"]
            lines += [f"  {m['module']:<32}{relative(m['before']):>9} -> {relative(m['after'])}"
                      for m in self.precision_loss[:LISTED]]
        lines += ["", "new float32 matmuls:"]
        lines += [f"  {m['op']} ({m['phase']}) in {m['module_label'] if m['module'] else 'no module'}: {si(m['flops'], 'FLOP')}"
                  f"{' at ' + m['source'] if m['source'] else ''}" for m in self.new_fp32_matmuls] or ["  none"]
        lines += ["", "new findings:"]
        lines += [f"  {f.location}: {f.code} {f.message}" for f in self.new_findings] or ["  none"]
        worse = self.worse(tolerance)
        lines.append("")
        if worse:
            phases = ", ".join(f"{phase} {change * 100:+.1f} points" for phase, change in worse.items())
            lines.append(f"coverage got worse by more than the tolerance ({tolerance:.1%}): {phases}")
        else:
            lines.append(f"coverage did not get worse by more than the tolerance ({tolerance:.1%})")
        return "\n".join(lines)


def diff(before: ReportData, after: ReportData) -> TraceDiff:
    steps = (before.meta.get("steps", 0), after.meta.get("steps", 0))
    per_step = all(steps)
    divide = steps if per_step else (1, 1)
    old, new = before.cast_totals(), after.cast_totals()
    empty = {"count": 0, "bytes": 0}
    return TraceDiff(
        coverage=_coverage(before, after),
        casts={kind: {"before": _per(old.get(kind, empty), divide[0]), "after": _per(new.get(kind, empty), divide[1])}
               for kind in CAST_KINDS if kind in old or kind in new},
        repeated_weight_casts={"before": old["repeated_weight_casts"] / divide[0],
                               "after": new["repeated_weight_casts"] / divide[1]},
        per_step=per_step,
        misaligned_share={"before": _misaligned(before), "after": _misaligned(after)},
        precision_loss=_precision_loss(before, after),
        new_fp32_matmuls=_new_fp32_matmuls(before, after),
        new_findings=_new_findings(before, after),
    )


def _coverage(before: ReportData, after: ReportData) -> dict[str, dict[str, Optional[float]]]:
    old, new = before.coverage(), after.coverage()
    out = {}
    for phase in PHASES:
        if phase not in old and phase not in new:
            continue
        share_before = old[phase]["share"] if phase in old else None
        share_after = new[phase]["share"] if phase in new else None
        change = share_after - share_before if share_before is not None and share_after is not None else None
        out[phase] = {"before": share_before, "after": share_after, "change": change}
    return out


def _misaligned(report: ReportData) -> Optional[float]:
    alignment = report.tensor_core_alignment()
    return alignment["share"] if alignment["flops"] else None


def _precision_loss(before: ReportData, after: ReportData) -> list[dict[str, Any]]:
    if COMPARE not in before.sections or COMPARE not in after.sections:
        return []
    old = {m["module"]: m["max_rel_error"] for m in before.sections[COMPARE]["modules"] if m["calls"]}
    grew = [{"module": m["module"], "before": old[m["module"]], "after": m["max_rel_error"]}
            for m in after.sections[COMPARE]["modules"]
            if m["calls"] and m["module"] in old and m["max_rel_error"] > 2 * old[m["module"]]]
    return sorted(grew, key=lambda m: -(m["after"] - m["before"]))


def _per(totals: dict[str, int], steps: int) -> dict[str, float]:
    return {"count": totals["count"] / steps, "bytes": totals["bytes"] / steps}


def _fp32_matmuls(report: ReportData) -> dict[tuple, dict[str, Any]]:
    found: dict[tuple, dict[str, Any]] = defaultdict(lambda: {"flops": 0, "source": None})
    for r in report.ops:
        if r.flops and r.out_dtype == "float32":
            slot = found[(r.name, r.phase, r.module)]
            slot["flops"] += r.flops
            slot["source"] = slot["source"] or r.source
    return found


def _new_fp32_matmuls(before: ReportData, after: ReportData) -> list[dict[str, Any]]:
    old = _fp32_matmuls(before)
    new = [{"op": op, "phase": phase, "module": module, "module_label": after.module_label(module), **value}
           for (op, phase, module), value in _fp32_matmuls(after).items() if (op, phase, module) not in old]
    return sorted(new, key=lambda m: -m["flops"])


def _finding_key(finding: Finding) -> tuple:
    """Messages carry shares and counts that move with every run; identity is what and where."""
    return (finding.code, finding.path, finding.line, finding.extra.get("op"), finding.extra.get("module"))


def _new_findings(before: ReportData, after: ReportData) -> list[Finding]:
    old = {_finding_key(f) for f in sections.findings(before)}
    return [f for f in sections.findings(after) if _finding_key(f) not in old]
