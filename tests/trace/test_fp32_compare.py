"""`trace(compare_fp32=True)`: each module's autocast output against the same module in fp32,
ranked, with AMP510 for the module that loses precision, and a training run left unchanged."""
from __future__ import annotations

import contextlib

import pytest
import torch

import ampcheck
from ampcheck.trace.sections.precision_loss import ranked
from model_fixtures import DTYPE_IDS, DTYPES, build_step
from tests.paths import FIXTURES


def compared(step, steps=2, **options):
    with ampcheck.trace(compare_fp32=True, **options) as t:
        for _ in range(steps):
            step()
    return t.report


def by_module(report):
    return {m["module"]: m for m in report.sections["compare_fp32"]["modules"]}


def train(step, steps, context):
    with context:
        losses = [step() for _ in range(steps)]
    return losses, [v.clone() for v in step.model.state_dict().values()], torch.get_rng_state()


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_training_with_dropout_batch_norm_and_a_scaler_is_bitwise_identical_to_untraced(dtype):
    plain = train(build_step("dropout_bn", dtype, seed=5), 3, contextlib.nullcontext())
    traced = train(build_step("dropout_bn", dtype, seed=5), 3, ampcheck.trace(compare_fp32=True))
    assert all(torch.equal(a, b) for a, b in zip(plain[0], traced[0]))  # losses
    assert all(torch.equal(a, b) for a, b in zip(plain[1], traced[1]))  # parameters, running stats, batch counter
    assert torch.equal(plain[2], traced[2])  # the generator is where an untraced run leaves it


def test_the_rerun_of_a_dropout_draws_the_mask_the_autocast_call_drew():
    # with another mask about a third of the elements would differ by their whole value
    assert by_module(compared(build_step("dropout_bn")))["drop"]["max_rel_error"] < 0.01


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_catastrophic_cancellation_in_low_precision_is_ranked_first_and_reported(dtype):
    report = compared(build_step("naive_variance", dtype))
    worst = ranked(report.sections["compare_fp32"])[0]
    assert worst["module"] == "norm" and worst["class"] == "NaiveNorm"
    assert worst["max_rel_error"] > 1.0  # errors larger than the output itself; threshold 0.1
    (finding,) = report.findings(select=["AMP510"])
    assert finding.extra["module"] == "norm" and "module `norm` (NaiveNorm) loses precision" in finding.message
    assert finding.path == "fixtures/models/naive_variance.py"
    assert "self.norm(" in (FIXTURES / "models" / "naive_variance.py").read_text().splitlines()[finding.line - 1]


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", ["mlp", "cnn", "transformer"])
def test_models_without_a_precision_loss_stay_far_below_the_threshold(name, dtype):
    report = compared(build_step(name, dtype))
    worst = ranked(report.sections["compare_fp32"])[0]
    assert worst["max_rel_error"] < 0.02 and worst["nonfinite_calls"] == 0
    assert report.findings() == []


def test_enclosing_modules_that_carry_the_loss_are_ranked_but_not_blamed():
    report = compared(build_step("naive_variance"))
    modules = by_module(report)
    assert modules["Net"]["max_rel_error"] > 1.0 and modules["norm"]["parent"] == "Net"
    assert [f.extra["module"] for f in report.findings(select=["AMP510"])] == ["norm"]


def test_the_threshold_is_configurable():
    report = compared(build_step("mlp"), compare_threshold=1e-6)
    assert {f.extra["module"] for f in report.findings(select=["AMP510"])} == {"fc1", "act", "fc2"}
    assert report.sections["compare_fp32"]["threshold"] == 1e-6
    with pytest.raises(ValueError, match="positive"):
        ampcheck.trace(compare_fp32=True, compare_threshold=0)


def test_an_output_that_overflows_only_in_fp16_is_a_nonfinite_call():
    class Exp(torch.nn.Module):
        def forward(self, x):
            return torch.exp(x)  # CPU autocast keeps exp in the input's dtype: e^12 > 65504

    model = torch.nn.Sequential(torch.nn.Linear(4, 4), Exp())
    x = torch.full((2, 4), 3.0)
    with ampcheck.trace(compare_fp32=True) as t, torch.autocast("cpu", dtype=torch.float16):
        with torch.no_grad():
            model[0].weight.fill_(1.0)
        model(x)
    exp = by_module(t.report)["1"]
    assert exp["nonfinite_calls"] == 1
    (finding,) = t.report.findings(select=["AMP510"])
    assert "produced inf/nan in 1 of 1 call(s) where float32 stays finite" in finding.message


def test_a_module_that_modifies_its_input_in_place_is_skipped_not_misjudged():
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(inplace=True), torch.nn.Linear(8, 8))
    with ampcheck.trace(compare_fp32=True) as t, torch.autocast("cpu", dtype=torch.bfloat16):
        model(torch.randn(4, 8))
    relu = by_module(t.report)["1"]
    assert (relu["calls"], relu["skipped_calls"]) == (0, 1)
    assert by_module(t.report)["Sequential"]["calls"] == 1


def test_a_module_whose_fp32_rerun_fails_is_skipped_and_training_goes_on():
    class InsistsOnBf16(torch.nn.Module):
        def forward(self, x):
            if x.dtype != torch.bfloat16:
                raise TypeError(f"expected bfloat16, got {x.dtype}")
            return x * 2

    model = torch.nn.Sequential(torch.nn.Linear(8, 8), InsistsOnBf16())
    with ampcheck.trace(compare_fp32=True) as t, torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(torch.randn(4, 8))
    assert out.dtype == torch.bfloat16
    insists = by_module(t.report)["1"]
    assert insists["skipped_calls"] == 1 and insists["rerun_error"] == "TypeError: expected bfloat16, got torch.float32"


def test_the_reruns_are_not_recorded_and_recompute_is_not_compared():
    step = build_step("transformer", checkpoint=True)
    step()
    with ampcheck.trace() as plain:
        step()
    report = compared(step, steps=1)
    assert report.total_ops == plain.report.total_ops
    assert by_module(report)["layers.0.attn"]["calls"] == 1  # forward only: its recompute in backward is not


def test_nothing_is_compared_outside_autocast_or_by_default():
    model = torch.nn.Linear(8, 8)
    with ampcheck.trace(compare_fp32=True) as t:
        model(torch.randn(2, 8))
    assert t.report.sections["compare_fp32"]["modules"] == []
    with ampcheck.trace() as t:
        build_step("mlp")()
    assert "compare_fp32" not in t.report.sections


def test_the_text_summary_ranks_the_modules():
    text = compared(build_step("naive_variance")).to_text()
    table = text.split("fp32 comparison (")[1].splitlines()
    assert table[0].startswith("8 module calls in 2 optimizer step(s)")  # Net, encoder, norm, head
    assert table[2].split()[:2] == ["norm", "NaiveNorm"] and table[2].endswith("*")


def test_the_comparison_round_trips_through_the_json_file(tmp_path):
    from ampcheck.trace.report import TraceReport

    report = compared(build_step("naive_variance"))
    loaded = TraceReport.load(report.save(tmp_path / "trace.json"))
    assert loaded == report and loaded.findings() == report.findings()
