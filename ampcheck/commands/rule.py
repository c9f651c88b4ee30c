"""`ampcheck rule CODE` prints a rule's doc; `ampcheck rule --all` lists every rule."""
from __future__ import annotations

from typing import Optional

import click

from ampcheck import catalog
from ampcheck.commands import OneLineUsage, fail


def _table(docs: list[catalog.RuleDoc]) -> str:
    rows = [("code", "name", "severity", "fix", "source")]
    rows += [(d.code, d.name, d.severity, d.fix, d.source) for d in docs]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths)) + "  " + r[-1] for r in rows
    )


@click.command(cls=OneLineUsage)
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule as a table.")
def rule(code: Optional[str], show_all: bool) -> None:
    """Explain a rule (e.g. `ampcheck rule AMP401`), or list them all with --all."""
    if bool(code) == show_all:
        raise click.UsageError("give one rule code, or --all")
    try:
        docs = catalog.load()
    except catalog.CatalogError as exc:
        raise fail(f"broken rule catalog: {exc}")
    if show_all:
        click.echo(_table(list(docs.values())))
        return
    doc = docs.get(code.strip().upper())
    if doc is None:
        raise fail(f"unknown rule code '{code}' (see `ampcheck rule --all`)")
    click.echo(f"{doc.body}\nseverity: {doc.severity} · fix: {doc.fix} · source: {doc.source}")
