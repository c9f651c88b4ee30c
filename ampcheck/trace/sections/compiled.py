"""The compiled-code section (`report.sections["compiled"]`, written by
`ampcheck.trace.observers.compiled`): what torch.compile'd code computed, its text and HTML parts.

Run time and compile time tell different parts: the op records marked `compiled` are the
kernels compiled code called (inductor's extern kernels: matmuls, convolutions, attention), in
their real dtypes; the graphs are every op as compiled, fused ones included, in the dtypes
inductor compiled them for. "As compiled" coverage is the low-precision share of the matmul
FLOPs of the graphs (one run of each), so the ops inductor fuses or decomposes count too.
"""
from __future__ import annotations

from typing import Any, Optional

from ampcheck.trace.columns import columns
from ampcheck.trace.markup import count, escape, num, table
from ampcheck.trace.model import ReportData, is_low
from ampcheck.trace.sections import page, summary
from ampcheck.trace.units import pct, si

SECTION = "compiled"


def graph_coverage(section: dict[str, Any], phase: str) -> Optional[dict[str, Any]]:
    """Matmul-class FLOPs of the phase's compiled graphs (one run each) and their low-precision
    share; None when no graph of the phase was compiled in the trace."""
    graphs = [g for g in section["graphs"] if g["phase"] == phase]
    if not graphs:
        return None
    ops = [op for g in graphs for op in g["ops"] if op["flops"]]
    total = sum(op["flops"] for op in ops)
    low = sum(op["flops"] for op in ops if is_low(op["out_dtype"]))
    return {"graphs": len(graphs), "ops": sum(op["count"] for g in graphs for op in g["ops"]),
            "low_precision_ops": sum(op["count"] for g in graphs for op in g["ops"] if is_low(op["out_dtype"])),
            "flops": total, "low_precision_flops": low, "share": low / total if total else None}


def runtime_share(report: ReportData) -> dict[str, int]:
    """Calls of op records compiled code ran, and of those run eagerly."""
    return {"compiled": sum(r.count for r in report.ops if r.compiled),
            "eager": sum(r.count for r in report.ops if not r.compiled)}


@summary
def summary_lines(report: ReportData) -> list[str]:
    section = report.sections.get(SECTION)
    mode = report.meta.get("compiled_code")
    if not section:
        return ["", "compiled code, if any: ran eagerly (trace(compiled=False), or a torch without the support)"
                ] if mode == "eager" else []
    calls = runtime_share(report)
    lines = ["", f"compiled code (run compiled; {section['frames_compiled']} graph(s) compiled by Dynamo during the "
                 f"trace, {len(section['graph_breaks'])} graph break(s)):",
             f"  op calls: {calls['compiled']:,} in compiled code, {calls['eager']:,} eager"]
    for region in section["regions"]:
        label = report.module_label(region["module"])
        lines.append(f"  region {label}: " + ("compiled before the trace (unseen): its kernels are traced, "
                                              "the dtypes of its fused ops are not" if region["compiled_unseen"]
                                              else "compiled during the trace"))
    for phase in ("forward", "backward"):
        cov = graph_coverage(section, phase)
        if cov is not None:
            lines.append(f"  as compiled, {phase}: {cov['graphs']} graph(s), {cov['low_precision_ops']} of "
                         f"{cov['ops']} ops in float16/bfloat16; matmul FLOPs in float16/bfloat16: "
                         f"{pct(cov['share'])} of {si(cov['flops'], 'FLOP')} per run")
    if section["graph_breaks"]:
        lines += ["  graph breaks (each splits a graph, and the autocast region in it):"]
        lines += columns(["where", "count", "reason"],
                         [[b["where"] or "?", str(b["count"]), b["reason"].splitlines()[0]]
                          for b in section["graph_breaks"]], right=[1], indent="    ")
    return lines


@page
def html_part(report: ReportData) -> str:
    section = report.sections.get(SECTION)
    head = '<section id="compiled"><h2>Compiled code</h2>'
    if not section:
        mode = report.meta.get("compiled_code")
        note = {"eager": '<p class="warn">Compiled code, if any, ran eagerly under this trace.</p>',
                "compiled": '<p class="muted">No compiled code ran.</p>'}.get(
            mode, '<p class="muted">Not recorded (traced before compiled code was traced compiled).</p>')
        return head + note + "</section>"
    calls = runtime_share(report)
    regions = "".join(
        f"<li><code>{escape(report.module_label(r['module']))}</code>: "
        + ("<b class='warn'>compiled before the trace (unseen)</b>: its kernels are traced, the dtypes of its "
           "fused ops are not" if r["compiled_unseen"] else "compiled during the trace") + "</li>"
        for r in section["regions"])
    rows = []
    for g in section["graphs"]:
        for op in g["ops"]:
            rows.append(f"<tr><td><code>{escape(report.module_label(g['region']))}</code></td><td>{escape(g['phase'])}"
                        f"</td><td><code>{escape(op['op'])}</code></td><td>{escape(', '.join(d or '-' for d in op['in_dtypes']))}"
                        f"</td><td>{escape(op['out_dtype'] or '-')}</td>{count(op['count'])}{num(op['flops'])}</tr>")
    breaks = "".join(f"<li><code>{escape(b['where'] or '?')}</code> ({b['count']}x): {escape(b['reason'])}</li>"
                      for b in section["graph_breaks"])
    cards = "".join(
        f'<div class="card" id="compiled-{phase}"><div class="v">{pct(cov["share"])}</div><div class="l">{phase} '
        f'matmul FLOPs in fp16/bf16 as compiled ({escape(si(cov["flops"], "FLOP"))} per run, '
        f'{cov["low_precision_ops"]} of {cov["ops"]} ops low precision)</div></div>'
        for phase in ("forward", "backward") if (cov := graph_coverage(section, phase)) is not None)
    return (f'{head}<p id="compiled-mode">Compiled code ran <b>compiled</b>: {calls["compiled"]:,} op calls in '
            f'compiled code, {calls["eager"]:,} eager; {section["frames_compiled"]} graph(s) compiled by Dynamo '
            f'during the trace, {len(section["graph_breaks"])} graph break(s).</p><div class="cards">{cards}</div>'
            + (f"<h3>Regions</h3><ul>{regions}</ul>" if regions else "")
            + (f"<h3>Graph breaks</h3><ul>{breaks}</ul>" if breaks else "")
            + ("<h3>Ops as compiled</h3>" + table(["region", "graph", "op", "inputs", "output", "count", "FLOPs"], rows)
               if rows else "")
            + "</section>")
