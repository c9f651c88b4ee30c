"""Tensor Core eligibility, "why is AMP not faster?" (torch-free).

NVIDIA's Tensor Cores multiply tiles of fp16/bf16 values whose dimensions are multiples of 16
bytes: 8 elements (16 for fp8). A matmul whose M, K or N, a convolution whose channel counts,
or an attention whose head size is not such a multiple is padded by the library or runs on
slower kernels, so its share of the FLOPs gets less of mixed precision's speed-up. NVIDIA's
DLProf reported this per op; here it is per op record.

The tracer asks `check_for(op_name)` once per OpOverload; for records of matmul-class ops
with a low-precision output (`multiple_for(dtype)` is not None) it calls the check on every
call, which reads the shapes the FLOP formula already read and returns None when they line up,
else a short description of the first call that did not ("64x64 @ 64x50257: N=50257"). The
record keeps the FLOPs and calls that did not line up and that description.

AMP509 speaks for a module whose misaligned calls hold at least `MIN_SHARE` of the trace's
low-precision matmul FLOPs and average at least `MIN_CALL_FLOPS` each: below that a GPU is
bound by kernel launches, not by Tensor Core throughput, and no padding pays off.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable, Iterable, Optional

from ampcheck.findings import Finding
from ampcheck.trace.columns import columns
from ampcheck.trace.markup import count, escape, num, table
from ampcheck.trace.model import OpRecord, ReportData
from ampcheck.trace.sections import finding, page, producer, summary
from ampcheck.trace.units import pct, si

Check = Callable[[tuple, int], Optional[str]]

ALIGN_BYTES = 16
_ITEMSIZE = {"float16": 2, "bfloat16": 2}
MIN_SHARE = 0.01
MIN_CALL_FLOPS = 10**8


def multiple_for(dtype: Optional[str]) -> Optional[int]:
    """Elements per 16 bytes for a low-precision dtype name; None for other dtypes."""
    if dtype is None:
        return None
    itemsize = _ITEMSIZE.get(dtype, 1 if dtype.startswith("float8") else 0)
    return ALIGN_BYTES // itemsize if itemsize else None


def _dims(shape: Any) -> str:
    return "x".join(map(str, shape))


def _odd(multiple: int, **dims: int) -> str:
    return ", ".join(f"{name}={value}" for name, value in dims.items() if value % multiple)


def _gemm(left: int, right: int) -> Check:
    """(.., M, K) @ (.., K, N): mm/addmm/bmm/baddbmm, the batch dimension aside."""

    def check(args: tuple, multiple: int) -> Optional[str]:
        a, b = args[left].shape, args[right].shape
        m, k, n = a[-2], a[-1], b[-1]
        if m % multiple or k % multiple or n % multiple:
            return f"{_dims(a)} @ {_dims(b)}: {_odd(multiple, M=m, K=k, N=n)}"
        return None

    return check


def _conv(weight: int, transposed: int, groups: int) -> Check:
    """Input and output channels per group, from the weight (C_out, C_in/groups, ...), or
    (C_in, C_out/groups, ...) when transposed."""

    def check(args: tuple, multiple: int) -> Optional[str]:
        w = args[weight].shape
        g = args[groups]
        first, second = w[0] // g, w[1]
        if first % multiple or second % multiple:
            c_in, c_out = (first, second) if args[transposed] else (second, first)
            per_group = f" in {g} groups" if g > 1 else ""
            return f"weight {_dims(w)}{per_group}: {_odd(multiple, C_in=c_in, C_out=c_out)}"
        return None

    return check


def _attention(query: int, value: int) -> Check:
    """The head size of the query/key and of the value (the last dimension in every layout)."""

    def check(args: tuple, multiple: int) -> Optional[str]:
        d_qk, d_v = args[query].shape[-1], args[value].shape[-1]
        if d_qk % multiple or d_v % multiple:
            return f"query {_dims(args[query].shape)}: {_odd(multiple, head_dim=d_qk, value_head_dim=d_v)}"
        return None

    return check


# (query, key, value, ...)
_ATTENTION_FORWARD = ("_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention",
                      "_scaled_dot_product_cudnn_attention", "_scaled_dot_product_flash_attention_for_cpu",
                      "_efficient_attention_forward", "_flash_attention_forward")
# (grad_out, query, key, value, ...)
_ATTENTION_BACKWARD = ("_scaled_dot_product_flash_attention_backward",
                       "_scaled_dot_product_efficient_attention_backward",
                       "_scaled_dot_product_cudnn_attention_backward",
                       "_scaled_dot_product_flash_attention_for_cpu_backward",
                       "_efficient_attention_backward", "_flash_attention_backward")
_CHECKS: dict[str, Check] = {
    "mm": _gemm(0, 1),
    "bmm": _gemm(0, 1),
    "addmm": _gemm(1, 2),
    "baddbmm": _gemm(1, 2),
    # convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    "convolution": _conv(1, 6, 8),
    "_convolution": _conv(1, 6, 8),
    # convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
    #                      transposed, output_padding, groups, output_mask)
    "convolution_backward": _conv(2, 7, 9),
    **{name: _attention(0, 2) for name in _ATTENTION_FORWARD},
    **{name: _attention(1, 3) for name in _ATTENTION_BACKWARD},
}


def check_for(op_name: str) -> Optional[Check]:
    """The alignment check for an aten op (by overload packet name), or None if it has none."""
    return _CHECKS.get(op_name)


# -- reading a report ------------------------------------------------------------------------
def by_module(report: ReportData) -> list[dict[str, Any]]:
    """Per module (all phases): misaligned FLOPs and calls, their share of the low-precision
    matmul FLOPs, and an example shape (a forward one when there is one), largest first."""
    total = report.tensor_core_alignment()["flops"]
    groups: dict[Optional[str], list[OpRecord]] = defaultdict(list)
    for r in report.ops:
        if r.misaligned_calls:
            groups[r.module].append(r)
    rows = []
    for module, records in groups.items():
        example = min(records, key=lambda r: (r.phase != "forward", -r.misaligned_flops))
        flops = sum(r.misaligned_flops for r in records)
        rows.append({
            "module": module, "op": example.name, "shapes": example.misaligned_shapes,
            "multiple": multiple_for(example.out_dtype), "dtype": example.out_dtype, "source": example.source,
            "misaligned_flops": flops, "misaligned_calls": sum(r.misaligned_calls for r in records),
            "share": flops / total if total else 0.0,
        })
    return sorted(rows, key=lambda row: -row["misaligned_flops"])


def worth_reporting(row: dict[str, Any]) -> bool:
    """Whether a `by_module` row is large enough for AMP509 (see the module docstring)."""
    return row["share"] >= MIN_SHARE and row["misaligned_flops"] / row["misaligned_calls"] >= MIN_CALL_FLOPS


@summary
def summary_lines(report: ReportData) -> list[str]:
    """The Tensor Core part of the text summary (nothing when no low-precision matmul ran)."""
    totals = report.tensor_core_alignment()
    if not totals["flops"]:
        return []
    lines = ["", f"Tensor Core alignment: {totals['share']:.1%} of low-precision matmul FLOPs have a dimension "
                 "that is not a multiple of 16 bytes (8 fp16/bf16 elements)"]
    rows = [[report.module_label(row["module"]) if row["module"] else "(no module)", pct(row["share"]),
             f"{row['op']} {row['shapes']}"] for row in by_module(report)[:5]]
    return lines + (columns(["module", "share", "first misaligned call"], rows, right=[1]) if rows else [])


@producer("AMP509")
def misaligned_matmul_shapes(report: ReportData) -> Iterable[Finding]:
    """AMP509: a module whose low-precision matmuls/convolutions cannot be tiled by Tensor Cores."""
    overall = report.tensor_core_alignment()
    for row in filter(worth_reporting, by_module(report)):
        module = f"module `{report.module_label(row['module'])}`" if row["module"] else "code outside any module"
        yield finding(
            "AMP509", row["source"],
            f"{module}: {row['share']:.1%} of low-precision matmul FLOPs ({row['misaligned_flops']:,} FLOPs, "
            f"{row['misaligned_calls']} calls) have a dimension that is not a multiple of {row['multiple']} "
            f"{row['dtype']} elements (16 bytes), so Tensor Cores cannot tile them: `{row['op']}` {row['shapes']}; "
            "pad that dimension (a vocabulary to a multiple of 64, channels to a multiple of 8). Misaligned in "
            f"the whole trace: {overall['share']:.1%}",
            op=row["op"], module=row["module"], shapes=row["shapes"], flops=row["misaligned_flops"],
            share=row["share"],
        )


@page
def html_part(report: ReportData) -> str:
    totals = report.tensor_core_alignment()
    head = '<section id="tensor-cores"><h2>Tensor Core alignment</h2>'
    if not totals["flops"]:
        return head + '<p class="muted">No float16/bfloat16 matmul-class ops were traced.</p></section>'
    share = totals["share"]
    rows = []
    for row in by_module(report):
        tag = ' <b class="bad">AMP509</b>' if worth_reporting(row) else ""
        rows.append(
            f"<tr><td><code>{escape(report.module_label(row['module']))}</code>{tag}</td><td><code>{escape(row['op'])}</code></td>"
            f"<td><code>{escape(row['shapes'])}</code></td><td>{escape(row['dtype'])}</td>"
            f"{num(row['misaligned_flops'])}{count(row['misaligned_calls'])}"
            f"{num(row['share'], pct(row['share']))}<td class='loc'>{escape(row['source'] or '-')}</td></tr>"
        )
    rows_table = (table(["module", "op", "first misaligned shapes", "dtype", "misaligned FLOPs", "calls",
                         "of low-precision FLOPs", "source"], rows) if rows else "")
    return (f'{head}<p id="misaligned-share"><b class="{"good" if not share else "warn"}">{pct(share)}</b> of the '
            f'{escape(si(totals["flops"], "FLOP"))} that ran in float16/bfloat16 had a dimension that is not a '
            "multiple of 16 bytes (8 fp16/bf16 elements): M, K, N of a matmul, channels per group of a "
            "convolution, the head size of attention. AMP509 marks the modules whose misaligned calls are "
            f"large enough to matter on a GPU (at least {pct(MIN_SHARE)} of these FLOPs and "
            f"{si(MIN_CALL_FLOPS, 'FLOP')} per call).</p>{rows_table}</section>")
