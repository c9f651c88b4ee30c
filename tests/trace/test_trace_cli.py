"""`ampcheck trace SCRIPT -- ARGS` and `ampcheck report FILE`, end to end on fixtures/models/train.py."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

import ampcheck
from ampcheck.cli import cli
from ampcheck.output import render
from ampcheck.trace.report import TraceReport
from tests.paths import FIXTURES, ROOT
from model_fixtures import build_step

TRAIN = str(FIXTURES / "models" / "train.py")


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_trace_runs_the_script_as_main_with_its_args_and_writes_the_report(tmp_path):
    out = tmp_path / "trace.json"
    argv, path0 = sys.argv[:], sys.path[0]
    result = run("trace", "--out", str(out), TRAIN, "--", "--steps", "2")
    assert result.exit_code == 0, result.output
    assert "step 1 loss" in result.stdout and "step 2" not in result.stdout
    assert "ampcheck trace:" in result.stderr and str(out) in result.stderr
    report = TraceReport.load(out)
    assert report.meta["steps"] == 2 and report.meta["script"] == [TRAIN, "--steps", "2"]
    assert report.coverage()["forward"]["share"] == 1.0
    assert (sys.argv, sys.path[0]) == (argv, path0)


def test_a_crashing_script_prints_its_traceback_exits_1_and_still_writes_the_report(tmp_path):
    out = tmp_path / "trace.json"
    result = run("trace", "-q", "--out", str(out), TRAIN, "--", "--steps", "3", "--crash-after", "1")
    assert result.exit_code == 1
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert 'train.py", line' in result.stderr and "RuntimeError: crashed at step 1" in result.stderr
    assert "ampcheck" not in result.stderr.split("Traceback", 1)[1].split("RuntimeError")[0]
    report = TraceReport.load(out)
    assert report.meta["steps"] == 1 and report.meta["exit_status"] == 1


def test_the_scripts_exit_status_passes_through(tmp_path):
    result = run("trace", "-q", "--out", str(tmp_path / "t.json"), TRAIN, "--", "--steps", "1", "--exit-code", "3")
    assert result.exit_code == 3


def test_steps_option_stops_recording_while_the_script_runs_on(tmp_path):
    out = tmp_path / "t.json"
    result = run("trace", "-q", "--steps", "1", "--out", str(out), TRAIN, "--", "--steps", "3")
    assert result.exit_code == 0 and "step 2 loss" in result.stdout
    assert TraceReport.load(out).meta["steps"] == 1


def test_out_with_a_trailing_slash_is_a_directory_of_rank_files(tmp_path):
    result = run("trace", "-q", "--out", f"{tmp_path / 'traces'}/", TRAIN, "--", "--steps", "1")
    assert result.exit_code == 0
    assert (tmp_path / "traces" / "trace.rank0.json").is_file()


def test_compare_fp32_ranks_the_scripts_modules_against_float32_with_the_given_threshold(tmp_path):
    out = tmp_path / "t.json"
    result = run("trace", "--compare-fp32", "--compare-threshold", "0.2", "--out", str(out), TRAIN, "--", "--steps", "2")
    assert result.exit_code == 0, result.output
    assert "fp32 comparison (" in result.stderr and "threshold 20.0%" in result.stderr
    section = TraceReport.load(out).sections["compare_fp32"]
    assert section["threshold"] == 0.2 and section["steps_compared"] == 2
    assert {m["module"] for m in section["modules"]} >= {"Encoder", "layers.0.attn", "head"}


def test_a_missing_script_or_a_bad_option_is_one_line_and_exit_2(tmp_path):
    missing = run("trace", str(tmp_path / "nope.py"))
    assert missing.exit_code == 2 and missing.stderr.count("\n") == 1 and "no such file" in missing.stderr
    bad = run("trace", "--phases", "forwards", TRAIN)
    assert bad.exit_code == 2 and "unknown trace phase" in bad.stderr
    threshold = run("trace", "--compare-fp32", "--compare-threshold", "0", TRAIN)
    assert threshold.exit_code == 2 and threshold.stderr.count("\n") == 1 and "compare-threshold" in threshold.stderr


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A saved trace of a fixture with an fp32 gap (AMP501) and one without findings."""
    paths = {}
    for name in ("outside_autocast", "mlp"):
        step = build_step(name)
        with ampcheck.trace() as t:
            step()
        paths[name] = t.report.save(tmp_path_factory.mktemp(name) / "trace.json")
    return paths


def test_report_re_renders_text_and_json(saved):
    text = run("report", str(saved["mlp"]))
    assert text.exit_code == 0 and text.stdout == TraceReport.load(saved["mlp"]).to_text() + "\n"
    as_json = run("report", str(saved["mlp"]), "--format", "json")
    assert json.loads(as_json.stdout) == TraceReport.load(saved["mlp"]).to_json()


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_report_findings_print_exactly_as_lint_prints_its_own(saved, fmt):
    result = run("report", str(saved["outside_autocast"]), "--findings", "--output-format", fmt)
    assert result.exit_code == 1
    assert result.stdout == render(TraceReport.load(saved["outside_autocast"]).findings(), fmt)


def test_report_findings_exit_0_when_clean_or_with_exit_zero(saved):
    assert run("report", str(saved["mlp"]), "--findings").exit_code == 0
    assert run("report", str(saved["outside_autocast"]), "--findings", "--exit-zero").exit_code == 0
    assert run("report", str(saved["outside_autocast"]), "--findings", "--select", "AMP503").exit_code == 0


def test_report_of_a_bad_file_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    result = run("report", str(bad))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "invalid JSON" in result.stderr


def test_report_command_never_imports_torch(saved):
    code = ("import sys; from ampcheck.cli import main\n"
            "try:\n    main(['report', sys.argv[1], '--findings'])\nexcept SystemExit:\n    pass\n"
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(saved["outside_autocast"])], capture_output=True,
                         text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip().endswith("False"), out.stderr


def test_a_script_with_a_syntax_error_reports_it_like_python(tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("import torch\nx = (1,\n")
    result = run("trace", "-q", "--out", str(tmp_path / "t.json"), str(script))
    assert result.exit_code == 1
    assert "SyntaxError" in result.stderr and "broken.py" in result.stderr
    assert "ampcheck" not in result.stderr and "runpy" not in result.stderr
