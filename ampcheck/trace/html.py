"""`ampcheck report FILE --format html`: one self-contained HTML page for a TraceReport.

No network and no CDN: the CSS, the table-sorting script and the SVG timeline are inline, so
the file opens anywhere (an air-gapped cluster, a CI artifact). Every string that came from
the traced program (module names, paths, source lines, messages) goes through `escape`.
Torch-free, like the rest of `ampcheck report`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from ampcheck.findings import Finding
from ampcheck.trace import sections
from ampcheck.trace.markup import count, escape, num, table
from ampcheck.trace.model import ReportData
from ampcheck.trace.text import judged_by
from ampcheck.trace.units import pct, si
from ampcheck.version import __version__

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


def _share_class(share: float) -> str:
    return "good" if share >= 0.9 else ("warn" if share >= 0.5 else "bad")


# -- sections --------------------------------------------------------------------------------
def _headline(report: ReportData) -> str:
    cards = []
    for phase, cov in report.coverage().items():
        cards.append(
            f'<div class="card" id="coverage-{escape(phase)}"><div class="v {_share_class(cov["share"])}">'
            f'{pct(cov["share"])}</div><div class="l">{escape(phase)} matmul FLOPs in fp16/bf16 '
            f'({escape(si(cov["flops"], "FLOP"))}; inside autocast {pct(cov["inside_autocast"]["share"])}, '
            f'outside {pct(cov["outside_autocast"]["share"]) if cov["outside_autocast"]["flops"] else "-"})'
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


def _findings(found: list[Finding], base: Path) -> str:
    if not found:
        return '<section id="findings"><h2>Findings</h2><p class="good">No findings.</p></section>'
    items = []
    for f in found:
        src = _source_line(f.path, f.line, base)
        src_html = f'<pre class="src">{escape(src)}</pre>' if src else ""
        items.append(f'<div class="finding"><span class="code">{escape(f.code)}</span>{escape(f.message)}'
                     f'<div class="loc">{escape(f.location)}</div>{src_html}</div>')
    return f'<section id="findings"><h2>Findings ({len(found)})</h2>{"".join(items)}</section>'


def _modules(report: ReportData) -> str:
    rows = []
    for name, cov in report.module_coverage().items():
        fwd, bwd = cov.get("forward", {}), cov.get("backward", {})
        rows.append(f"<tr><td><code>{escape(report.module_label(name))}</code></td>{num(fwd.get('flops'))}"
                    f"{num(fwd.get('share'), pct(fwd.get('share')))}{num(bwd.get('flops'))}"
                    f"{num(bwd.get('share'), pct(bwd.get('share')))}</tr>")
    if not rows:
        return '<section id="modules"><h2>Modules</h2><p class="muted">No module attribution.</p></section>'
    grid = table(["module", "forward FLOPs", "forward low-precision", "backward FLOPs", "backward low-precision"],
                   rows)
    return f'<section id="modules"><h2>Modules</h2>{grid}</section>'


def _ops(report: ReportData) -> str:
    ops = sorted(report.ops, key=lambda r: (-r.flops, -r.count))
    aligned = {True: "yes", False: "no", None: "-"}
    rows = []
    for r in ops[:MAX_OP_ROWS]:
        ran = {True: "yes", False: "no", None: "-"}[r.ran_as_policy]
        rows.append(
            f"<tr><td><code>{escape(r.name)}</code></td><td>{escape(r.phase)}</td><td><code>"
            f"{escape(report.module_label(r.module))}</code></td><td>{escape(', '.join(d or '-' for d in r.in_dtypes))}</td>"
            f"<td>{escape(r.out_dtype or '-')}</td><td>{escape(r.autocast or 'off')}</td><td>{escape(r.policy)}</td>"
            f"<td>{ran}</td><td>{aligned[r.tensor_core_aligned]}</td><td>{'compiled' if r.compiled else 'eager'}</td>"
            f"{count(r.count)}{num(r.flops)}"
            f"{num(r.bytes_read + r.bytes_written)}"
            f"<td class='loc'>{escape(r.source or '-')}</td></tr>"
        )
    more = (f'<p class="muted">Showing the first {MAX_OP_ROWS} of {len(ops)} records by FLOPs.</p>'
            if len(ops) > MAX_OP_ROWS else "")
    grid = table(["op", "phase", "module", "inputs", "output", "autocast", "policy", "as policy",
                    "Tensor Core aligned", "code", "count", "FLOPs", "bytes", "source"], rows)
    return f'<section id="ops"><h2>Ops ({len(ops)} records)</h2>{more}{grid}</section>'


def _casts(report: ReportData) -> str:
    totals = report.cast_totals()
    rows = [f"<tr><td>{escape(kind)}</td>{count(v['count'])}{num(v['bytes'])}</tr>"
            for kind, v in totals.items() if isinstance(v, dict)]
    weights = [
        f"<tr><td><code>{escape(w.weight)}</code></td><td>{escape(w.src_dtype)} &rarr; {escape(w.dst_dtype)}</td>"
        f"<td>{escape(w.kind)}</td>{count(w.casts)}{count(w.regions)}{count(w.repeated)}{num(w.bytes)}</tr>"
        for w in sorted(report.weights, key=lambda w: -w.repeated)
    ]
    body = table(["kind", "count", "bytes"], rows) if rows else '<p class="muted">No dtype casts.</p>'
    body += (f"<h3>Weight casts (repeated: {totals.get('repeated_weight_casts', 0)})</h3>"
             + table(["weight", "cast", "kind", "casts", "regions", "repeated", "bytes"], weights)
             if weights else "")
    return f'<section id="casts"><h2>Casts</h2>{body}</section>'


def render_html(report: ReportData, base: "Path | str" = ".") -> str:
    """The whole page. `base` resolves relative source paths for the findings' source lines."""
    meta = report.meta
    script = " ".join(meta.get("script") or []) or "ampcheck.trace()"
    subtitle = (f"{escape(script)} &middot; torch {escape(meta.get('torch_version', '?'))} &middot; "
                f"{escape(meta.get('steps', 0))} step(s) &middot; {escape(meta.get('wall_s', '?'))} s &middot; "
                f"ampcheck {escape(__version__)}")
    body = "".join([
        _headline(report), _findings(sections.findings(report), Path(base)), *sections.pages(report),
        _modules(report), _ops(report), _casts(report),
    ])
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>ampcheck trace report</title><style>{_CSS}</style></head><body>"
        f"<header><h1>ampcheck trace report</h1><p>{subtitle}</p></header><main>{body}</main>"
        f"<script>{_JS}</script></body></html>\n"
    )
