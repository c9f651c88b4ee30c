"""A set of exclude patterns (ampcheck/lint/globs.py) matches a path exactly when one of its
patterns does: matching them as one expression is an optimisation only."""
from __future__ import annotations

import pytest

from ampcheck.config import DEFAULT_EXCLUDE
from ampcheck.lint.globs import Glob, GlobSet

PATTERNS = [*DEFAULT_EXCLUDE, "docs/", "/top.py", "src/**/gen_*.py", "**/fixtures/*", "a[!b]c", "*.ipynb", "data?/"]
PATHS = [
    ".git", "a/.git", "venv", "x/venv/lib.py", "build", "build/x.py", "docs", "docs/conf.py", "top.py", "a/top.py",
    "src/gen_a.py", "src/x/y/gen_b.py", "src/x/gen.py", "fixtures/a.py", "t/fixtures/a.py", "t/fixtures/b/c.py",
    "abc", "acc", "x/adc", "n.ipynb", "data1", "data1/f.py", "data12", "train.py", "a/b/c/d.py", "node_modules/x.js",
]


@pytest.mark.parametrize("is_dir", [True, False])
def test_a_set_of_globs_matches_what_any_of_its_globs_matches(is_dir: bool) -> None:
    globs = [Glob(p) for p in PATTERNS]
    found = GlobSet(globs)
    assert [found.matches(p, is_dir) for p in PATHS] == [any(g.matches(p, is_dir) for g in globs) for p in PATHS]
    assert any(found.matches(p, is_dir) for p in PATHS) and not all(found.matches(p, is_dir) for p in PATHS)


def test_an_empty_set_matches_nothing() -> None:
    assert not GlobSet([]).matches("a.py", False)
