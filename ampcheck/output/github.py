"""GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` annotation per finding."""
from __future__ import annotations

from typing import Sequence

from ampcheck.findings import Finding
from ampcheck.output.rules import info

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(findings: Sequence[Finding], *, statistics: bool, fixed: int) -> str:
    lines = []
    for f in findings:
        rule = info(f.code)
        # A notebook's lines count within its cell, not within the file GitHub shows:
        # annotate the file and name the cell in the message.
        place = (("line", f.line), ("col", f.col), ("endLine", f.end_line), ("endColumn", f.end_col))
        props = ",".join(
            f"{k}={_escape_property(str(v))}"
            for k, v in (("title", f"ampcheck ({f.code})"), ("file", f.path), *(place if f.cell is None else ()))
        )
        message = f"{f.location}: {f.code} {f.message}"
        lines.append(f"::{_LEVEL[rule.severity]} {props}::{_escape_data(message)}")
    return "".join(line + "\n" for line in lines)
