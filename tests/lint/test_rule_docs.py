"""The rule docs are a test suite: every lint rule's Example raises its code, every Use
instead raises nothing at all, every rule has a doc and every lint doc a rule.

Parametrised over the files in rules/, so a doc added later is tested without
touching this file.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from ampcheck import catalog
from ampcheck.config import SYNTAX_ERROR, UNUSED_SUPPRESSION
from ampcheck.findings import Finding
from ampcheck.lint.checks import all_codes
from ampcheck.lint.engine import analyse
from ampcheck.lint.fix import apply_fixes, verify
from tests.paths import ROOT

DOC_FILES = sorted((ROOT / "rules").glob("*.md"))


def _parse_all() -> dict[str, catalog.RuleDoc]:
    docs = {}
    for path in DOC_FILES:
        try:
            docs[path.stem] = catalog.parse(path.read_text(encoding="utf-8"), path.name)
        except catalog.CatalogError:
            continue  # test_doc_has_complete_front_matter_and_sections reports it
    return docs


DOCS = _parse_all()
LINT_DOCS = [code for code, doc in DOCS.items() if doc.source == "lint"]
# Codes the engine reports itself, not a registered check.
ENGINE_CODES = {SYNTAX_ERROR, UNUSED_SUPPRESSION}
ALL_CODES = frozenset(DOCS)


def findings(code: str, text: str) -> list[Finding]:
    """Lint a snippet the way `ampcheck lint --warn-unused-ignores` lints a file."""
    result = analyse(text, f"{code}.md", ALL_CODES, warn_unused=True)
    assert not result.internal_errors and not result.problems
    return result.findings


def lint_snippet(code: str, which: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in findings(code, getattr(DOCS[code], which))]


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: p.stem)
def test_doc_has_complete_front_matter_and_sections(path: Path):
    doc = catalog.parse(path.read_text(encoding="utf-8"), path.name)
    assert path.name == f"{doc.code}.md"
    assert list(doc.sections)[: len(catalog.SECTIONS)] == list(catalog.SECTIONS)
    assert all(doc.sections[s].strip() for s in catalog.SECTIONS)
    assert doc.bad.strip() and doc.good.strip()


@pytest.mark.parametrize("code", LINT_DOCS)
def test_example_raises_its_code(code: str):
    found = lint_snippet(code, "bad")
    assert code in {c for c, _ in found}, f"{code}'s Example raised only {found}"


@pytest.mark.parametrize("code", LINT_DOCS)
def test_use_instead_raises_nothing(code: str):
    assert lint_snippet(code, "good") == []


@pytest.mark.parametrize("code", LINT_DOCS)
def test_example_fix_matches_front_matter(code: str):
    """`fix: safe|unsafe|none` says what the Example's findings of this code offer."""
    own = [f for f in findings(code, DOCS[code].bad) if f.code == code]
    assert {f.fix.applicability if f.fix else "none" for f in own} == {DOCS[code].fix}


@pytest.mark.parametrize("code", [c for c in LINT_DOCS if DOCS[c].fix != "none"])
def test_fixed_example_no_longer_raises_its_code(code: str):
    text = DOCS[code].bad
    own = [f.fix for f in findings(code, text) if f.code == code and f.fix is not None]
    fixed, applied = apply_fixes(text, own)
    verify(fixed)
    assert applied and code not in {f.code for f in findings(code, fixed)}


@pytest.mark.parametrize("code", sorted(all_codes()))
def test_registered_check_code_has_a_doc(code: str):
    documented = code in DOCS
    assert documented, f"{code} is registered by a check but rules/{code}.md is missing"


@pytest.mark.parametrize("code", LINT_DOCS)
def test_lint_doc_has_a_registered_check(code: str):
    registered = code in all_codes() | ENGINE_CODES
    assert registered, f"rules/{code}.md documents no registered rule"


def test_engine_codes_are_documented_as_lint_rules():
    assert sorted(ENGINE_CODES - set(LINT_DOCS)) == []


def test_packaged_catalog_matches_the_doc_files():
    """`catalog.load` reads the docs through importlib.resources, as from the wheel."""
    loaded = catalog.load()
    assert list(loaded) == sorted(DOCS)
    assert loaded == DOCS

