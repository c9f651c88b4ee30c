"""The findings cache: `.ampcheck_cache/` beside the config (or in the working folder).

An entry is keyed by everything a file's findings depend on - ampcheck's version (and
the state of its lint code, for edited checkouts), the file's text, whether it is a notebook, and the settings that apply to it (its effective
codes, `warn-unused-ignores`) - and records the other project files its analysis read (with
the hash of each one's text) and the project-wide answers it used (whether any file holds a
GradScaler), so a hit replays the findings, fixes included, without
parsing or analysing the file, while none of those files or answers has changed. The summaries of
project modules (what a module's functions do with scalers and optimizers) are cached
beside the findings, keyed by the module's text. Entries are written to a temporary file and renamed into
place, so concurrent runs never see half an entry; anything unreadable is a miss, and a
folder that cannot be written just means no caching. The cache is never fatal.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Callable, Optional

from ampcheck import catalog
from ampcheck.version import __version__
from ampcheck.findings import Finding

FOLDER = ".ampcheck_cache"
TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by ampcheck.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)


@lru_cache(maxsize=1)
def implementation() -> str:
    """ampcheck's version plus the size and mtime of its lint code and rule docs, so an edited
    checkout (an editable install between releases) never replays findings of older code."""
    package = Path(__file__).resolve().parents[1]
    stats = []
    for path in sorted((*package.glob("lint/**/*.py"), *catalog.folder().glob("*.md"))):
        try:
            st = path.stat()
        except OSError:
            continue
        stats.append(f"{path.parent.name}/{path.name}:{st.st_size}:{st.st_mtime_ns}")
    return __version__ + "\0" + hashlib.sha256("\n".join(stats).encode()).hexdigest()


def key(text: str, kind: str, fingerprint: str) -> str:
    digest = hashlib.sha256()
    for part in (implementation(), kind, fingerprint):
        digest.update(part.encode())
        digest.update(b"\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class Cache:
    def __init__(self, root: Path) -> None:
        self.folder = root / FOLDER / __version__

    def _entry(self, k: str) -> Path:
        return self.folder / k[:2] / f"{k}.json"

    def get(self, k: str, path: str, current: Callable[[str], Optional[str]]) -> Optional[list[Finding]]:
        """The cached findings for key `k`, re-addressed to `path`, when every file they depend
        on still hashes as recorded (`current(path)` -> the hash of its text now), and every
        project-wide answer they depend on still reads the same (`current(key)`); None on a
        miss, a stale entry or a bad one."""
        data = self.get_json(k)
        if data is None:
            return None
        try:
            if any(current(dep) != digest for dep, digest in data.get("deps", {}).items()):
                return None
            return [replace(Finding.from_json(item), path=path) for item in data["findings"]]
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(self, k: str, findings: list[Finding], deps: dict[str, str]) -> None:
        self.put_json(k, {"findings": [f.to_json() for f in findings], "deps": deps})

    def get_json(self, k: str) -> Optional[dict]:
        """The payload stored under key `k`, or None."""
        try:
            data = json.loads(self._entry(k).read_text(encoding="utf-8"))
            return data if isinstance(data, dict) and data.get("key") == k else None
        except (OSError, ValueError):
            return None

    def put_json(self, k: str, payload: dict) -> None:
        entry = self._entry(k)
        body = json.dumps({**payload, "key": k})
        try:
            self._prepare(entry.parent)
            fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(body)
                os.replace(tmp, entry)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            pass  # read-only tree, full disk, a racing cleanup: run uncached

    def _prepare(self, folder: Path) -> None:
        base = self.folder.parent
        if not (base / "CACHEDIR.TAG").exists():
            base.mkdir(parents=True, exist_ok=True)
            _write_once(base / "CACHEDIR.TAG", TAG)
            _write_once(base / ".gitignore", "# Created by ampcheck automatically.\n*\n")
        folder.mkdir(parents=True, exist_ok=True)


def _write_once(path: Path, text: str) -> None:
    try:
        with open(path, "x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        pass
