"""The oldest Python and the oldest torch a project supports, as minor versions.

Two judgements depend on them: AMP001 means "the project's Python cannot parse this", so a
project that targets a Python newer than the one ampcheck runs on may use syntax this
interpreter rejects; and a fix may only spell an API that the oldest supported torch has.
A bound is a minor version (3.12, 2.2): grammar changes and new torch APIs arrive in minor
releases, so the patch level never decides either question. None means "not declared",
where ampcheck behaves as if every version were supported (its behaviour before targets).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple, Optional



class MinorVersion(NamedTuple):
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


@dataclass(frozen=True)
class Targets:
    """What the run assumes about the project's environment; None: undeclared."""

    python: Optional[MinorVersion] = None  # the oldest Python the project supports
    torch: Optional[MinorVersion] = None  # the oldest torch the project supports


# `target-version` values, as Ruff spells them (py37 ... py315): the grammars libcst parses.
OLDEST_TARGET = MinorVersion(3, 7)
NEWEST_TARGET = MinorVersion(3, 15)
_TARGET = re.compile(r"py3([0-9]{1,2})")
_TORCH_VERSION = re.compile(r"([0-9]+)\.([0-9]+)(?:\.[0-9]+)?")

# Specifier operators that admit no version below the one they name.
_LOWER = (">=", ">", "~=", "==", "===")
# One clause of a PEP 440 specifier set; the linter reads only the lower bound, so a small
# pattern serves where `packaging` would be a dependency beside libcst and click.
_CLAUSE = re.compile(r"\s*(~=|===|==|!=|<=|>=|<|>)\s*([^\s,;]+)\s*")
_RELEASE = re.compile(
    r"v?([0-9]+)(?:\.([0-9]+))?(?:\.[0-9]+)*(?:\.\*)?"
    r"(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview|post|rev|r|dev)[-_.]?[0-9]*)*(?:\+[a-z0-9.]+)?",
    re.IGNORECASE,
)


def lower_bound(specifiers: str) -> Optional[MinorVersion]:
    """The oldest minor version a PEP 440 specifier set admits: `>=3.12,<4` -> 3.12,
    `~=2.3.1` -> 2.3, `==2.1.*` -> 2.1, `>2.2` -> 2.2 (2.2.1 is above 2.2); None when it has
    no lower bound (`<3`, `!=2.0`, empty). ValueError when it is not a specifier set."""
    found = []
    for clause in specifiers.split(",") if specifiers.strip() else ():
        match = _CLAUSE.fullmatch(clause)
        if match is None:
            raise ValueError(f"not a version specifier: {specifiers!r}")
        operator, version = match.groups()
        release = _RELEASE.fullmatch(version)
        if release is None:
            if operator == "===":  # `===` takes arbitrary strings
                continue
            raise ValueError(f"not a version specifier: {specifiers!r}")
        if operator in _LOWER:
            found.append(MinorVersion(int(release.group(1)), int(release.group(2) or 0)))
    return max(found) if found else None


def parse_target_version(value: object, where: str) -> MinorVersion:
    """`py312` -> 3.12; ValueError naming `where` for anything else."""
    match = _TARGET.fullmatch(value) if isinstance(value, str) else None
    version = MinorVersion(3, int(match.group(1))) if match else None
    if version is None or not OLDEST_TARGET <= version <= NEWEST_TARGET:
        raise ValueError(
            f"{where} must be one of py{OLDEST_TARGET.major}{OLDEST_TARGET.minor} ... "
            f"py{NEWEST_TARGET.major}{NEWEST_TARGET.minor}, got {value!r}"
        )
    return version


def parse_torch_version(value: object, where: str) -> MinorVersion:
    """`"2.2"` or `"2.2.1"` -> 2.2; ValueError naming `where` for anything else (a TOML
    float is refused: 2.10 would read as 2.1)."""
    match = _TORCH_VERSION.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise ValueError(f'{where} must be a torch version such as "2.2" (a string), got {value!r}')
    return MinorVersion(int(match.group(1)), int(match.group(2)))
