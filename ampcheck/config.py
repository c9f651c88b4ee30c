"""`[tool.ampcheck]` configuration: found by walking up from the linted paths, merged with CLI flags.

Settings are resolved once per run (from the nearest pyproject.toml above the paths' common
directory that has a `[tool.ampcheck]` table, or from `--config FILE`) and validated eagerly:
an unknown key, a malformed value or a selector that names no rule is a `ConfigError` with
one line naming it, so a typo never silently disables a rule.

`target-version` and `torch-version` name the oldest Python and torch the project supports;
without them the project's own declarations count (requires-python, its torch requirements:
see ampcheck.declared), and without those ampcheck assumes nothing, as before they existed.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

from ampcheck.declared import declared_targets, project_folder
from ampcheck.lint.globs import Glob, GlobSet
from ampcheck.targets import MinorVersion, Targets, parse_target_version, parse_torch_version

SYNTAX_ERROR = "AMP001"
UNUSED_SUPPRESSION = "AMP002"

# Directories never worth linting; `exclude` replaces this list, `extend-exclude` adds to it.
DEFAULT_EXCLUDE = (
    ".ampcheck_cache",
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".hypothesis",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pycache__",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)

KEYS = (
    "select",
    "ignore",
    "extend-select",
    "per-file-ignores",
    "exclude",
    "extend-exclude",
    "warn-unused-ignores",
    "force-exclude",
    "max-file-size",
    "target-version",
    "torch-version",
)

# Files with more Python than this are skipped with a warning: libcst parses 3-14 s/MB here
# (a 10 MB generated literal took minutes) and holds the GIL meanwhile, so no timer can stop
# it. 2 MiB keeps the largest hand-written modules of torch, timm and transformers (1.4 MB).
DEFAULT_MAX_FILE_SIZE = 2 * 1024 * 1024
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMG]i?B|B)?\s*", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "kib": 2**10, "mib": 2**20, "gib": 2**30}

_SELECTOR = re.compile(r"ALL|AMP[0-9]{0,3}")


class ConfigError(Exception):
    """A configuration problem; `str(err)` is the one line shown to the user."""


def known_codes() -> frozenset[str]:
    """Every code a user may name: the rule docs plus the syntax-error pseudo-rule."""
    from ampcheck import catalog

    return frozenset(catalog.load()) | {SYNTAX_ERROR}


def default_codes() -> frozenset[str]:
    """The codes a run selects when its configuration selects nothing: every code but the
    rules whose docs say `default: off`."""
    from ampcheck import catalog

    return frozenset(code for code, doc in catalog.load().items() if doc.default) | {SYNTAX_ERROR}


def expand(selectors: Iterable[str], known: frozenset[str], where: str) -> frozenset[str]:
    """Codes matched by `ALL`, a full code or a code prefix (`AMP4`, `AMP10`)."""
    codes: set[str] = set()
    for sel in selectors:
        if not _SELECTOR.fullmatch(sel):
            raise ConfigError(f"unknown rule selector {sel!r} in {where}")
        matched = known if sel == "ALL" else {c for c in known if c.startswith(sel)}
        if not matched:
            raise ConfigError(f"unknown rule selector {sel!r} in {where}: it matches no rule")
        codes |= matched
    return frozenset(codes)


@dataclass(frozen=True)
class Overrides:
    """Values given on the command line; None means "not given" (the config file decides)."""

    select: Optional[tuple[str, ...]] = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[str, ...] = ()  # "GLOB:CODE,CODE"
    exclude: Optional[tuple[str, ...]] = None
    extend_exclude: tuple[str, ...] = ()
    warn_unused_ignores: Optional[bool] = None
    force_exclude: Optional[bool] = None
    max_file_size: Optional[str] = None  # "2MB", "512KiB", "1000000"; "0": no limit
    target_version: Optional[str] = None  # "py312"
    torch_version: Optional[str] = None  # "2.2"
    config_file: Optional[str] = None


@dataclass(frozen=True)
class Settings:
    """The effective settings of one run. `root` anchors relative patterns (the config's folder)."""

    root: Path
    enabled: frozenset[str]
    per_file_ignores: tuple[tuple[Glob, frozenset[str]], ...] = ()
    exclude: tuple[Glob, ...] = field(default_factory=lambda: tuple(Glob(p) for p in DEFAULT_EXCLUDE))
    warn_unused_ignores: bool = False
    # Apply `exclude` to paths named on the command line too (pre-commit names every file).
    force_exclude: bool = False
    # Bytes of Python (a notebook's code cells, not its outputs) above which a file is skipped.
    max_file_size: Optional[int] = DEFAULT_MAX_FILE_SIZE
    config_path: Optional[Path] = None
    # The oldest Python and torch the project supports (AMP001's parser, the AMP40x fixes).
    targets: Targets = Targets()

    def codes_for(self, path: Path) -> frozenset[str]:
        """The codes reported for `path` after its per-file ignores."""
        codes = self.enabled
        rel = _relative(path, self.root)
        for glob, ignored in self.per_file_ignores:
            if glob.matches(rel, is_dir=False):
                codes = codes - ignored
        return codes

    def is_excluded(self, path: Path, is_dir: bool) -> bool:
        return self._excludes.matches(_relative(path, self.root), is_dir)

    @cached_property
    def _excludes(self) -> GlobSet:
        return GlobSet(self.exclude)

    def is_excluded_with_parents(self, path: Path) -> bool:
        """Whether `path` or a folder above it (up to the root) is excluded."""
        absolute = Path(os.path.abspath(path))
        folders = [p for p in absolute.parents if p != self.root and self.root in p.parents]
        return self.is_excluded(absolute, absolute.is_dir()) or any(self.is_excluded(p, True) for p in folders)

    def fingerprint(self, path: Path) -> str:
        """What the findings of `path` depend on besides its content and ampcheck's version."""
        return _fingerprint(self.codes_for(path), self.warn_unused_ignores, self.targets)


@lru_cache(maxsize=64)
def _fingerprint(codes: frozenset[str], warn_unused_ignores: bool, targets: Targets) -> str:
    """The fingerprint of one set of codes and settings: a run asks once per file, and its
    files share a few sets."""
    blob = json.dumps([sorted(codes), warn_unused_ignores, targets.python, targets.torch])
    return hashlib.sha256(blob.encode()).hexdigest()


def _relative(path: Path, root: Path) -> str:
    """`path` relative to `root` with `/` separators; paths outside root keep their absolute form."""
    absolute = os.path.abspath(path)
    base = str(root)
    if absolute.startswith(base) and absolute[len(base):len(base) + 1] == os.sep and not base.endswith(os.sep):
        # the common case, as strings (a run asks for every file and folder it walks)
        return absolute[len(base) + 1:].replace(os.sep, "/")
    try:
        return Path(absolute).relative_to(root).as_posix()
    except ValueError:
        return Path(absolute).as_posix()


def find_config(start: Path) -> Optional[Path]:
    """The nearest pyproject.toml at or above `start` that has a `[tool.ampcheck]` table."""
    here = Path(os.path.abspath(start))
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and "ampcheck" in _read_toml(candidate).get("tool", {}):
            return candidate
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"invalid TOML in {path}: {err}") from None


def _table(path: Path) -> dict[str, Any]:
    """The `[tool.ampcheck]` table of a config file; `--config` may name a pyproject.toml or an
    ampcheck.toml whose top level is the table itself."""
    data = _read_toml(path)
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("ampcheck", {})
    else:
        table = data.get("tool", {}).get("ampcheck", data)
    if not isinstance(table, dict):
        raise ConfigError(f"[tool.ampcheck] in {path} must be a table")
    for key in table:
        if key not in KEYS:
            raise ConfigError(f"unknown key {key!r} in [tool.ampcheck] of {path}")
    return table


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of strings")
    return tuple(value)


def _per_file_table(value: Any, where: str) -> list[tuple[str, tuple[str, ...]]]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table of glob = [codes]")
    return [(glob, _strings(codes, f"{where}[{glob!r}]")) for glob, codes in value.items()]


def _per_file_flags(values: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    pairs = []
    for value in values:
        glob, sep, codes = value.rpartition(":")
        if not sep or not glob or not codes:
            raise ConfigError(f"--per-file-ignores expects GLOB:CODE[,CODE...], got {value!r}")
        pairs.append((glob, tuple(c for c in re.split(r"[,\s]+", codes) if c)))
    return pairs


def parse_size(value: Any, where: str) -> Optional[int]:
    """Bytes from `2MB`, `512KiB`, `1.5 MB` or a plain number of bytes; None (no limit) for 0."""
    match = _SIZE.fullmatch(str(value)) if isinstance(value, (int, str)) and not isinstance(value, bool) else None
    if match is None:
        raise ConfigError(f"{where} must be a size such as \"2MB\", \"512KiB\" or a number of bytes, got {value!r}")
    size = int(float(match.group(1)) * _UNITS[(match.group(2) or "").lower()])
    return size or None


def load_settings(
    paths: Sequence[str], overrides: Overrides = Overrides(), cwd: Optional[Path] = None
) -> Settings:
    """Resolve the run's settings: `--config`, else the nearest `[tool.ampcheck]` above the
    paths' common folder; then the command-line flags on top."""
    cwd = Path(os.path.abspath(cwd or os.getcwd()))
    start = Path(os.path.commonpath([os.path.abspath(cwd / p) for p in paths] or [str(cwd)]))
    if overrides.config_file is not None:
        config_path: Optional[Path] = Path(os.path.abspath(cwd / overrides.config_file))
        if not config_path.is_file():
            raise ConfigError(f"config file {overrides.config_file} does not exist")
    else:
        config_path = find_config(start)
    table = _table(config_path) if config_path is not None else {}
    where = str(config_path) if config_path else "the defaults"
    root = config_path.parent if config_path is not None else cwd
    known = known_codes()

    def cfg(key: str) -> tuple[str, ...]:
        return _strings(table[key], f"{key!r} in {where}") if key in table else ()

    if overrides.select is not None:
        selected = expand(overrides.select, known, "--select")
    elif "select" in table:
        selected = expand(cfg("select"), known, f"'select' in {where}")
    else:
        selected = default_codes()
    selected |= expand(cfg("extend-select"), known, f"'extend-select' in {where}")
    selected |= expand(overrides.extend_select, known, "--extend-select")
    ignored = expand(cfg("ignore"), known, f"'ignore' in {where}")
    ignored |= expand(overrides.ignore, known, "--ignore")

    per_file = []
    pf_sources = []
    if "per-file-ignores" in table:
        pf_sources.append((_per_file_table(table["per-file-ignores"], f"'per-file-ignores' in {where}"), where))
    pf_sources.append((_per_file_flags(overrides.per_file_ignores), "--per-file-ignores"))
    for pairs, source in pf_sources:
        for glob, codes in pairs:
            per_file.append((Glob(glob), expand(codes, known, f"per-file-ignores {glob!r} in {source}")))

    if overrides.exclude is not None:
        exclude = overrides.exclude
    elif "exclude" in table:
        exclude = cfg("exclude")
    else:
        exclude = DEFAULT_EXCLUDE
    exclude = (*exclude, *cfg("extend-exclude"), *overrides.extend_exclude)

    def flag(key: str, override: Optional[bool]) -> bool:
        value = table.get(key, False)
        if not isinstance(value, bool):
            raise ConfigError(f"{key!r} in {where} must be true or false")
        return value if override is None else override

    return Settings(
        root=root,
        enabled=selected - ignored,
        per_file_ignores=tuple(per_file),
        exclude=tuple(Glob(p) for p in exclude),
        warn_unused_ignores=flag("warn-unused-ignores", overrides.warn_unused_ignores),
        force_exclude=flag("force-exclude", overrides.force_exclude),
        max_file_size=_max_file_size(table, where, overrides.max_file_size),
        config_path=config_path,
        targets=_targets(table, where, overrides, start),
    )


def _targets(table: dict[str, Any], where: str, overrides: Overrides, start: Path) -> Targets:
    """The project's declarations (requires-python, torch requirements), each replaced by
    `target-version` / `torch-version` from the command line or else the config file."""
    declared = declared_targets(project_folder(start))
    python = _setting(table, where, "target-version", overrides.target_version, parse_target_version)
    torch = _setting(table, where, "torch-version", overrides.torch_version, parse_torch_version)
    return Targets(
        python=python if python is not None else declared.python,
        torch=torch if torch is not None else declared.torch,
    )


def _setting(
    table: dict[str, Any], where: str, key: str, override: Optional[str],
    parse: Callable[[object, str], MinorVersion],
) -> Optional[MinorVersion]:
    try:
        if override is not None:
            return parse(override, f"--{key}")
        return parse(table[key], f"{key!r} in {where}") if key in table else None
    except ValueError as err:
        raise ConfigError(str(err)) from None


def _max_file_size(table: dict[str, Any], where: str, override: Optional[str]) -> Optional[int]:
    if override is not None:
        return parse_size(override, "--max-file-size")
    if "max-file-size" in table:
        return parse_size(table["max-file-size"], f"'max-file-size' in {where}")
    return DEFAULT_MAX_FILE_SIZE


def default_settings(root: Optional[Path] = None, **kwargs: Any) -> Settings:
    """Settings with the default rules enabled and no config file: what a library caller starts from."""
    return Settings(root=Path(os.path.abspath(root or os.getcwd())), enabled=default_codes(), **kwargs)

