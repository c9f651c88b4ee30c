"""Helpers for the lint shell's tests."""
from __future__ import annotations

from pathlib import Path

from ampcheck.config import Overrides, load_settings
from ampcheck.lint.engine import LintResult, Options, lint_paths

SHELL = Path(__file__).resolve().parents[2] / "fixtures" / "shell"


def run(paths: list[str], overrides: Overrides = Overrides(), **options) -> LintResult:
    """`ampcheck lint` as a library call, with settings resolved as the CLI resolves them."""
    return lint_paths(paths, load_settings(paths, overrides), Options(**options))
