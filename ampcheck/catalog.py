"""The rule catalog, read from the Markdown rule docs.

The docs are written in the repository's top-level `rules/` folder and ship in the wheel as
`ampcheck/rules/`; `folder()` finds whichever of the two this ampcheck runs from.

The docs are the single source of every code's name, severity, fix availability and
origin (lint or trace), so the catalog parses them rather than repeating them in code.
The front matter is a flat `key: value` block; a YAML library would be a dependency for
five lines.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

# Where a finding's `url` points: the doc's path in this repository (shipped in the wheel too).
DOCS_URL = "rules/{code}.md"

FRONT_MATTER_KEYS = ("code", "name", "severity", "fix", "source")
# `default: off` keeps a rule out of the default selection (`ALL`, its code or a prefix of
# it still select it), for rules that flag a trade-off projects often make on purpose
OPTIONAL_KEYS = {"default": ("on", "off")}
ALLOWED = {
    "severity": ("error", "warning", "info"),
    "fix": ("safe", "unsafe", "none"),
    "source": ("lint", "trace"),
    **OPTIONAL_KEYS,
}
SECTIONS = ("What it does", "Why is this bad", "Example", "Use instead", "References")

_CODE = re.compile(r"AMP\d{3}")
_PYTHON_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


class CatalogError(Exception):
    """A rule doc that does not have the required shape; str() is one line naming it."""


@dataclass(frozen=True)
class RuleDoc:
    code: str
    name: str
    severity: str
    fix: str
    source: str
    title: str
    body: str  # the Markdown after the front matter
    sections: dict[str, str]
    bad: str  # the Example's code
    good: str  # the Use instead's code
    default: bool = True  # in the selection when the configuration selects nothing

    @property
    def url(self) -> str:
        return url(self.code)


def url(code: str) -> str:
    return DOCS_URL.format(code=code)


def _front_matter(text: str, where: str) -> tuple[dict[str, str], str]:
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise CatalogError(f"{where}: must start with a '---' front matter block")
    meta: dict[str, str] = {}
    for i, line in enumerate(lines[1:], start=1):
        stripped = line.strip()
        if stripped == "---":
            return meta, "".join(lines[i + 1 :])
        value_part = re.split(r"\s+#", stripped, maxsplit=1)[0]
        key, sep, value = value_part.partition(":")
        if not sep or not key.strip():
            raise CatalogError(f"{where}: front matter line {i + 1} is not 'key: value'")
        meta[key.strip()] = value.strip()
    raise CatalogError(f"{where}: front matter block is not closed with '---'")


def _sections(body: str) -> dict[str, str]:
    found: dict[str, str] = {}
    current = None
    for line in body.splitlines(keepends=True):
        if line.startswith("## "):
            current = line[3:].strip()
            found[current] = ""
        elif current is not None:
            found[current] += line
    return {k: v.strip("\n") for k, v in found.items()}


def _code_block(sections: dict[str, str], section: str, where: str) -> str:
    match = _PYTHON_BLOCK.search(sections[section])
    if match is None:
        raise CatalogError(f"{where}: section '{section}' has no ```python block")
    return match.group(1)


def parse(text: str, where: str) -> RuleDoc:
    """One doc from its Markdown text; `where` names it in errors."""
    meta, body = _front_matter(text, where)
    for key in FRONT_MATTER_KEYS:
        if not meta.get(key):
            raise CatalogError(f"{where}: front matter lacks '{key}'")
    unknown = sorted(set(meta) - set(FRONT_MATTER_KEYS) - set(OPTIONAL_KEYS))
    if unknown:
        raise CatalogError(f"{where}: unknown front matter key '{unknown[0]}'")
    for key, allowed in ALLOWED.items():
        if key in meta and meta[key] not in allowed:
            raise CatalogError(f"{where}: {key} '{meta[key]}' is not one of {', '.join(allowed)}")
    if not _CODE.fullmatch(meta["code"]):
        raise CatalogError(f"{where}: code '{meta['code']}' is not AMP followed by three digits")
    titles = [line[2:].strip() for line in body.splitlines() if line.startswith("# ")]
    expected = f"{meta['code']} {meta['name']}"
    if titles[:1] != [expected]:
        raise CatalogError(f"{where}: first heading must be '# {expected}'")
    sections = _sections(body)
    missing = [s for s in SECTIONS if s not in sections]
    if missing:
        raise CatalogError(f"{where}: missing section '## {missing[0]}'")
    return RuleDoc(
        code=meta["code"],
        name=meta["name"],
        severity=meta["severity"],
        fix=meta["fix"],
        source=meta["source"],
        title=expected,
        body=body.strip("\n") + "\n",
        sections=sections,
        bad=_code_block(sections, "Example", where),
        good=_code_block(sections, "Use instead", where),
        default=meta.get("default", "on") == "on",
    )


@lru_cache(maxsize=1)
def folder() -> Path:
    """The folder of the rule docs: `ampcheck/rules/` inside an installed wheel, else the
    checkout's top-level `rules/` beside the package (a source tree or an editable install)."""
    package = Path(__file__).resolve().parent
    shipped = package / "rules"
    return shipped if shipped.is_dir() else package.parent / "rules"


@lru_cache(maxsize=1)
def load() -> dict[str, RuleDoc]:
    """Every shipped rule doc by code, in code order. Raises CatalogError on a malformed doc."""
    docs: dict[str, RuleDoc] = {}
    for entry in sorted(folder().glob("*.md"), key=lambda e: e.name):
        where = f"rules/{entry.name}"
        doc = parse(entry.read_text(encoding="utf-8"), where)
        if entry.name != f"{doc.code}.md":
            raise CatalogError(f"{where}: file name must be {doc.code}.md")
        docs[doc.code] = doc
    return docs
