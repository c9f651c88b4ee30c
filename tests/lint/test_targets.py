"""The oldest Python and torch a project declares: specifier lower bounds, requirement
strings, the `target-version` / `torch-version` values, and each file that may declare them."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ampcheck.declared import declared_targets, package_dirs, project_folder, torch_floor
from ampcheck.targets import MinorVersion, Targets, lower_bound, parse_target_version, parse_torch_version
from tests.paths import FIXTURES

COMPAT = FIXTURES / "compat"


@pytest.mark.parametrize(
    "specifiers, bound",
    [
        (">=3.12,<4", (3, 12)),
        ("~=3.12", (3, 12)),
        (">3.11", (3, 11)),  # 3.11.1 is above 3.11
        ("==3.12.*", (3, 12)),
        ("~=2.3.1", (2, 3)),
        (">=2.4.0a0", (2, 4)),
        ("==2.1.0+cu118", (2, 1)),
        (">=3.8, !=3.9.0, >=3.9", (3, 9)),  # the highest lower bound holds
        ("<3", None),
        ("!=2.0", None),
        ("", None),
    ],
)
def test_the_lower_bound_of_a_specifier_set_is_its_oldest_admitted_minor(specifiers, bound):
    assert lower_bound(specifiers) == (MinorVersion(*bound) if bound else None)


def test_a_malformed_specifier_is_a_value_error():
    with pytest.raises(ValueError, match="not a version specifier"):
        lower_bound(">=3.x")


@pytest.mark.parametrize(
    "requirement, floor",
    [
        ("torch>=2.2,<3", (2, 2)),
        ("torch==2.1.*", (2, 1)),
        ("torch~=2.3", (2, 3)),
        ("Torch (>=2.0) ; python_version >= '3.9'", (2, 0)),
        ("torch[opt-einsum]>=2.4", (2, 4)),
        ("torch", None),
        ("torch<3", None),
        ("torch @ https://download.pytorch.org/whl/torch-2.2.0.whl", None),
        ("torchvision>=0.17", None),
        ("not a requirement (", None),
    ],
)
def test_a_torch_requirement_declares_its_lower_bound(requirement, floor):
    assert torch_floor(requirement) == (MinorVersion(*floor) if floor else None)


def test_target_and_torch_version_values():
    assert parse_target_version("py312", "x") == (3, 12)
    assert parse_torch_version("2.2", "x") == (2, 2) and parse_torch_version("2.10.1", "x") == (2, 10)
    for bad in ("3.12", "py2", "py36", "py316", 312):
        with pytest.raises(ValueError, match="must be one of py37 ... py315"):
            parse_target_version(bad, "x")
    for bad in (2.2, "2", "v2.2", "latest"):
        with pytest.raises(ValueError, match='must be a torch version such as "2.2"'):
            parse_torch_version(bad, "x")


@pytest.mark.parametrize(
    "name, python, torch",
    [
        ("python312", (3, 12), (2, 4)),
        ("torch_pyproject", (3, 9), (2, 2)),  # dependencies >=2.2 and a dev extra ==2.5.1: the lowest
        ("torch_requirements", None, (2, 0)),  # requirements.txt >=2.0, requirements/docker.txt ==2.4.1
        ("torch_setup_py", None, (2, 3)),
        ("torch_setup_cfg", None, (2, 3)),
    ],
)
def test_each_kind_of_project_file_declares_the_oldest_versions(name, python, torch):
    declared = declared_targets(project_folder(COMPAT / name))
    assert declared == Targets(
        python=MinorVersion(*python) if python else None, torch=MinorVersion(*torch) if torch else None
    )


def test_the_project_folder_is_the_nearest_one_with_project_files(tmp_path: Path):
    shutil.copytree(COMPAT / "torch_setup_py", tmp_path / "repo")
    (tmp_path / "repo" / "detector" / "models").mkdir(parents=True)
    assert project_folder(tmp_path / "repo" / "detector" / "models") == tmp_path / "repo"


def test_the_search_stops_at_the_repository_root(tmp_path: Path):
    (tmp_path / "requirements.txt").write_text("torch>=1.8\n")  # outside the repository
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src").mkdir()
    assert project_folder(tmp_path / "repo" / "src") is None
    assert declared_targets(None) == Targets()


def test_unreadable_declarations_declare_nothing(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[project\nrequires-python = ">=3.12"\n')
    (tmp_path / "setup.py").write_text('install_requires = ["torch>=2.3"\n')  # does not parse
    assert declared_targets(tmp_path) == Targets()


@pytest.mark.parametrize(
    ("name", "text", "dirs"),
    [
        ("setup.py", 'setup(name="lab", package_dir={"lab": "src", "": "lib"})\n', {"lab": "src", "": "lib"}),
        ("pyproject.toml", '[tool.setuptools.package-dir]\nlab = "src/"\n', {"lab": "src"}),
        ("setup.cfg", "[options]\npackage_dir =\n    =src\n    lab = source\n", {"": "src", "lab": "source"}),
        ("setup.py", "setup(package_dir=get_package_dir())\n", {}),
        ("setup.py", 'setup(package_dir={"lab": "../elsewhere"})\n', {}),
    ],
)
def test_packaging_says_which_folder_holds_each_package(tmp_path: Path, name: str, text: str, dirs: dict[str, str]):
    (tmp_path / name).write_text(text)
    assert package_dirs(tmp_path) == dirs
