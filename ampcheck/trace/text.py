"""The human summary of a TraceReport (`ampcheck trace` prints it, `ampcheck report` re-renders it)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ampcheck.trace.report import TraceReport


def _si(value: float, unit: str) -> str:
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.2f} {prefix}{unit}"
    return f"{value:.0f} {unit}"


def _coverage_line(phase: str, cov: dict[str, Any]) -> str:
    inside, outside = cov["inside_autocast"], cov["outside_autocast"]
    parts = [f"  {phase:<10}{cov['share']:7.1%} of {_si(cov['flops'], 'FLOP')}"]
    if inside["flops"]:
        parts.append(f"inside autocast {inside['share']:.1%} of {_si(inside['flops'], 'FLOP')}")
    if outside["flops"]:
        parts.append(f"outside autocast {outside['share']:.1%} of {_si(outside['flops'], 'FLOP')}")
    return ";  ".join(parts)


def judged_by(meta: dict[str, Any]) -> list[str]:
    """`cpu by AutocastCPU`, one per device type the trace saw (older reports: none)."""
    devices = meta.get("policy", {}).get("devices", {})
    return [f"{device} by {key}" if key else f"{device}: no autocast policy table, not judged"
            for device, key in devices.items()]


def policy_lines(meta: dict[str, Any]) -> list[str]:
    judged = judged_by(meta)
    return [f"autocast policy ({meta['policy']['tables']} tables): {'; '.join(judged)}"] if judged else []


def render_text(report: "TraceReport", top: int = 10) -> str:
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
            lines.append(f"  {kind:<10}{casts[kind]['count']:>8,} casts  {_si(casts[kind]['bytes'], 'B')}")
    lines.append(f"  repeated weight casts: {casts['repeated_weight_casts']}")
    flops_rows = sorted((r for r in report.ops if r.flops), key=lambda r: -r.flops)[:top]
    if flops_rows:
        lines += ["", f"top {len(flops_rows)} records by FLOPs:",
                  f"  {'op':<34}{'phase':<10}{'dtype':<10}{'autocast':<10}{'FLOPs':>12}  module"]
        for r in flops_rows:
            lines.append(f"  {r.name:<34}{r.phase:<10}{r.out_dtype or '-':<10}{r.autocast or 'off':<10}"
                         f"{_si(r.flops, ''):>12}  {r.module or '-'}")
    modules = {name: cov for name, cov in report.module_coverage().items() if "." not in name}
    if modules:
        lines += ["", "modules (low-precision share of matmul FLOPs, forward / backward):"]
        for name, cov in modules.items():
            fwd = cov.get("forward", {}).get("share")
            bwd = cov.get("backward", {}).get("share")
            lines.append(f"  {name:<40}{_pct(fwd):>8} / {_pct(bwd)}")
    from ampcheck.trace import float8, numerics, precision_loss, scaler, sharding, tensor_cores

    lines += (float8.summary_lines(report) + sharding.summary_lines(report) + tensor_cores.summary_lines(report) + precision_loss.summary_lines(report)
              + scaler.summary_lines(report) + numerics.summary_lines(report))
    found = report.findings()
    if found:
        codes = sorted({f.code for f in found})
        lines += ["", f"findings: {len(found)} ({', '.join(codes)}); "
                      "show them with `ampcheck report FILE --findings`"]
    return "\n".join(lines)


def _pct(value: Any) -> str:
    return "-" if value is None else f"{value:.1%}"
