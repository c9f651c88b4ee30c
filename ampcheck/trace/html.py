"""`ampcheck report FILE --format html`: one self-contained HTML page for a TraceReport.

No network and no CDN: the CSS, the table-sorting script and the SVG timeline are inline, so
the file opens anywhere (an air-gapped cluster, a CI artifact). Every string that came from
the traced program (module names, paths, source lines, messages) goes through `escape`.
Torch-free, like the rest of `ampcheck report`.
"""
from __future__ import annotations

import html
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Optional

from ampcheck import __version__
from ampcheck.trace import precision_loss, tensor_cores
from ampcheck.trace.numerics import FP16_MAX, underflow_by_module
from ampcheck.trace.scaler import scale_events, skip_summary
from ampcheck.trace.text import judged_by

if TYPE_CHECKING:
    from ampcheck.findings import Finding
    from ampcheck.trace.report import TraceReport

MAX_OP_ROWS = 2000

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:18px 28px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#b8c0cc;font-size:13px}
main{padding:8px 28px 40px;max-width:1400px}
section{background:#fff;border:1px solid #dde1e7;border-radius:6px;margin:18px 0;padding:14px 18px}
h2{font-size:16px;margin:0 0 10px}h3{font-size:14px;margin:14px 0 6px}
.cards{display:flex;flex-wrap:wrap;gap:12px}
.card{border:1px solid #dde1e7;border-radius:6px;padding:10px 14px;min-width:170px}
.card .v{font-size:26px;font-weight:600}.card .l{color:#5b6473;font-size:12px}
.good{color:#1a7f37}.warn{color:#b35900}.bad{color:#c62828}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eceff3;vertical-align:top}
th{background:#f0f2f5;position:sticky;top:0}th.sortable{cursor:pointer;user-select:none}
th.sortable:after{content:" \\2195";color:#98a1ae}th.asc:after{content:" \\2191";color:#1d2330}
th.desc:after{content:" \\2193";color:#1d2330}
td.n{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
pre.src{background:#f6f8fa;border-left:3px solid #c62828;margin:6px 0 0;padding:4px 8px;white-space:pre-wrap}
.finding{border-top:1px solid #eceff3;padding:8px 0}.finding:first-of-type{border-top:0}
.code{font-weight:700;margin-right:8px}.loc{color:#5b6473;font-size:12px}
.muted{color:#5b6473}.scroll{max-height:480px;overflow:auto}
.bar{display:inline-block;height:8px;border-radius:2px;background:#1f5fbf;margin-right:6px;vertical-align:middle}
.bar.over{background:#c62828}tr.over td{background:#fff4f4}
svg text{font:11px system-ui,sans-serif;fill:#5b6473}
"""

_JS = """
(function(){
  function key(cell){var v=cell.getAttribute('data-v');if(v===null){v=cell.textContent;}
    var n=parseFloat(v);return isNaN(n)?v.toLowerCase():n;}
  function sortBy(table,col,th){
    var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
    var asc=!th.classList.contains('asc');
    Array.prototype.forEach.call(table.tHead.rows[0].cells,function(c){c.classList.remove('asc','desc');});
    th.classList.add(asc?'asc':'desc');
    rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);
      if(typeof x!==typeof y){x=String(x);y=String(y);}
      return (x<y?-1:x>y?1:0)*(asc?1:-1);});
    rows.forEach(function(r){body.appendChild(r);});
  }
  var tables=document.querySelectorAll('table.sortable');
  Array.prototype.forEach.call(tables,function(table){
    Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,col){
      th.classList.add('sortable');th.addEventListener('click',function(){sortBy(table,col,th);});
    });
  });
  document.body.setAttribute('data-sortable-tables',String(tables.length));
})();
"""


def escape(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _pct(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.1%}"


def _si(value: float) -> str:
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.2f} {prefix}"
    return f"{value:g}"


def _num(value: Optional[float], text: Optional[str] = None) -> str:
    if value is None:
        return '<td class="n" data-v="-1">-</td>'
    return f'<td class="n" data-v="{escape(value)}">{escape(text if text is not None else _si(value))}</td>'


def _count(value: int) -> str:
    return _num(value, f"{value:,}")


def _numerics_cells(rec: dict[str, Any]) -> str:
    """max |x| of fp16 outputs, its share of 65504, and the zero/subnormal share."""
    peak = rec["max_abs"]
    if peak is None:
        cells = _num(None) + _num(None)
    else:
        cells = _num(peak, f"{peak:g}") + _num(peak / FP16_MAX, _pct(peak / FP16_MAX))
    tiny = rec["tiny"] / rec["elements"] if rec["elements"] else None
    return cells + _num(tiny, _pct(tiny))


def _table(headers: Iterable[str], rows: Iterable[str], sortable: bool = True) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    cls = ' class="sortable"' if sortable else ""
    return f'<div class="scroll"><table{cls}><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def _share_class(share: float) -> str:
    return "good" if share >= 0.9 else ("warn" if share >= 0.5 else "bad")


# -- sections --------------------------------------------------------------------------------
def _headline(report: "TraceReport") -> str:
    cards = []
    for phase, cov in report.coverage().items():
        cards.append(
            f'<div class="card" id="coverage-{escape(phase)}"><div class="v {_share_class(cov["share"])}">'
            f'{_pct(cov["share"])}</div><div class="l">{escape(phase)} matmul FLOPs in fp16/bf16 '
            f'({escape(_si(cov["flops"]))}FLOP; inside autocast {_pct(cov["inside_autocast"]["share"])}, '
            f'outside {_pct(cov["outside_autocast"]["share"]) if cov["outside_autocast"]["flops"] else "-"})'
            "</div></div>"
        )
    meta = report.meta
    cards.append(f'<div class="card"><div class="v">{report.total_ops:,}</div><div class="l">ops in '
                 f'{len(report.ops)} records</div></div>')
    cards.append(f'<div class="card"><div class="v">{escape(meta.get("steps", 0))}</div>'
                 '<div class="l">optimizer steps</div></div>')
    none = "" if report.coverage() else '<p class="muted">No matmul-class ops were traced.</p>'
    judged = judged_by(meta)
    policy = (f'<p id="policy" class="muted">Autocast policy ({escape(meta["policy"]["tables"])} tables): '
              f'{escape("; ".join(judged))}.</p>' if judged else "")
    return (f'<section id="coverage"><h2>Coverage</h2>{none}<div class="cards">{"".join(cards)}</div>'
            f"{policy}</section>")


def _source_line(path: str, line: int, base: Path) -> Optional[str]:
    for candidate in (Path(path), base / path):
        try:
            lines = candidate.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        if 0 < line <= len(lines):
            return lines[line - 1].strip()
    return None


def _findings(found: list["Finding"], base: Path) -> str:
    if not found:
        return '<section id="findings"><h2>Findings</h2><p class="good">No findings.</p></section>'
    items = []
    for f in found:
        src = _source_line(f.path, f.line, base)
        src_html = f'<pre class="src">{escape(src)}</pre>' if src else ""
        items.append(f'<div class="finding"><span class="code">{escape(f.code)}</span>{escape(f.message)}'
                     f'<div class="loc">{escape(f.location)}</div>{src_html}</div>')
    return f'<section id="findings"><h2>Findings ({len(found)})</h2>{"".join(items)}</section>'


def _modules(report: "TraceReport") -> str:
    rows = []
    for name, cov in report.module_coverage().items():
        fwd, bwd = cov.get("forward", {}), cov.get("backward", {})
        rows.append(f"<tr><td><code>{escape(name)}</code></td>{_num(fwd.get('flops'))}"
                    f"{_num(fwd.get('share'), _pct(fwd.get('share')))}{_num(bwd.get('flops'))}"
                    f"{_num(bwd.get('share'), _pct(bwd.get('share')))}</tr>")
    if not rows:
        return '<section id="modules"><h2>Modules</h2><p class="muted">No module attribution.</p></section>'
    table = _table(["module", "forward FLOPs", "forward low-precision", "backward FLOPs", "backward low-precision"],
                   rows)
    return f'<section id="modules"><h2>Modules</h2>{table}</section>'


def _tensor_cores(report: "TraceReport") -> str:
    totals = report.tensor_core_alignment()
    head = '<section id="tensor-cores"><h2>Tensor Core alignment</h2>'
    if not totals["flops"]:
        return head + '<p class="muted">No float16/bfloat16 matmul-class ops were traced.</p></section>'
    share = totals["share"]
    rows = []
    for row in tensor_cores.by_module(report):
        tag = ' <b class="bad">AMP509</b>' if tensor_cores.worth_reporting(row) else ""
        rows.append(
            f"<tr><td><code>{escape(row['module'] or '-')}</code>{tag}</td><td><code>{escape(row['op'])}</code></td>"
            f"<td><code>{escape(row['shapes'])}</code></td><td>{escape(row['dtype'])}</td>"
            f"{_num(row['misaligned_flops'])}{_count(row['misaligned_calls'])}"
            f"{_num(row['share'], _pct(row['share']))}<td class='loc'>{escape(row['source'] or '-')}</td></tr>"
        )
    table = (_table(["module", "op", "first misaligned shapes", "dtype", "misaligned FLOPs", "calls",
                     "of low-precision FLOPs", "source"], rows) if rows else "")
    return (f'{head}<p id="misaligned-share"><b class="{"good" if not share else "warn"}">{_pct(share)}</b> of the '
            f'{escape(_si(totals["flops"]))}FLOP that ran in float16/bfloat16 had a dimension that is not a '
            "multiple of 16 bytes (8 fp16/bf16 elements): M, K, N of a matmul, channels per group of a "
            "convolution, the head size of attention. AMP509 marks the modules whose misaligned calls are "
            f"large enough to matter on a GPU (at least {_pct(tensor_cores.MIN_SHARE)} of these FLOPs and "
            f"{_si(tensor_cores.MIN_CALL_FLOPS)}FLOP per call).</p>{table}</section>")


def _comparison(report: "TraceReport") -> str:
    section = report.sections.get(precision_loss.SECTION)
    head = '<section id="compare-fp32"><h2>fp32 comparison</h2>'
    if not section:
        return (head + '<p class="muted">Not recorded (trace with <code>compare_fp32=True</code> / '
                "<code>--compare-fp32</code>).</p></section>")
    modules = precision_loss.ranked(section)
    blamed = {m["module"] for m in precision_loss.culprits(section)}
    rows = []
    for rank, m in enumerate(modules, 1):
        over = precision_loss.over_threshold(section, m)
        shade, bar = (' class="over"', "bar over") if over else ("", "bar")
        tag = ' <b class="bad">AMP510</b>' if m["module"] in blamed else ""
        # the bar: a log scale from 1e-5 (empty) to 10x (full)
        width = min(max((math.log10(max(m["max_rel_error"], 1e-5)) + 5) / 6, 0.02), 1.0) * 80
        rows.append(
            f'<tr{shade}>{_count(rank)}<td><code>{escape(m["module"])}</code>{tag}</td><td>{escape(m["class"])}</td>'
            f'<td>{escape(m["dtype"])}</td><td class="n" data-v="{escape(m["max_rel_error"])}"><span class="{bar}" '
            f'style="width:{width:.0f}px"></span>{escape(precision_loss.relative(m["max_rel_error"]))}</td>'
            f'{_num(m["mean_rel_error"], precision_loss.relative(m["mean_rel_error"]))}{_count(m["calls"])}'
            f'{_count(m["nonfinite_calls"])}{_count(m["skipped_calls"])}<td class="loc">{escape(m["source"] or "-")}</td>'
            "</tr>"
        )
    calls = sum(m["calls"] for m in modules)
    intro = (f'<p>Each module called under autocast was run again in float32 on the same inputs: {calls:,} calls '
             f'in {section["steps_compared"]} optimizer step(s). Relative error of the autocast output: max '
             "|amp &minus; fp32| over max |fp32| (max), mean |amp &minus; fp32| over mean |fp32| (mean). "
             f'Rows over the threshold ({_pct(section["threshold"])}) are shaded; AMP510 marks the innermost.</p>')
    table = _table(["rank", "module", "class", "dtype", "max error", "mean error", "calls", "non-finite calls",
                    "skipped calls", "source"], rows) if rows else '<p class="muted">No module ran under autocast.</p>'
    return f"{head}{intro}{table}</section>"


def _ops(report: "TraceReport") -> str:
    ops = sorted(report.ops, key=lambda r: (-r.flops, -r.count))
    aligned = {True: "yes", False: "no", None: "-"}
    rows = []
    for r in ops[:MAX_OP_ROWS]:
        ran = {True: "yes", False: "no", None: "-"}[r.ran_as_policy]
        rows.append(
            f"<tr><td><code>{escape(r.name)}</code></td><td>{escape(r.phase)}</td><td><code>"
            f"{escape(r.module or '-')}</code></td><td>{escape(', '.join(d or '-' for d in r.in_dtypes))}</td>"
            f"<td>{escape(r.out_dtype or '-')}</td><td>{escape(r.autocast or 'off')}</td><td>{escape(r.policy)}</td>"
            f"<td>{ran}</td><td>{aligned[r.tensor_core_aligned]}</td>{_count(r.count)}{_num(r.flops)}"
            f"{_num(r.bytes_read + r.bytes_written)}"
            f"<td class='loc'>{escape(r.source or '-')}</td></tr>"
        )
    more = (f'<p class="muted">Showing the first {MAX_OP_ROWS} of {len(ops)} records by FLOPs.</p>'
            if len(ops) > MAX_OP_ROWS else "")
    table = _table(["op", "phase", "module", "inputs", "output", "autocast", "policy", "as policy",
                    "Tensor Core aligned", "count", "FLOPs", "bytes", "source"], rows)
    return f'<section id="ops"><h2>Ops ({len(ops)} records)</h2>{more}{table}</section>'


def _casts(report: "TraceReport") -> str:
    totals = report.cast_totals()
    rows = [f"<tr><td>{escape(kind)}</td>{_count(v['count'])}{_num(v['bytes'])}</tr>"
            for kind, v in totals.items() if isinstance(v, dict)]
    weights = [
        f"<tr><td><code>{escape(w.weight)}</code></td><td>{escape(w.src_dtype)} &rarr; {escape(w.dst_dtype)}</td>"
        f"<td>{escape(w.kind)}</td>{_count(w.casts)}{_count(w.regions)}{_count(w.repeated)}{_num(w.bytes)}</tr>"
        for w in sorted(report.weights, key=lambda w: -w.repeated)
    ]
    body = _table(["kind", "count", "bytes"], rows) if rows else '<p class="muted">No dtype casts.</p>'
    body += (f"<h3>Weight casts (repeated: {totals.get('repeated_weight_casts', 0)})</h3>"
             + _table(["weight", "cast", "kind", "casts", "regions", "repeated", "bytes"], weights)
             if weights else "")
    return f'<section id="casts"><h2>Casts</h2>{body}</section>'


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


def _scaler(report: "TraceReport") -> str:
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


def _numerics(report: "TraceReport") -> str:
    section = report.sections.get("numerics")
    if not section:
        return ('<section id="numerics"><h2>Numerics</h2><p class="muted">Not recorded (trace with '
                "<code>numerics=True</code> / <code>--numerics</code>).</p></section>")
    first = section["first_nonfinite"]
    head = (f'<p class="bad">First inf/nan: step {escape(first["first_step"])}, <code>{escape(first["op"])}</code> '
            f'({escape(first["phase"])}) in <code>{escape(first["module"] or "-")}</code> at '
            f'<code>{escape(first["source"] or "-")}</code></p>' if first else '<p class="good">No inf/nan seen.</p>')
    rows = [
        f"<tr><td><code>{escape(r['op'])}</code></td><td>{escape(r['phase'])}</td>"
        f"<td><code>{escape(r['module'] or '-')}</code></td><td>{escape(r['out_dtype'])}</td>"
        f"{_count(r['outputs'])}{_count(r['nonfinite'])}{_numerics_cells(r)}</tr>"
        for r in section["records"]
    ]
    under = [
        f"<tr><td><code>{escape(m)}</code></td>{_num(s.get('forward_share'), _pct(s.get('forward_share')))}"
        f"{_num(s.get('backward_share'), _pct(s.get('backward_share')))}</tr>"
        for m, s in underflow_by_module(section).items()
    ]
    return (f'<section id="numerics"><h2>Numerics</h2>{head}<p class="muted">Sampled {section["steps_sampled"]} '
            f'optimizer step(s), one in {section["every"]}.</p><h3>fp16 zero/subnormal share by module</h3>'
            + _table(["module", "forward", "backward (gradients)"], under)
            + "<h3>Per op record</h3>"
            + _table(["op", "phase", "module", "dtype", "outputs", "inf/nan", "max |x| (fp16)", "of 65504",
                      "zero/subnormal"], rows)
            + "</section>")


def render_html(report: "TraceReport", base: "Path | str" = ".") -> str:
    """The whole page. `base` resolves relative source paths for the findings' source lines."""
    meta = report.meta
    script = " ".join(meta.get("script") or []) or "ampcheck.trace()"
    subtitle = (f"{escape(script)} &middot; torch {escape(meta.get('torch_version', '?'))} &middot; "
                f"{escape(meta.get('steps', 0))} step(s) &middot; {escape(meta.get('wall_s', '?'))} s &middot; "
                f"ampcheck {escape(__version__)}")
    body = "".join([
        _headline(report), _findings(report.findings(), Path(base)), _tensor_cores(report), _comparison(report),
        _scaler(report), _modules(report), _ops(report), _casts(report), _numerics(report),
    ])
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>ampcheck trace report</title><style>{_CSS}</style></head><body>"
        f"<header><h1>ampcheck trace report</h1><p>{subtitle}</p></header><main>{body}</main>"
        f"<script>{_JS}</script></body></html>\n"
    )
