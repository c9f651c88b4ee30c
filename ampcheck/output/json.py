"""A JSON list of findings in Ruff's shape (code, message, filename, location, end_location,
fix, url, plus `cell` for notebooks); with statistics, a list of per-code counts."""
from __future__ import annotations

import json
import os
from typing import Any, Sequence

from ampcheck.findings import Finding
from ampcheck.output.rules import info
from ampcheck.output.rules import statistics as count


def render(findings: Sequence[Finding], *, statistics: bool, fixed: int) -> str:
    if statistics:
        data: Any = [
            {"code": s.code, "name": s.name, "count": s.count, "fixable": s.fixable == s.count}
            for s in count(findings)
        ]
    else:
        data = [_item(f) for f in findings]
    return json.dumps(data, indent=2) + "\n"


def _item(f: Finding) -> dict[str, Any]:
    return {
        "cell": f.cell,
        "code": f.code,
        "end_location": {"column": f.end_col, "row": f.end_line},
        "filename": os.path.abspath(f.path),
        "fix": f.fix.to_json() if f.fix is not None else None,
        "location": {"column": f.col, "row": f.line},
        "message": f.message,
        "noqa_row": f.line,
        "url": info(f.code).url,
    }
