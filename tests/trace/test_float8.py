"""Float8 training (torchao's Float8Linear, on CPU): the kernels that ran, not the wrapper's dtype."""
from __future__ import annotations

import pytest

import ampcheck
from ampcheck.trace.sections import float8
from ampcheck.trace.report import TraceReport
from model_fixtures import build_step, records

pytest.importorskip("torchao.float8", reason="needs the float8 extra (.ci/run installs it)")


def traced(recipe: str = "tensorwise") -> TraceReport:
    step = build_step("float8_mlp", recipe=recipe)
    with ampcheck.trace() as t:
        step()
    return t.report


@pytest.fixture(scope="module")
def tensorwise() -> TraceReport:
    return traced()


def test_float8_linears_record_scaled_mm_on_float8_data(tensorwise):
    forward = records(tensorwise, op="_scaled_mm", phase="forward", module="fc1")
    backward = records(tensorwise, op="_scaled_mm", phase="backward", module="fc1")
    assert [(r.in_dtypes[:2], r.out_dtype) for r in forward] == [(("float8_e4m3fn", "float8_e4m3fn"), "bfloat16")]
    # tensorwise recipe: gradients in e5m2, weights and inputs in e4m3fn
    assert {r.in_dtypes[:2] for r in backward} == {("float8_e5m2", "float8_e4m3fn")}
    assert sum(r.count for r in backward) == 2  # grad input and grad weight


def test_the_wrappers_advertised_bf16_matmul_is_not_recorded(tensorwise):
    for module in ("fc1", "fc2"):
        assert not [r for r in tensorwise.ops if r.module == module and r.name in ("mm", "addmm", "matmul")]


def test_coverage_counts_float8_flops_as_their_own_class_forward_and_backward(tensorwise):
    coverage = tensorwise.coverage()
    for phase in ("forward", "backward"):
        fp8 = sum(r.flops for r in tensorwise.ops if r.phase == phase and r.name == "_scaled_mm")
        assert fp8 > 0
        assert coverage[phase]["float8_flops"] == fp8
        assert coverage[phase]["float8_share"] == pytest.approx(fp8 / coverage[phase]["flops"])
        assert coverage[phase]["share"] == 1.0  # float8 and the bf16 head are all low precision


def test_the_scaling_recipe_is_read_from_the_scales():
    assert {(r["phase"], r["recipe"]) for r in float8.recipes(traced("rowwise"))} >= {("forward", "rowwise")}


def test_tensorwise_scaling_is_named(tensorwise):
    assert {r["recipe"] for r in float8.recipes(tensorwise)} == {"tensorwise"}


def test_linears_left_out_of_float8_are_named_with_why_and_their_share(tensorwise):
    (head,) = float8.left_out(tensorwise)
    total = sum(r.flops for r in tensorwise.ops if r.phase in ("forward", "backward"))
    head_flops = sum(r.flops for r in tensorwise.ops if r.module == "head" and r.phase in ("forward", "backward"))
    assert (head["module"], head["class"], head["in_features"], head["out_features"]) == ("head", "Linear", 64, 10)
    assert head["reason"].startswith("out_features=10 not a multiple of 16")
    assert head["share"] == pytest.approx(head_flops / total)


def test_the_float8_section_round_trips_and_renders_as_text(tensorwise, tmp_path):
    loaded = TraceReport.load(tensorwise.save(tmp_path / "trace.json"))
    assert float8.left_out(loaded) == float8.left_out(tensorwise)
    text = loaded.to_text()
    assert "float8 matmuls (the kernels that ran" in text
    assert "forward        2 x _scaled_mm  float8_e4m3fn @ float8_e4m3fn -> bfloat16, tensorwise scales" in text
    assert "linears left out of float8: 1 of 3" in text


def test_a_trace_without_float8_has_no_float8_section():
    step = build_step("mlp")
    with ampcheck.trace() as t:
        step()
    assert float8.SECTION not in t.report.sections and float8.summary_lines(t.report) == []
    assert all(cov["float8_flops"] == 0 for cov in t.report.coverage().values())
