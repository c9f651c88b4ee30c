"""What the formatters need to know about a code, from the rule catalog.

A code that has no doc (a trace engineer's new code before its doc lands) still renders:
its name falls back to the code and its severity to "warning".
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Optional, Sequence

from ampcheck import catalog
from ampcheck.findings import Finding


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    severity: str  # error | warning | info
    url: str
    summary: str


def info(code: str) -> RuleInfo:
    doc: Optional[catalog.RuleDoc] = catalog.load().get(code)
    if doc is None:
        return RuleInfo(code, code, "warning", catalog.url(code), "")
    return RuleInfo(code, doc.name, doc.severity, doc.url, _first_paragraph(doc.sections["What it does"]))


def _first_paragraph(text: str) -> str:
    return " ".join(text.strip().split("\n\n", 1)[0].split())


@dataclass(frozen=True)
class Stat:
    code: str
    name: str
    count: int
    fixable: int  # how many `--fix` fixes (safe fixes)


def statistics(findings: Sequence[Finding]) -> list[Stat]:
    """Counts per code, most frequent first (then by code)."""
    counts = Counter(f.code for f in findings)
    fixable = Counter(f.code for f in findings if f.fix is not None and f.fix.applicability == "safe")
    return [
        Stat(code, info(code).name, n, fixable[code])
        for code, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
