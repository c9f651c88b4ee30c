"""`ampcheck report FILE`: re-render a saved trace, or print its findings exactly as lint does.

Several files, or a directory of `trace.rank{R}.json`, are merged into one report for the
whole distributed job, followed by what differs between the ranks (`ampcheck.trace.merge`).
`--diff BEFORE AFTER` prints what changed between two traces and exits 1 when coverage got
worse by more than `--tolerance` (`ampcheck.trace.diff`).

Formats live in `RENDERERS` (name -> function of a TraceReport returning the text); the HTML
renderer registers itself there. Findings go through `ampcheck.output.render`, with lint's exit
codes: 0 none, 1 findings, 2 usage or unreadable file. Never imports torch.
"""
from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Callable, Optional

import click

from ampcheck.commands import OneLineUsage, fail

from ampcheck.output import FORMATS

if TYPE_CHECKING:
    from ampcheck.trace.report import TraceReport


def _text(report: "TraceReport") -> str:
    from ampcheck.trace.merge import render_ranks

    ranks = render_ranks(report)
    return report.to_text() + ("\n\n" + ranks if ranks else "") + "\n"


def _json(report: "TraceReport") -> str:
    return report.dumps() + "\n"


def _html(report: "TraceReport") -> str:
    from ampcheck.trace.html import render_html

    return render_html(report)


RENDERERS: dict[str, Callable[["TraceReport"], str]] = {"text": _text, "json": _json, "html": _html}


def _tolerance(value: str) -> float:
    """A fraction (`0.02`) or a percentage (`2%`) of matmul FLOPs."""
    text = value.strip()
    try:
        number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise fail(f"--tolerance {value!r}: give a fraction (0.02) or a percentage (2%)") from None
    if not 0 <= number <= 1:
        raise fail(f"--tolerance {value!r}: must lie between 0 and 100%")
    return number


def _diff(before: str, after: str, fmt: str, tolerance_text: str) -> None:
    from ampcheck.trace.report import TraceReport, load

    tolerance = _tolerance(tolerance_text)
    if fmt not in ("text", "json"):
        raise fail(f"--diff prints text or json, not {fmt}")
    try:
        change = TraceReport.diff(load([before]), load([after]))
    except ValueError as err:
        raise fail(str(err))
    if fmt == "json":
        sys.stdout.write(json.dumps({**change.to_json(), "tolerance": tolerance,
                                     "worse": change.worse(tolerance)}, indent=1, sort_keys=True) + "\n")
    else:
        sys.stdout.write(change.to_text(tolerance) + "\n")
    raise click.exceptions.Exit(1 if change.worse(tolerance) else 0)


@click.command(cls=OneLineUsage)
@click.argument("files", nargs=-1, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(sorted(RENDERERS)), default="text", show_default=True,
              help="How to render the report.")
@click.option("--findings", is_flag=True, help="Print the trace's findings (AMP5xx) instead of the report.")
@click.option("--output-format", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Findings format (with --findings), as in `ampcheck lint`.")
@click.option("--select", multiple=True, metavar="CODES", help="With --findings: only these codes or prefixes.")
@click.option("--exit-zero", is_flag=True, help="With --findings: exit 0 even when there are findings.")
@click.option("--diff", "diff_paths", nargs=2, type=click.Path(), default=None, metavar="BEFORE AFTER",
              help="Print what changed from trace BEFORE to trace AFTER (files or rank directories).")
@click.option("--tolerance", default="0", show_default=True, metavar="T",
              help="With --diff: exit 1 only when a phase's low-precision share dropped by more than T "
                   "(a fraction, or a percentage such as 2%).")
def report(files: tuple[str, ...], fmt: str, findings: bool, output_format: str, select: tuple[str, ...],
           exit_zero: bool, diff_paths: Optional[tuple[str, str]], tolerance: str) -> None:
    """Render the trace report FILES written by `ampcheck trace`: one file, or the ranks of a
    distributed run (several files, or their directory) merged into one."""
    from ampcheck.output import render
    from ampcheck.trace.report import load

    if diff_paths:
        if files:
            raise fail("--diff compares two traces: give BEFORE and AFTER only")
        _diff(*diff_paths, fmt, tolerance)
    if not files:
        raise fail("give a trace report file, several, or a directory of trace.rank*.json")
    try:
        loaded = load(files)
    except ValueError as err:
        raise fail(str(err))
    if not findings:
        sys.stdout.write(RENDERERS[fmt](loaded))
        return
    codes = tuple(part.strip() for value in select for part in value.split(",") if part.strip())
    try:
        found = loaded.findings(select=codes or None)
    except Exception as err:  # the promise is one line, never a traceback
        raise fail(f"internal error: {type(err).__name__}: {err}")
    sys.stdout.write(render(found, output_format))
    raise click.exceptions.Exit(1 if found and not exit_zero else 0)
