"""The trace report's data model: op records, weight casts, sections, meta; JSON in and out.

The bottom layer of `ampcheck.trace`: it imports nothing else of the package and never imports
torch, so `ampcheck report FILE` works on a machine without it. Above it, the sections
(`ampcheck.trace.sections`: findings and summaries), merge, diff and the renderers read a
`ReportData`; `ampcheck.trace.report.TraceReport` adds their entry points as methods; the tracer
on top fills one.

  * `ReportData.sections: dict[str, Any]` holds extra JSON-serialisable sections (GradScaler
    history, numerics, ...). Observers fill it in `Observer.contribute(report)`; it is saved
    and loaded verbatim, so it round-trips exactly. One top-level key per feature.
  * `ReportData.meta` carries run facts (torch version, steps, wall time, rank, argv).
  * JSON shape: {"schema_version", "meta", "ops": [OpRecord], "weights": [WeightCasts],
    "sections", "module_classes": {name: class}, "summary"}. "summary" (coverage, per-module coverage, casts) and each op's
    "ran_as_policy" are derived, written for readers of the file and recomputed on load. Bump
    SCHEMA_VERSION on any incompatible change.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

# 2: op records carry Tensor Core alignment (misaligned_*); 3: module classes; 4: op records
# say whether compiled code ran them
SCHEMA_VERSION = 4
READABLE_VERSIONS = (1, 2, 3, 4)
LOW_PRECISION = frozenset({"float16", "bfloat16"})
PHASES = ("forward", "backward", "recompute", "optimizer")


def is_low(dtype: Optional[str]) -> bool:
    return dtype is not None and (dtype in LOW_PRECISION or dtype.startswith("float8"))


@dataclass
class OpRecord:
    """One distinct (op, phase, module, dtypes, autocast state, device, cast kind) and its totals.

    `autocast` is the autocast dtype active for the op's device type, None when off. `cast`
    is set for dtype-changing `_to_copy` ops: "autocast" (inserted by autocast), "user"
    (written in the code: .to/.half/.float/.type_as, or any cast outside autocast) or
    "backward" (autograd casting gradients back). `source` is "path:line" of the first frame
    outside torch and ampcheck when the record was first seen. For matmul-class ops with a
    low-precision output, `misaligned_flops`/`misaligned_calls` count the calls whose shapes
    Tensor Cores cannot tile and `misaligned_shapes` describes the first (see tensor_cores);
    `misaligned_flops` is None for every other record. `compiled`: the op ran in a
    torch.compile'd module's compiled code (a kernel of it), not eagerly.
    """

    op: str
    phase: str
    module: Optional[str]
    in_dtypes: tuple[str, ...]
    out_dtype: Optional[str]
    autocast: Optional[str]
    device: str
    cast: Optional[str]
    policy: str
    count: int = 0
    flops: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    source: Optional[str] = None
    misaligned_flops: Optional[int] = None
    misaligned_calls: int = 0
    misaligned_shapes: Optional[str] = None
    compiled: bool = False

    @property
    def name(self) -> str:
        """`addmm` for `aten.addmm.default`."""
        parts = self.op.split(".")
        return parts[1] if len(parts) > 2 else parts[-1]

    @property
    def low_precision(self) -> bool:
        return is_low(self.out_dtype) or self.float8

    @property
    def float8(self) -> bool:
        """Computed on float8 data (`_scaled_mm` on e4m3fn/e5m2 inputs), whatever its output dtype."""
        return any(d is not None and d.startswith("float8") for d in self.in_dtypes)

    @property
    def tensor_core_aligned(self) -> Optional[bool]:
        """Whether every call had shapes Tensor Cores can tile; None: not a low-precision matmul."""
        return None if self.misaligned_flops is None else self.misaligned_calls == 0

    @property
    def ran_as_policy(self) -> Optional[bool]:
        """Whether the dtype it ran in matches autocast's policy for its device; None: no claim."""
        floating = [d for d in (*self.in_dtypes, self.out_dtype or "") if d.startswith(("float", "bfloat"))]
        if not floating or self.cast is not None:
            return None
        if self.policy == "fp32":
            return not self.low_precision
        if self.autocast is None:
            return None
        if self.policy == "lower_precision":
            return self.out_dtype == self.autocast
        if self.policy == "banned":
            return False
        return None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["in_dtypes"] = list(self.in_dtypes)
        data["ran_as_policy"] = self.ran_as_policy  # derived, for readers of the file
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "OpRecord":
        fields = {k: v for k, v in data.items() if k != "ran_as_policy"}
        return cls(**{**fields, "in_dtypes": tuple(data["in_dtypes"])})


@dataclass
class WeightCasts:
    """Casts of one parameter (by state_dict name). Autocast caches one cast per weight per
    outermost autocast region, so `casts > regions` means the same weight was cast again."""

    weight: str
    src_dtype: str
    dst_dtype: str
    kind: str
    casts: int = 0
    regions: int = 0
    bytes: int = 0
    source: Optional[str] = None

    @property
    def repeated(self) -> int:
        return self.casts - self.regions

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "WeightCasts":
        return cls(**data)


@dataclass
class ReportData:
    """What a trace recorded; see the module docstring. `ampcheck.trace.report.TraceReport` is
    this with the findings, text, merge and diff entry points."""

    meta: dict[str, Any] = field(default_factory=dict)
    ops: list[OpRecord] = field(default_factory=list)
    weights: list[WeightCasts] = field(default_factory=list)
    sections: dict[str, Any] = field(default_factory=dict)
    module_classes: dict[str, str] = field(default_factory=dict)  # module name -> class name
    schema_version: int = SCHEMA_VERSION

    # -- persistence ---------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "meta": self.meta,
            "ops": [r.to_json() for r in self.ops],
            "weights": [w.to_json() for w in self.weights],
            "sections": self.sections,
            "module_classes": self.module_classes,
            "summary": {"coverage": self.coverage(), "modules": self.module_coverage(), "casts": self.cast_totals(),
                        "tensor_cores": self.tensor_core_alignment()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ReportData":
        version = data.get("schema_version")
        if version not in READABLE_VERSIONS:
            raise ValueError(f"unsupported trace report schema_version {version!r} (expected one of "
                             f"{', '.join(map(str, READABLE_VERSIONS))})")
        return cls(
            meta=data["meta"],
            ops=[OpRecord.from_json(r) for r in data["ops"]],
            weights=[WeightCasts.from_json(w) for w in data["weights"]],
            sections=data["sections"],
            module_classes=data.get("module_classes", {}),  # files before version 3: unknown
        )

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, sort_keys=True)

    def save(self, path: "str | Path") -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(self.dumps() + "\n", encoding="utf-8")
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path: "str | Path") -> "ReportData":
        """Load a saved report; a bad file raises ValueError with one clear line."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read trace report {path}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not a trace report (invalid JSON: {exc})") from None
        if not isinstance(data, dict) or "ops" not in data:
            raise ValueError(f"{path} is not an ampcheck trace report")
        try:
            return cls.from_json(data)
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{path} is not a valid ampcheck trace report ({exc!r})") from None

    # -- derived views -------------------------------------------------------------
    def coverage(self) -> dict[str, Any]:
        """Share of matmul-class FLOPs (ops with a FLOP formula) that ran in low precision,
        per phase, overall and split by whether autocast was on for the op's device; float8
        matmuls count as low precision and also on their own (`float8_flops`, `float8_share`)."""
        out: dict[str, Any] = {}
        for phase in ("forward", "backward", "recompute"):
            rows = [r for r in self.ops if r.phase == phase and r.flops]
            if not rows:
                continue
            out[phase] = _share(rows)
            out[phase]["inside_autocast"] = _share([r for r in rows if r.autocast is not None])
            out[phase]["outside_autocast"] = _share([r for r in rows if r.autocast is None])
        return out

    def module_coverage(self) -> dict[str, dict[str, Any]]:
        """Per module (and each enclosing module, by dotted prefix): low-precision FLOP share
        for forward and backward."""
        acc: dict[str, dict[str, list[int]]] = {}
        for r in self.ops:
            if not r.flops or r.module is None or r.phase not in ("forward", "backward"):
                continue
            parts = r.module.split(".")
            for depth in range(1, len(parts) + 1):
                slot = acc.setdefault(".".join(parts[:depth]), {}).setdefault(r.phase, [0, 0])
                slot[0] += r.flops
                slot[1] += r.flops if r.low_precision else 0
        return {
            name: {ph: {"flops": t, "low_precision_flops": lp, "share": lp / t if t else 0.0}
                   for ph, (t, lp) in phases.items()}
            for name, phases in sorted(acc.items())
        }

    def cast_totals(self) -> dict[str, Any]:
        totals: dict[str, Any] = {}
        for r in self.ops:
            if r.cast is None:
                continue
            slot = totals.setdefault(r.cast, {"count": 0, "bytes": 0})
            slot["count"] += r.count
            slot["bytes"] += r.bytes_read + r.bytes_written
        totals["repeated_weight_casts"] = sum(max(w.repeated, 0) for w in self.weights)
        return totals

    def tensor_core_alignment(self) -> dict[str, Any]:
        """Low-precision matmul-class FLOPs, those whose shapes Tensor Cores cannot tile, and
        their share (the records' `misaligned_flops`; see `ampcheck.trace.sections.tensor_cores`)."""
        checked = [r for r in self.ops if r.misaligned_flops is not None]
        total = sum(r.flops for r in checked)
        misaligned = sum(r.misaligned_flops for r in checked)
        return {"flops": total, "misaligned_flops": misaligned, "share": misaligned / total if total else 0.0}

    def module_label(self, name: Optional[str]) -> str:
        """`lm_head (Linear)`: a module's name and class; the name alone where the name says the
        class already (a root `MLP`, `Linear#2`) or the class is unknown (files before version 3);
        `-` for no module."""
        if name is None:
            return "-"
        cls = self.module_classes.get(name)
        if cls is None or name.rpartition(".")[2].partition("#")[0] == cls:
            return name
        return f"{name} ({cls})"

    @property
    def total_ops(self) -> int:
        return sum(r.count for r in self.ops)


def sum_rows(rows: Iterable[dict[str, Any]], keys: tuple[str, ...], counts: tuple[str, ...]) -> list[dict[str, Any]]:
    """Section rows with equal `keys` as one row, their `counts` summed and the first row's
    other fields kept (how ranks' per-rank tallies merge)."""
    totals: dict[tuple, dict[str, Any]] = {}
    for row in rows:
        key = tuple(row[k] for k in keys)
        if key in totals:
            total = totals[key]
            totals[key] = {**total, **{c: total[c] + row[c] for c in counts}}
        else:
            totals[key] = dict(row)
    return list(totals.values())


def _share(rows: list[OpRecord]) -> dict[str, Any]:
    """Low precision (fp16, bf16, float8) and, within it, float8 as its own class."""
    total = sum(r.flops for r in rows)
    low = sum(r.flops for r in rows if r.low_precision)
    fp8 = sum(r.flops for r in rows if r.float8)
    return {"flops": total, "low_precision_flops": low, "share": low / total if total else 0.0,
            "float8_flops": fp8, "float8_share": fp8 / total if total else 0.0}

