"""The engine end to end on real files: syntax errors, encodings, unreadable files, the
pre-filter, parallel runs and the cache."""
from __future__ import annotations

import ast
import gc
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ampcheck import catalog
from ampcheck.config import Overrides, default_settings
from ampcheck.lint import engine, prefilter
from ampcheck.lint.cache import FOLDER
from ampcheck.lint.engine import Options, lint_paths

from tests.shell.helpers import SHELL, run

ROOT = Path(__file__).resolve().parents[2]


def codes(result) -> list[tuple[str, str, int]]:
    return [(f.path, f.code, f.line) for f in result.findings]


def test_a_syntax_error_is_amp001_at_cpythons_position_and_linting_goes_on(copy_fixture):
    copy_fixture("syntax_error.py")
    copy_fixture("train_deprecated.py")
    result = run(["."], cache=False)
    [error] = [f for f in result.findings if f.code == "AMP001"]
    with pytest.raises(SyntaxError) as expected:
        ast.parse((SHELL / "syntax_error.py").read_text())
    assert (error.path, error.line, error.col) == ("syntax_error.py", expected.value.lineno, expected.value.offset)
    assert error.message == f"SyntaxError: {expected.value.msg}"
    assert {f.code for f in result.findings if f.path == "train_deprecated.py"} == {"AMP401", "AMP402"}


@pytest.mark.parametrize("name", ["train_crlf.py", "train_bom.py", "train_latin1.py"])
def test_crlf_bom_and_coding_cookie_files_lint_like_the_plain_file(copy_fixture, name):
    copy_fixture("train_deprecated.py")
    copy_fixture(name)
    result = run(["."], cache=False)
    plain = [(f.code, f.line, f.col) for f in result.findings if f.path == "train_deprecated.py"]
    other = [(f.code, f.line, f.col) for f in result.findings if f.path == name]
    offset = 1 if name == "train_latin1.py" else 0  # the coding cookie adds a line
    assert other == [(c, line + offset, col) for c, line, col in plain]
    assert result.problems == []


def test_binary_and_undecodable_files_are_one_line_each_and_do_not_fail_the_run(copy_fixture):
    copy_fixture("binary.py")
    copy_fixture("not_utf8.py")
    copy_fixture("clean_modern.py")
    result = run(["."], cache=False)
    assert result.findings == []
    assert result.problems == [
        "binary.py: binary file (contains NUL bytes), not Python source",
        "not_utf8.py: cannot decode as utf-8 (byte 0xe9 at offset 63); add a PEP 263 coding cookie if it is not UTF-8",
    ]
    assert result.missing == [] and result.internal_errors == []


def test_a_file_that_vanishes_after_discovery_is_one_line(project):
    settings = default_settings(project)
    result = engine.lint_file("gone.py", settings, Options(cache=False))
    assert result.problems == ["gone.py: cannot read: No such file or directory"]


def test_files_without_amp_names_are_not_parsed(copy_fixture):
    copy_fixture("plain_utils.py")
    copy_fixture("train_deprecated.py")
    result = run(["."], cache=False)
    assert result.files == 2 and result.analysed == 1


def test_the_prefilter_still_reports_syntax_errors_in_skipped_files(project):
    (project / "broken.py").write_text("def f(:\n    return 1\n")
    assert not prefilter.may_have_findings((project / "broken.py").read_text())
    assert [f.code for f in run(["."], cache=False).findings] == ["AMP001"]


def test_the_prefilter_keeps_every_rule_docs_example():
    docs = catalog.load()
    # AMP001 is not name-based: every file's syntax is checked, filtered or not
    name_based = [code for code, doc in docs.items() if doc.source == "lint" and code != "AMP001"]
    kept = [code for code in name_based if prefilter.may_have_findings(docs[code].bad)]
    assert kept == name_based


def test_the_prefilter_keeps_every_fixture_with_findings(monkeypatch):
    """Lint every fixture with the filter forced open: each file with a finding must pass it."""
    settings = default_settings(ROOT)
    texts = {}
    for path in sorted((ROOT / "fixtures").rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "\0" not in text:
            texts[path] = text
    real_filter = prefilter.may_have_findings
    monkeypatch.setattr(prefilter, "may_have_findings", lambda text: True)
    flagged = [
        path for path, text in texts.items()
        if [f for f in engine.analyse(text, str(path), settings.enabled, warn_unused=True).findings if f.code != "AMP001"]
    ]
    assert len(flagged) > 20
    assert [path for path in flagged if not real_filter(texts[path])] == []


def test_parallel_run_equals_serial_run(project):
    for i in range(12):
        shutil.copyfile(SHELL / "train_deprecated.py", project / f"t{i:02}.py")
        shutil.copyfile(SHELL / "syntax_error.py", project / f"s{i:02}.py")
    shutil.copyfile(SHELL / "finetune.ipynb", project / "nb.ipynb")
    serial = run(["."], cache=False, jobs=1)
    parallel = run(["."], cache=False, jobs=2)
    assert serial.files == parallel.files == 25
    assert parallel.findings == serial.findings
    assert len(serial.findings) == 12 * 3 + 2


def test_cached_findings_replay_exactly_without_parsing(copy_fixture, project):
    copy_fixture("train_deprecated.py")
    copy_fixture("finetune.ipynb")
    copy_fixture("syntax_error.py")
    cold = run(["."])
    warm = run(["."])
    assert cold.analysed == 2 and warm.analysed == 0
    assert warm.findings == cold.findings
    assert [f.fix for f in warm.findings] == [f.fix for f in cold.findings]
    assert (project / FOLDER / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")


def test_the_cache_is_keyed_by_settings(copy_fixture):
    copy_fixture("train_deprecated.py")
    run(["."])
    narrowed = run(["."], Overrides(select=("AMP401",)))
    assert [f.code for f in narrowed.findings] == ["AMP401"]


def test_a_changed_file_is_analysed_again(copy_fixture, project):
    path = copy_fixture("train_deprecated.py")
    run(["."])
    path.write_text(path.read_text().replace("torch.cuda.amp.GradScaler(", "torch.amp.GradScaler(\"cuda\", "))
    again = run(["."])
    assert again.analysed == 1 and [f.code for f in again.findings] == ["AMP401"]


def test_a_corrupt_cache_is_ignored(copy_fixture, project):
    copy_fixture("train_deprecated.py")
    cold = run(["."])
    for entry in (project / FOLDER).rglob("*.json"):
        entry.write_text("{not json")
    broken = run(["."])
    assert broken.findings == cold.findings and broken.analysed == 1
    for entry in (project / FOLDER).rglob("*.json"):
        entry.write_text(json.dumps({"key": "other", "findings": []}))
    assert run(["."]).findings == cold.findings


def test_an_unwritable_cache_is_not_fatal(copy_fixture, project):
    copy_fixture("train_deprecated.py")
    (project / FOLDER).write_text("a file where the cache folder should be")
    result = run(["."])
    assert [f.code for f in result.findings] == ["AMP402", "AMP401"]
    assert result.problems == []


def test_no_cache_neither_reads_nor_writes(copy_fixture, project):
    copy_fixture("train_deprecated.py")
    run(["."], cache=False)
    assert not (project / FOLDER).exists()


def test_lint_paths_works_with_default_settings(project):
    shutil.copyfile(SHELL / "train_deprecated.py", project / "a.py")
    result = lint_paths(["a.py"], default_settings(project), Options(cache=False))
    assert [f.code for f in result.findings] == ["AMP402", "AMP401"]


def test_a_warm_run_does_not_even_import_libcst(copy_fixture):
    copy_fixture("train_deprecated.py")
    copy_fixture("finetune.ipynb")
    code = (
        "import sys\n"
        "from ampcheck.config import load_settings\n"
        "from ampcheck.lint.engine import lint_paths\n"
        "result = lint_paths(['.'], load_settings(['.']))\n"
        "print(len(result.findings), result.analysed, 'libcst' in sys.modules)\n"
    )
    cold = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    warm = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert cold.stdout.split() == ["4", "2", "True"]
    assert warm.stdout.split() == ["4", "0", "False"]


def test_the_cache_key_includes_ampchecks_version(monkeypatch):
    from ampcheck.lint import cache

    before = cache.key("x = 1\n", "py", "settings")
    cache.implementation.cache_clear()
    monkeypatch.setattr(cache, "__version__", "9.9.9")
    try:
        assert cache.key("x = 1\n", "py", "settings") != before
    finally:
        cache.implementation.cache_clear()


def test_concurrent_runs_share_the_cache_safely(project):
    for i in range(6):
        shutil.copyfile(SHELL / "train_deprecated.py", project / f"t{i}.py")
    command = [sys.executable, "-m", "ampcheck", "lint", "--jobs", "1", "--output-format", "json", "."]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outputs = [proc.communicate(timeout=120) for proc in runs]
    assert [proc.returncode for proc in runs] == [1, 1, 1]
    assert all(err == "" for _, err in outputs)
    assert len({out for out, _ in outputs}) == 1
    assert len(json.loads(outputs[0][0])) == 12


def test_a_run_leaves_the_garbage_collector_as_it_found_it(project):
    """A run collects cyclic garbage less often while it lints, and only then."""
    (project / "a.py").write_text("import torch\nscaler = torch.amp.GradScaler()\n")
    before = gc.get_threshold()
    lint_paths(["a.py"], default_settings(project), Options(cache=False))
    assert gc.get_threshold() == before
