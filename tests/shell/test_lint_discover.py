"""Which files `ampcheck lint` looks at: .gitignore (nested, negated), excludes, environments,
explicit paths, and one clear line for each path it cannot follow."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ampcheck.config import Overrides, load_settings
from ampcheck.lint.discover import discover


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def found(root: Path, paths=(".",), overrides: Overrides = Overrides()) -> list[str]:
    old = os.getcwd()
    os.chdir(root)
    try:
        return discover(list(paths), load_settings(list(paths), overrides)).files
    finally:
        os.chdir(old)


def test_python_files_and_notebooks_are_found_in_name_order(tmp_path):
    tree(tmp_path, {"b.py": "", "a.ipynb": "{}", "pkg/c.pyi": "", "notes.txt": "", "data.json": ""})
    assert found(tmp_path) == ["a.ipynb", "b.py", "pkg/c.pyi"]


def test_gitignore_is_honoured_with_nested_files_and_negation(tmp_path):
    tree(
        tmp_path,
        {
            ".gitignore": "generated/\n*_tmp.py\n/top_only.py\n",
            "generated/model.py": "",
            "train_tmp.py": "",
            "top_only.py": "",
            "sub/top_only.py": "",
            "sub/.gitignore": "*.py\n!keep.py\n",
            "sub/drop.py": "",
            "sub/keep.py": "",
            "sub/deeper/also_dropped.py": "",
            "main.py": "",
        },
    )
    assert found(tmp_path) == ["main.py", "sub/keep.py"]


def test_gitignore_agrees_with_git_check_ignore(tmp_path):
    files = {
        ".gitignore": "*.py\n!src/**/*.py\nsrc/vendor/\nlogs/**/debug.py\n[ab]x.py\n",
        "run.py": "",
        "src/pkg/mod.py": "",
        "src/vendor/lib.py": "",
        "logs/2024/x/debug.py": "",
        "ax.py": "",
        "src/cx.py": "",
    }
    tree(tmp_path, files)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    names = [n for n in files if n.endswith(".py")]
    check = subprocess.run(
        ["git", "check-ignore", "--no-index", *names], cwd=tmp_path, capture_output=True, text=True
    )
    ignored_by_git = set(check.stdout.split())
    assert set(found(tmp_path)) == set(names) - ignored_by_git


def test_gitignore_of_parent_folders_applies_inside_a_repository(tmp_path):
    tree(tmp_path, {".git/HEAD": "", ".gitignore": "scratch_*.py\n", "src/scratch_1.py": "", "src/ok.py": ""})
    assert found(tmp_path / "src") == ["ok.py"]


def test_default_excludes_and_virtualenvs_are_skipped(tmp_path):
    tree(
        tmp_path,
        {
            "train.py": "",
            "build/lib/train.py": "",
            "node_modules/x.py": "",
            ".venv/lib/site.py": "",
            "__pycache__/x.py": "",
            "myenv/pyvenv.cfg": "home = /usr/bin\n",
            "myenv/lib/python3.11/site-packages/torch/amp.py": "",
            "conda_env/conda-meta/history": "",
            "conda_env/lib/mod.py": "",
        },
    )
    assert found(tmp_path) == ["train.py"]


def test_exclude_and_extend_exclude(tmp_path):
    tree(tmp_path, {"a/x.py": "", "b/y.py": "", "build/z.py": "", "c/data/raw/w.py": ""})
    (tmp_path / "pyproject.toml").write_text('[tool.ampcheck]\nextend-exclude = ["a", "c/**/raw"]\n')
    assert found(tmp_path) == ["b/y.py"]
    assert found(tmp_path, overrides=Overrides(exclude=("b",))) == ["build/z.py"]


def test_a_path_given_explicitly_is_always_linted(tmp_path):
    tree(tmp_path, {".git/HEAD": "", ".gitignore": "*.py\n", "build/gen.py": "", "notes.txt": ""})
    assert found(tmp_path, ["build/gen.py", "notes.txt"]) == ["build/gen.py", "notes.txt"]
    assert found(tmp_path, ["build"]) == []  # a folder named explicitly is walked; its files still filtered


def test_a_symlink_loop_is_one_line_and_the_walk_goes_on(tmp_path):
    tree(tmp_path, {"pkg/train.py": ""})
    os.symlink(tmp_path / "pkg", tmp_path / "pkg" / "again")
    os.symlink("loop_b.py", tmp_path / "loop_a.py")
    os.symlink("loop_a.py", tmp_path / "loop_b.py")
    os.symlink("missing.py", tmp_path / "dangling.py")
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = discover(["."], load_settings(["."]))
    finally:
        os.chdir(old)
    assert result.files == ["pkg/train.py"]
    assert result.problems == [
        "dangling.py: broken symlink (its target does not exist); skipped",
        "loop_a.py: symlink loop; skipped",
        "loop_b.py: symlink loop; skipped",
        f"pkg/again: symlink loop (points back to {os.path.realpath(tmp_path / 'pkg')}); not followed",
    ]


def test_a_missing_named_path_is_reported_separately(tmp_path):
    tree(tmp_path, {"ok.py": ""})
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = discover(["ok.py", "nope.py"], load_settings(["."]))
    finally:
        os.chdir(old)
    assert result.files == ["ok.py"]
    assert result.missing == ["nope.py"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_an_unreadable_folder_is_one_line(tmp_path):
    tree(tmp_path, {"locked/a.py": "", "b.py": ""})
    (tmp_path / "locked").chmod(0)
    try:
        old = os.getcwd()
        os.chdir(tmp_path)
        result = discover(["."], load_settings(["."]))
        os.chdir(old)
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert result.files == ["b.py"]
    assert result.problems and result.problems[0].startswith("locked: cannot read folder")


def test_force_exclude_applies_excludes_to_named_paths(tmp_path):
    tree(tmp_path, {"vendor/lib/old.py": "", "build/gen.py": "", "src/ok.py": ""})
    (tmp_path / "pyproject.toml").write_text('[tool.ampcheck]\nextend-exclude = ["vendor"]\nforce-exclude = true\n')
    named = ["vendor/lib/old.py", "build/gen.py", "src/ok.py"]
    assert found(tmp_path, named) == ["src/ok.py"]
    assert found(tmp_path, named, Overrides(force_exclude=False)) == named


_SEGMENTS = ["a", "b", "c.py", "*", "*.py", "**", "?.py", "[ab]", "[!a]*"]
_pattern = st.builds(
    lambda bang, lead, parts, trail: ("!" if bang else "") + ("/" if lead else "") + "/".join(parts) + ("/" if trail else ""),
    st.booleans(), st.booleans(), st.lists(st.sampled_from(_SEGMENTS), min_size=1, max_size=3), st.booleans(),
)
_folders = ["", "a", "b", "a/b", "b/a", "a/a"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ignores=st.dictionaries(st.sampled_from(_folders), st.lists(_pattern, min_size=1, max_size=4), min_size=1, max_size=3)
)
def test_gitignore_matching_agrees_with_git_on_generated_trees(tmp_path_factory, ignores):
    root = tmp_path_factory.mktemp("repo")
    files = {f"{folder}/{name}".lstrip("/"): "" for folder in _folders for name in ("a.py", "b.py", "c.py", "x.py")}
    files.update({f"{folder}/.gitignore".lstrip("/"): "\n".join(pats) + "\n" for folder, pats in ignores.items()})
    tree(root, files)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    listed = subprocess.run(
        ["git", "-c", "core.excludesFile=/dev/null", "ls-files", "--others", "--exclude-standard"],
        cwd=root, capture_output=True, text=True, check=True,
    ).stdout.split()
    expected = sorted(p for p in listed if p.endswith(".py"))
    assert sorted(found(root, overrides=Overrides(exclude=()))) == expected, ignores


def test_the_repositorys_info_exclude_is_honoured_below_gitignore(tmp_path):
    tree(
        tmp_path,
        {".git/info/exclude": "local_*.py\n", ".gitignore": "!local_keep.py\n", "local_a.py": "",
         "local_keep.py": "", "b.py": "", "sub/local_c.py": "", "sub/d.py": ""},
    )
    assert found(tmp_path) == ["b.py", "local_keep.py", "sub/d.py"]
    assert found(tmp_path, ["sub"]) == ["sub/d.py"]


def test_a_named_symlink_loop_is_a_problem_not_a_missing_path(tmp_path):
    os.symlink("self.py", tmp_path / "self.py")
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = discover(["self.py"], load_settings(["."]))
    finally:
        os.chdir(old)
    assert (result.files, result.missing, result.problems) == ([], [], ["self.py: symlink loop; skipped"])
