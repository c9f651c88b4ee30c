"""The human summary of a TraceReport (`ampcheck trace` prints it, `ampcheck report` re-renders it)."""
from __future__ import annotations

from typing import Any

from ampcheck.trace import sections
from ampcheck.trace.columns import columns
from ampcheck.trace.model import ReportData
from ampcheck.trace.units import pct, si


def _coverage_line(phase: str, cov: dict[str, Any]) -> str:
    inside, outside = cov["inside_autocast"], cov["outside_autocast"]
    parts = [f"  {phase:<10}{cov['share']:7.1%} of {si(cov['flops'], 'FLOP')}"]
    if inside["flops"]:
        parts.append(f"inside autocast {inside['share']:.1%} of {si(inside['flops'], 'FLOP')}")
    if outside["flops"]:
        parts.append(f"outside autocast {outside['share']:.1%} of {si(outside['flops'], 'FLOP')}")
    return ";  ".join(parts)


def judged_by(meta: dict[str, Any]) -> list[str]:
    """`cpu by AutocastCPU`, one per device type the trace saw (older reports: none)."""
    devices = meta.get("policy", {}).get("devices", {})
    return [f"{device} by {key}" if key else f"{device}: no autocast policy table, not judged"
            for device, key in devices.items()]


def policy_lines(meta: dict[str, Any]) -> list[str]:
    judged = judged_by(meta)
    return [f"autocast policy ({meta['policy']['tables']} tables): {'; '.join(judged)}"] if judged else []


def render_text(report: ReportData, top: int = 10) -> str:
    meta = report.meta
    lines = [
        f"ampcheck trace: {report.total_ops:,} ops in {len(report.ops)} records, "
        f"{meta.get('steps', 0)} optimizer step(s) (torch {meta.get('torch_version', '?')})",
        *policy_lines(meta),
        "",
        "matmul-class FLOPs in float16/bfloat16:",
    ]
    coverage = report.coverage()
    lines += [_coverage_line(phase, cov) for phase, cov in coverage.items()] or ["  (no matmul-class ops traced)"]
    casts = report.cast_totals()
    lines += ["", "casts:"]
    for kind in ("autocast", "user", "backward"):
        if kind in casts:
            lines.append(f"  {kind:<10}{casts[kind]['count']:>8,} casts  {si(casts[kind]['bytes'], 'B')}")
    lines.append(f"  repeated weight casts: {casts['repeated_weight_casts']}")
    flops_rows = sorted((r for r in report.ops if r.flops), key=lambda r: -r.flops)[:top]
    if flops_rows:
        lines += ["", f"top {len(flops_rows)} records by FLOPs:"]
        lines += columns(["op", "phase", "dtype", "autocast", "code", "FLOPs", "module"],
                         [[r.name, r.phase, r.out_dtype or "-", r.autocast or "off",
                           "compiled" if r.compiled else "eager", si(r.flops), report.module_label(r.module)]
                          for r in flops_rows], right=[5])
    modules = {name: cov for name, cov in report.module_coverage().items() if "." not in name}
    if modules:
        lines += ["", "modules (low-precision share of matmul FLOPs):"]
        lines += columns(["module", "forward", "backward"],
                         [[report.module_label(name), pct(cov.get("forward", {}).get("share")),
                           pct(cov.get("backward", {}).get("share"))] for name, cov in modules.items()],
                         right=[1, 2])
    lines += sections.summary_lines(report)
    found = sections.findings(report)
    if found:
        codes = sorted({f.code for f in found})
        lines += ["", f"findings: {len(found)} ({', '.join(codes)}); "
                      "show them with `ampcheck report FILE --findings`"]
    return "\n".join(lines)
