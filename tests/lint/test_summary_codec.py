"""Module summaries survive the disk: written to JSON and read back, they are the same data
(the codec is derived from the dataclass fields, so every field is covered)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ampcheck.lint.model import FileModel
from ampcheck.lint.program import ModuleSummary
from tests.paths import FIXTURES

FILES = sorted((FIXTURES / "amp1xx").glob("*.py"))[:40] + sorted((FIXTURES / "projects").rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_a_summary_reads_back_as_what_was_written(path: Path):
    summary = FileModel(str(path), path.read_text()).summary
    data = summary.to_json()
    again = ModuleSummary.from_json(json.loads(json.dumps(data)))
    assert again.to_json() == data
    assert set(again.functions) == set(summary.functions)
    for key, fn in summary.functions.items():
        assert [(o.kind, o.text, o.callee, o.args, o.kwargs) for o in fn.ops] == [
            (o.kind, o.text, o.callee, o.args, o.kwargs) for o in again.functions[key].ops
        ]


def test_ops_under_one_condition_share_one_guard_after_reading():
    path = FIXTURES / "amp1xx" / "clean_accumulation.py"
    again = ModuleSummary.from_json(FileModel(str(path), path.read_text()).summary.to_json())
    guards = [g for fn in again.functions.values() for o in fn.ops for g in o.guards]
    by_stmt: dict[tuple, set[int]] = {}
    for g in guards:
        by_stmt.setdefault((g.stmt, g.branch), set()).add(id(g))
    assert guards and all(len(ids) == 1 for ids in by_stmt.values())
