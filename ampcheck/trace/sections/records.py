"""AMP501-AMP503: findings from the op and weight records (torch-free).

Each finding points at the user source line recorded with the op (the first frame outside
torch and ampcheck) and names the op, the module and its share of FLOPs or bytes.
Precision first: AMP501 speaks only when the trace saw autocast at all (a pure-fp32 program is
a choice, not a coverage gap) and the gap is at least `MIN_FLOP_SHARE` of forward matmul FLOPs;
AMP502 only for training (a trace with backward ops): `.half()` inference is a choice too.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Optional

from ampcheck.findings import Finding
from ampcheck.trace.model import OpRecord, ReportData
from ampcheck.trace.sections import finding, producer

MIN_FLOP_SHARE = 0.01
FORWARD = ("forward", "recompute")


def _module(report: ReportData, name: Optional[str]) -> str:
    return f"module `{report.module_label(name)}`" if name else "no module"


@producer("AMP501")
def fp32_compute_outside_autocast(report: ReportData) -> Iterable[Finding]:
    """AMP501: matmul-class forward FLOPs that ran in fp32 with autocast off, in a program
    that uses autocast elsewhere, where autocast's policy would have lowered them."""
    if not report.meta.get("autocast_seen"):
        return
    forward = [r for r in report.ops if r.phase in FORWARD and r.flops]
    total = sum(r.flops for r in forward)
    groups: dict[tuple, list[OpRecord]] = defaultdict(list)
    for r in forward:
        if r.autocast is None and r.out_dtype == "float32" and r.policy == "lower_precision":
            groups[(r.source, r.module, r.name)].append(r)
    for (source, module, name), rows in groups.items():
        flops = sum(r.flops for r in rows)
        share = flops / total
        if share < MIN_FLOP_SHARE:
            continue
        yield finding(
            "AMP501", source,
            f"`{name}` in {_module(report, module)} ran in float32 outside autocast: {share:.1%} of forward "
            f"matmul FLOPs ({flops:,} FLOPs, {sum(r.count for r in rows)} calls); autocast would run it "
            "in lower precision",
            op=name, module=module, flops=flops, share=share,
        )


@producer("AMP502")
def low_precision_where_policy_says_fp32(report: ReportData) -> Iterable[Finding]:
    """AMP502: an op autocast keeps in float32 for its device ran in float16/bfloat16, in a
    trace that trains (has a backward): half-precision inference is a deliberate choice."""
    if not any(r.phase == "backward" for r in report.ops):
        return
    total = sum(r.bytes_read + r.bytes_written for r in report.ops) or 1
    groups: dict[tuple, list[OpRecord]] = defaultdict(list)
    for r in report.ops:
        if r.phase in FORWARD and r.policy == "fp32" and r.ran_as_policy is False:
            groups[(r.source, r.module, r.name, r.out_dtype, r.device)].append(r)
    for (source, module, name, dtype, device), rows in groups.items():
        nbytes = sum(r.bytes_read + r.bytes_written for r in rows)
        where = "inside" if any(r.autocast for r in rows) else "outside"
        yield finding(
            "AMP502", source,
            f"`{name}` in {_module(report, module)} ran in {dtype} ({where} autocast), but autocast's policy "
            f"on {device} runs it in float32: {sum(r.count for r in rows)} calls, {nbytes:,} bytes "
            f"({nbytes / total:.1%} of traced bytes); a manual cast feeds it low-precision input",
            op=name, module=module, dtype=dtype, device=device, bytes=nbytes, share=nbytes / total,
        )


@producer("AMP503")
def cast_churn(report: ReportData) -> Iterable[Finding]:
    """AMP503: a weight cast again within one autocast region (autocast caches one cast per
    trainable leaf weight per region; frozen or non-leaf weights and user casts are redone)."""
    cast_bytes = sum(r.bytes_read + r.bytes_written for r in report.ops if r.cast and r.cast != "backward") or 1
    for w in report.weights:
        if w.repeated <= 0:
            continue
        wasted = w.bytes * w.repeated // w.casts
        yield finding(
            "AMP503", w.source,
            f"weight `{w.weight}` was cast {w.src_dtype}->{w.dst_dtype} {w.casts} times in {w.regions} "
            f"autocast region(s) ({w.kind} casts): {wasted:,} bytes moved by the repeated casts, "
            f"{w.bytes / cast_bytes:.1%} of forward cast bytes; autocast re-casts frozen "
            "(requires_grad=False) and non-leaf weights on every use",
            weight=w.weight, casts=w.casts, regions=w.regions, bytes=w.bytes, share=w.bytes / cast_bytes,
        )
