"""FSDP2 and DDP precision in a ReportData: policies as configured, collectives as observed,
AMP511 and AMP512 (torch-free).

The section (written by ampcheck.trace.observers.sharding) holds, per `fully_shard` module,
its MixedPrecisionPolicy; per DDP module, its communication hooks; and the collectives that
ran, with their real dtypes, phase and the fully_shard module they ran for (FSDP2 labels its
all-gathers and reductions with the module; DDP's bucket all-reduces have no such module).

Only observed dtypes raise findings: what `reduce_dtype=None` means changed between torch
releases (on torch 2.13 it reduces in `param_dtype`), so the policy alone proves nothing.
  * AMP511: gradients reduce-scattered or all-reduced in float16/bfloat16 during backward.
  * AMP512: a fully_shard module's parameters all-gathered in float16 for forward in a trace
    that trains with no enabled GradScaler: fp16 gradients underflow without loss scaling.
"""
from __future__ import annotations

import enum
from collections import defaultdict
from typing import Any, Iterable, Optional

from ampcheck.findings import Finding
from ampcheck.trace.columns import columns
from ampcheck.trace.markup import escape, table
from ampcheck.trace.model import LOW_PRECISION, ReportData, sum_rows
from ampcheck.trace.sections import finding, page, producer, summary
from ampcheck.trace.sections.scaler import SECTION as SCALER

SECTION = "sharding"


class Collective(enum.Enum):
    ALL_GATHER = "all_gather"
    REDUCE_SCATTER = "reduce_scatter"
    ALL_REDUCE = "all_reduce"


# c10d's ProcessGroup ops and the functional collectives (`_c10d_functional`), by op name
COLLECTIVE_OPS: dict[str, Collective] = {
    "_allgather_base_": Collective.ALL_GATHER,
    "allgather_": Collective.ALL_GATHER,
    "allgather_into_tensor_coalesced_": Collective.ALL_GATHER,
    "all_gather_into_tensor": Collective.ALL_GATHER,
    "all_gather_into_tensor_coalesced": Collective.ALL_GATHER,
    "_reduce_scatter_base_": Collective.REDUCE_SCATTER,
    "reduce_scatter_": Collective.REDUCE_SCATTER,
    "reduce_scatter_tensor_coalesced_": Collective.REDUCE_SCATTER,
    "reduce_scatter_tensor": Collective.REDUCE_SCATTER,
    "reduce_scatter_tensor_coalesced": Collective.REDUCE_SCATTER,
    "allreduce_": Collective.ALL_REDUCE,
    "allreduce_coalesced_": Collective.ALL_REDUCE,
    "all_reduce": Collective.ALL_REDUCE,
    "all_reduce_coalesced": Collective.ALL_REDUCE,
}
REDUCTIONS = (Collective.REDUCE_SCATTER.value, Collective.ALL_REDUCE.value)
_VERB = {Collective.REDUCE_SCATTER.value: "reduce-scattered", Collective.ALL_REDUCE.value: "all-reduced"}


def section(report: ReportData) -> dict[str, Any]:
    return report.sections.get(SECTION) or {"fsdp": [], "ddp": [], "collectives": []}


def observed_dtypes(report: ReportData, module: Optional[str], kinds: Iterable[str],
                    phase: Optional[str] = None) -> list[str]:
    """The dtypes the collectives of these kinds ran in for one fully_shard module (None: none)."""
    kinds = tuple(kinds)
    return sorted({c["dtype"] for c in section(report)["collectives"]
                   if c["module"] == module and c["collective"] in kinds and (phase is None or c["phase"] == phase)})


def policy_rows(report: ReportData) -> list[dict[str, Any]]:
    """Per fully_shard module: the policy as configured, and the dtypes its parameter
    all-gathers and gradient reductions really ran in."""
    return [{**m, "all_gather": observed_dtypes(report, m["module"], [Collective.ALL_GATHER.value]),
             "reduce": observed_dtypes(report, m["module"], REDUCTIONS, "backward")}
            for m in section(report)["fsdp"]]


def _gradient_reductions(report: ReportData) -> dict[tuple, list[dict[str, Any]]]:
    """Low-precision reductions during backward, by (module, collective, dtype)."""
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for c in section(report)["collectives"]:
        if c["phase"] == "backward" and c["collective"] in REDUCTIONS and c["dtype"] in LOW_PRECISION:
            groups[(c["module"], c["collective"], c["dtype"])].append(c)
    return groups


def merged(sections: list[dict[str, Any]]) -> dict[str, Any]:
    """The ranks' sections as one: the first rank's configuration (every rank wraps the same
    model), the collectives summed by (op, phase, dtype, module), first source kept."""
    collectives = sum_rows((c for part in sections for c in part["collectives"]),
                           ("op", "phase", "dtype", "module"), ("calls", "bytes"))
    return {"fsdp": sections[0]["fsdp"], "ddp": sections[0]["ddp"], "collectives": collectives}


def policy_text(row: dict[str, Any]) -> str:
    return (f"MixedPrecisionPolicy(param_dtype={row['param_dtype']}, reduce_dtype={row['reduce_dtype']}, "
            f"output_dtype={row['output_dtype']})")


@producer("AMP511", ranks=2)
def gradients_reduced_in_low_precision(report: ReportData) -> Iterable[Finding]:
    """AMP511: gradients reduce-scattered / all-reduced in float16 or bfloat16."""
    data = section(report)
    fsdp = {m["module"]: m for m in data["fsdp"]}
    for (module, collective, dtype), calls in sorted(_gradient_reductions(report).items(), key=str):
        count = sum(c["calls"] for c in calls)
        nbytes = sum(c["bytes"] for c in calls)
        what = f"gradients were {_VERB[collective]} in {dtype} ({count} calls, {nbytes:,} bytes)"
        if module in fsdp:
            row = fsdp[module]
            where = f"fully_shard module `{module}` ({row['class']}, {policy_text(row)})"
            fix = "reduce in float32: MixedPrecisionPolicy(..., reduce_dtype=torch.float32)"
        elif data["ddp"]:
            hooks = sorted({h for d in data["ddp"] for h in d["comm_hooks"]})
            names = ", ".join(f"`{d['module']}`" for d in data["ddp"])
            where = f"DDP module {names}" + (f" with communication hook {', '.join(hooks)}" if hooks else "")
            fix = "all-reduce in float32: drop the fp16/bf16 compression hook"
        else:
            where = "no fully_shard or DDP module the trace knows (FSDP1, or a collective the program issues itself)"
            fix = "reduce in float32 (FSDP1: MixedPrecision(..., reduce_dtype=torch.float32))"
        yield finding(
            "AMP511", calls[0]["source"],
            f"{what} for {where}: the rounding error of a low-precision sum grows with the world size; {fix}",
            module=module, collective=collective, dtype=dtype, calls=count, bytes=nbytes,
        )


def _loss_scaled(report: ReportData) -> bool:
    return bool(report.sections.get(SCALER, {}).get("scalers"))


@producer("AMP512", ranks=2)
def fp16_params_without_loss_scaling(report: ReportData) -> Iterable[Finding]:
    """AMP512: a fully_shard module computes in float16 (its parameters all-gathered in fp16)
    in a trace that trains, with no enabled GradScaler."""
    if _loss_scaled(report) or not any(r.phase == "backward" for r in report.ops):
        return
    for row in section(report)["fsdp"]:
        gathers = [c for c in section(report)["collectives"]
                   if c["module"] == row["module"] and c["collective"] == Collective.ALL_GATHER.value
                   and c["phase"] == "forward" and c["dtype"] == "float16"]
        if not gathers:
            continue
        yield finding(
            "AMP512", gathers[0]["source"],
            f"fully_shard module `{row['module']}` ({row['class']}, {policy_text(row)}) gathered its parameters "
            f"in float16 for forward ({sum(c['calls'] for c in gathers)} calls) and no GradScaler scaled the loss: "
            "float16 gradients below 6e-8 flush to zero; use param_dtype=torch.bfloat16, or scale the loss with "
            "torch.amp.GradScaler",
            module=row["module"], param_dtype=row["param_dtype"],
        )


def _dtypes(values: list[str]) -> str:
    return "/".join(values) or "-"


@summary
def summary_lines(report: ReportData) -> list[str]:
    data = section(report)
    lines: list[str] = []
    rows = policy_rows(report)
    if rows:
        table = [(report.module_label(r["module"]), r["param_dtype"] or "-", r["reduce_dtype"] or "-",
                  r["output_dtype"] or "-", "yes" if r["cast_forward_inputs"] else "no", _dtypes(r["all_gather"]),
                  _dtypes(r["reduce"])) for r in rows]
        lines += ["", "FSDP2 mixed precision (configured policy; observed: the collectives' dtypes):"]
        lines += columns(("module", "param", "reduce", "output", "cast inputs", "all-gather", "grad reduce"), table)
    for ddp in data["ddp"]:
        reduced = observed_dtypes(report, None, [Collective.ALL_REDUCE.value], "backward")
        hooks = ", ".join(ddp["comm_hooks"]) or "none"
        lines += ["", f"DDP `{ddp['module']}`: communication hooks: {hooks}; "
                      f"gradients all-reduced in {_dtypes(reduced)}"]
    return lines


@page
def html_part(report: ReportData) -> str:
    head = '<section id="sharding"><h2>FSDP2 / DDP precision</h2>'
    data = section(report)
    if not (data["fsdp"] or data["ddp"]):
        return head + '<p class="muted">No FSDP2 (fully_shard) or DDP module was traced.</p></section>'
    body = ('<p>Each policy as configured, and the dtypes its collectives really ran in (seen at dispatch). '
            "AMP511 marks gradients reduced in float16/bfloat16.</p>")
    rows = []
    for r in policy_rows(report):
        low = [d for d in r["reduce"] if d in LOW_PRECISION]
        tag = ' <b class="bad">AMP511</b>' if low else ""
        rows.append(
            f"<tr><td><code>{escape(r['module'])}</code>{tag}</td><td>{escape(r['class'])}</td>"
            f"<td>{escape(r['param_dtype'] or '-')}</td><td>{escape(r['reduce_dtype'] or '-')}</td>"
            f"<td>{escape(r['output_dtype'] or '-')}</td><td>{'yes' if r['cast_forward_inputs'] else 'no'}</td>"
            f"<td>{escape(_dtypes(r['all_gather']))}</td><td class=\"{'bad' if low else 'good'}\">"
            f"{escape(_dtypes(r['reduce']))}</td></tr>"
        )
    if rows:
        body += '<h3 id="fsdp-policies">FSDP2 MixedPrecisionPolicy per fully_shard module</h3>' + table(
            ["module", "class", "param_dtype", "reduce_dtype", "output_dtype", "cast_forward_inputs",
             "all-gather (observed)", "gradient reduce (observed)"], rows)
    reduced = observed_dtypes(report, None, [Collective.ALL_REDUCE.value], "backward")
    ddp_rows = [
        f"<tr><td><code>{escape(d['module'])}</code></td><td>{escape(', '.join(d['comm_hooks']) or 'none')}</td>"
        f"<td>{escape(_dtypes(reduced))}</td></tr>"
        for d in data["ddp"]
    ]
    if ddp_rows:
        body += "<h3>DDP</h3>" + table(["module", "communication hooks", "gradient all-reduce (observed)"], ddp_rows)
    return f"{head}{body}</section>"
