"""The five protocol bugs bench/mutation_recall.py injects into real code, injected into
this repository's own correct fixtures: each one must be reported within 3 lines."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.lint.helpers import lint_source
from tests.paths import FIXTURES, ROOT

sys.path.insert(0, str(ROOT / "bench"))
import mutation_recall  # noqa: E402  (bench scripts are run as files, not as a package)

CORRECT = [FIXTURES / "amp1xx" / name for name in ("clean_maybe_scaler_protocol.py", "clean_canonical.py")]


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.stem)
def test_the_correct_original_is_clean(path: Path):
    assert lint_source(path.read_text(), "AMP1", str(path)) == []


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.stem)
def test_every_injected_bug_is_reported_near_it(path: Path):
    mutants = list(mutation_recall.mutants(path.name, path.read_text()))
    assert {m.kind for m in mutants} == set(mutation_recall.KINDS)
    for m in mutants:
        lines = [f.line for f in lint_source(m.text, "AMP1", str(path))]
        assert any(m.first - mutation_recall.NEAR <= line <= m.last + mutation_recall.NEAR for line in lines), m.kind


def test_an_unscale_moved_after_the_clip_keeps_a_tab_indented_file_python():
    # a block indented with tabs (CenterCLIP's `main.py`): the moved line takes the clip's tabs
    source = (FIXTURES / "amp1xx" / "clean_canonical.py").read_text().replace("    ", "\t")
    [moved] = [m for m in mutation_recall.mutants("tabs.py", source) if m.kind == "unscale_after_clip"]
    compile(moved.text, "tabs.py", "exec")
    lines = [f.line for f in lint_source(moved.text, "AMP1", "tabs.py")]
    assert any(moved.first - mutation_recall.NEAR <= line <= moved.last + mutation_recall.NEAR for line in lines)


def test_an_update_dropped_on_a_skip_path_that_returns_is_reported_at_the_unscale_its_next_call_repeats():
    # a per-step method: unscale_, then on non-finite gradients `update()` and `return`; without
    # that update the next call's `unscale_`, above the dropped line, raises
    path = FIXTURES / "amp1xx" / "clean_skip_path_updates_before_returning.py"
    source = path.read_text()
    [skip] = [m for m in mutation_recall.mutants(path.name, source) if m.kind == "drop_update" and "return None" in m.text.splitlines()[m.first]]
    lines = [f.line for f in lint_source(skip.text, "AMP1", str(path))]
    assert any(line in skip.anchors and line < skip.first for line in lines)
