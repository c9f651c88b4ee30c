"""The numerics section (`report.sections["numerics"]`, written by
`ampcheck.trace.observers.numerics` under `trace(numerics=True)`): AMP504-AMP506 and the text
and HTML parts (torch-free).

AMP504 names the first op whose output held inf/nan; AMP505 a forward fp16 output within the
headroom factor of fp16's 65504; AMP506 a module whose fp16 gradients are mostly zero or
subnormal (|x| < 6.1e-5) while its forward values are not.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

from ampcheck.findings import Finding
from ampcheck.trace.markup import count, escape, num, table
from ampcheck.trace.model import ReportData
from ampcheck.trace.sections import finding, page, producer, scaler, summary
from ampcheck.trace.units import pct

SECTION = "numerics"
FP16_MAX = 65504.0
FP16_TINY = 6.1e-5  # smallest normal fp16 value; below it values are subnormal or flushed
_UNDERFLOW_SHARE = 0.5  # gradient values this share tiny ...
_UNDERFLOW_MARGIN = 0.25  # ... and this much above the forward's share: AMP506


def underflow_by_module(section: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Share of tiny (zero or subnormal) fp16 values per module, forward and backward."""
    acc: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for rec in section["records"]:
        if rec["elements"] and rec["phase"] in ("forward", "backward"):
            slot = acc[rec["module"] or "<top>"][rec["phase"]]
            slot[0] += rec["tiny"]
            slot[1] += rec["elements"]
    return {
        module: {f"{phase}_share": tiny / total for phase, (tiny, total) in phases.items()}
        | {f"{phase}_elements": total for phase, (_, total) in phases.items()}
        for module, phases in sorted(acc.items())
    }


@summary
def summary_lines(report: ReportData) -> list[str]:
    """The numerics part of the text summary."""
    section = report.sections.get(SECTION)
    if not section:
        return []
    first = section["first_nonfinite"]
    lines = ["", f"numerics ({section['steps_sampled']} optimizer step(s) sampled, one in {section['every']}):",
             f"  first inf/nan: step {first['first_step']}, {_where(first, report)} at {first['source']}"
             if first else "  no inf/nan"]
    fp16 = [r for r in section["records"] if r["max_abs"] is not None and r["phase"] == "forward"]
    if fp16:
        peak = max(fp16, key=lambda r: r["max_abs"])
        lines.append(f"  largest forward fp16 magnitude: {peak['max_abs']:g} "
                     f"({peak['max_abs'] / FP16_MAX:.1%} of 65504), {_where(peak, report)}")
    for phase in ("forward", "backward"):
        rows = [r for r in section["records"] if r["phase"] == phase and r["elements"]]
        total = sum(r["elements"] for r in rows)
        if total:
            lines.append(f"  fp16 {phase} values zero or subnormal: {sum(r['tiny'] for r in rows) / total:.1%}")
    return lines


@producer("AMP504", "AMP505", "AMP506", options={"numerics": True})
def findings(report: ReportData) -> Iterable[Finding]:
    section = report.sections.get(SECTION)
    if not section:
        return
    yield from _nonfinite(report, section)
    limit = FP16_MAX / section["headroom_factor"]
    for rec in section["records"]:
        if rec["phase"] == "forward" and rec["max_abs"] is not None and rec["max_abs"] >= limit:
            yield finding(
                "AMP505", rec["source"],
                f"{_where(rec, report)} produced fp16 values up to {rec['max_abs']:g}, within "
                f"{section['headroom_factor']:g}x of fp16's maximum 65504: a slightly larger input "
                "overflows to inf; keep this op in fp32 or bf16, or rescale its inputs",
                op=rec["op"], module=rec["module"], max_abs=rec["max_abs"],
            )
    yield from _underflow(report, section)


def _where(rec: dict[str, Any], report: ReportData) -> str:
    name = rec["op"].split(".")[1] if rec["op"].count(".") >= 2 else rec["op"]
    module = f" in module `{report.module_label(rec['module'])}`" if rec["module"] else ""
    return f"{name} ({rec['phase']}){module}"


def _nonfinite(report: ReportData, section: dict[str, Any]) -> Iterable[Finding]:
    """AMP504 at the first op that produced inf/nan. Under a GradScaler, inf/nan appearing only
    in gradients is the scaler's business (it skips the step; AMP507 watches how often)."""
    first = section["first_nonfinite"]
    if first is None:
        return
    bad = [r for r in section["records"] if r["nonfinite"]]
    if scaler.SECTION in report.sections and all(r["phase"] == "backward" for r in bad):
        return
    total = sum(r["nonfinite"] for r in bad)
    yield finding(
        "AMP504", first["source"],
        f"inf/nan first appeared at step {first['first_step']} in {_where(first, report)} "
        f"({first['out_dtype']} output); {total} op outputs held inf/nan in {len(bad)} op record(s)",
        op=first["op"], module=first["module"], phase=first["phase"], step=first["first_step"],
        nonfinite_outputs=total,
    )


def _underflow(report: ReportData, section: dict[str, Any]) -> Iterable[Finding]:
    shares = underflow_by_module(section)
    hit = {
        m: s for m, s in shares.items()
        if s.get("backward_share", 0.0) >= _UNDERFLOW_SHARE
        and s["backward_share"] >= s.get("forward_share", 0.0) + _UNDERFLOW_MARGIN
    }
    if not hit:
        return
    worst = max(hit, key=lambda m: hit[m]["backward_share"])
    grads = [r for r in section["records"] if r["phase"] == "backward" and r["elements"]]
    tiny = sum(r["tiny"] for r in grads)
    total = sum(r["elements"] for r in grads)
    source = next((r["source"] for r in grads if (r["module"] or "<top>") == worst), None)
    yield finding(
        "AMP506", source,
        f"{tiny / total:.0%} of fp16 gradient values were zero or subnormal (< 6.1e-5) against "
        f"{shares[worst].get('forward_share', 0.0):.0%} of forward values in `{report.module_label(worst)}` "
        f"({hit[worst]['backward_share']:.0%} of its gradients; {len(hit)} module(s) affected): "
        "gradients underflow in fp16; scale the loss (torch.amp.GradScaler) or use bf16",
        modules=sorted(hit), share=tiny / total,
    )


def _numerics_cells(rec: dict[str, Any]) -> str:
    """max |x| of fp16 outputs, its share of 65504, and the zero/subnormal share."""
    peak = rec["max_abs"]
    if peak is None:
        cells = num(None) + num(None)
    else:
        cells = num(peak, f"{peak:g}") + num(peak / FP16_MAX, pct(peak / FP16_MAX))
    tiny = rec["tiny"] / rec["elements"] if rec["elements"] else None
    return cells + num(tiny, pct(tiny))


@page
def html_part(report: ReportData) -> str:
    section = report.sections.get("numerics")
    if not section:
        return ('<section id="numerics"><h2>Numerics</h2><p class="muted">Not recorded (trace with '
                "<code>numerics=True</code> / <code>--numerics</code>).</p></section>")
    first = section["first_nonfinite"]
    head = (f'<p class="bad">First inf/nan: step {escape(first["first_step"])}, <code>{escape(first["op"])}</code> '
            f'({escape(first["phase"])}) in <code>{escape(report.module_label(first["module"]))}</code> at '
            f'<code>{escape(first["source"] or "-")}</code></p>' if first else '<p class="good">No inf/nan seen.</p>')
    rows = [
        f"<tr><td><code>{escape(r['op'])}</code></td><td>{escape(r['phase'])}</td>"
        f"<td><code>{escape(report.module_label(r['module']))}</code></td><td>{escape(r['out_dtype'])}</td>"
        f"{count(r['outputs'])}{count(r['nonfinite'])}{_numerics_cells(r)}</tr>"
        for r in section["records"]
    ]
    under = [
        f"<tr><td><code>{escape(report.module_label(m))}</code></td>{num(s.get('forward_share'), pct(s.get('forward_share')))}"
        f"{num(s.get('backward_share'), pct(s.get('backward_share')))}</tr>"
        for m, s in underflow_by_module(section).items()
    ]
    return (f'<section id="numerics"><h2>Numerics</h2>{head}<p class="muted">Sampled {section["steps_sampled"]} '
            f'optimizer step(s), one in {section["every"]}.</p><h3>fp16 zero/subnormal share by module</h3>'
            + table(["module", "forward", "backward (gradients)"], under)
            + "<h3>Per op record</h3>"
            + table(["op", "phase", "module", "dtype", "outputs", "inf/nan", "max |x| (fp16)", "of 65504",
                      "zero/subnormal"], rows)
            + "</section>")
