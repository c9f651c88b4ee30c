"""The rule catalog: parsing the docs strictly, and `ampcheck rule`."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from ampcheck import catalog
from ampcheck.cli import cli
from tests.paths import ROOT

GOOD = """---
code: AMP999
name: example-rule
severity: info            # error | warning | info
fix: none
source: lint
---
# AMP999 example-rule

## What it does
Flags x.

## Why is this bad
Because.

## Example
```python
x = 1
```

## Use instead
```python
y = 1
```

## References
- somewhere
"""


def rule(*args: str):
    return CliRunner().invoke(cli, ["rule", *args])


def test_doc_is_parsed_into_fields_sections_and_examples():
    doc = catalog.parse(GOOD, "AMP999.md")
    assert (doc.code, doc.name, doc.severity, doc.fix, doc.source) == (
        "AMP999", "example-rule", "info", "none", "lint"
    )
    assert doc.title == "AMP999 example-rule"
    assert list(doc.sections) == list(catalog.SECTIONS)
    assert (doc.bad, doc.good) == ("x = 1\n", "y = 1\n")
    assert doc.url == "rules/AMP999.md"


@pytest.mark.parametrize(
    "broken, message",
    [
        (GOOD.replace("severity: info", "severity: loud"), "severity 'loud' is not one of"),
        (GOOD.replace("fix: none\n", ""), "front matter lacks 'fix'"),
        (GOOD.replace("fix: none\n", "fix: none\nowner: me\n"), "unknown front matter key 'owner'"),
        (GOOD.replace("## References", "## Links"), "missing section '## References'"),
        (GOOD.replace("# AMP999 example-rule", "# AMP999 other"), "first heading must be"),
        (GOOD.replace("```python\ny = 1", "```\ny = 1"), "'Use instead' has no ```python block"),
        (GOOD.replace("code: AMP999", "code: X1"), "is not AMP followed by three digits"),
        (GOOD[4:], "must start with a '---'"),
    ],
)
def test_malformed_doc_is_one_line_naming_the_problem(broken, message):
    with pytest.raises(catalog.CatalogError) as err:
        catalog.parse(broken, "AMP999.md")
    assert str(err.value).startswith("AMP999.md: ") and message in str(err.value)
    assert "\n" not in str(err.value)


def test_finding_url_points_at_the_shipped_doc():
    assert (ROOT / catalog.url("AMP401")).is_file()


def test_rule_prints_the_doc():
    result = rule("AMP401")
    assert result.exit_code == 0
    assert result.output.startswith("# AMP401 deprecated-cuda-autocast\n")
    assert "## Use instead" in result.output
    assert result.output.rstrip().endswith("severity: warning · fix: safe · source: lint")


def test_rule_code_is_case_insensitive():
    assert rule("amp405").output == rule("AMP405").output


def test_rule_all_lists_every_doc_as_a_table():
    result = rule("--all")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["code", "name", "severity", "fix", "source"]
    assert [line.split()[0] for line in lines[1:]] == list(catalog.load())
    assert "AMP402  deprecated-cuda-grad-scaler" in result.output


def test_unknown_rule_is_one_line_and_exit_2():
    result = rule("AMP999")
    assert result.exit_code == 2
    assert result.output == "ampcheck: error: unknown rule code 'AMP999' (see `ampcheck rule --all`)\n"


@pytest.mark.parametrize("args", [(), ("AMP401", "--all")])
def test_rule_needs_exactly_one_of_code_or_all(args):
    result = rule(*args)
    assert result.exit_code == 2
    assert "give one rule code, or --all" in result.output


@pytest.mark.slow
def test_the_wheel_ships_the_top_level_rule_docs_and_ampcheck_rule_reads_them(tmp_path):
    """Build the real wheel from a copy of the sources, install it with its dependencies into a
    fresh virtual environment and run `ampcheck rule AMP101` there, away from the checkout:
    the docs written in the top-level rules/ must come from the package data."""
    import shutil
    import subprocess
    import sys
    import zipfile

    src = tmp_path / "src"
    for folder in ("ampcheck", "rules"):
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    pip = ["-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [sys.executable, *pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(tmp_path), str(src)],
        check=True,
    )
    (wheel,) = tmp_path.glob("ampcheck-*.whl")
    shipped = {n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("ampcheck/rules/")}
    assert shipped == {f"ampcheck/rules/{p.name}" for p in (ROOT / "rules").glob("*.md")}
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), *pip, "install", "-c", str(ROOT / "constraints.txt"), str(wheel)], check=True)
    shown = subprocess.run(
        [str(venv / "bin" / "ampcheck"), "rule", "AMP101"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert shown.startswith("# AMP101 optimizer-step-bypasses-scaler")
    where = subprocess.run(
        [str(python), "-c", "from ampcheck import catalog; print(catalog.folder())"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert where.startswith(str(venv)) and where.endswith("ampcheck/rules")
