"""One module per CLI subcommand; thin wrappers that parse options and call the library.

Every user-visible error is one `ampcheck: error:` line with exit status 2, whether the
command is run through `ampcheck.cli.main` or invoked directly (click's test runner).
"""
from __future__ import annotations

from typing import Any

import click


def fail(message: str) -> click.exceptions.Exit:
    """Print one error line; the caller raises the returned exit (status 2)."""
    click.echo(f"ampcheck: error: {message}", err=True)
    return click.exceptions.Exit(2)


class OneLineUsage(click.Command):
    """Usage mistakes (an unknown flag, a bad value) as one error line instead of click's usage block."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as err:
            raise fail(err.format_message()) from None
