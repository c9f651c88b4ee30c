"""Paths the tests share. Imported as `tests.paths` (several folders have a conftest.py,
so `from conftest import ...` would be ambiguous)."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SHARED = ROOT.parent / "shared"
