"""Merging the traces of a distributed run's ranks, and what differs between them (torch-free).

`merge(reports)` (also `TraceReport.merge`) sums the op records and weight casts of every rank
into one report, so coverage, casts and AMP501-AMP503 speak for the whole job. What cannot
be summed is compared instead, in `report.sections["ranks"]`:

  * autocast state is per thread and per process: a rank that never entered autocast (or
    covered a different share of its matmul FLOPs inside autocast) trains in fp32 silently;
  * op coverage: ops seen on some ranks only, matmul-class ops that ran in different dtypes;
  * optimizer steps, and per GradScaler the skipped iterations and the loss scale. Under DDP
    and FSDP every rank must take the same skip decision, or the replicas diverge.

Each rank's GradScaler history stays in `sections["scaler"]`, labelled with its rank, so the
scaler findings keep working on the merged report; the fp32 comparisons are merged per module
(`precision_loss.merged`), the collectives and float8 matmuls summed over the ranks
(`sharding.merged`, `float8.merged`); other per-rank sections are kept whole under
`sections["ranks"]["per_rank"]`.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any, Callable, Iterable, Optional

from ampcheck.trace.model import PHASES, OpRecord, ReportData, WeightCasts
from ampcheck.trace.ranks import RankInfo
from ampcheck.trace.sections import float8, precision_loss, sharding
from ampcheck.trace.sections.scaler import SECTION as SCALER
from ampcheck.trace.units import pct

SECTION = "ranks"
COMPARE = precision_loss.SECTION
# Ranks of one data-parallel job run the same shapes, so their FLOP shares agree exactly;
# this only absorbs float rounding and uneven last batches.
SHARE_TOLERANCE = 0.005
LISTED = 8  # op names listed per difference


def merge(reports: Iterable[ReportData]) -> ReportData:
    """One report for the whole job; raises ValueError (one line) for traces of different runs.
    A single trace of a single process comes back as it is."""
    ranked = _order(list(reports))
    if len(ranked) == 1 and not RankInfo.from_json(ranked[0][1].meta).distributed:
        return ranked[0][1]
    merged = ReportData(
        meta=_merged_meta(ranked),
        ops=_sum_ops(report for _, report in ranked),
        weights=_sum_weights(report for _, report in ranked),
        module_classes={name: cls for _, report in ranked for name, cls in report.module_classes.items()},
    )
    scalers = [
        {**scaler, "label": f"{scaler['label']} (rank {rank})", "rank": rank}
        for rank, report in ranked
        for scaler in report.sections.get(SCALER, {}).get("scalers", [])
    ]
    if scalers:
        merged.sections[SCALER] = {"scalers": scalers}
    compared = [report.sections[COMPARE] for _, report in ranked if COMPARE in report.sections]
    if compared:
        merged.sections[COMPARE] = precision_loss.merged(compared)
    for name, merge_section in ((sharding.SECTION, sharding.merged), (float8.SECTION, float8.merged)):
        parts = [report.sections[name] for _, report in ranked if name in report.sections]
        if parts:
            merged.sections[name] = merge_section(parts)
    merged.sections[SECTION] = {
        "per_rank": [_rank_summary(rank, report) for rank, report in ranked],
        "differences": differences(ranked),
    }
    return merged


def _order(reports: list[ReportData]) -> list[tuple[int, ReportData]]:
    """(rank, report) sorted by rank; traces without a rank are numbered in the order given."""
    if not reports:
        raise ValueError("no trace reports to merge")
    infos = [RankInfo.from_json(r.meta) for r in reports]
    sizes = sorted({i.world_size for i in infos if i.world_size is not None})
    if len(sizes) > 1:
        raise ValueError(f"cannot merge traces of runs with different world sizes {sizes}")
    if all(i.rank is None for i in infos):
        return list(enumerate(reports))
    ranks = [i.rank for i in infos]
    if None in ranks:
        raise ValueError("cannot merge traces with a rank and traces without one")
    duplicated = sorted({r for r in ranks if ranks.count(r) > 1})
    if duplicated:
        raise ValueError(f"cannot merge: rank {duplicated[0]} appears in more than one trace")
    return sorted(zip(ranks, reports), key=lambda pair: pair[0])


def _merged_meta(ranked: list[tuple[int, ReportData]]) -> dict[str, Any]:
    first = ranked[0][1].meta
    metas = [report.meta for _, report in ranked]
    backends = sorted({m["backend"] for m in metas if m.get("backend")})
    policies = [m["policy"] for m in metas if "policy" in m]
    policy = {"policy": {"tables": policies[0]["tables"],
                         "devices": {d: k for p in policies for d, k in sorted(p["devices"].items())}}} if policies else {}
    return {
        **{key: first[key] for key in ("torch_version", "ampcheck_version", "phases", "modules") if key in first},
        **policy,
        "ranks": [rank for rank, _ in ranked],
        "world_size": first.get("world_size") or len(ranked),
        "backend": ", ".join(backends) or None,
        "steps": sum(m.get("steps", 0) for m in metas),
        "autocast_seen": any(m.get("autocast_seen") for m in metas),
        "wall_s": max(m.get("wall_s", 0.0) for m in metas),
    }


def _add(a: Optional[int], b: Optional[int]) -> Optional[int]:
    """Sum of two totals, either of which may be unknown (None: a rank traced by an older ampcheck)."""
    return b if a is None else a if b is None else a + b


def _sum(items: Iterable[Any], key: Callable[[Any], tuple], fields: tuple[str, ...],
         first: tuple[str, ...] = ("source",)) -> list[Any]:
    """Add up records with the same key; `first` fields keep the first rank's value that is set
    (copies; the ranks' reports are left as they were)."""
    totals: dict[tuple, Any] = {}
    for item in items:
        k = key(item)
        seen = totals.get(k)
        if seen is None:
            totals[k] = replace(item)
            continue
        for name in fields:
            setattr(seen, name, _add(getattr(seen, name), getattr(item, name)))
        for name in first:
            setattr(seen, name, getattr(seen, name) or getattr(item, name))
    return list(totals.values())


def _sum_ops(reports: Iterable[ReportData]) -> list[OpRecord]:
    return _sum(
        (r for report in reports for r in report.ops),
        lambda r: (r.op, r.phase, r.module, r.in_dtypes, r.out_dtype, r.autocast, r.device, r.cast, r.policy,
                   r.compiled),
        ("count", "flops", "bytes_read", "bytes_written", "misaligned_flops", "misaligned_calls"),
        ("source", "misaligned_shapes"),
    )


def _sum_weights(reports: Iterable[ReportData]) -> list[WeightCasts]:
    return _sum(
        (w for report in reports for w in report.weights),
        lambda w: (w.weight, w.src_dtype, w.dst_dtype, w.kind),
        ("casts", "regions", "bytes"),
    )


# -- per rank --------------------------------------------------------------------------------
def _autocast_share(report: ReportData, phase: str) -> Optional[float]:
    """Share of the phase's matmul-class FLOPs that ran with autocast on."""
    rows = [r for r in report.ops if r.phase == phase and r.flops]
    total = sum(r.flops for r in rows)
    return sum(r.flops for r in rows if r.autocast is not None) / total if total else None


def _rank_summary(rank: int, report: ReportData) -> dict[str, Any]:
    coverage = report.coverage()
    return {
        "rank": rank,
        "backend": report.meta.get("backend"),
        "steps": report.meta.get("steps", 0),
        "ops": report.total_ops,
        "low_precision_share": {phase: cov["share"] for phase, cov in coverage.items()},
        "autocast_share": {phase: _autocast_share(report, phase) for phase in coverage},
        "scalers": [
            {"label": s["label"], "skipped": s["skipped"], "final_scale": s["final_scale"]}
            for s in report.sections.get(SCALER, {}).get("scalers", [])
        ],
        "sections": {key: value for key, value in report.sections.items() if key not in (SCALER, COMPARE)},
    }


# -- differences -----------------------------------------------------------------------------
def differences(ranked: list[tuple[int, ReportData]]) -> list[dict[str, Any]]:
    """What differs between the ranks, most consequential first: {kind, ranks, message}."""
    found: list[dict[str, Any]] = []
    found += _missing_ranks(ranked)
    found += _exit_status(ranked)
    found += _autocast(ranked)
    found += _coverage(ranked)
    found += _steps(ranked)
    found += _scalers(ranked)
    found += _op_dtypes(ranked)
    found += _op_sets(ranked)
    return found


def _difference(kind: str, ranks: Iterable[int], message: str) -> dict[str, Any]:
    return {"kind": kind, "ranks": sorted(set(ranks)), "message": message}


def _ranks(ranks: Iterable[int]) -> str:
    listed = sorted(set(ranks))
    return ("rank " if len(listed) == 1 else "ranks ") + ", ".join(map(str, listed))


def _by_value(values: dict[int, Any]) -> dict[Any, list[int]]:
    groups: dict[Any, list[int]] = defaultdict(list)
    for rank, value in values.items():
        groups[value].append(rank)
    return groups


def _spread(values: dict[int, Any], fmt: str = "{}") -> str:
    """`1024.0 on ranks 0, 2; 512.0 on rank 1`."""
    return "; ".join(f"{fmt.format(v) if v is not None else 'none'} on {_ranks(r)}"
                     for v, r in _by_value(values).items())


def _missing_ranks(ranked: list[tuple[int, ReportData]]) -> list[dict[str, Any]]:
    world = RankInfo.from_json(ranked[0][1].meta).world_size
    if not world:
        return []
    missing = sorted(set(range(world)) - {rank for rank, _ in ranked})
    if not missing:
        return []
    return [_difference("missing_ranks", missing,
                        f"no trace for {_ranks(missing)} of world size {world}: the comparison covers the others")]


def _exit_status(ranked: list[tuple[int, ReportData]]) -> list[dict[str, Any]]:
    """A rank that crashed or exited early traced less than the others: say so first."""
    status = {rank: report.meta["exit_status"] for rank, report in ranked if "exit_status" in report.meta}
    failed = [rank for rank, code in status.items() if code != 0]
    if not failed:
        return []
    return [_difference("exit_status", failed,
                        f"the traced script did not exit cleanly on {_ranks(failed)} (exit status {_spread(status)}): "
                        "a rank that stopped early traced less than the others")]


def _autocast(ranked: list[tuple[int, ReportData]]) -> list[dict[str, Any]]:
    seen = {rank: bool(report.meta.get("autocast_seen")) for rank, report in ranked}
    never = [rank for rank, on in seen.items() if not on]
    if not never or len(never) == len(seen):
        return []
    computed = any(_autocast_share(report, "forward") is not None for rank, report in ranked if rank in never)
    consequence = " and ran its matmuls outside it" if computed else ""
    return [_difference(
        "autocast_inactive", never,
        f"autocast was never active on {_ranks(never)}{consequence}, while {_ranks(set(seen) - set(never))} "
        "used it: autocast state is per process and per thread, so check the code that chooses it per rank",
    )]


def _coverage(ranked: list[tuple[int, ReportData]]) -> list[dict[str, Any]]:
    found = []
    coverage = {rank: report.coverage() for rank, report in ranked}
    for phase in PHASES:
        shares = {rank: cov[phase]["share"] for rank, cov in coverage.items() if phase in cov}
        if len(shares) > 1 and max(shares.values()) - min(shares.values()) > SHARE_TOLERANCE:
            low = min(shares.values())
            found.append(_difference(
                "coverage", [rank for rank, share in shares.items() if share - low <= SHARE_TOLERANCE],
                f"{phase} matmul FLOPs in float16/bfloat16 differ between ranks: {_spread(shares, '{:.1%}')}",
            ))
    return found


def _steps(ranked: list[tuple[int, ReportData]]) -> list[dict[str, Any]]:
    steps = {rank: report.meta.get("steps", 0) for rank, report in ranked}
    if len(set(steps.values())) < 2:
        return []
    fewest = min(steps.values())
    return [_difference("steps", [rank for rank, n in steps.items() if n == fewest],
                        f"optimizer steps differ between ranks: {_spread(steps)}")]


def _scalers(ranked: list[tuple[int, ReportData]]) -> list[dict[str, Any]]:
    found = []
    by_label: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for rank, report in ranked:
        for scaler in report.sections.get(SCALER, {}).get("scalers", []):
            by_label[scaler["label"]][rank] = scaler
    for label, scalers in by_label.items():
        skipped = {rank: ", ".join(map(str, s["skipped"])) or "none" for rank, s in scalers.items()}
        if len(set(skipped.values())) > 1:
            common = set.intersection(*(set(s["skipped"]) for s in scalers.values()))
            odd = [rank for rank, s in scalers.items() if set(s["skipped"]) != common]
            found.append(_difference(
                "skipped_steps", odd,
                f"{label} skipped different steps on different ranks (skipped {_spread(skipped)}): under DDP or "
                "FSDP every rank must take the same skip decision, or the replicas' weights diverge "
                "(FSDP1 with a plain GradScaler instead of ShardedGradScaler, or a rank-local change to "
                ".grad after the gradient sync)",
            ))
        scales = {rank: s["final_scale"] for rank, s in scalers.items()}
        if len(set(scales.values())) > 1:
            majority = max(_by_value(scales).values(), key=len)
            found.append(_difference(
                "loss_scale", [rank for rank in scales if rank not in majority],
                f"{label} loss scale differs between ranks at the end of the trace: {_spread(scales)}",
            ))
    return found


def _dtypes_by_op(report: ReportData) -> dict[tuple[str, str], frozenset[str]]:
    dtypes: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in report.ops:
        if r.flops and r.out_dtype:
            dtypes[(r.name, r.phase)].add(r.out_dtype)
    return {key: frozenset(value) for key, value in dtypes.items()}


def _op_dtypes(ranked: list[tuple[int, ReportData]]) -> list[dict[str, Any]]:
    """Matmul-class ops that ran in different dtypes on different ranks."""
    per_rank = {rank: _dtypes_by_op(report) for rank, report in ranked}
    keys = sorted({key for ops in per_rank.values() for key in ops})
    lines, ranks = [], set()
    for key in keys:
        dtypes = {rank: ops[key] for rank, ops in per_rank.items() if key in ops}
        if len(set(dtypes.values())) > 1:
            name, phase = key
            lines.append(f"{name} ({phase}): " + _spread({r: "/".join(sorted(d)) for r, d in dtypes.items()}))
            ranks.update(dtypes)
    if not lines:
        return []
    more = f" and {len(lines) - LISTED} more" if len(lines) > LISTED else ""
    return [_difference("op_dtypes", ranks,
                        "matmul-class ops ran in different dtypes on different ranks: " + "; ".join(lines[:LISTED]) + more)]


def _op_sets(ranked: list[tuple[int, ReportData]]) -> list[dict[str, Any]]:
    """Ops (by name and phase) that some ranks ran and others never did."""
    per_rank = {rank: {(r.name, r.phase) for r in report.ops} for rank, report in ranked}
    everywhere = set.intersection(*per_rank.values())
    partial: dict[tuple[int, ...], list[str]] = defaultdict(list)
    for key in sorted(set.union(*per_rank.values()) - everywhere):
        holders = tuple(rank for rank, ops in per_rank.items() if key in ops)
        partial[holders].append(f"{key[0]} ({key[1]})")
    found = []
    for holders, names in partial.items():
        more = f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
        found.append(_difference("op_coverage", holders,
                                 f"ops only on {_ranks(holders)}: {', '.join(names[:LISTED])}{more}"))
    return found


# -- text ------------------------------------------------------------------------------------
def render_ranks(report: ReportData) -> str:
    """The per-rank table and the differences; empty for a single-process report."""
    section = report.sections.get(SECTION)
    if not section:
        return ""
    meta = report.meta
    lines = [f"ranks: {len(section['per_rank'])} of world size {meta.get('world_size')}"
             f" (backend {meta.get('backend') or 'unknown'})",
             f"  {'rank':<6}{'steps':>6}{'ops':>10}{'fwd low-prec':>14}{'bwd low-prec':>14}{'fwd in autocast':>17}  scaler"]
    for entry in section["per_rank"]:
        low, inside = entry["low_precision_share"], entry["autocast_share"]
        scalers = "; ".join(f"{s['label']} skipped {', '.join(map(str, s['skipped'])) or 'none'}, scale {s['final_scale']}"
                            for s in entry["scalers"]) or "-"
        lines.append(f"  {entry['rank']:<6}{entry['steps']:>6}{entry['ops']:>10,}{pct(low.get('forward')):>14}"
                     f"{pct(low.get('backward')):>14}{pct(inside.get('forward')):>17}  {scalers}")
    if section["differences"]:
        lines += ["", "differences between ranks:"]
        lines += [f"  - [{d['kind']}] {d['message']}" for d in section["differences"]]
    else:
        lines += ["", "no differences between ranks"]
    return "\n".join(lines)
