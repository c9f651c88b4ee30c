"""The GradScaler section (`report.sections["scaler"]`, written by
`ampcheck.trace.observers.scaler`): the loss-scale history read back, AMP507/AMP508, its text
and HTML parts (torch-free)."""
from __future__ import annotations

import math
from typing import Any, Iterable

from ampcheck.findings import Finding
from ampcheck.trace.markup import escape
from ampcheck.trace.model import ReportData
from ampcheck.trace.sections import finding, page, producer, summary

SECTION = "scaler"


def scale_events(scaler: dict[str, Any]) -> list[dict[str, Any]]:
    """Growth and backoff events: iteration, kind, scale before and after."""
    scales = [*scaler["scale"], scaler["final_scale"]] if scaler["scale"] else []
    events = []
    for index, (old, new) in enumerate(zip(scales, scales[1:])):
        iteration = scaler["update_iterations"][index]
        if iteration in scaler["manual_updates"]:
            kind = "manual"
        elif new > old:
            kind = "growth"
        elif new < old:
            kind = "backoff"
        else:
            continue
        events.append({"iteration": iteration, "kind": kind, "before": old, "after": new})
    return events


def skip_summary(scaler: dict[str, Any]) -> dict[str, Any]:
    """Skipped steps, with the leading run of skips (the scale calibrating from its initial
    value, which GradScaler expects) counted apart from the skips that follow."""
    iterations, skipped = scaler["iterations"], set(scaler["skipped"])
    calibration = 0
    while calibration < len(iterations) and iterations[calibration] in skipped:
        calibration += 1
    after = iterations[calibration:]
    late = sum(1 for it in after if it in skipped)
    return {
        "steps": len(iterations),
        "skipped": len(skipped),
        "calibration": calibration,
        "after_calibration": len(after),
        "skipped_after_calibration": late,
        "share": (late / len(after)) if after else (1.0 if iterations else 0.0),
    }


@summary
def summary_lines(report: ReportData) -> list[str]:
    """The loss-scale part of the text summary."""
    lines = []
    for s in report.sections.get(SECTION, {}).get("scalers", []):
        summary = skip_summary(s)
        events = scale_events(s)
        optimizers = ", ".join(o["label"] + (" (fused)" if o["fused"] else "") for o in s["optimizers"])
        start = f"{s['scale'][0]:g}" if s["scale"] else "-"
        final = "-" if s["final_scale"] is None else f"{s['final_scale']:g}"
        skipped = ", ".join(map(str, s["skipped"][:20])) + (" ..." if len(s["skipped"]) > 20 else "")
        lines += [
            "", f"loss scale ({s['label']} on {s['device']}; {optimizers}):",
            f"  {summary['steps']} steps, {summary['skipped']} skipped"
            + (f" (steps {skipped})" if skipped else "")
            + f"; scale {start} -> {final}; {sum(e['kind'] == 'growth' for e in events)} growth, "
            f"{sum(e['kind'] == 'backoff' for e in events)} backoff",
        ]
        lines += [f"  note: {n['what']} stepped {n['count']}x right after a skipped optimizer step, at {n['site']}"
                  for n in s["scheduler_after_skip"]]
    return lines


@producer("AMP507", "AMP508")
def findings(report: ReportData) -> Iterable[Finding]:
    for scaler in report.sections.get(SECTION, {}).get("scalers", []):
        yield from _skipped_steps(scaler)
        for clip in scaler["clips_on_scaled"]:
            yield finding(
                "AMP508", clip["site"],
                f"{clip['what']} ran {clip['count']}x on gradients still multiplied by {scaler['label']}'s "
                "loss scale (scaler.scale() was used and scaler.unscale_(optimizer) had not run): the "
                "threshold is compared against scaled gradients; call scaler.unscale_(optimizer) before clipping",
                scaler=scaler["label"], count=clip["count"], iterations=clip["iterations"],
            )


def _skipped_steps(scaler: dict[str, Any]) -> Iterable[Finding]:
    summary = skip_summary(scaler)
    low = [s for s in [*scaler["scale"], scaler["final_scale"]] if s is not None and s < 1.0]
    too_many = summary["steps"] and summary["share"] > scaler["skip_threshold"]
    if not (too_many or low):
        return
    parts = []
    if too_many:
        calibrating = f", after {summary['calibration']} while calibrating" if summary["calibration"] else ""
        parts.append(
            f"{scaler['label']} skipped {summary['skipped_after_calibration']} of {summary['after_calibration']} "
            f"optimizer steps ({summary['share']:.0%}, threshold {scaler['skip_threshold']:.0%}{calibrating})"
            if summary["after_calibration"]
            else f"{scaler['label']} skipped every one of its {summary['steps']} optimizer steps"
        )
    if low:
        parts.append(
            f"the loss scale fell to {min(low):g} (below 1): gradients overflow even unscaled, "
            "typical of a model trained in bf16 run in fp16"
        )
    notes = sum(s["count"] for s in scaler["scheduler_after_skip"])
    if notes:
        parts.append(f"the LR scheduler stepped {notes}x after a skipped optimizer step")
    yield finding(
        "AMP507", scaler["site"], "; ".join(parts),
        scaler=scaler["label"], skipped_iterations=scaler["skipped"], min_scale=min(low) if low else None, **summary,
    )


def _timeline(scaler: dict[str, Any]) -> str:
    """log2(scale) per iteration as an SVG polyline; skipped steps as red marks."""
    scales = scaler["scale"]
    iterations = scaler["update_iterations"]
    if not scales:
        return '<p class="muted">No scaler.update() was observed.</p>'
    width, height, pad = 760, 180, 36
    logs = [math.log2(s) if s > 0 else -30.0 for s in scales]
    lo, hi = min(logs), max(logs)
    if hi - lo < 1:
        lo, hi = lo - 1, hi + 1
    last = max(iterations[-1], 1)

    def x(it: float) -> float:
        return pad + (width - 2 * pad) * it / last

    def y(v: float) -> float:
        return height - pad - (height - 2 * pad) * (v - lo) / (hi - lo)

    points = " ".join(f"{x(it):.1f},{y(v):.1f}" for it, v in zip(iterations, logs))
    skipped = "".join(
        f'<line class="skip" x1="{x(it):.1f}" x2="{x(it):.1f}" y1="{pad - 6}" y2="{height - pad}" '
        f'stroke="#c62828" stroke-width="2" stroke-dasharray="3,2"><title>step {it} skipped</title></line>'
        for it in scaler["skipped"]
    )
    dots = "".join(
        f'<circle cx="{x(e["iteration"]):.1f}" cy="{y(math.log2(e["after"]) if e["after"] > 0 else lo):.1f}" r="3" '
        f'fill="{"#1a7f37" if e["kind"] == "growth" else "#b35900"}"><title>step {e["iteration"]}: {e["kind"]} '
        f'{e["before"]:g} to {e["after"]:g}</title></circle>'
        for e in scale_events(scaler)
    )
    axis = (f'<text x="4" y="{y(hi) + 4:.1f}">2^{hi:g}</text><text x="4" y="{y(lo) + 4:.1f}">2^{lo:g}</text>'
            f'<text x="{pad}" y="{height - 8}">step {iterations[0]}</text>'
            f'<text x="{width - pad - 40}" y="{height - 8}">step {iterations[-1]}</text>')
    return (f'<svg class="timeline" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'role="img" aria-label="loss scale per step"><rect x="0" y="0" width="{width}" height="{height}" '
            f'fill="#fff"/>{skipped}<polyline points="{points}" fill="none" stroke="#1f5fbf" stroke-width="2"/>'
            f"{dots}{axis}</svg>")


@page
def html_part(report: ReportData) -> str:
    scalers = report.sections.get("scaler", {}).get("scalers", [])
    if not scalers:
        return '<section id="scaler"><h2>Loss scale</h2><p class="muted">No enabled GradScaler was used.</p></section>'
    parts = []
    for s in scalers:
        summary = skip_summary(s)
        optimizers = ", ".join(f"{o['label']}{' (fused)' if o['fused'] else ''}" for o in s["optimizers"])
        notes = "".join(
            f'<li class="warn">{escape(n["what"])} stepped {n["count"]}x right after a skipped optimizer step '
            f'(steps {escape(", ".join(map(str, n["iterations"])))}) at <code>{escape(n["site"])}</code></li>'
            for n in s["scheduler_after_skip"]
        )
        parts.append(
            f"<h3>{escape(s['label'])} <span class='muted'>({escape(s['device'])}; {escape(optimizers)})</span></h3>"
            f'<p id="skipped-{escape(s["label"])}">Skipped <b>{summary["skipped"]}</b> of {summary["steps"]} steps'
            f' ({summary["calibration"]} while calibrating); scale {s["scale"][0] if s["scale"] else "-"} &rarr; '
            f'<b>{escape(s["final_scale"])}</b>; skipped at steps '
            f'{escape(", ".join(map(str, s["skipped"])) or "none")}.</p>{_timeline(s)}'
            + (f"<ul>{notes}</ul>" if notes else "")
        )
    return f'<section id="scaler"><h2>Loss scale</h2>{"".join(parts)}</section>'
