"""AMP101-AMP110 on realistic training scripts: each fixture marks the lines that must be
reported with `# expect: CODE`; a fixture without marks must produce no AMP1xx finding at all."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.paths import FIXTURES
from tests.lint.helpers import lint_file

AMP1XX = FIXTURES / "amp1xx"
MARK = re.compile(r"#\s*expect:\s*(AMP1\d\d(?:\s*,\s*AMP1\d\d)*)")
FILES = sorted(p for p in AMP1XX.glob("*.py") if not p.name.startswith("model_"))


def _expected(path: Path) -> set[tuple[str, int]]:
    out = set()
    for i, line in enumerate(path.read_text().splitlines(), start=1):
        m = MARK.search(line)
        if m:
            out |= {(code.strip(), i) for code in m.group(1).split(",")}
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_fixture_reports_exactly_the_marked_lines(path: Path):
    found = {(f.code, f.line) for f in lint_file(path, select="AMP1")}
    assert found == _expected(path)


@pytest.mark.parametrize("code", [f"AMP1{n:02d}" for n in range(1, 11)])
def test_every_rule_has_true_positives_in_three_styles(code: str):
    styles = {p.stem.split("_", 1)[1] for p in FILES if p.stem.startswith(code.lower() + "_") and _expected(p)}
    assert {"script", "trainer", "helper"} <= styles


def test_clean_fixtures_cover_every_catalog_trap():
    clean = {p.stem for p in FILES if not _expected(p)}
    for trap in (
        "clean_nanogpt_ctx", "clean_accumulation", "clean_gan", "clean_native_scaler", "clean_accelerate",
        "clean_imported_helper", "clean_disabled_scaler", "clean_autocast_disabled_subregion", "clean_frameworks",
        "clean_optim_wrapper",
    ):
        assert trap in clean


def test_maybe_enabled_scaler_says_when_it_applies():
    (f,) = lint_file(AMP1XX / "amp101_trainer.py", select="AMP101")
    assert f.message.startswith("When the scaler is enabled")
    (g,) = lint_file(AMP1XX / "amp101_script.py", select="AMP101")
    assert "When the scaler is enabled" not in g.message and "scaler.step(optimizer)" in g.message


def test_scaler_built_from_unpacked_configuration_may_be_off():
    (f,) = lint_file(AMP1XX / "amp109_scaler_from_configuration_trainer.py", select="AMP109")
    assert f.message.startswith("When the scaler is enabled")
