"""Rendering findings: one formatter module per `--output-format`, shared by lint and trace.

`render` is the one entry point (`ampcheck lint` and `ampcheck report` both call it). It
takes any findings - a trace finding points at the user's source file and may lack a fix.
"""
from __future__ import annotations

import importlib
from typing import Sequence

from ampcheck.findings import Finding

FORMATS = ("text", "json", "sarif", "github")


def render(findings: Sequence[Finding], fmt: str, *, statistics: bool = False, fixed: int = 0) -> str:
    """The report text for `findings` (sorted by location) in format `fmt`.

    `statistics` replaces the list with counts per code (text and json); `fixed` is how many
    findings a `--fix` run removed, for the summary line.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})")
    module = importlib.import_module(f"ampcheck.output.{fmt}")
    ordered = sorted(findings, key=Finding.sort_key)
    return module.render(ordered, statistics=statistics, fixed=fixed)
