"""SARIF 2.1.0 (the format code-scanning services ingest): one run, the catalog's rules,
one result per finding with its region and, where the finding has one, its fix."""
from __future__ import annotations

import json
import urllib.parse
from pathlib import PurePath
from typing import Any, Sequence

from ampcheck import catalog
from ampcheck.version import __version__
from ampcheck.findings import Finding
from ampcheck.output.rules import info

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def render(findings: Sequence[Finding], *, statistics: bool, fixed: int) -> str:
    codes = sorted(set(catalog.load()) | {f.code for f in findings})
    index = {code: i for i, code in enumerate(codes)}
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "ampcheck",
                        "version": __version__,
                        "rules": [_rule(code) for code in codes],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, index[f.code]) for f in findings],
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


def _rule(code: str) -> dict[str, Any]:
    rule = info(code)
    doc = catalog.load().get(code)
    entry: dict[str, Any] = {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.name},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"docs": rule.url},
    }
    if rule.summary:
        entry["fullDescription"] = {"text": rule.summary}
    if doc is not None:
        entry["help"] = {"text": doc.body, "markdown": doc.body}
    return entry


def _uri(path: str) -> str:
    """A relative path stays a relative reference (to the folder ampcheck ran in); an
    absolute one becomes a file:// URI."""
    pure = PurePath(path)
    return pure.as_uri() if pure.is_absolute() else urllib.parse.quote(pure.as_posix())


def _region(line: int, col: int, end_line: int, end_col: int) -> dict[str, int]:
    return {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col}


def _result(f: Finding, rule_index: int) -> dict[str, Any]:
    artifact = {"uri": _uri(f.path)}
    physical: dict[str, Any] = {"artifactLocation": artifact}
    result: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": rule_index,
        "level": _LEVEL[info(f.code).severity],
        "message": {"text": f.message if f.cell is None else f"cell {f.cell}:{f.line}:{f.col}: {f.message}"},
        "locations": [{"physicalLocation": physical}],
    }
    if f.cell is not None:
        # Cell-relative lines are not lines of the notebook file: say where in the message
        # and properties, and give no region (or fix) that would point at the wrong place.
        result["properties"] = {"cell": f.cell, "line": f.line, "column": f.col}
        return result
    physical["region"] = _region(f.line, f.col, f.end_line, f.end_col)
    if f.fix is not None:
        result["fixes"] = [
            {
                "description": {"text": f.fix.message},
                "artifactChanges": [
                    {
                        "artifactLocation": artifact,
                        "replacements": [
                            {
                                "deletedRegion": _region(e.row, e.column, e.end_row, e.end_column),
                                "insertedContent": {"text": e.content},
                            }
                            for e in f.fix.edits
                        ],
                    }
                ],
            }
        ]
    return result
