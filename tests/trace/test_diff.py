"""`ampcheck report --diff BEFORE AFTER` and `TraceReport.diff`: what changed between two traces."""
from __future__ import annotations

import json

import pytest
import torch

import ampcheck.trace
from ampcheck.trace.report import TraceReport, load
from distributed_runs import cli, traced
from model_fixtures import build_step


def trace_steps(name: str, steps: int, dtype=torch.bfloat16, **options) -> TraceReport:
    step = build_step(name, dtype)
    with ampcheck.trace(**options) as t:
        for _ in range(steps):
            step()
    return t.report


def test_longer_run_of_the_same_step_changes_nothing():
    change = TraceReport.diff(trace_steps("mlp", 1), trace_steps("mlp", 3))
    assert change.per_step
    assert {phase: c["change"] for phase, c in change.coverage.items()} == {"forward": 0.0, "backward": 0.0}
    assert change.casts["autocast"]["before"] == change.casts["autocast"]["after"]
    assert change.new_fp32_matmuls == [] and change.new_findings == []
    assert change.worse(tolerance=0.0) == {}


def test_closing_autocast_early_shows_new_fp32_matmuls_and_findings():
    change = TraceReport.diff(trace_steps("mlp", 1), trace_steps("outside_autocast", 1))
    assert {(m["op"], m["phase"], m["module"]) for m in change.new_fp32_matmuls} >= {
        ("addmm", "forward", "decoder"), ("addmm", "forward", "head")}
    assert {f.code for f in change.new_findings} == {"AMP501"}
    assert change.worse(tolerance=0.0)["forward"] < 0


def test_switching_fp16_to_bf16_lists_the_modules_whose_error_against_fp32_grew():
    change = TraceReport.diff(trace_steps("mlp", 1, torch.float16, compare_fp32=True),
                              trace_steps("mlp", 1, torch.bfloat16, compare_fp32=True))
    assert {m["module"] for m in change.precision_loss} == {"MLP", "fc1", "act", "fc2"}
    assert all(m["after"] > 2 * m["before"] for m in change.precision_loss)
    assert change.misaligned_share["before"] == change.misaligned_share["after"] > 0  # fc2's N=10
    text = change.to_text(0.0)
    assert "modules whose error against float32 grew (max relative error):" in text
    assert "low-precision matmul FLOPs Tensor Cores cannot tile: " in text


def test_traces_without_the_comparison_list_no_error_changes():
    change = TraceReport.diff(trace_steps("mlp", 1), trace_steps("mlp", 1, compare_fp32=True))
    assert change.precision_loss == [] and "error against float32" not in change.to_text(0.0)


@pytest.mark.slow
def test_a_rank_falling_out_of_autocast_halves_coverage():
    change = TraceReport.diff(load([str(traced("ddp_bf16.py"))]), load([str(traced("ddp_rank_skips_autocast.py"))]))
    assert change.coverage["forward"] == {"before": 1.0, "after": 0.5, "change": -0.5}
    assert [f.code for f in change.new_findings] == ["AMP501"] * 3


@pytest.mark.slow
def test_diff_exits_one_when_coverage_got_worse():
    result = cli("report", "--diff", str(traced("ddp_bf16.py")), str(traced("ddp_rank_skips_autocast.py")))
    assert result.returncode == 1, result.stderr
    assert "forward     100.0% -> 50.0%  (-50.0 points)" in result.stdout
    assert "coverage got worse by more than the tolerance (0.0%): forward -50.0 points" in result.stdout


@pytest.mark.slow
def test_tolerance_absorbs_a_smaller_drop():
    before, after = traced("ddp_bf16.py"), traced("ddp_rank_skips_autocast.py")
    assert cli("report", "--diff", str(before), str(after), "--tolerance", "60%").returncode == 0
    assert cli("report", "--diff", str(before), str(after), "--tolerance", "0.4").returncode == 1


def test_diff_of_a_trace_with_itself_exits_zero(tmp_path):
    saved = trace_steps("mlp", 1).save(tmp_path / "mlp.json")
    result = cli("report", "--diff", str(saved), str(saved))
    assert result.returncode == 0, result.stderr
    assert "coverage did not get worse" in result.stdout


def test_diff_as_json(tmp_path):
    before = trace_steps("mlp", 1).save(tmp_path / "before.json")
    after = trace_steps("outside_autocast", 1).save(tmp_path / "after.json")
    result = cli("report", "--diff", str(before), str(after), "--format", "json")
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["coverage"]["forward"]["change"] < 0
    assert {f["code"] for f in data["new_findings"]} == {"AMP501"}


def test_a_bad_tolerance_is_one_line_and_exit_two(tmp_path):
    saved = trace_steps("mlp", 1).save(tmp_path / "mlp.json")
    result = cli("report", "--diff", str(saved), str(saved), "--tolerance", "lots")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_diff_has_no_html_form(tmp_path):
    saved = trace_steps("mlp", 1).save(tmp_path / "mlp.json")
    result = cli("report", "--diff", str(saved), str(saved), "--format", "html")
    assert result.returncode == 2
    assert result.stderr.strip() == "ampcheck: error: --diff prints text or json, not html"
