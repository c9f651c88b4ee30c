"""A real editor: headless Neovim (Debian's package; .ci/run installs it) starts `ampcheck
server` with the `vim.lsp.start_client` setup README shows, opens a buggy training script and
reads what it was told with `vim.diagnostic.get()`."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import FIXTURES
from tests.server.lsp import copy_project

NVIM = shutil.which("nvim")
INIT = FIXTURES / "server" / "nvim" / "init.lua"
# Wait (in Neovim) until both findings arrived, then write one "CODE line col" per diagnostic.
PROBE = """lua
local done = vim.wait(120000, function() return #vim.diagnostic.get(0) >= 2 end, 50)
local out = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out, string.format("%s %d %d %s", d.code, d.lnum, d.col, d.source))
end
if not done then table.insert(out, "timed out") end
vim.fn.writefile(out, vim.env.AMPCHECK_PROBE_OUT)
vim.cmd("qa!")
"""


@pytest.mark.slow
@pytest.mark.skipif(NVIM is None, reason="needs Debian's neovim package (.ci/run installs it)")
def test_neovim_shows_the_findings_of_a_buggy_training_script(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    out = tmp_path / "diagnostics.txt"
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",  # this ampcheck
        "AMPCHECK_PROBE_OUT": str(out),
        # Neovim's LSP log, shada and swap files go here, not to ~
        **{f"XDG_{kind}_HOME": str(tmp_path / kind.lower()) for kind in ("STATE", "CACHE", "DATA", "CONFIG")},
    }
    done = subprocess.run(
        [NVIM, "--headless", "-u", str(INIT), "train.py", "-c", PROBE],
        cwd=project, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(out.read_text().splitlines()) == ["AMP109 18 8 ampcheck", "AMP401 12 17 ampcheck"]


def test_readme_shows_the_setup_this_test_runs() -> None:
    setup = "\n".join(line for line in INIT.read_text().splitlines() if not line.startswith("--"))
    assert f"```lua\n{setup}\n```" in (FIXTURES.parent / "README.md").read_text()
