"""What a project declares about the Python and the torch it supports, read from its files.

The project folder is the nearest folder at or above the linted paths that holds a
pyproject.toml, setup.py, setup.cfg or requirements file, never above the repository root
(.git, .hg). From it:

- the oldest Python: the lower bound of `[project] requires-python` in pyproject.toml, the
  standard field that pip, Ruff and Black read too;
- the oldest torch: the lowest lower bound of every `torch` requirement in `[project]
  dependencies` and `optional-dependencies`, requirements*.txt in the folder and *.txt in
  its requirements/ folder, setup.py (its string literals, read with `ast`, never run) and
  setup.cfg (`install_requires`, `extras_require`). The lowest counts because each of these
  says the project works with that torch; a requirement with no lower bound (`torch`,
  `torch<3`) declares no oldest version and is skipped.

A file that cannot be read or parsed declares nothing: declarations only ever restrict
what ampcheck does, so reading too little keeps today's behaviour rather than failing the run.
"""
from __future__ import annotations

import ast
import configparser
import os
import re
import sys
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

from ampcheck.targets import MinorVersion, Targets, lower_bound

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

_REPOSITORY_MARKERS = (".git", ".hg")
_SETUP_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


def project_folder(start: Path) -> Optional[Path]:
    """The nearest folder at or above `start` with packaging or requirements files."""
    here = Path(os.path.abspath(start))
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        if any((folder / name).is_file() for name in _SETUP_FILES) or _requirement_files(folder):
            return folder
        if any((folder / m).exists() for m in _REPOSITORY_MARKERS):
            return None
    return None


def declared_targets(folder: Optional[Path]) -> Targets:
    if folder is None:
        return Targets()
    pyproject = _toml(folder / "pyproject.toml")
    project = pyproject.get("project", {}) if isinstance(pyproject.get("project"), dict) else {}
    return Targets(python=_requires_python(project), torch=_oldest(_torch_floors(folder, project)))


def _requires_python(project: dict[str, Any]) -> Optional[MinorVersion]:
    value = project.get("requires-python")
    if not isinstance(value, str):
        return None
    try:
        return lower_bound(value)
    except ValueError:
        return None


def _oldest(floors: Iterable[Optional[MinorVersion]]) -> Optional[MinorVersion]:
    found = [f for f in floors if f is not None]
    return min(found) if found else None


# A PEP 508 requirement's name, extras, version part and marker. Read with a pattern: the linter
# depends on libcst and click only.
_REQUIREMENT = re.compile(
    r"\s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*(?P<version>[^;]*?)\s*(?:;.*)?",
    re.DOTALL,
)


def torch_floor(requirement: str) -> Optional[MinorVersion]:
    """The lower bound of a PEP 508 requirement on torch; None for another package, no
    lower bound, a URL requirement, or a string that is not a requirement."""
    match = _REQUIREMENT.fullmatch(requirement)
    if match is None or re.sub(r"[-_.]+", "-", match.group("name")).lower() != "torch":
        return None
    version = match.group("version")
    if version.startswith("(") and version.endswith(")"):
        version = version[1:-1]
    if version.startswith("@"):
        return None
    try:
        return lower_bound(version)
    except ValueError:
        return None


def _torch_floors(folder: Path, project: dict[str, Any]) -> Iterator[Optional[MinorVersion]]:
    yield from map(torch_floor, _strings(project.get("dependencies")))
    extras = project.get("optional-dependencies")
    for group in extras.values() if isinstance(extras, dict) else ():
        yield from map(torch_floor, _strings(group))
    for path in _requirement_files(folder):
        yield from map(torch_floor, _requirement_lines(_text(path)))
    yield from map(torch_floor, _setup_py_strings(_text(folder / "setup.py")))
    yield from map(torch_floor, _setup_cfg_requirements(_text(folder / "setup.cfg")))


def package_dirs(folder: Path) -> dict[str, str]:
    """Where the project's packaging puts its packages: setuptools' `package_dir` in setup.py
    (a literal dict, read with `ast`, never run), `[tool.setuptools.package-dir]` in
    pyproject.toml and `package_dir` in setup.cfg's `[options]`, each a package name (`""`
    for the packages at the top) -> the folder below `folder` holding it
    (`package_dir={"vsrlab": "src"}`: `vsrlab.core.utils` is `src/core/utils.py`)."""
    found: dict[str, str] = {}
    table = _toml(folder / "pyproject.toml").get("tool", {})
    table = table.get("setuptools", {}) if isinstance(table, dict) else {}
    table = table.get("package-dir", {}) if isinstance(table, dict) else {}
    if isinstance(table, dict):
        found.update((k, v) for k, v in table.items() if isinstance(k, str) and isinstance(v, str))
    found.update(_setup_py_package_dir(_text(folder / "setup.py")))
    found.update(_setup_cfg_package_dir(_text(folder / "setup.cfg")))
    return {k: v.strip("/") for k, v in found.items() if v.strip("/") and not os.path.isabs(v) and ".." not in Path(v).parts}


def _setup_py_package_dir(text: str) -> Iterator[tuple[str, str]]:
    """The string pairs of a literal dict passed as `package_dir=` in setup.py."""
    tree = _parsed(text) if "package_dir" in text else None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.keyword) and node.arg == "package_dir" and isinstance(node.value, ast.Dict):
            for k, v in zip(node.value.keys, node.value.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and isinstance(v, ast.Constant) and isinstance(v.value, str):
                    yield k.value, v.value


def _setup_cfg_package_dir(text: str) -> Iterator[tuple[str, str]]:
    """`package_dir` of setup.cfg's `[options]`: `=src`, or one `name = folder` per line."""
    parser = _config(text) if "package_dir" in text else None
    if parser is not None and parser.has_option("options", "package_dir"):
        for line in parser.get("options", "package_dir").splitlines():
            name, sep, where = line.partition("=")
            if sep:
                yield name.strip(), where.strip()


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _requirement_files(folder: Path) -> list[Path]:
    found = sorted(folder.glob("requirements*.txt"))
    if (folder / "requirements").is_dir():
        found += sorted((folder / "requirements").glob("*.txt"))
    return [p for p in found if p.is_file()]


def _requirement_lines(text: str) -> Iterator[str]:
    """The requirements of a pip requirements file: continuations joined, comments, options
    (`-r`, `--index-url`, `-e`) and per-requirement options (`--hash=...`) dropped."""
    for line in text.replace("\\\n", "").splitlines():
        line = line.split(" #", 1)[0].split(" --", 1)[0].strip()
        if line and not line.startswith(("#", "-")):
            yield line


def _setup_py_strings(text: str) -> Iterator[str]:
    """Every string literal of setup.py: `install_requires` may be a literal list, a name
    bound to one, or a dict of extras; a string that is not a torch requirement is skipped."""
    tree = _parsed(text)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value


def _parsed(text: str) -> Optional[ast.AST]:
    """setup.py as a syntax tree (never run); None when empty or unparsable."""
    if not text:
        return None
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _config(text: str) -> Optional[configparser.ConfigParser]:
    """setup.cfg read; None when empty or unreadable."""
    if not text:
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return parser


def _setup_cfg_requirements(text: str) -> Iterator[str]:
    parser = _config(text)
    if parser is None:
        return
    values = []
    if parser.has_option("options", "install_requires"):
        values.append(parser.get("options", "install_requires"))
    if parser.has_section("options.extras_require"):
        values += [value for _, value in parser.items("options.extras_require")]
    for value in values:
        yield from (line for line in value.splitlines() if line.strip())


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
