"""`ampcheck server`: the language server for editors (LSP over stdin/stdout)."""
from __future__ import annotations

import click

from ampcheck.commands import OneLineUsage, fail


@click.command(cls=OneLineUsage)
@click.option("--stdio", is_flag=True, help="Talk over stdin/stdout (the default; editors' clients often pass it).")
def server(stdio: bool) -> None:
    """Run the language server: diagnostics, fixes and rule docs in your editor."""
    try:
        from ampcheck.server.app import serve
    except ImportError as err:
        if (err.name or "").split(".")[0] not in ("pygls", "lsprotocol", "cattrs"):
            raise
        raise fail("the language server needs pygls: pip install 'ampcheck[server]'")
    serve()
