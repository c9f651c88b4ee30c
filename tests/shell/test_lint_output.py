"""Every output format on real findings (a .py file and a notebook), through `render`."""
from __future__ import annotations

import json

import pytest

from ampcheck.findings import Finding
from ampcheck.output import FORMATS, render
from tests.paths import SHARED
from tests.shell.helpers import run

SARIF_SCHEMA = SHARED / "schemas" / "sarif-schema-2.1.0.json"


@pytest.fixture
def findings(copy_fixture) -> list[Finding]:
    copy_fixture("train_deprecated.py")
    copy_fixture("finetune.ipynb")
    copy_fixture("syntax_error.py")
    return run(["."], cache=False).findings


def test_text_lists_findings_with_fix_markers_and_a_summary(findings):
    assert render(findings, "text") == (
        "finetune.ipynb:cell 3:4:10: AMP402 [*] `torch.cuda.amp.GradScaler(...)` is deprecated; use `torch.amp.GradScaler(\"cuda\", ...)`\n"
        "finetune.ipynb:cell 5:4:10: AMP401 [*] `torch.cuda.amp.autocast(...)` is deprecated; use `torch.amp.autocast(\"cuda\", ...)`\n"
        "syntax_error.py:5:23: AMP001 SyntaxError: expected ':'\n"
        "train_deprecated.py:9:10: AMP402 [*] `torch.cuda.amp.GradScaler(...)` is deprecated; use `torch.amp.GradScaler(\"cuda\", ...)`\n"
        "train_deprecated.py:17:18: AMP401 [*] `torch.cuda.amp.autocast(...)` is deprecated; use `torch.amp.autocast(\"cuda\", ...)`\n"
        "Found 5 errors.\n"
        "[*] 4 fixable with the `--fix` option.\n"
    )


def test_text_summary_after_fixing_and_when_clean(findings):
    remaining = [f for f in findings if f.code == "AMP001"]
    assert render(remaining, "text", fixed=4).endswith("Found 5 errors (4 fixed, 1 remaining).\n")
    assert render([], "text") == "All checks passed!\n"


def test_statistics_count_per_code(findings):
    assert render(findings, "text", statistics=True) == (
        "2\tAMP401\t[*] deprecated-cuda-autocast\n"
        "2\tAMP402\t[*] deprecated-cuda-grad-scaler\n"
        "1\tAMP001\t    syntax-error\n"
        "Found 5 errors.\n"
        "[*] 4 fixable with the `--fix` option.\n"
    )
    assert json.loads(render(findings, "json", statistics=True))[0] == {
        "code": "AMP401", "name": "deprecated-cuda-autocast", "count": 2, "fixable": True
    }


def test_json_has_ruffs_shape(findings, project):
    items = json.loads(render(findings, "json"))
    assert [sorted(item) for item in items] == [
        ["cell", "code", "end_location", "filename", "fix", "location", "message", "noqa_row", "url"]
    ] * 5
    py = items[3]
    assert py["code"] == "AMP402"
    assert py["filename"] == str(project / "train_deprecated.py")
    assert py["location"] == {"row": 9, "column": 10} and py["cell"] is None
    assert py["fix"]["applicability"] == "safe"
    assert py["fix"]["edits"][0] == {
        "content": "torch.amp.GradScaler",
        "location": {"row": 9, "column": 10},
        "end_location": {"row": 9, "column": 35},
    }
    assert py["url"] == "rules/AMP402.md"
    assert items[0]["cell"] == 3 and items[0]["location"] == {"row": 4, "column": 10}
    syntax = items[2]
    assert syntax["code"] == "AMP001" and syntax["fix"] is None


def test_sarif_validates_against_the_oasis_schema(findings):
    if not SARIF_SCHEMA.exists():
        pytest.skip(f"the SARIF 2.1.0 schema is not at {SARIF_SCHEMA}")
    jsonschema = pytest.importorskip("jsonschema")
    log = json.loads(render(findings, "sarif"))
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    run_ = log["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert {"AMP001", "AMP401", "AMP402", "AMP405"} <= {r["id"] for r in rules}
    result = run_["results"][3]
    assert result["ruleId"] == "AMP402" and rules[result["ruleIndex"]]["id"] == "AMP402"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 9
    assert result["fixes"][0]["artifactChanges"][0]["replacements"]
    notebook_result = run_["results"][0]
    assert notebook_result["properties"] == {"cell": 3, "line": 4, "column": 10}


def test_github_annotations(findings):
    lines = render(findings, "github").splitlines()
    assert lines[3] == (
        "::warning title=ampcheck (AMP402),file=train_deprecated.py,line=9,col=10,endLine=9,endColumn=61::"
        "train_deprecated.py:9:10: AMP402 `torch.cuda.amp.GradScaler(...)` is deprecated; use `torch.amp.GradScaler(\"cuda\", ...)`"
    )
    assert lines[2].startswith("::error title=ampcheck (AMP001),file=syntax_error.py,line=5,col=23,")
    assert lines[0].startswith("::warning title=ampcheck (AMP402),file=finetune.ipynb::finetune.ipynb:cell 3:4:10: AMP402")


@pytest.mark.parametrize("fmt", FORMATS)
def test_trace_findings_without_fix_or_doc_render_in_every_format(fmt):
    finding = Finding("AMP599", "fp32 matmul outside autocast (42% of FLOPs)", "train.py", 12, 5, 12, 30)
    out = render([finding], fmt)
    assert "train.py" in out and "AMP599" in out


def test_an_unknown_format_is_a_value_error():
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        render([], "xml")


def test_unsafe_fixes_get_no_marker_and_a_hint():
    from ampcheck.findings import Edit, Fix

    fix = Fix("use bf16", (Edit(1, 1, 1, 2, "x"),), "unsafe")
    out = render([Finding("AMP401", "m", "a.py", 1, 1, 1, 2, fix=fix)], "text")
    assert out == (
        "a.py:1:1: AMP401 m\n"
        "Found 1 error.\n"
        "1 hidden fix can be enabled with the `--unsafe-fixes` option.\n"
    )


def test_sarif_uris_are_relative_references_or_file_uris():
    findings = [
        Finding("AMP401", "m", "src/my train.py", 1, 1, 1, 2),
        Finding("AMP401", "m", "/abs/train.py", 1, 1, 1, 2),
    ]
    results = json.loads(render(findings, "sarif"))["runs"][0]["results"]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    assert sorted(uris) == ["file:///abs/train.py", "src/my%20train.py"]
