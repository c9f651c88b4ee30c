"""--fix / --diff / --unsafe-fixes: files keep their encoding, BOM and line endings; a second
run changes nothing; a result that does not parse is never written."""
from __future__ import annotations

import pytest

from ampcheck.findings import Edit, Finding, Fix
from ampcheck.lint import checks
from ampcheck.lint.checks import Check
from tests.shell.helpers import SHELL, run


@pytest.mark.parametrize("name", ["train_deprecated.py", "train_crlf.py", "train_bom.py", "train_latin1.py"])
def test_fix_keeps_encoding_bom_and_line_endings(copy_fixture, name):
    path = copy_fixture(name)
    before = path.read_bytes()
    result = run([name], cache=False, fix=True)
    assert (result.fixed, result.findings, result.problems) == (2, [], [])
    after = path.read_bytes()
    expected = before.replace(
        b"torch.cuda.amp.GradScaler(enabled", b'torch.amp.GradScaler("cuda", enabled'
    ).replace(b"torch.cuda.amp.autocast(enabled", b'torch.amp.autocast("cuda", enabled')
    assert after == expected
    assert after.count(b"\r\n") == before.count(b"\r\n")
    assert after.startswith(b"\xef\xbb\xbf") == before.startswith(b"\xef\xbb\xbf")


def test_a_second_fix_changes_nothing(copy_fixture):
    path = copy_fixture("train_deprecated.py")
    run(["."], cache=False, fix=True)
    once = path.read_bytes()
    assert run(["."], cache=False, fix=True).fixed == 0
    assert path.read_bytes() == once


def test_diff_prints_a_unified_diff_and_writes_nothing(copy_fixture):
    path = copy_fixture("train_crlf.py")
    before = path.read_bytes()
    result = run(["train_crlf.py"], cache=False, diff=True)
    assert path.read_bytes() == before
    [diff] = result.diffs
    assert diff.startswith("--- train_crlf.py\n+++ train_crlf.py\n")
    assert '+scaler = torch.amp.GradScaler("cuda", enabled=device == "cuda")\r\n' in diff
    assert result.fixed == 2


def test_fix_with_a_warm_cache_replays_the_cached_fixes(copy_fixture):
    path = copy_fixture("train_deprecated.py")
    run(["."])
    result = run(["."], fix=True)
    assert result.fixed == 2 and 'torch.amp.autocast("cuda"' in path.read_text()


def _register(monkeypatch, fn, codes=("AMP405",)):
    monkeypatch.setattr(checks, "REGISTRY", [Check(fn, frozenset(codes))])


def test_a_fix_whose_result_does_not_parse_is_refused(project, monkeypatch):
    path = project / "train.py"
    path.write_text("import torch\nfor step in range(3):\n    torch.cuda.amp.autocast()\n")

    def breaks_the_loop(model):
        edit = Edit(2, 21, 2, 22, "")  # deletes the colon
        yield Finding("AMP405", "bad fix", model.path, 2, 1, 2, 2, fix=Fix("drop colon", (edit,)))

    _register(monkeypatch, breaks_the_loop)
    before = path.read_text()
    result = run(["train.py"], cache=False, fix=True)
    assert path.read_text() == before
    assert result.fixed == 0 and [f.code for f in result.findings] == ["AMP405"]
    [problem] = result.problems
    assert problem.startswith("train.py: fixes not applied: fixed code does not ")
    assert "\n" not in problem


def test_unsafe_fixes_need_their_flag(project, monkeypatch):
    path = project / "train.py"
    path.write_text("import torch.amp\nx = torch.half\n")  # `amp` lets it through the pre-filter

    def unsafe(model):
        if "torch.half" in model.source:
            edit = Edit(2, 5, 2, 15, "torch.bfloat16")
            yield Finding("AMP405", "prefer bf16", model.path, 2, 5, 2, 15, fix=Fix("use bf16", (edit,), "unsafe"))

    _register(monkeypatch, unsafe)
    assert run(["train.py"], cache=False, fix=True).fixed == 0
    assert path.read_text() == "import torch.amp\nx = torch.half\n"
    result = run(["train.py"], cache=False, fix=True, unsafe_fixes=True)
    assert result.fixed == 1 and result.findings == []
    assert path.read_text() == "import torch.amp\nx = torch.bfloat16\n"


def test_a_crashing_check_is_an_internal_error_line_not_a_traceback(project, monkeypatch):
    (project / "train.py").write_text("import torch\nscaler = torch.amp.GradScaler('cuda')\n")

    def crashes(model):
        raise KeyError("boom")
        yield  # pragma: no cover - makes this a generator like real checks

    _register(monkeypatch, crashes)
    result = run(["train.py"], cache=False)
    assert result.internal_errors == [
        "train.py: internal error in check test_a_crashing_check_is_an_internal_error_line_not_a_traceback.<locals>.crashes: KeyError: 'boom'"
    ]


def test_fixture_sources_are_untouched():
    assert b"torch.cuda.amp.autocast(" in (SHELL / "train_deprecated.py").read_bytes()


def test_a_file_that_cannot_be_written_keeps_its_findings(copy_fixture, monkeypatch):
    from ampcheck.lint import engine
    from ampcheck.lint.source import SourceError

    copy_fixture("train_deprecated.py")

    def refuse(path, sf, text):
        raise SourceError(f"{path}: cannot write: Read-only file system")

    monkeypatch.setattr(engine, "write_source", refuse)
    result = run(["train_deprecated.py"], cache=False, fix=True)
    assert result.fixed == 0
    assert [f.code for f in result.findings] == ["AMP402", "AMP401"]
    assert result.problems == ["train_deprecated.py: cannot write: Read-only file system"]


def test_diff_mode_reports_the_findings_as_they_are_on_disk(copy_fixture):
    copy_fixture("train_deprecated.py")
    result = run(["train_deprecated.py"], cache=False, diff=True)
    assert result.fixed == 2 and [f.code for f in result.findings] == ["AMP402", "AMP401"]
