"""`ampcheck lint` in projects that declare their oldest Python and torch: AMP001 follows the
project's Python, the AMP40x fixes follow its torch, and `target-version` / `torch-version`
(config or flag) override what the project files say."""
from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ampcheck.cli import cli
from ampcheck.config import Overrides
from tests.paths import FIXTURES
from tests.shell.helpers import run

COMPAT = FIXTURES / "compat"


@pytest.fixture
def chdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder that is the working directory: no project file above it declares anything."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def copy_project(name: str, into: Path) -> Path:
    """A copy of fixtures/compat/<name> (its declaration files) with amp_apis.py beside them."""
    shutil.copytree(COMPAT / name, into, dirs_exist_ok=True)
    shutil.copyfile(COMPAT / "amp_apis.py", into / "amp_apis.py")
    return into


def found(paths: list[str], overrides: Overrides = Overrides(), **options) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in run(paths, overrides, cache=False, **options).findings]


# -- AMP001 follows the project's Python ---------------------------------------------------------
def pep695_project(root: Path, pyproject: str) -> Path:
    shutil.copyfile(COMPAT / "python312" / "train.py", root / "train.py")
    (root / "pyproject.toml").write_text(pyproject)
    return root


def test_pep695_code_of_a_python312_project_parses_and_its_amp_findings_are_reported(chdir):
    shutil.copytree(COMPAT / "python312", chdir, dirs_exist_ok=True)
    assert found(["train.py"]) == [("AMP101", 25)]


def test_the_same_code_in_a_python39_project_is_a_syntax_error(chdir):
    pep695_project(chdir, '[project]\nname = "x"\nrequires-python = ">=3.9"\n')
    assert found(["train.py"]) == [("AMP001", 7)]


def test_the_same_code_with_no_declared_python_is_a_syntax_error_as_before(chdir):
    pep695_project(chdir, '[project]\nname = "x"\n')
    assert found(["train.py"]) == [("AMP001", 7)]


def test_target_version_in_the_config_overrides_requires_python(chdir):
    pep695_project(chdir, '[project]\nname = "x"\nrequires-python = ">=3.12"\n\n[tool.ampcheck]\ntarget-version = "py311"\n')
    assert found(["train.py"]) == [("AMP001", 7)]


def test_the_target_version_flag_overrides_the_config(chdir):
    pep695_project(chdir, '[project]\nname = "x"\nrequires-python = ">=3.9"\n\n[tool.ampcheck]\ntarget-version = "py310"\n')
    assert found(["train.py"], Overrides(target_version="py312")) == [("AMP101", 25)]


def test_a_real_syntax_error_in_a_python312_project_is_reported_where_it_is(chdir):
    # CPython 3.11 stops at line 7 (`type Batch = ...`); libcst's grammar knows that line and
    # fails at the first token it cannot take, just after the missing colon of line 20
    shutil.copytree(COMPAT / "python312", chdir, dirs_exist_ok=True)
    text = (chdir / "train.py").read_text().replace("for inputs, targets in batches:", "for inputs, targets in batches")
    (chdir / "train.py").write_text(text)
    [finding] = run(["train.py"], cache=False).findings
    assert (finding.code, finding.line, finding.message) == ("AMP001", 21, "SyntaxError: invalid syntax")


def test_an_error_both_parsers_see_on_one_line_keeps_cpythons_message(chdir):
    (chdir / "pyproject.toml").write_text('[project]\nname = "x"\nrequires-python = ">=3.12"\n')
    (chdir / "b.py").write_text("x = = 1\n")
    [finding] = run(["b.py"], cache=False).findings
    assert (finding.line, finding.col, finding.message) == (1, 5, "SyntaxError: invalid syntax")


def test_a_notebook_cell_follows_the_projects_python(chdir):
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": ["type Pair[T] = tuple[T, T]\n", "x = 1"]}
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (chdir / "explore.ipynb").write_text(json.dumps(notebook))
    (chdir / "pyproject.toml").write_text('[project]\nname = "x"\nrequires-python = ">=3.12"\n')
    assert found(["explore.ipynb"]) == []
    assert found(["explore.ipynb"], Overrides(target_version="py311")) == [("AMP001", 1)]


# -- the AMP40x fixes follow the project's torch --------------------------------------------------
def torch_amp_names(path: Path) -> set[str]:
    """The torch.amp names a file uses: `torch.amp.X` and `from torch.amp import X`."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and ast.unparse(node.value) == "torch.amp":
            names.add(node.attr)
        elif isinstance(node, ast.ImportFrom) and node.module == "torch.amp":
            names.update(a.name for a in node.names)
    return names


@pytest.mark.parametrize(
    "name, available, left",
    [
        ("torch_pyproject", {"autocast"}, []),  # torch>=2.2
        ("torch_requirements", {"autocast"}, []),  # torch>=2.0
        # torch>=2.3: the scaler's call is spelled `torch.amp.GradScaler("cuda", ...)`, and its
        # import stays beside custom_fwd's (not in torch.amp before 2.4): reported, no fix
        ("torch_setup_py", {"autocast", "GradScaler"}, [("AMP402", 5)]),
        ("torch_override", {"autocast", "GradScaler", "custom_fwd", "custom_bwd"}, []),  # torch-version 2.4
    ],
)
def test_fix_spells_only_what_the_oldest_torch_has_and_is_idempotent(chdir, name, available, left):
    copy_project(name, chdir)
    first = run(["."], cache=False, fix=True)
    assert first.fixed > 0 and first.problems == []
    assert [(f.code, f.line) for f in first.findings] == left and all(f.fix is None for f in first.findings)
    fixed = chdir / "amp_apis.py"
    compile(fixed.read_text(), str(fixed), "exec")
    assert torch_amp_names(fixed) == available
    after = fixed.read_bytes()
    assert run(["."], cache=False, fix=True).fixed == 0
    assert fixed.read_bytes() == after


def test_fix_on_a_torch_2_2_project_keeps_the_scaler_and_custom_function_spellings(chdir):
    copy_project("torch_pyproject", chdir)
    run(["."], cache=False, fix=True)
    text = (chdir / "amp_apis.py").read_text()
    assert "from torch.cuda.amp import GradScaler, custom_bwd, custom_fwd" in text
    assert "scaler = GradScaler(init_scale=2.0**14)" in text and "@custom_fwd(cast_inputs=torch.float32)" in text
    assert 'with torch.amp.autocast("cuda", dtype=torch.float16):' in text
    assert 'with torch.amp.autocast("cpu"):' in text


def test_without_a_declared_torch_every_spelling_is_fixed_as_before(chdir):
    (chdir / "pyproject.toml").write_text('[project]\nname = "x"\n')
    shutil.copyfile(COMPAT / "amp_apis.py", chdir / "amp_apis.py")
    assert run(["."], cache=False, fix=True).fixed == 5
    assert torch_amp_names(chdir / "amp_apis.py") == {"autocast", "GradScaler", "custom_fwd", "custom_bwd"}


def test_the_torch_version_flag_overrides_the_declarations(chdir):
    copy_project("torch_override", chdir)  # config: torch-version = "2.4"
    assert [c for c, _ in found(["."], Overrides(torch_version="2.2"))] == ["AMP401", "AMP404"]
    assert [c for c, _ in found(["."])] == ["AMP403", "AMP403", "AMP402", "AMP401", "AMP404"]


def test_a_cached_result_is_not_replayed_for_another_oldest_torch(chdir):
    copy_project("torch_pyproject", chdir)
    assert len(run(["."], Overrides(torch_version="2.4")).findings) == 5
    assert len(run(["."]).findings) == 2


# -- one-line errors for bad values ---------------------------------------------------------------
@pytest.mark.parametrize(
    "args, table, message",
    [
        (["--target-version", "3.12"], "", "--target-version must be one of py37 ... py315, got '3.12'"),
        ([], 'target-version = "py399"', "'target-version' in"),
        (["--torch-version", "two"], "", "--torch-version must be a torch version such as \"2.2\""),
        ([], "torch-version = 2.2", "'torch-version' in"),
    ],
)
def test_a_bad_target_or_torch_version_is_one_line_and_exit_2(chdir, args, table, message):
    (chdir / "pyproject.toml").write_text(f'[project]\nname = "x"\n\n[tool.ampcheck]\n{table}\n')
    (chdir / "a.py").write_text("x = 1\n")
    result = CliRunner().invoke(cli, ["lint", "--no-cache", *args, "a.py"])
    assert result.exit_code == 2
    [line] = result.output.strip().splitlines()
    assert message in line
