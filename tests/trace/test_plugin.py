"""The pytest plugin, exercised the way users meet it: their own test file, run by pytest.

One pytester run holds the whole user suite: each run is a fresh python with torch imported
(an in-process run would drop the torch modules it imported, and torch cannot be imported
twice), so the cases share one subprocess and are checked test by test from its output.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import FIXTURES, ROOT

pytest_plugins = ["pytester"]

USER_SUITE = f"""
import sys
sys.path.insert(0, {str(FIXTURES / "models")!r})
import pytest
import torch
import fp16_scaler_loop, manual_half, mlp, outside_autocast


def test_low_precision_step(amp_trace):
    mlp.build(dtype=torch.bfloat16)()
    amp_trace.report.assert_coverage(min_lowp_flop_share=0.9)
    assert not amp_trace.report.findings(select=["AMP502"])


def test_coverage_gap(amp_trace):
    outside_autocast.build()()
    amp_trace.report.assert_coverage(min_lowp_flop_share=0.9)


def test_fp32_policy_op_in_bf16(amp_trace):
    manual_half.build(dtype=torch.bfloat16)()
    assert not amp_trace.report.findings(select=["AMP502"])


@pytest.mark.amp_trace(numerics=True)
def test_marker_options_and_stop_at_first_read(amp_trace):
    fp16_scaler_loop.train(steps=2)
    report = amp_trace.report
    assert not amp_trace.recording
    assert "numerics" in report.sections and report.meta["steps"] == 2
    fp16_scaler_loop.train(steps=1)  # untraced now
    assert amp_trace.report is report
"""


@pytest.fixture
def user_run(pytester):
    pytester.makepyfile(test_user=USER_SUITE)
    # the plugin loads through its pytest11 entry point, as it does for users
    return pytester.runpytest_subprocess("-rA", "-p", "no:cacheprovider")


def test_the_amp_trace_fixture_and_its_assertions_in_a_user_suite(user_run):
    user_run.assert_outcomes(passed=2, failed=2)
    user_run.stdout.fnmatch_lines([
        "PASSED test_user.py::test_low_precision_step",
        "PASSED test_user.py::test_marker_options_and_stop_at_first_read",
    ], consecutive=False)
    # the coverage failure names the fp32 ops, their modules and source lines
    user_run.stdout.fnmatch_lines([
        "*low-precision share of matmul FLOPs below 90.0%: forward *",
        "*addmm in module decoder (Linear): * in float32, autocast off, at *outside_autocast.py:18*",
        "*addmm in module head (Linear): * in float32, autocast off, at *outside_autocast.py:19*",
        "*modules below 100%: decoder (Linear) 0.0%, head (Linear) 0.0%*",
    ])
    # a findings failure prints each finding as lint does
    user_run.stdout.fnmatch_lines(["*manual_half.py:30:1: AMP502 `*` in *ran in bfloat16*"])


def test_the_plugin_does_not_import_torch_when_loaded():
    code = "import sys, ampcheck.pytest_plugin; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"
