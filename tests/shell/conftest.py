"""Fixtures for the lint shell's tests: a scratch project holding copies of fixtures/shell files."""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable, Iterator, Optional

import pytest

from tests.shell.helpers import SHELL


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """An empty project folder that is also the working directory."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scratch'\n\n[tool.ampcheck]\n")
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)


@pytest.fixture
def copy_fixture(project: Path) -> Callable[..., Path]:
    def copy(name: str, as_name: Optional[str] = None) -> Path:
        target = project / (as_name or name)
        shutil.copyfile(SHELL / name, target)
        return target

    return copy
