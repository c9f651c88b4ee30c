"""Autocast regions: each fixture marks statements with `# region: DEVICE DTYPE ENABLED`
(the innermost region covering the statement) or `# region: none`."""
from __future__ import annotations

import re
from pathlib import Path

import libcst as cst

from ampcheck.lint.model import FileModel
from tests.paths import FIXTURES

MARK = re.compile(r"#\s*region:\s*(.+?)\s*$")


def _expected(path: Path) -> dict[int, str]:
    return {
        i: m.group(1)
        for i, line in enumerate(path.read_text().splitlines(), start=1)
        if (m := MARK.search(line))
    }


def _observed(model: FileModel, lines: set[int]) -> dict[int, str]:
    out: dict[int, str] = {}
    for node in _statements(model):
        line = model.range(node).start.line
        if line in lines and line not in out:
            r = model.regions.enclosing(node)
            out[line] = "none" if r is None else f"{r.device} {r.dtype} {r.enabled}"
    return out


def _statements(model: FileModel) -> list[cst.SimpleStatementLine]:
    return [n for n in model.parents if isinstance(n, cst.SimpleStatementLine)]


def _check(name: str) -> None:
    path = FIXTURES / "amp3xx" / name
    model = FileModel(str(path), path.read_text())
    expected = _expected(path)
    assert _observed(model, set(expected)) == expected


def test_manager_stored_in_a_maybe_nullcontext_variable_is_a_maybe_region() -> None:
    _check("regions_nanogpt_ctx.py")


def test_every_spelling_alias_nesting_decorator_partial_and_one_level_of_calls_opens_a_region() -> None:
    _check("regions_spellings.py")


def test_active_ignores_a_certainly_disabled_region_but_keeps_a_maybe_one() -> None:
    path = FIXTURES / "amp3xx" / "regions_spellings.py"
    model = FileModel(str(path), path.read_text())
    by_line = {model.range(n).start.line: n for n in _statements(model)}
    disabled = next(l for l, t in enumerate(path.read_text().splitlines(), 1) if "ref = model(x.float())" in t)
    maybe = next(l for l, t in enumerate(path.read_text().splitlines(), 1) if "loss = F.cross_entropy" in t)
    assert model.regions.enclosing(by_line[disabled]).enabled is False
    assert model.regions.active(by_line[disabled]) is None
    assert model.regions.active(by_line[maybe]).enabled is None
