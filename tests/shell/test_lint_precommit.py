"""The real pre-commit runs this repository's hooks (`pre-commit try-repo`) in a scratch git
repository: the `ampcheck` hook fails on a file with deprecated AMP calls, `ampcheck-fix`
rewrites it, and then the `ampcheck` hook passes."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT
from tests.shell.helpers import SHELL

pytestmark = pytest.mark.slow


def pre_commit(repo: Path, env: dict[str, str], hook: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, "--all-files", "--color", "never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_precommit_hook_fails_then_passes_after_the_fix_hook(tmp_path):
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "project"
    repo.mkdir()
    shutil.copyfile(SHELL / "train_deprecated.py", repo / "train.py")
    shutil.copyfile(SHELL / "finetune.ipynb", repo / "finetune.ipynb")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "ampcheck tests",
        "GIT_AUTHOR_EMAIL": "tests@ampcheck.invalid",
        "GIT_COMMITTER_NAME": "ampcheck tests",
        "GIT_COMMITTER_EMAIL": "tests@ampcheck.invalid",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "add", "train.py", "finetune.ipynb"], cwd=repo, check=True, env=env)

    failing = pre_commit(repo, env, "ampcheck")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "train.py:17:18: AMP401" in failing.stdout
    assert "finetune.ipynb:cell 5:4:10: AMP401" in failing.stdout

    fixing = pre_commit(repo, env, "ampcheck-fix")
    assert fixing.returncode == 1, fixing.stdout + fixing.stderr  # files were modified
    assert "files were modified by this hook" in fixing.stdout
    assert 'torch.amp.autocast("cuda", enabled=device == "cuda")' in (repo / "train.py").read_text()

    subprocess.run(["git", "add", "-u"], cwd=repo, check=True, env=env)
    passing = pre_commit(repo, env, "ampcheck")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout
