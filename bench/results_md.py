"""Keep each benchmark's tables in bench/RESULTS.md current without touching anyone else's
sections: a table lives between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`."""
from __future__ import annotations

from pathlib import Path


def splice(results: Path, table: str, text: str) -> None:
    """Replace this table's block in `results` (or append it) so reruns update in place."""
    begin, end = f"<!-- bench:{table} -->", f"<!-- /bench:{table} -->"
    block = f"{begin}\n{text}\n{end}"
    old = results.read_text() if results.exists() else ""
    if begin in old and end in old:
        head, rest = old.split(begin, 1)
        new = head + block + rest.split(end, 1)[1]
    else:
        new = old + ("\n" if old and not old.endswith("\n") else "") + "\n" + block + "\n"
    results.write_text(new)
