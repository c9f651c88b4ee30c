"""Git's wildmatch-style path patterns, used for .gitignore files and for `exclude` settings.

One matcher serves both so that `exclude = ["data/**/raw"]` means what it would mean in a
.gitignore. A pattern without a slash (other than a trailing one) matches a name at any depth;
one with a slash is anchored at its base folder; a trailing slash matches folders only.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional


def _translate(pattern: str) -> str:
    """Regex source for a wildmatch pattern: `*` and `?` stop at `/`, `**` spans folders."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i) and (i == 0 or pattern[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i) and i + 2 == n and (i == 0 or pattern[i - 1] == "/"):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            while i < n and pattern[i] == "*":
                i += 1
            out.append("[^/]*")
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            # A `]` right after `[` (or `[!`) is a literal member, as in git.
            end = pattern.find("]", i + 3 if pattern[i + 1 : i + 2] in ("!", "^") else i + 2)
            if end == -1:
                out.append(re.escape("["))
                i += 1
                continue
            body = pattern[i + 1 : end]
            negate = body[:1] in ("!", "^")
            if negate:
                body = body[1:]
            body = body.replace("\\", "\\\\").replace("]", "\\]")
            out.append(f"[^/{body}]" if negate else f"[{body}]")
            i = end + 1
        elif pattern[i] == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class Glob:
    """One pattern. `matches` takes a path relative to the pattern's base, with `/` separators."""

    pattern: str
    anchored: bool = field(init=False)
    dir_only: bool = field(init=False)
    regex: "re.Pattern[str]" = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        body = self.pattern
        dir_only = body.endswith("/") and not body.endswith("\\/")
        body = body.rstrip("/") if dir_only else body
        anchored = "/" in body
        body = body[1:] if body.startswith("/") else body
        if body.startswith("./"):
            body = body[2:]
        object.__setattr__(self, "anchored", anchored)
        object.__setattr__(self, "dir_only", dir_only)
        object.__setattr__(self, "regex", re.compile(_translate(body), re.DOTALL))

    def matches(self, rel: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        if self.anchored:
            return self.regex.fullmatch(rel) is not None
        return self.regex.fullmatch(rel.rsplit("/", 1)[-1]) is not None


class GlobSet:
    """Whether any of several patterns matches, in one regular expression per kind of pattern
    (a walk asks it of every file and folder: 25 patterns matched one by one cost more than
    reading the folders)."""

    def __init__(self, globs: Iterable[Glob]) -> None:
        kinds: dict[tuple[bool, bool], list[str]] = {}
        for g in globs:
            kinds.setdefault((g.anchored, g.dir_only), []).append(g.regex.pattern)
        self._kinds = [
            (anchored, dir_only, re.compile("|".join(f"(?:{p})" for p in patterns), re.DOTALL))
            for (anchored, dir_only), patterns in kinds.items()
        ]

    def matches(self, rel: str, is_dir: bool) -> bool:
        name = rel.rsplit("/", 1)[-1]
        return any(
            regex.fullmatch(rel if anchored else name) is not None
            for anchored, dir_only, regex in self._kinds
            if is_dir or not dir_only
        )


@dataclass(frozen=True)
class IgnoreRule:
    glob: Glob
    negated: bool


def parse_gitignore(text: str) -> list[IgnoreRule]:
    """The rules of one .gitignore file, in order (the last match wins)."""
    rules = []
    for raw in text.splitlines():
        line = _strip_trailing_spaces(raw)
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        elif line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        if line:
            rules.append(IgnoreRule(Glob(line), negated))
    return rules


def _strip_trailing_spaces(line: str) -> str:
    """Trailing spaces are dropped unless escaped with a backslash."""
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        return stripped[:-1] + " "
    return stripped


class GitIgnore:
    """The .gitignore files that apply to one folder: its own and its ancestors' (up to the
    repository root), deepest first, as git evaluates them."""

    def __init__(self, levels: tuple[tuple[Path, tuple[IgnoreRule, ...]], ...] = ()) -> None:
        self.levels = levels

    @classmethod
    def repository(cls, root: Path) -> "GitIgnore":
        """The repository-wide rules of `.git/info/exclude`, below every .gitignore in precedence."""
        rules = _read_rules(root / ".git" / "info" / "exclude")
        return cls(((root, tuple(rules)),) if rules else ())

    def child(self, folder: Path) -> "GitIgnore":
        """The matcher for `folder`, adding its own .gitignore (if any) to this one."""
        rules = _read_rules(folder / ".gitignore")
        if not rules:
            return self
        return GitIgnore(((folder, tuple(rules)), *self.levels))

    def ignored(self, path: Path, is_dir: bool) -> bool:
        for base, rules in self.levels:
            try:
                rel = path.relative_to(base).as_posix()
            except ValueError:
                continue
            verdict = _last_match(rules, rel, is_dir)
            if verdict is not None:
                return verdict
        return False


def _last_match(rules: tuple[IgnoreRule, ...], rel: str, is_dir: bool) -> Optional[bool]:
    for rule in reversed(rules):
        if rule.glob.matches(rel, is_dir):
            return not rule.negated
    return None


def _read_rules(path: Path) -> list[IgnoreRule]:
    try:
        return parse_gitignore(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return []
