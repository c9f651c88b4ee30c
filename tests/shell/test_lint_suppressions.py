"""Suppression comments, file-level ignores and --warn-unused-ignores (AMP002)."""
from __future__ import annotations

from ampcheck.config import Overrides
from tests.shell.helpers import run


def test_noqa_and_ampcheck_ignore_suppress_their_line_only(copy_fixture):
    copy_fixture("suppressed.py")
    result = run(["suppressed.py"], cache=False)
    # lines 5-7 are suppressed; line 8's `# noqa: E501` names another tool's code only.
    assert [(f.code, f.line) for f in result.findings] == [("AMP401", 8)]


def test_ignore_file_silences_the_whole_file(copy_fixture):
    copy_fixture("ignored_file.py")
    assert run(["ignored_file.py"], cache=False).findings == []


def test_unused_suppressions_are_reported_only_when_asked(copy_fixture):
    copy_fixture("suppressed.py")
    assert all(f.code != "AMP002" for f in run(["suppressed.py"], cache=False).findings)
    result = run(["suppressed.py"], Overrides(warn_unused_ignores=True), cache=False)
    unused = [(f.line, f.col, f.message) for f in result.findings if f.code == "AMP002"]
    assert unused == [(9, 39, "unused suppression of AMP402")]


def test_warn_unused_ignores_can_be_set_in_the_config(copy_fixture, project):
    copy_fixture("suppressed.py")
    (project / "pyproject.toml").write_text("[tool.ampcheck]\nwarn-unused-ignores = true\n")
    assert [f.line for f in run(["suppressed.py"], cache=False).findings if f.code == "AMP002"] == [9]


def test_a_suppression_of_a_disabled_rule_says_so(project):
    (project / "a.py").write_text("import torch\nctx = torch.cuda.amp.autocast()  # noqa: AMP401, AMP402\n")
    result = run(["a.py"], Overrides(warn_unused_ignores=True, ignore=("AMP402",)), cache=False)
    assert [f.message for f in result.findings] == ["unused suppression of AMP402 (not enabled)"]


def test_fixing_unused_suppressions_keeps_other_tools_codes(project):
    path = project / "a.py"
    path.write_text(
        "import torch\n"
        "a = torch.amp.GradScaler('cuda')  # noqa: AMP402\n"
        "b = torch.amp.GradScaler('cuda')  # noqa: E501, AMP402\n"
        "c = torch.cuda.amp.GradScaler()  # ampcheck: ignore[AMP401, AMP402]\n"
    )
    result = run(["a.py"], Overrides(warn_unused_ignores=True), cache=False, fix=True)
    assert result.findings == []
    assert path.read_text() == (
        "import torch\n"
        "a = torch.amp.GradScaler('cuda')\n"
        "b = torch.amp.GradScaler('cuda')  # noqa: E501\n"
        "c = torch.cuda.amp.GradScaler()  # ampcheck: ignore[AMP402]\n"
    )


def test_a_comment_inside_a_string_is_not_a_suppression(project):
    (project / "a.py").write_text('import torch\nx = (torch.cuda.amp.autocast(), "# noqa: AMP401")\n')
    assert [f.code for f in run(["a.py"], cache=False).findings] == ["AMP401"]


def test_a_multi_line_call_is_suppressed_on_the_line_where_the_finding_starts(project):
    (project / "a.py").write_text(
        "import torch\n"
        "scaler = torch.cuda.amp.GradScaler(  # noqa: AMP402\n"
        "    init_scale=2.0**10,\n"
        ")\n"
    )
    assert run(["a.py"], cache=False).findings == []


def test_a_backslash_continued_line_takes_its_directive_at_the_end_like_ruff(project):
    (project / "a.py").write_text(
        "import torch\n"
        "scaler = torch.cuda.amp.GradScaler() if True \\\n"
        "    else None  # noqa: AMP402\n"
        'doc = torch.cuda.amp.autocast(enabled=bool("""\n'
        '"""))  # ampcheck: ignore[AMP401]\n'
    )
    assert run(["a.py"], cache=False).findings == []
