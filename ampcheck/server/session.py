"""What the language server knows between requests, without any LSP: the texts of the open
buffers, the settings of each folder and the project model of each project.

A buffer's findings are those `ampcheck lint` would report if the buffer were saved: the
settings are found the way the CLI finds them for that file (the nearest `[tool.ampcheck]`
above it), and the project around it is read from disk except where another open buffer
holds a file, whose unsaved text wins. The project models live as long as the server, so
the summaries of the modules a file imports are built once, not on every keystroke; an
edit, a save or a file event forgets only what it changed.

Threads: the server's event loop records buffers and changes (`open`, `edit`, `close`,
`changed`); one worker thread runs `check` and `fix_all`, which alone touch the project
models. The buffers and the queue of changes are shared under one lock.
"""
from __future__ import annotations

import gc
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

from ampcheck.config import ConfigError, Settings, load_settings
from ampcheck.findings import Finding
from ampcheck.lint.cache import Cache
from ampcheck.lint.digests import FileDigests, read_regular
from ampcheck.lint.engine import fix_text, lint_text, open_project
from ampcheck.lint.project import Project, project_root
from ampcheck.lint.reparse import Reparser

CONFIG_FILE = "pyproject.toml"


@dataclass
class Checked:
    """One analysis of one buffer's text."""

    path: str
    text: str  # the content analysed (Python, or a notebook's JSON)
    findings: list[Finding] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # one line each, for the client's log
    deps: frozenset[str] = frozenset()  # the other files the analysis read


class Session:
    def __init__(self, folders: list[str]) -> None:
        self.folders = [os.path.abspath(f) for f in folders]
        self._lock = threading.Lock()
        self._buffers: dict[str, bytes] = {}  # absolute path -> the open buffer's text, encoded
        self._changed: list[tuple[str, bool]] = []  # (path, created or deleted), for the worker
        self._settings: dict[str, Union[Settings, ConfigError]] = {}  # folder -> its settings
        self._projects: dict[tuple[str, Optional[Path]], Project] = {}
        self._deps: dict[str, frozenset[str]] = {}  # open path -> what its last analysis read
        self._reparsers: dict[str, Reparser] = {}  # open Python path -> its last parse (worker only)

    # -- the event loop's side -------------------------------------------------------------------
    def open(self, path: str, text: str) -> None:
        self.edit(path, text)

    def edit(self, path: str, text: str) -> None:
        key = os.path.abspath(path)
        with self._lock:
            self._buffers[key] = text.encode("utf-8", "surrogatepass")
            self._changed.append((key, False))

    def close(self, path: str) -> None:
        """The buffer is gone: the file on disk is the project's again."""
        key = os.path.abspath(path)
        with self._lock:
            self._buffers.pop(key, None)
            self._changed.append((key, False))
            self._deps.pop(key, None)

    def changed(self, path: str, created_or_deleted: bool = False) -> None:
        """A file changed on disk (saved, or changed by another program)."""
        key = os.path.abspath(path)
        with self._lock:
            self._changed.append((key, created_or_deleted))
            if os.path.basename(key) == CONFIG_FILE:
                self._settings.clear()

    def dependents(self, path: str) -> list[str]:
        """The open files whose last analysis read `path`."""
        key = os.path.abspath(path)
        with self._lock:
            return sorted(p for p, deps in self._deps.items() if key in deps and p != key)

    # -- the worker's side ----------------------------------------------------------------------------
    def check(self, path: str, content: str) -> Checked:
        """The findings of `content` as the buffer of `path` (never raises)."""
        key = os.path.abspath(path)
        out = Checked(key, content)
        settings = self._settings_for(key, out)
        if settings is None:
            return out
        cold = key not in self._reparsers
        reparser = self._reparsers.setdefault(key, Reparser()) if key.endswith(".py") else None
        result = lint_text(key, content, settings, self._project(key, settings), reparser)
        if cold:
            _settle()
        out.findings = result.findings
        out.problems = result.problems + result.internal_errors
        out.deps = frozenset(result.deps)
        with self._lock:
            if key in self._buffers:
                self._deps[key] = out.deps
        return out

    def fix_all(self, path: str, content: str) -> Optional[str]:
        """`content` with its safe fixes applied, or None when none applies."""
        key = os.path.abspath(path)
        settings = self._settings_for(key, Checked(key, content))
        if settings is None:
            return None
        return fix_text(key, content, settings, self._project(key, settings)).diff or None

    def _settings_for(self, path: str, out: Checked) -> Optional[Settings]:
        """The file's settings as the CLI finds them; None (with the reason in `out`) for a
        broken config or an excluded file."""
        self._apply_changes()
        folder = os.path.dirname(path)
        with self._lock:
            found = self._settings.get(folder)
        if found is None:
            try:
                found = load_settings([path], cwd=Path(self._folder_of(path)))
            except ConfigError as err:
                found = err
            with self._lock:
                self._settings[folder] = found
        if isinstance(found, ConfigError):
            out.problems.append(str(found))
            return None
        if found.is_excluded_with_parents(Path(path)):
            return None
        return found

    def _folder_of(self, path: str) -> str:
        """The workspace folder holding `path` (where a CLI run would start), else its folder."""
        inside = [f for f in self.folders if path.startswith(f.rstrip(os.sep) + os.sep)]
        return max(inside, key=len) if inside else os.path.dirname(path)

    def _project(self, path: str, settings: Settings) -> Project:
        root = str(project_root(settings.config_path, [path], Path(self._folder_of(path))))
        k = (root, settings.config_path)
        found = self._projects.get(k)
        if found is None:
            found = self._projects[k] = open_project(
                root, settings, Cache(settings.root), FileDigests(self.read), self.read
            )
        return found

    def _apply_changes(self) -> None:
        with self._lock:
            changes, self._changed = self._changed, []
        for path, moved in changes:
            for project in self._projects.values():
                project.changed(path, moved)
            with self._lock:
                if path not in self._buffers:
                    self._reparsers.pop(path, None)

    def read(self, path: str) -> Optional[bytes]:
        """A project file's bytes: its open buffer's, else the file's on disk."""
        with self._lock:
            data = self._buffers.get(os.path.abspath(path))
        return data if data is not None else read_regular(path)


def _settle() -> None:
    """After a buffer's first analysis: what is alive now (the modules, the project's
    summaries, the buffer's parse) lives as long as the server, so the cyclic garbage
    collector stops traversing it on every collection. Each edit allocates a file model
    of several hundred thousand objects; without this a full collection, which runs every
    edit or two, also walked everything the server holds (~40 ms per edit on average)."""
    gc.collect()
    gc.freeze()
