"""`ampcheck report FILE`: re-render a saved trace, or print its findings exactly as lint does.

Formats live in `RENDERERS` (name -> function of a TraceReport returning the text); the HTML
renderer registers itself there. Findings go through `ampcheck.output.render`, with lint's exit
codes: 0 none, 1 findings, 2 usage or unreadable file. Never imports torch.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Callable

import click

from ampcheck.output import FORMATS

if TYPE_CHECKING:
    from ampcheck.trace.report import TraceReport


def _text(report: "TraceReport") -> str:
    return report.to_text() + "\n"


def _json(report: "TraceReport") -> str:
    return report.dumps() + "\n"


def _html(report: "TraceReport") -> str:
    from ampcheck.trace.html import render_html

    return render_html(report)


RENDERERS: dict[str, Callable[["TraceReport"], str]] = {"text": _text, "json": _json, "html": _html}


def _fail(message: str) -> "click.exceptions.Exit":
    click.echo(f"ampcheck: error: {message}", err=True)
    return click.exceptions.Exit(2)


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(sorted(RENDERERS)), default="text", show_default=True,
              help="How to render the report.")
@click.option("--findings", is_flag=True, help="Print the trace's findings (AMP5xx) instead of the report.")
@click.option("--output-format", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Findings format (with --findings), as in `ampcheck lint`.")
@click.option("--select", multiple=True, metavar="CODES", help="With --findings: only these codes or prefixes.")
@click.option("--exit-zero", is_flag=True, help="With --findings: exit 0 even when there are findings.")
def report(file: str, fmt: str, findings: bool, output_format: str, select: tuple[str, ...], exit_zero: bool) -> None:
    """Render the trace report FILE written by `ampcheck trace`."""
    from ampcheck.output import render
    from ampcheck.trace.report import TraceReport

    try:
        loaded = TraceReport.load(file)
    except ValueError as err:
        raise _fail(str(err))
    if not findings:
        sys.stdout.write(RENDERERS[fmt](loaded))
        return
    codes = tuple(part.strip() for value in select for part in value.split(",") if part.strip())
    try:
        found = loaded.findings(select=codes or None)
    except Exception as err:  # the promise is one line, never a traceback
        raise _fail(f"internal error: {type(err).__name__}: {err}")
    sys.stdout.write(render(found, output_format))
    raise click.exceptions.Exit(1 if found and not exit_zero else 0)
