"""Tensor Core eligibility: per low-precision matmul/conv record, whether its shapes line up,
the share of low-precision FLOPs that does not, and AMP509 for the module responsible."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import ampcheck
from ampcheck.trace.sections import tensor_cores
from model_fixtures import DTYPE_IDS, DTYPES, build_step, records


def traced(fn, dtype=torch.bfloat16):
    with ampcheck.trace() as t, torch.autocast("cpu", dtype=dtype):
        fn()
    return t.report


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_each_low_precision_matmul_record_says_whether_its_shapes_line_up(dtype):
    with ampcheck.trace() as t:
        build_step("mlp", dtype)()
    (fc1,) = records(t.report, op="addmm", module="fc1")
    (fc2,) = records(t.report, op="addmm", module="fc2")
    assert fc1.tensor_core_aligned is True and fc1.misaligned_flops == 0
    assert fc2.tensor_core_aligned is False and fc2.misaligned_flops == fc2.flops
    assert fc2.misaligned_shapes == "16x64 @ 64x10: N=10"
    (grads,) = records(t.report, op="mm", module="fc2")  # backward: grad input and grad weight
    assert grads.misaligned_calls == grads.count == 2 and grads.misaligned_shapes == "16x10 @ 10x64: K=10"


def test_float32_matmuls_and_other_ops_are_not_judged():
    with ampcheck.trace() as t:
        torch.nn.Linear(64, 10)(torch.randn(16, 64)).relu()
    assert {r.name: r.tensor_core_aligned for r in t.report.ops}.get("addmm") is None
    assert all(r.misaligned_flops is None for r in t.report.ops)


def test_only_the_calls_whose_shapes_do_not_line_up_count():
    lin = torch.nn.Linear(64, 64)
    report = traced(lambda: (lin(torch.randn(16, 64)), lin(torch.randn(15, 64))))
    (addmm,) = records(report, op="addmm")
    assert (addmm.count, addmm.misaligned_calls) == (2, 1)
    assert addmm.misaligned_flops == 2 * 15 * 64 * 64 and addmm.misaligned_shapes == "15x64 @ 64x64: M=15"


def test_convolution_channels_are_checked_per_group():
    image = torch.randn(2, 16, 8, 8)
    grouped = torch.nn.Conv2d(16, 16, 3, groups=2)  # 8 channels per group: aligned
    depthwise = torch.nn.Conv2d(16, 16, 3, groups=16)  # 1 per group
    rgb = torch.nn.Conv2d(3, 16, 3)
    report = traced(lambda: (grouped(image), depthwise(image), rgb(image[:, :3])))
    shapes = sorted(r.misaligned_shapes or "aligned" for r in records(report, op="convolution"))
    assert shapes == ["aligned", "weight 16x1x3x3 in 16 groups: C_in=1, C_out=1", "weight 16x3x3x3: C_in=3"]


def test_attention_head_size_is_checked():
    q = torch.randn(2, 4, 16, 12)
    report = traced(lambda: F.scaled_dot_product_attention(q, q, q))
    (attention,) = [r for r in report.ops if "attention" in r.name]
    assert attention.misaligned_shapes == "query 2x4x16x12: head_dim=12, value_head_dim=12"


def test_fp8_needs_sixteen_elements_fp16_and_bf16_eight():
    assert tensor_cores.multiple_for("float16") == tensor_cores.multiple_for("bfloat16") == 8
    assert tensor_cores.multiple_for("float8_e4m3fn") == 16
    assert tensor_cores.multiple_for("float32") is None


def test_the_summary_is_the_share_of_low_precision_matmul_flops_that_does_not_line_up():
    with ampcheck.trace() as t:
        build_step("mlp")()
    summary = t.report.tensor_core_alignment()
    low = [r for r in t.report.ops if r.misaligned_flops is not None]
    assert summary["flops"] == sum(r.flops for r in low)
    # fc2 (N=10): forward 16x64x10, backward grad input and grad weight
    assert summary["misaligned_flops"] == 3 * 2 * 16 * 64 * 10
    assert t.report.to_json()["summary"]["tensor_cores"] == summary
    assert f"Tensor Core alignment: {summary['share']:.1%}" in t.report.to_text()


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_amp509_names_the_module_and_shapes_of_a_large_misaligned_matmul(dtype):
    head = torch.nn.Linear(64, 50257)
    tokens = torch.randn(32, 64)
    report = traced(lambda: head(tokens), dtype)
    (finding,) = report.findings(select=["AMP509"])
    assert finding.extra["module"] == "Linear" and finding.extra["shapes"] == "32x64 @ 64x50257: N=50257"
    assert "100.0% of low-precision matmul FLOPs" in finding.message and "multiple of 8" in finding.message


def test_a_padded_vocabulary_and_small_misaligned_matmuls_raise_nothing():
    padded, small = torch.nn.Linear(64, 50304), torch.nn.Linear(64, 10)
    tokens = torch.randn(32, 64)
    report = traced(lambda: (padded(tokens), small(tokens)))
    assert records(report, module="Linear#2", op="addmm")[0].misaligned_calls == 1  # seen, below 10^8 FLOPs
    assert report.findings() == []
