"""Hover: a rule's documentation as Markdown, over a finding or over a code named in a
suppression comment (`# noqa: AMP401`, `# ampcheck: ignore[AMP401]`)."""
from __future__ import annotations

import re
from typing import Optional, Sequence

from ampcheck import catalog
from ampcheck.findings import Finding
from ampcheck.lint import suppress

SECTIONS = ("What it does", "Why is this bad", "Example", "Use instead")
_CODE = re.compile(r"AMP[0-9]{3}", re.IGNORECASE)


def markdown(code: str) -> Optional[str]:
    """The rule's title and its what / why / example / use-instead sections."""
    doc = catalog.load().get(code)
    if doc is None:
        return None
    parts = [f"## {doc.title}", f"*{doc.severity}* · fix: {doc.fix}"]
    parts += [f"### {name}\n\n{doc.sections[name]}" for name in SECTIONS if doc.sections.get(name)]
    return "\n\n".join(parts) + "\n"


def codes_at(text: str, findings: Sequence[Finding], line: int, col: int) -> list[str]:
    """The codes under a 1-based (line, character column): of the findings whose range holds
    it, else the one written under it in a suppression comment."""
    hit = [f.code for f in findings if _holds(f, line, col)]
    if hit:
        return list(dict.fromkeys(hit))
    for directive in suppress.parse(text).by_line.get(line, ()):
        if directive.col <= col < directive.end_col:
            for match in _CODE.finditer(directive.text):
                if directive.col + match.start() <= col <= directive.col + match.end():
                    return [match.group().upper()]
    return []


def _holds(f: Finding, line: int, col: int) -> bool:
    return (f.line, f.col) <= (line, col) <= (f.end_line, f.end_col)
