"""`ampcheck lint --timings`: where a run spends its time, per phase, and what it did with its
files, on stderr after the report (never mixed into JSON or SARIF on stdout)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ampcheck.lint.timings import Count, Phase
from tests.paths import FIXTURES

# brains/__init__.py, brains/core.py, recipes/{clipped,hooked,separation}.py; clipped.py and
# the package's __init__ name nothing of AMP, so the pre-filter skips them.
BRAIN_RECIPES = FIXTURES / "projects" / "brain_recipes"


def _lint(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ampcheck", "lint", *args], cwd=root, capture_output=True, text=True, timeout=120,
    )


def _counts(stderr: str) -> dict[str, int]:
    found = {}
    for what in Count:
        m = re.search(rf"^  {re.escape(what.value)}\s+(\d+)$", stderr, re.M)
        assert m is not None, f"{what.value!r} missing from:\n{stderr}"
        found[what.name] = int(m.group(1))
    return found


@pytest.fixture
def brain_recipes(tmp_path: Path) -> Path:
    root = tmp_path / "brain_recipes"
    shutil.copytree(BRAIN_RECIPES, root)
    return root


def test_every_phase_is_shown_after_the_report(brain_recipes: Path):
    done = _lint(brain_recipes, "--no-cache", "--timings", "--jobs", "1")
    assert done.returncode == 1 and "Found 2 errors." in done.stdout
    assert "timings" not in done.stdout
    assert done.stderr.startswith("ampcheck timings: ")
    for phase in Phase:
        assert re.search(rf"^  {re.escape(phase.value)}\s+\d+\.\d{{3}}\s+\d+\.\d%$", done.stderr, re.M), phase


def test_counts_say_what_happened_to_each_file_of_a_cold_run(brain_recipes: Path):
    counts = _counts(_lint(brain_recipes, "--no-cache", "--timings", "--jobs", "1").stderr)
    assert counts["FOUND"] == 5
    assert counts["CACHE_HITS"] == 0
    assert counts["PREFILTERED"] == 2  # recipes/clipped.py, brains/__init__.py
    assert counts["PARSED"] == 3
    # brains/__init__.py re-exports the base classes: read, never linted past the pre-filter.
    # brains/core.py is linted first: the two recipes that import it through the package
    # (its callers) are read for their summaries then, and so is recipes/clipped.py, which
    # names a class of core.py (`from brains.core import ClippingBrain`) and may build one;
    # core.py is not parsed again.
    assert counts["SUMMARY_PARSED"] == 4


def test_a_warm_run_replays_every_file_and_parses_none(brain_recipes: Path):
    _lint(brain_recipes, "--timings")
    counts = _counts(_lint(brain_recipes, "--timings").stderr)
    assert counts["FOUND"] == 5
    assert counts["CACHE_HITS"] == 5
    assert counts["PARSED"] == counts["SUMMARY_PARSED"] == 0


def test_timings_never_mix_into_json_on_stdout(brain_recipes: Path):
    done = _lint(brain_recipes, "--no-cache", "--timings", "--output-format", "json")
    assert [f["code"] for f in json.loads(done.stdout)] == ["AMP102", "AMP104"]
    assert "parsed for findings" in done.stderr


def test_a_parallel_run_sums_its_workers(brain_recipes: Path):
    done = _lint(brain_recipes, "--no-cache", "--timings", "--jobs", "2")
    assert "summed over 2 worker processes" in done.stderr.splitlines()[0]
    counts = _counts(done.stderr)
    assert (counts["FOUND"], counts["PREFILTERED"], counts["PARSED"]) == (5, 2, 3)


def test_without_the_flag_stderr_stays_empty(brain_recipes: Path):
    assert _lint(brain_recipes, "--no-cache").stderr == ""
