"""Inputs that could stall a run: a named pipe is never opened, and a file with more Python
than `max-file-size` is skipped with one warning line while the rest of the run goes on."""
from __future__ import annotations

import json
import os
import time

import pytest

from ampcheck.config import ConfigError, Overrides
from tests.shell.helpers import SHELL, run

TABLE = "generated_scale_table.py"


def test_a_named_pipe_in_a_linted_folder_is_skipped_with_one_line(copy_fixture, project):
    copy_fixture("train_deprecated.py")
    os.mkfifo(project / "pipe.py")
    result = run(["."], cache=False)  # a pipe that were opened would block here forever
    assert result.problems == ["pipe.py: a named pipe, not a regular file; skipped"]
    assert {f.path for f in result.findings} == {"train_deprecated.py"}


def test_a_named_pipe_named_on_the_command_line_is_skipped(project):
    os.mkfifo(project / "pipe.py")
    os.symlink("pipe.py", project / "link.py")
    result = run(["pipe.py", "link.py"], cache=False)
    assert result.problems == [
        "pipe.py: a named pipe, not a regular file; skipped",
        "link.py: a named pipe, not a regular file; skipped",
    ]
    assert (result.findings, result.missing) == ([], [])


def test_reading_a_path_that_became_a_pipe_does_not_block(project):
    from ampcheck.lint.source import SourceError, read_source

    os.mkfifo(project / "late.py")
    with pytest.raises(SourceError, match="late.py: a named pipe, not a regular file; skipped"):
        read_source(project / "late.py")


def test_a_file_over_max_file_size_is_skipped_and_the_run_goes_on(copy_fixture, project):
    copy_fixture(TABLE)
    copy_fixture("train_deprecated.py")
    size = (SHELL / TABLE).stat().st_size
    result = run(["."], Overrides(max_file_size=str(size - 1)), cache=False)
    assert result.problems == [
        f"{TABLE}: {size:,} bytes of Python is over max-file-size ({size - 1:,} bytes); skipped "
        "(raise it with --max-file-size or in [tool.ampcheck])"
    ]
    assert {f.path for f in result.findings} == {"train_deprecated.py"}


def test_max_file_size_comes_from_the_config_and_zero_means_no_limit(copy_fixture, project):
    copy_fixture(TABLE)
    (project / "pyproject.toml").write_text('[tool.ampcheck]\nmax-file-size = "1KiB"\n')
    assert len(run(["."], cache=False).problems) == 1
    assert run(["."], Overrides(max_file_size="0"), cache=False).problems == []


def test_a_bad_max_file_size_is_a_config_error(project):
    (project / "pyproject.toml").write_text('[tool.ampcheck]\nmax-file-size = "lots"\n')
    with pytest.raises(ConfigError, match="'max-file-size' in .* must be a size"):
        run(["."])


def test_a_huge_generated_literal_is_skipped_without_parsing_it(project):
    rows = ", ".join(f"({i}, 'x{i}', {i}.5)" for i in range(150_000))  # 4 MiB on one line
    (project / "table.py").write_text(f"from torch.cuda.amp import GradScaler\nROWS = [{rows}]\n")
    start = time.perf_counter()
    result = run(["table.py"], cache=False)
    assert time.perf_counter() - start < 5  # libcst would take a minute on it
    assert result.problems[0].startswith("table.py: 4.1 MiB of Python") and "over max-file-size (2.0 MiB)" in result.problems[0]


def test_a_notebooks_outputs_do_not_count_towards_its_size(project):
    cell = {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": "import torch\n",
            "outputs": [{"output_type": "stream", "name": "stdout", "text": "x" * 50_000}]}
    (project / "nb.ipynb").write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert run(["nb.ipynb"], Overrides(max_file_size="10KB"), cache=False).problems == []
