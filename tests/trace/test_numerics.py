"""Opt-in numerics: where inf/nan first appeared, fp16 headroom, fp16 gradient underflow."""
from __future__ import annotations

import sys

import pytest
import torch

import ampcheck
from ampcheck.trace.sections.numerics import underflow_by_module
from tests.paths import FIXTURES

sys.path.insert(0, str(FIXTURES / "models"))
from fp16_scaler_loop import train  # noqa: E402


def numerics_of(**options):
    every = options.pop("numerics_every", 1)
    with ampcheck.trace(numerics=True, numerics_every=every) as t:
        train(**options)
    return t.report


def test_numerics_are_off_by_default():
    with ampcheck.trace() as t:
        train(steps=1)
    assert "numerics" not in t.report.sections


def test_an_injected_overflow_points_at_the_op_step_and_module():
    report = numerics_of(steps=6, overflow_at=3)
    first = report.sections["numerics"]["first_nonfinite"]
    # the input, scaled by 1e5, overflows when autocast casts it to fp16 for fc1
    assert (first["first_step"], first["op"], first["module"], first["phase"]) == (
        3, "aten._to_copy.default", "fc1", "forward")
    assert first["out_dtype"] == "float16"
    (finding,) = report.findings(select=["AMP504"])
    assert "first appeared at step 3 in _to_copy (forward) in module `fc1 (Linear)`" in finding.message
    line = (FIXTURES / "models" / "fp16_scaler_loop.py").read_text().splitlines()[finding.line - 1]
    assert "self.fc1(x)" in line


def test_the_text_summary_shows_the_first_inf_and_the_underflow_shares():
    text = numerics_of(steps=6, overflow_at=3).to_text()
    assert "first inf/nan: step 3, _to_copy (forward) in module `fc1 (Linear)` at " in text
    assert "fp16 backward values zero or subnormal: " in text


def test_inf_only_in_gradients_under_a_scaler_is_left_to_the_scaler():
    # 2**40 makes the scaled gradients overflow while the forward stays finite
    report = numerics_of(steps=2, init_scale=2.0**40)
    records = report.sections["numerics"]["records"]
    assert {r["phase"] for r in records if r["nonfinite"]} == {"backward"}
    assert report.findings(select=["AMP504"]) == []


def test_fp16_values_close_to_65504_raise_amp505():
    model = torch.nn.Linear(4, 4)
    with torch.no_grad():
        model.weight.fill_(1000.0)
        model.bias.zero_()
    with ampcheck.trace(numerics=True) as t:
        with torch.autocast("cpu", dtype=torch.float16):
            model(torch.full((2, 4), 7.5))
    (finding,) = t.report.findings(select=["AMP505"])
    assert "addmm (forward) in module `Linear` produced fp16 values up to 30000" in finding.message
    assert finding.extra["max_abs"] == 30000.0


def test_values_far_from_the_fp16_maximum_are_silent():
    report = numerics_of(steps=3)
    peak = max(r["max_abs"] or 0.0 for r in report.sections["numerics"]["records"])
    assert 0 < peak < 65504 / 4
    assert report.findings(select=["AMP505"]) == []


def test_a_tiny_loss_makes_fp16_gradients_underflow_amp506():
    report = numerics_of(steps=3, use_scaler=False, loss_multiplier=1e-9)
    shares = underflow_by_module(report.sections["numerics"])
    assert shares["fc2"]["backward_share"] == 1.0 and shares["fc2"]["forward_share"] < 0.01
    (finding,) = report.findings(select=["AMP506"])
    assert finding.message.startswith("100% of fp16 gradient values were zero or subnormal")


def test_a_normal_loss_does_not_raise_amp506():
    report = numerics_of(steps=3, use_scaler=False)
    shares = underflow_by_module(report.sections["numerics"])
    assert shares["fc2"]["backward_share"] < 0.5
    assert report.findings(select=["AMP506"]) == []


def test_statistics_are_read_back_once_per_sampled_step():
    report = numerics_of(steps=6, numerics_every=2)
    section = report.sections["numerics"]
    assert section["steps_sampled"] == 3  # steps 0, 2 and 4
    # one read back per sampled step, plus one for the ops after the last optimizer step
    # (scaler.update() of step 5 runs in step 6, sampled, read back when the trace stops)
    assert section["readbacks"] == 4


def test_numerics_every_must_be_positive():
    with pytest.raises(ValueError, match="numerics_every must be a positive"):
        ampcheck.trace(numerics=True, numerics_every=0)


def test_numerics_leave_training_results_bitwise_identical():
    plain = train(steps=3, overflow_at=1)
    with ampcheck.trace(numerics=True):
        traced = train(steps=3, overflow_at=1)
    for a, b in zip(plain.parameters(), traced.parameters()):
        assert torch.equal(a, b)


def test_sparse_meta_and_subclass_outputs_are_skipped_not_reduced():
    from types import SimpleNamespace

    from ampcheck.trace.observers.numerics import NumericsObserver

    class Marked(torch.Tensor):
        pass

    observer = NumericsObserver()
    observer.on_start(SimpleNamespace(steps=0))
    for tensor in (torch.eye(3).to_sparse(), torch.empty(3, device="meta"), torch.ones(3).as_subclass(Marked)):
        observer._reduce(tensor, key=("op",))
    assert observer._pending == []
    observer._reduce(torch.ones(3), key=("op",))
    assert len(observer._pending) == 1


def test_the_trace_command_takes_numerics_options(tmp_path):
    from click.testing import CliRunner

    from ampcheck.cli import cli
    from ampcheck.trace.report import TraceReport

    out = tmp_path / "trace.json"
    script = FIXTURES / "models" / "overflow_step.py"
    result = CliRunner().invoke(cli, ["trace", "--numerics", "--numerics-every", "2", "-q", "-o", str(out), str(script)])
    assert result.exit_code == 0, result.output
    section = TraceReport.load(out).sections["numerics"]
    assert section["every"] == 2 and section["steps_sampled"] == 4
    assert section["first_nonfinite"] is None  # step 3, where the overflow happens, is not sampled
