"""The report's sections: one module per feature turns a report into findings, text and HTML.

Found the way lint's checks are found: every module of this package is imported by
`load_all()` and registers what it offers with the decorators below, so adding a section is
one module here (and the rule doc of each code it emits):

    @producer("AMP507", "AMP508")            # findings: fn(report) -> Iterable[Finding]
    @producer("AMP504", options={"numerics": True})  # codes only a trace with these options can raise
    @producer("AMP511", ranks=2)             # codes only a distributed run (torchrun) can raise
    @summary                                 # its lines of the text summary: fn(report) -> list[str]
    @page                                    # its part of the HTML page: fn(report) -> str

Section modules read `ReportData` (the model) only: they never import torch, the tracer or the
renderers, so `ampcheck report FILE` works without torch. Text and HTML parts come in the order
the modules are loaded (alphabetical), after the report's own coverage, casts and top records.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional

from ampcheck.findings import Finding
from ampcheck.trace.model import ReportData

ProducerFn = Callable[[ReportData], Iterable[Finding]]
SummaryFn = Callable[[ReportData], list[str]]
PageFn = Callable[[ReportData], str]


@dataclass(frozen=True)
class Producer:
    """A findings function, the codes it can emit, the `ampcheck.trace()` options a trace
    needs for them (AMP510 needs `compare_fp32=True`) and the ranks a run needs (collectives
    run between processes: AMP511 needs 2); the rule docs' tests run with these."""

    fn: ProducerFn
    codes: frozenset[str]
    options: Mapping[str, Any] = field(default_factory=dict)
    ranks: int = 1


PRODUCERS: list[Producer] = []
SUMMARIES: list[SummaryFn] = []
PAGES: list[PageFn] = []


def producer(*codes: str, options: Optional[Mapping[str, Any]] = None,
             ranks: int = 1) -> Callable[[ProducerFn], ProducerFn]:
    def register(fn: ProducerFn) -> ProducerFn:
        PRODUCERS.append(Producer(fn, frozenset(codes), dict(options or {}), ranks))
        return fn

    return register


def summary(fn: SummaryFn) -> SummaryFn:
    SUMMARIES.append(fn)
    return fn


def page(fn: PageFn) -> PageFn:
    PAGES.append(fn)
    return fn


def load_all() -> list[Producer]:
    """Import every section module of this package (each registers itself on import)."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    return PRODUCERS


def findings(report: ReportData, select: Optional[Iterable[str]] = None) -> list[Finding]:
    """Every section's findings, sorted; `select` keeps codes with these prefixes."""
    prefixes = tuple(select) if select else ("",)
    found = [f for p in load_all() for f in p.fn(report) if f.code.startswith(prefixes)]
    return sorted(found, key=Finding.sort_key)


def summary_lines(report: ReportData) -> list[str]:
    load_all()
    return [line for fn in SUMMARIES for line in fn(report)]


def pages(report: ReportData) -> list[str]:
    load_all()
    return [fn(report) for fn in PAGES]


def producer_of(code: str) -> Producer:
    """The producer that emits `code` (KeyError: no section emits it)."""
    for p in load_all():
        if code in p.codes:
            return p
    raise KeyError(code)



def codes() -> frozenset[str]:
    return frozenset(c for p in load_all() for c in p.codes)


def finding(code: str, source: Optional[str], message: str, **extra: object) -> Finding:
    """A finding at the user source line a record carries (`path:line`, or None: unknown)."""
    path, line = _split_source(source)
    return Finding(code=code, message=message, path=path, line=line, col=1, end_line=line, end_col=1,
                   extra=dict(extra))


def _split_source(source: Optional[str]) -> tuple[str, int]:
    if source:
        path, _, line = source.rpartition(":")
        if path and line.isdigit():
            return path, int(line)
    return "<unknown>", 1
