"""Float8 training in a ReportData: the fp8 share of matmul FLOPs, the scaling recipes, and
the linears left out of float8 with their share of matmul FLOPs (torch-free).

A matmul ran in float8 when its inputs are float8 (`_scaled_mm` on float8_e4m3fn /
float8_e5m2 data; its output is bf16 or fp32). The tracer records the kernel that ran, not
the dtype a wrapper tensor advertises (see ampcheck.trace.subclasses), so these FLOPs are
counted from the op records. The recipes and the linears come from the Float8Observer's
section (ampcheck.trace.observers.float8).

A linear is left out of float8 when the model has torchao Float8Linears but this one stayed
an `nn.Linear` (the `module_filter_fn` of `convert_to_float8_training` excluded it). Float8
matmuls on CUDA need every dimension to be a multiple of 16, which is the usual reason a
filter excludes a layer; the report says so where it applies.
"""
from __future__ import annotations

import enum
from collections import defaultdict
from typing import Any

from ampcheck.trace.columns import columns
from ampcheck.trace.markup import count, escape, num, table
from ampcheck.trace.model import ReportData, sum_rows
from ampcheck.trace.sections import page, summary
from ampcheck.trace.units import pct, si

SECTION = "float8"
CUDA_MULTIPLE = 16
MATMUL_PHASES = ("forward", "backward")


class Recipe(enum.Enum):
    """How a float8 matmul scaled its inputs (read from the scales' shapes)."""

    TENSORWISE = "tensorwise"
    ROWWISE = "rowwise"
    BLOCKWISE = "blockwise"


def _matmul_flops(report: ReportData) -> tuple[int, dict[str, int]]:
    """Forward + backward matmul-class FLOPs in all, and per module (each enclosing module too)."""
    total = 0
    per_module: dict[str, int] = defaultdict(int)
    for r in report.ops:
        if not r.flops or r.phase not in MATMUL_PHASES:
            continue
        total += r.flops
        if r.module:
            parts = r.module.split(".")
            for depth in range(1, len(parts) + 1):
                per_module[".".join(parts[:depth])] += r.flops
    return total, per_module


def merged(sections: list[dict[str, Any]]) -> dict[str, Any]:
    """The ranks' sections as one: float8 matmuls summed per (phase, module, dtypes, recipe),
    the first rank's linears (every rank converts the same model)."""
    calls = sum_rows((call for part in sections for call in part["scaled_mm"]),
                     ("phase", "module", "a_dtype", "b_dtype", "out_dtype", "recipe"), ("calls", "flops"))
    return {"scaled_mm": calls, "linears": next((p["linears"] for p in sections if p["linears"]), [])}


def why_left_out(linear: dict[str, Any]) -> str:
    odd = [f"{name}={linear[name]}" for name in ("in_features", "out_features") if linear[name] % CUDA_MULTIPLE]
    if odd:
        return f"{', '.join(odd)} not a multiple of {CUDA_MULTIPLE} (CUDA's float8 matmul needs it)"
    return "excluded from conversion (module_filter_fn)"


def left_out(report: ReportData) -> list[dict[str, Any]]:
    """The plain linears of a model trained in float8: name, class, shape, why, and their share
    of forward + backward matmul FLOPs."""
    section = report.sections.get(SECTION) or {}
    total, per_module = _matmul_flops(report)
    rows = []
    for linear in section.get("linears", []):
        if linear["float8"]:
            continue
        flops = per_module.get(linear["module"], 0)
        rows.append({**linear, "reason": why_left_out(linear), "flops": flops,
                     "share": flops / total if total else 0.0})
    return rows


def recipes(report: ReportData) -> list[dict[str, Any]]:
    """Float8 matmuls grouped by phase, dtypes and recipe: calls and FLOPs."""
    groups: dict[tuple, list[int]] = {}
    for call in (report.sections.get(SECTION) or {}).get("scaled_mm", []):
        slot = groups.setdefault((call["phase"], call["a_dtype"], call["b_dtype"], call["out_dtype"],
                                  call["recipe"]), [0, 0])
        slot[0] += call["calls"]
        slot[1] += call["flops"]
    return [{"phase": phase, "a_dtype": a, "b_dtype": b, "out_dtype": out, "recipe": recipe, "calls": calls,
             "flops": flops}
            for (phase, a, b, out, recipe), (calls, flops) in sorted(groups.items(), key=_phase_first)]


def _phase_first(item: tuple) -> tuple:
    (phase, *rest), _ = item
    return (MATMUL_PHASES.index(phase) if phase in MATMUL_PHASES else len(MATMUL_PHASES), phase, *rest)


def share_by_phase(report: ReportData) -> dict[str, dict[str, Any]]:
    """Per phase: matmul-class FLOPs, those that ran in float8 and their share (phases with any)."""
    coverage = report.coverage()
    return {phase: {"flops": cov["flops"], "float8_flops": cov["float8_flops"], "share": cov["float8_share"]}
            for phase, cov in coverage.items() if cov["float8_flops"]}


def used(report: ReportData) -> bool:
    return bool(report.sections.get(SECTION)) or bool(share_by_phase(report))


@summary
def summary_lines(report: ReportData) -> list[str]:
    if not used(report):
        return []
    lines = ["", "float8 matmuls (the kernels that ran, not the wrappers' advertised dtype):"]
    for phase, share in share_by_phase(report).items():
        lines.append(f"  {phase:<10}{share['share']:7.1%} of matmul FLOPs in float8")
    for row in recipes(report):
        lines.append(f"  {row['phase']:<10}{row['calls']:>6} x _scaled_mm  {row['a_dtype']} @ {row['b_dtype']} -> "
                     f"{row['out_dtype']}, {row['recipe']} scales")
    rows = left_out(report)
    linears = (report.sections.get(SECTION) or {}).get("linears", [])
    if linears:
        share = sum(r["share"] for r in rows)
        lines.append(f"  linears left out of float8: {len(rows)} of {len(linears)}, {share:.1%} of matmul FLOPs")
        lines += columns(("linear", "in", "out", "of matmul FLOPs", "why"),
                         [(report.module_label(r["module"]), str(r["in_features"]), str(r["out_features"]),
                           pct(r["share"]), r["reason"]) for r in rows], right=(1, 2, 3), indent="    ")
    return lines




@page
def html_part(report: ReportData) -> str:
    head = '<section id="float8"><h2>Float8</h2>'
    if not used(report):
        return head + '<p class="muted">No float8 matmuls were traced.</p></section>'
    cards = "".join(
        f'<div class="card" id="float8-{escape(phase)}"><div class="v">{pct(share["share"])}</div>'
        f'<div class="l">{escape(phase)} matmul FLOPs in float8 ({escape(si(share["float8_flops"], "FLOP"))} of '
        f'{escape(si(share["flops"], "FLOP"))})</div></div>'
        for phase, share in share_by_phase(report).items()
    )
    kernels = table(["phase", "kernel", "a", "b", "output", "scaling", "calls", "FLOPs"], [
        f"<tr><td>{escape(r['phase'])}</td><td><code>_scaled_mm</code></td><td>{escape(r['a_dtype'])}</td>"
        f"<td>{escape(r['b_dtype'])}</td><td>{escape(r['out_dtype'])}</td><td>{escape(r['recipe'])}</td>"
        f"{count(r['calls'])}{num(r['flops'])}</tr>"
        for r in recipes(report)
    ])
    rows = left_out(report)
    linears = (report.sections.get(SECTION) or {}).get("linears", [])
    left = (
        f'<h3 id="float8-left-out">Linears left out of float8: {len(rows)} of {len(linears)}, '
        f'{pct(sum(r["share"] for r in rows))} of matmul FLOPs</h3>'
        + table(["module", "class", "in", "out", "of matmul FLOPs", "why"], [
            f"<tr><td><code>{escape(r['module'])}</code></td><td>{escape(r['class'])}</td>{count(r['in_features'])}"
            f"{count(r['out_features'])}{num(r['share'], pct(r['share']))}<td>{escape(r['reason'])}</td></tr>"
            for r in rows
        ])
        if linears else ""
    )
    return (f'{head}<p>The kernels that ran, not the dtype a float8 wrapper tensor advertises: float8 matmul '
            f'FLOPs count as low precision and as their own class.</p><div class="cards">{cards}</div>'
            f"<h3>Float8 matmuls</h3>{kernels}{left}</section>")
