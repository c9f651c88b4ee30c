"""The default report: `path:line:col: CODE [*] message` (Ruff's shape) and a summary line."""
from __future__ import annotations

from typing import Sequence

from ampcheck.findings import Finding
from ampcheck.output.rules import statistics as count


def render(findings: Sequence[Finding], *, statistics: bool, fixed: int) -> str:
    lines = []
    if statistics:
        stats = count(findings)
        width = max((len(str(s.count)) for s in stats), default=1)
        for s in stats:
            marker = "[*]" if s.fixable == s.count else "[-]" if s.fixable else "   "
            lines.append(f"{s.count:>{width}}\t{s.code}\t{marker} {s.name}")
    else:
        for f in findings:
            marker = "[*] " if f.fix is not None and f.fix.applicability == "safe" else ""
            lines.append(f"{f.location}: {f.code} {marker}{f.message}")
    lines.append(summary(findings, fixed))
    return "\n".join(lines) + "\n"


def summary(findings: Sequence[Finding], fixed: int) -> str:
    remaining = len(findings)
    if remaining == 0 and fixed == 0:
        return "All checks passed!"
    total = remaining + fixed
    noun = "error" if total == 1 else "errors"
    if fixed:
        text = f"Found {total} {noun} ({fixed} fixed, {remaining} remaining)."
    else:
        text = f"Found {total} {noun}."
    fixable = sum(1 for f in findings if f.fix is not None and f.fix.applicability == "safe")
    hidden = sum(1 for f in findings if f.fix is not None and f.fix.applicability == "unsafe")
    if fixable:
        text += f"\n[*] {fixable} fixable with the `--fix` option."
    if hidden:
        fixes = "fix" if hidden == 1 else "fixes"
        text += f"\n{hidden} hidden {fixes} can be enabled with the `--unsafe-fixes` option."
    return text
