"""Reading the fp32 comparison (`trace(compare_fp32=True)`, see fp32_compare): the ranking of
modules by relative error, AMP510 and the text lines (torch-free).

Which module to blame: a module's error includes that of every module it calls, so a
precision loss deep inside a model lifts all its enclosing modules over the threshold too.
AMP510 names the innermost ones: a module over the threshold none of whose compared
descendants is over it. The error of a module that only carries its children's loss
forward is theirs, not its own.
"""
from __future__ import annotations

import math
from typing import Any, Iterable

from ampcheck.findings import Finding
from ampcheck.trace.columns import columns
from ampcheck.trace.markup import count, escape, num, table
from ampcheck.trace.model import ReportData
from ampcheck.trace.sections import finding, page, producer, summary
from ampcheck.trace.units import pct

SECTION = "compare_fp32"
# Rounding alone keeps a module's output within ~0.4% (bf16) or ~0.05% (fp16) of float32, and a
# deep stack of them within a few percent; a loss beyond 10% is computation in low precision.
DEFAULT_THRESHOLD = 0.1


def relative(value: float) -> str:
    """A relative error as a percentage to three digits (0.0437%), or as a factor past 10x."""
    return f"{value * 100:.3g}%" if value < 10 else f"{value:,.0f}x"


def ranked(section: dict[str, Any]) -> list[dict[str, Any]]:
    """Compared modules, the worst first: non-finite calls, then max and mean relative error."""
    compared = [m for m in section["modules"] if m["calls"]]
    return sorted(compared, key=lambda m: (-(m["nonfinite_calls"] > 0), -m["max_rel_error"], -m["mean_rel_error"]))


def over_threshold(section: dict[str, Any], module: dict[str, Any]) -> bool:
    return module["nonfinite_calls"] > 0 or module["max_rel_error"] > section["threshold"]


def culprits(section: dict[str, Any]) -> list[dict[str, Any]]:
    """Modules over the threshold with no descendant over it, worst first."""
    over = [m for m in ranked(section) if over_threshold(section, m)]
    parents = {m["module"]: m["parent"] for m in section["modules"]}
    carriers = set()
    for m in over:
        parent = m["parent"]
        while parent is not None and parent not in carriers:
            carriers.add(parent)
            parent = parents.get(parent)
    return [m for m in over if m["module"] not in carriers]


def merged(sections: list[dict[str, Any]]) -> dict[str, Any]:
    """The comparison of several ranks as one: per module the calls summed, the largest max error,
    the mean error weighted by calls."""
    modules: dict[str, dict[str, Any]] = {}
    for section in sections:
        for m in section["modules"]:
            seen = modules.get(m["module"])
            if seen is None:
                modules[m["module"]] = dict(m)
                continue
            calls = seen["calls"] + m["calls"]
            seen["mean_rel_error"] = ((seen["mean_rel_error"] * seen["calls"] + m["mean_rel_error"] * m["calls"])
                                      / calls if calls else 0.0)
            seen["max_rel_error"] = max(seen["max_rel_error"], m["max_rel_error"])
            for key in ("calls", "nonfinite_calls", "skipped_calls"):
                seen[key] += m[key]
            seen["rerun_error"] = seen["rerun_error"] or m["rerun_error"]
    return {"threshold": sections[0]["threshold"], "steps_compared": sum(s["steps_compared"] for s in sections),
            "modules": list(modules.values())}


@summary
def summary_lines(report: ReportData, top: int = 10) -> list[str]:
    """The fp32 comparison part of the text summary."""
    section = report.sections.get(SECTION)
    if not section:
        return []
    rows = ranked(section)
    lines = ["", f"fp32 comparison ({sum(m['calls'] for m in rows)} module calls in {section['steps_compared']} "
                 f"optimizer step(s); relative error of the autocast output, threshold {section['threshold']:.1%}):"]
    if not rows:
        return lines + ["  (no module ran under autocast)"]
    return lines + columns(
        ["module", "class", "max", "mean", "calls", "non-finite"],
        [[m["module"], m["class"], relative(m["max_rel_error"]), relative(m["mean_rel_error"]), str(m["calls"]),
          f"{m['nonfinite_calls']}{' *' if over_threshold(section, m) else ''}"] for m in rows[:top]],
        right=[2, 3, 4])


@producer("AMP510", options={"compare_fp32": True})
def precision_loss(report: ReportData) -> Iterable[Finding]:
    """AMP510: a module whose autocast output strays from its float32 rerun beyond the threshold."""
    section = report.sections.get(SECTION)
    if not section:
        return
    for m in culprits(section):
        if m["nonfinite_calls"]:
            how = f"produced inf/nan in {m['nonfinite_calls']} of {m['calls']} call(s) where float32 stays finite"
        else:
            how = (f"differs from the same module run in float32 on the same inputs by up to "
                   f"{relative(m['max_rel_error'])} of its largest output (mean {relative(m['mean_rel_error'])}) "
                   f"over {m['calls']} call(s), above the {section['threshold']:.1%} threshold")
        yield finding(
            "AMP510", m["source"],
            f"module `{m['module']}` ({m['class']}) loses precision under {m['dtype']} autocast: it {how}; run "
            "its sensitive part in float32 (autocast(enabled=False) and .float() inputs) or compute it stably "
            "(torch.var, F.softmax, F.layer_norm instead of hand-written sums and exponentials)",
            module=m["module"], max_rel_error=m["max_rel_error"], mean_rel_error=m["mean_rel_error"],
            nonfinite_calls=m["nonfinite_calls"],
        )


@page
def html_part(report: ReportData) -> str:
    section = report.sections.get(SECTION)
    head = '<section id="compare-fp32"><h2>fp32 comparison</h2>'
    if not section:
        return (head + '<p class="muted">Not recorded (trace with <code>compare_fp32=True</code> / '
                "<code>--compare-fp32</code>).</p></section>")
    modules = ranked(section)
    blamed = {m["module"] for m in culprits(section)}
    rows = []
    for rank, m in enumerate(modules, 1):
        over = over_threshold(section, m)
        shade, bar = (' class="over"', "bar over") if over else ("", "bar")
        tag = ' <b class="bad">AMP510</b>' if m["module"] in blamed else ""
        # the bar: a log scale from 1e-5 (empty) to 10x (full)
        width = min(max((math.log10(max(m["max_rel_error"], 1e-5)) + 5) / 6, 0.02), 1.0) * 80
        rows.append(
            f'<tr{shade}>{count(rank)}<td><code>{escape(m["module"])}</code>{tag}</td><td>{escape(m["class"])}</td>'
            f'<td>{escape(m["dtype"])}</td><td class="n" data-v="{escape(m["max_rel_error"])}"><span class="{bar}" '
            f'style="width:{width:.0f}px"></span>{escape(relative(m["max_rel_error"]))}</td>'
            f'{num(m["mean_rel_error"], relative(m["mean_rel_error"]))}{count(m["calls"])}'
            f'{count(m["nonfinite_calls"])}{count(m["skipped_calls"])}<td class="loc">{escape(m["source"] or "-")}</td>'
            "</tr>"
        )
    calls = sum(m["calls"] for m in modules)
    intro = (f'<p>Each module called under autocast was run again in float32 on the same inputs: {calls:,} calls '
             f'in {section["steps_compared"]} optimizer step(s). Relative error of the autocast output: max '
             "|amp &minus; fp32| over max |fp32| (max), mean |amp &minus; fp32| over mean |fp32| (mean). "
             f'Rows over the threshold ({pct(section["threshold"])}) are shaded; AMP510 marks the innermost.</p>')
    body = table(["rank", "module", "class", "dtype", "max error", "mean error", "calls", "non-finite calls",
                  "skipped calls", "source"], rows) if rows else '<p class="muted">No module ran under autocast.</p>'
    return f"{head}{intro}{body}</section>"
