"""Shared test paths. Tests use the real files under fixtures/."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SHARED = ROOT.parent / "shared"


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES
