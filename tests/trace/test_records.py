"""What a trace records: ops with real dtypes, autocast state, phase, module, FLOPs, casts."""
from __future__ import annotations

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

import ampcheck
from model_fixtures import DTYPE_IDS, DTYPES, build_step, records

LOW = {torch.bfloat16: "bfloat16", torch.float16: "float16"}


def traced(step, steps=1, **options):
    with ampcheck.trace(**options) as t:
        for _ in range(steps):
            step()
    return t.report


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_matmul_inside_cpu_autocast_is_recorded_in_low_precision_with_its_module(dtype):
    report = traced(build_step("mlp", dtype))
    (fc1,) = records(report, op="addmm", phase="forward", module="fc1")
    assert fc1.out_dtype == fc1.autocast == LOW[dtype]
    assert fc1.in_dtypes == (LOW[dtype],) * 3
    assert fc1.device == "cpu" and fc1.policy == "lower_precision" and fc1.ran_as_policy
    assert fc1.flops == 2 * 16 * 32 * 64 and fc1.count == 1


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_coverage_headline_splits_forward_and_backward_inside_and_outside_autocast(dtype):
    coverage = traced(build_step("mlp", dtype)).coverage()
    assert coverage["forward"]["share"] == 1.0
    assert coverage["forward"]["inside_autocast"]["share"] == 1.0
    assert coverage["forward"]["outside_autocast"]["flops"] == 0
    # backward runs outside autocast, on the low-precision tensors saved by forward
    assert coverage["backward"]["share"] == 1.0
    assert coverage["backward"]["outside_autocast"]["flops"] == coverage["backward"]["flops"] > 0


def test_fp32_matmul_after_the_region_closes_counts_against_forward_coverage():
    report = traced(build_step("outside_autocast"))
    coverage = report.coverage()["forward"]
    assert 0 < coverage["share"] < 0.5
    (decoder,) = records(report, op="addmm", phase="forward", module="decoder")
    assert decoder.out_dtype == "float32" and decoder.autocast is None
    assert decoder.ran_as_policy is None  # autocast's policy speaks only inside autocast


def test_transformer_modules_carry_state_dict_names_forward_and_backward():
    report = traced(build_step("transformer"))
    forward = {r.module for r in records(report, op="addmm", phase="forward")}
    backward = {r.module for r in records(report, op="mm", phase="backward")}
    expected = {f"layers.{i}.{m}" for i in (0, 1) for m in ("attn.qkv", "attn.proj", "mlp.0", "mlp.2")} | {"head"}
    assert forward == expected
    assert backward == expected


def test_attention_and_layer_norm_are_recorded_with_their_dtypes_on_cpu():
    report = traced(build_step("transformer"))
    (attn,) = records(report, op="_scaled_dot_product_flash_attention_for_cpu", module="layers.0.attn")
    assert attn.out_dtype == "bfloat16" and attn.flops > 0
    (norm,) = records(report, op="native_layer_norm", phase="forward", module="layers.0.ln1")
    # CPU autocast has no policy for layer_norm: it keeps its input dtype (the fp32 residual)
    assert (norm.in_dtypes[0], norm.out_dtype, norm.policy) == ("float32", "float32", "none")


def test_checkpointed_layers_are_recomputed_in_backward_and_labelled_recompute():
    report = traced(build_step("transformer", checkpoint=True))
    recomputed = records(report, op="addmm", phase="recompute")
    # non-reentrant checkpointing stops recomputing once the saved tensors it needs exist
    assert {r.module for r in recomputed} >= {"layers.0.attn.qkv", "layers.1.mlp.0"}
    assert all(r.out_dtype == "bfloat16" and r.autocast == "bfloat16" for r in recomputed)
    assert not records(report, op="addmm", phase="recompute", module="head")


def test_conv_and_batch_norm_are_recorded_with_conv_flops_forward_and_backward():
    report = traced(build_step("cnn"))
    (conv,) = records(report, op="convolution", phase="forward", module="conv1")
    assert conv.out_dtype == "bfloat16" and conv.flops > 0
    assert records(report, op="convolution_backward", phase="backward", module="conv2")
    assert records(report, phase="forward", module="bn1")


@pytest.mark.parametrize("name", ["mlp", "cnn", "transformer"])
def test_flops_match_torch_flop_counter(name):
    step = build_step(name)
    with FlopCounterMode(display=False) as counter:
        step()
    report = traced(step)
    # FlopCounterMode has no formula for CPU's fused attention kernels; the tracer does
    ours = sum(r.flops for r in report.ops if "flash_attention_for_cpu" not in r.op)
    assert ours == counter.get_total_flops()


def test_bytes_are_counted_for_compute_ops_and_not_for_views():
    report = traced(build_step("mlp"))
    (fc1,) = records(report, op="addmm", phase="forward", module="fc1")
    assert fc1.bytes_read == 2 * (64 + 16 * 32 + 32 * 64) and fc1.bytes_written == 2 * 16 * 64
    assert all(r.bytes_read == r.bytes_written == 0 for r in records(report, op="t"))


def test_autocast_casts_are_told_from_user_casts_and_backward_casts():
    report = traced(build_step("outside_autocast"))
    kinds = {(r.cast, r.in_dtypes[0], r.out_dtype) for r in report.ops if r.cast}
    assert ("autocast", "float32", "bfloat16") in kinds  # encoder weight, bias and input
    assert ("user", "bfloat16", "float32") in kinds  # h.float() after the region
    assert any(kind == "backward" for kind, _, _ in kinds)


def test_a_user_cast_inside_autocast_is_user_written():
    lin = torch.nn.Linear(8, 8)
    with ampcheck.trace() as t:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            lin(torch.randn(2, 8).half())
    (user,) = [r for r in t.report.ops if r.cast == "user"]
    assert (user.in_dtypes, user.out_dtype, user.autocast) == (("float32",), "float16", "bfloat16")


def test_each_weight_is_cast_once_per_autocast_region():
    report = traced(build_step("mlp"), steps=3)
    weights = {w.weight: (w.casts, w.regions) for w in report.weights}
    assert weights == {name: (3, 3) for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")}


def test_a_frozen_weight_used_twice_is_cast_twice_per_region():
    report = traced(build_step("frozen_adapter"), steps=2)
    weights = {w.weight: (w.casts, w.regions) for w in report.weights}
    assert weights["base.weight"] == (4, 2)
    assert weights["down.weight"] == (2, 2)  # trainable: cached by autocast


def test_source_line_points_at_the_user_call_once_per_record():
    report = traced(build_step("mlp"))
    (fc1,) = records(report, op="addmm", phase="forward", module="fc1")
    assert fc1.source == "fixtures/models/mlp.py:15"  # `return self.fc2(self.act(self.fc1(x)))`
    (grad,) = records(report, op="mm", phase="backward", module="fc1")
    assert grad.source == "fixtures/models/mlp.py:35"  # `loss.backward()`


def test_records_aggregate_so_their_number_does_not_grow_with_steps():
    step = build_step("transformer")
    two, six = traced(step, steps=2), traced(step, steps=6)
    assert len(six.ops) == len(two.ops)
    assert six.total_ops == 3 * two.total_ops


def test_phases_option_records_only_forward():
    report = traced(build_step("mlp"), phases=("forward",))
    assert {r.phase for r in report.ops} == {"forward"}


def test_optimizer_ops_are_their_own_phase_when_asked_for():
    report = traced(build_step("mlp"), phases=("forward", "backward", "optimizer"))
    assert records(report, phase="optimizer") and all(r.module is None for r in records(report, phase="optimizer"))


def test_module_attribution_can_be_turned_off():
    report = traced(build_step("mlp"), modules=False)
    assert {r.module for r in report.ops} == {None}


@pytest.mark.parametrize("layer", [torch.nn.Conv2d, torch.nn.ConvTranspose2d], ids=["conv", "conv_transpose"])
def test_strided_and_transposed_convolution_flops_match_torch_flop_counter(layer):
    conv = layer(3, 5, 3, stride=2, padding=1)
    x = torch.randn(2, 3, 9, 9, requires_grad=True)
    with FlopCounterMode(display=False) as counter:
        conv(x).sum().backward()
    with ampcheck.trace() as t:
        conv(x).sum().backward()
    assert sum(r.flops for r in t.report.ops) == counter.get_total_flops()
