"""`ampcheck lint` as users run it: exit codes, one-line errors, flags wired to the engine."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from ampcheck.cli import cli


def lint(*args: str):
    return CliRunner().invoke(cli, ["lint", *args])


def test_clean_code_exits_zero(copy_fixture):
    copy_fixture("clean_modern.py")
    result = lint("--no-cache")
    assert (result.exit_code, result.stdout) == (0, "All checks passed!\n")


def test_findings_exit_one_unless_exit_zero(copy_fixture):
    copy_fixture("train_deprecated.py")
    assert lint("--no-cache").exit_code == 1
    result = lint("--no-cache", "--exit-zero")
    assert result.exit_code == 0 and "Found 2 errors." in result.stdout


def test_a_missing_path_exits_two_after_linting_the_rest(copy_fixture):
    copy_fixture("train_deprecated.py")
    result = lint("--no-cache", "train_deprecated.py", "nope.py")
    assert result.exit_code == 2
    assert "train_deprecated.py:9:10: AMP402" in result.stdout
    assert result.stderr == "ampcheck: error: nope.py: no such file or folder\n"


def test_unreadable_files_are_warnings_and_do_not_change_the_exit_code(copy_fixture):
    copy_fixture("binary.py")
    copy_fixture("clean_modern.py")
    result = lint("--no-cache")
    assert result.exit_code == 0
    assert result.stderr == "ampcheck: warning: binary.py: binary file (contains NUL bytes), not Python source\n"


@pytest.mark.parametrize(
    "args, config, message",
    [
        (["--select", "AMP4,AMP777"], "", "ampcheck: error: unknown rule selector 'AMP777' in --select: it matches no rule\n"),
        ([], "colour = true\n", "ampcheck: error: unknown key 'colour' in [tool.ampcheck] of {root}/pyproject.toml\n"),
        ([], "select = [\"E501\"]\n", "ampcheck: error: unknown rule selector 'E501' in 'select' in {root}/pyproject.toml\n"),
    ],
)
def test_configuration_errors_are_one_line_and_exit_two(project, args, config, message):
    (project / "pyproject.toml").write_text("[tool.ampcheck]\n" + config)
    (project / "a.py").write_text("import torch\n")
    result = lint("--no-cache", *args)
    assert result.exit_code == 2
    assert result.stderr == message.format(root=project)
    assert result.stdout == ""


def test_selection_flags_reach_the_engine(copy_fixture):
    copy_fixture("train_deprecated.py")
    only = lint("--no-cache", "--select", "AMP401")
    assert "AMP401" in only.stdout and "AMP402" not in only.stdout
    ignored = lint("--no-cache", "--ignore", "AMP4")
    assert ignored.exit_code == 0
    per_file = lint("--no-cache", "--per-file-ignores", "train_*.py:AMP402")
    assert "AMP402" not in per_file.stdout and "AMP401" in per_file.stdout


def test_exclude_flags(copy_fixture, project):
    (project / "legacy").mkdir()
    copy_fixture("train_deprecated.py", "legacy/old.py")
    copy_fixture("clean_modern.py")
    assert lint("--no-cache", "--extend-exclude", "legacy").exit_code == 0
    assert lint("--no-cache").exit_code == 1


def test_output_format_json_and_statistics(copy_fixture):
    copy_fixture("train_deprecated.py")
    items = json.loads(lint("--no-cache", "--output-format", "json").stdout)
    assert [i["code"] for i in items] == ["AMP402", "AMP401"]
    stats = lint("--no-cache", "--statistics").stdout
    assert stats.splitlines()[0] == "1\tAMP401\t[*] deprecated-cuda-autocast"


def test_fix_reports_what_it_fixed(copy_fixture):
    path = copy_fixture("train_deprecated.py")
    result = lint("--no-cache", "--fix")
    assert (result.exit_code, result.stdout) == (0, "Found 2 errors (2 fixed, 0 remaining).\n")
    assert "torch.cuda.amp.autocast(" not in path.read_text()


def test_diff_prints_and_exits_one_when_something_would_change(copy_fixture):
    path = copy_fixture("train_deprecated.py")
    before = path.read_text()
    result = lint("--no-cache", "--diff")
    assert result.exit_code == 1
    assert result.stdout.startswith("--- train_deprecated.py\n+++ train_deprecated.py\n")
    assert result.stderr == "Would fix 2 errors.\n"
    assert path.read_text() == before


def test_the_warn_unused_ignores_flag(copy_fixture):
    copy_fixture("suppressed.py")
    assert "AMP002" in lint("--no-cache", "--warn-unused-ignores").stdout


def test_lint_never_imports_torch(copy_fixture):
    copy_fixture("train_deprecated.py")
    code = (
        "import sys\n"
        "from ampcheck.cli import main\n"
        "try:\n    main(['lint', '--no-cache', '.'])\n"
        "except SystemExit as exit:\n    assert exit.code == 1, exit.code\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "AMP401" in done.stdout


def test_python_dash_m_runs_the_same_command(copy_fixture):
    copy_fixture("clean_modern.py")
    done = subprocess.run([sys.executable, "-m", "ampcheck", "lint", "--no-cache"], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "All checks passed!\n")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--no-such-flag"], "ampcheck: error: No such option '--no-such-flag'.\n"),
        (["--jobs", "0"], "ampcheck: error: Invalid value for '--jobs' / '-j': 0 is not in the range x>=1.\n"),
    ],
)
def test_usage_mistakes_are_one_line_and_exit_two(project, args, message):
    result = lint(*args)
    assert (result.exit_code, result.stderr) == (2, message)
