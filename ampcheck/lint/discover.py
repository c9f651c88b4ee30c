"""Paths on the command line -> the Python files and notebooks to lint.

Folders are walked in name order (so output is stable), honouring .gitignore files (the
folder's own and those of its ancestors up to the repository root, deepest first, with
negation) and the `exclude` settings, and skipping virtual environments. A path named on
the command line is always linted, whatever its name, unless `force-exclude` is set (as
the pre-commit hooks do, since pre-commit names every staged file). Problems (a symlink
loop, an unreadable folder) are one line each and never stop the walk. Only regular files
are linted: a named pipe or a device, found or named, is never opened (reading one can
block forever), just reported.
"""
from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from ampcheck.config import Settings
from ampcheck.lint.globs import GitIgnore
from ampcheck.lint.source import not_regular, skipped_special

SUFFIXES = (".py", ".pyi", ".ipynb")


@dataclass
class Discovery:
    files: list[str] = field(default_factory=list)  # as the user will see them
    problems: list[str] = field(default_factory=list)  # one line each, for stderr
    missing: list[str] = field(default_factory=list)  # named paths that do not exist


def discover(paths: list[str], settings: Settings) -> Discovery:
    found = Discovery()
    seen: set[str] = set()

    def add(display: str, absolute: Path) -> None:
        key = os.path.normcase(str(absolute))
        if key not in seen:
            seen.add(key)
            found.files.append(display)

    for arg in paths:
        display = os.path.normpath(arg)
        absolute = Path(os.path.abspath(arg))
        try:
            is_dir = absolute.is_dir()
            exists = absolute.exists()
        except OSError as err:  # ELOOP on some platforms' is_dir
            found.problems.append(_link_problem(display, err))
            continue
        if not exists:
            if os.path.islink(absolute):
                found.problems.append(_link_problem(display, _stat_error(absolute)))
            else:
                found.missing.append(display)
            continue
        if settings.force_exclude and settings.is_excluded_with_parents(absolute):
            continue
        special = None if is_dir else _special(absolute)
        if special is not None:
            found.problems.append(skipped_special(display, special))
        elif is_dir:
            ignore = _gitignore_above(absolute)
            _walk(display, absolute, ignore, frozenset({os.path.realpath(absolute)}), settings, found, add)
        else:
            add(display, absolute)
    return found


def _walk(
    display: str,
    folder: Path,
    ignore: GitIgnore,
    ancestors: frozenset[str],
    settings: Settings,
    found: Discovery,
    add: Callable[[str, Path], None],
) -> None:
    ignore = ignore.child(folder)
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as err:
        found.problems.append(f"{display}: cannot read folder: {err.strerror or err}")
        return
    for entry in entries:
        path = folder / entry.name
        shown = os.path.join(display, entry.name) if display != "." else entry.name
        try:
            is_dir = entry.is_dir()
            is_file = entry.is_file()
        except OSError as err:
            found.problems.append(_link_problem(shown, err))
            continue
        special = None if is_dir or is_file else _special(path)
        if entry.is_symlink() and not is_dir and not is_file and special is None:
            err = _stat_error(path)
            if err.errno == errno.ELOOP or entry.name.endswith(SUFFIXES):
                found.problems.append(_link_problem(shown, err))
            continue
        if settings.is_excluded(path, is_dir) or ignore.ignored(path, is_dir):
            continue
        if is_dir:
            if _is_environment(path):
                continue
            real = os.path.realpath(path)
            if real in ancestors:
                found.problems.append(f"{shown}: symlink loop (points back to {real}); not followed")
                continue
            _walk(shown, path, ignore, ancestors | {real}, settings, found, add)
        elif entry.name.endswith(SUFFIXES):
            if special is not None:
                found.problems.append(skipped_special(shown, special))
            else:
                add(shown, path)


def _special(path: Path) -> Optional[str]:
    """What `path` is when it is not a regular file (its link followed); None when it is,
    or when it vanished (reading it will say so)."""
    try:
        return not_regular(os.stat(path).st_mode)
    except OSError:
        return None


def _is_environment(folder: Path) -> bool:
    """A virtualenv (pyvenv.cfg) or conda environment (conda-meta), whatever its name."""
    return (folder / "pyvenv.cfg").is_file() or (folder / "conda-meta").is_dir()


def _stat_error(path: Path) -> OSError:
    try:
        os.stat(path)
    except OSError as err:
        return err
    return OSError(errno.ENOENT, "vanished")


def _link_problem(shown: str, err: OSError) -> str:
    if err.errno == errno.ELOOP:
        return f"{shown}: symlink loop; skipped"
    if err.errno == errno.ENOENT:
        return f"{shown}: broken symlink (its target does not exist); skipped"
    return f"{shown}: cannot read: {err.strerror or err}; skipped"


def _repository_root(folder: Path) -> Optional[Path]:
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _gitignore_above(folder: Path) -> GitIgnore:
    """The ignore rules of `folder`'s repository that apply before the walk enters it:
    `.git/info/exclude` and the ancestors' .gitignore files (not its own: the walk adds each
    folder's file as it enters it)."""
    root = _repository_root(folder)
    if root is None:
        return GitIgnore()
    ignore = GitIgnore.repository(root)
    if root == folder:
        return ignore
    between = reversed(list(folder.relative_to(root).parents)[:-1])
    for ancestor in (root, *(root / part for part in between)):
        ignore = ignore.child(ancestor)
    return ignore
