"""The TraceReport users hold (`t.report`, `TraceReport.load(path)`): the report's data with its
entry points as methods: findings, the text summary, the coverage assertion, merge and diff.

A layer above everything it calls (`ampcheck.trace.model` holds the data and the JSON;
`sections`, `text`, `assertions`, `merge` and `diff` read it), so none of them imports this
module; they take and return `ReportData`, and the methods here turn what comes back into a
TraceReport. Torch-free, like all of them.
"""
from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Iterable, Optional

from ampcheck.trace import assertions, merge, sections, text
from ampcheck.trace import diff as diffs
from ampcheck.trace.model import SCHEMA_VERSION, OpRecord, ReportData, WeightCasts

__all__ = ["TraceReport", "OpRecord", "WeightCasts", "SCHEMA_VERSION", "load"]


class TraceReport(ReportData):
    """What a trace recorded (see `ampcheck.trace.model.ReportData`) and what to do with it."""

    @classmethod
    def of(cls, data: ReportData) -> "TraceReport":
        """`data` as a TraceReport (the same object when it is one)."""
        if isinstance(data, cls):
            return data
        return cls(**{f.name: getattr(data, f.name) for f in fields(ReportData)})

    def findings(self, select: Optional[Iterable[str]] = None) -> assertions.FindingList:
        """Findings of every section (`ampcheck.trace.sections`); `select` keeps codes with these
        prefixes."""
        return assertions.FindingList(sections.findings(self, select))

    def assert_coverage(self, min_lowp_flop_share: float = 0.9,
                        phases: Iterable[str] = ("forward", "backward")) -> None:
        """AssertionError unless each phase ran this share of its matmul FLOPs in fp16/bf16;
        the message lists the offending ops and modules (see ampcheck.trace.assertions)."""
        assertions.assert_coverage(self, min_lowp_flop_share, tuple(phases))

    @classmethod
    def merge(cls, reports: Iterable[ReportData]) -> "TraceReport":
        """One report for the ranks of a distributed run, with what differs between them
        in `sections["ranks"]` (see `ampcheck.trace.merge`)."""
        return cls.of(merge.merge(reports))

    @staticmethod
    def diff(before: ReportData, after: ReportData) -> diffs.TraceDiff:
        """What changed from `before` to `after` (see `ampcheck.trace.diff`)."""
        return diffs.diff(before, after)

    def to_text(self, top: int = 10) -> str:
        return text.render_text(self, top)


def load(paths: Iterable[str]) -> TraceReport:
    """The report behind `ampcheck report PATH...`: one file as it was saved; otherwise the
    merge of the files and of the directories' `trace.rank*.json` (a directory holding one
    rank of a larger job still says which ranks are missing)."""
    paths = list(paths)
    if len(paths) == 1 and not Path(paths[0]).is_dir():
        return TraceReport.load(paths[0])
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found = sorted(path.glob("trace.rank*.json"))
            if not found:
                raise ValueError(f"{path}: no trace.rank*.json files in this directory")
            files += found
        else:
            files.append(path)
    return TraceReport.merge(TraceReport.load(f) for f in files)
