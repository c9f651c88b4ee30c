"""FSDP2 and DDP precision: policies as configured, collectives as observed at dispatch, AMP511
and AMP512, from real 2-rank runs over gloo under torchrun."""
from __future__ import annotations

import pytest

from ampcheck.trace.observers.sharding import fsdp_module_of
from ampcheck.trace.report import TraceReport, load
from ampcheck.trace.sections import sharding
from distributed_runs import traced

FSDP_MODULES = ["FSDPToyNet", "encoder.0", "encoder.2"]


def rank0(script: str, *args: str) -> TraceReport:
    return TraceReport.load(traced(script, *args) / "trace.rank0.json")


def test_fsdp_scope_labels_name_their_module():
    assert fsdp_module_of("FSDP::all_gather (encoder.0)") == "encoder.0"
    assert fsdp_module_of("FSDP::post_backward_reduce (layers.3.attn) [pg=2]") == "layers.3.attn"
    assert fsdp_module_of("FSDP::post_backward_reduce") == ""  # the root
    assert fsdp_module_of("## forward ##") is None


@pytest.mark.slow
def test_fsdp2_policy_is_shown_as_configured_and_as_observed():
    rows = sharding.policy_rows(rank0("fsdp2_reduce_dtype.py", "--reduce-dtype", "bfloat16"))
    assert [(r["module"], r["param_dtype"], r["reduce_dtype"], r["output_dtype"], r["all_gather"], r["reduce"])
            for r in rows] == [(m, "bfloat16", "bfloat16", "float32" if m == "FSDPToyNet" else None, ["bfloat16"],
                                ["bfloat16"]) for m in FSDP_MODULES]


@pytest.mark.slow
def test_gradients_reduce_scattered_in_bf16_raise_amp511_per_fully_shard_module():
    found = rank0("fsdp2_reduce_dtype.py", "--reduce-dtype", "bfloat16").findings()
    assert [f.code for f in found] == ["AMP511"] * 3
    assert sorted(f.extra["module"] for f in found) == sorted(FSDP_MODULES)
    assert all(f.extra["collective"] == "reduce_scatter" and f.extra["dtype"] == "bfloat16" for f in found)
    assert "reduce_dtype=torch.float32" in found[0].message


@pytest.mark.slow
def test_the_merged_ranks_report_amp511_once_per_module():
    directory = traced("fsdp2_reduce_dtype.py", "--reduce-dtype", "bfloat16")
    found = load([str(directory)]).findings(select=["AMP511"])
    assert sorted(f.extra["module"] for f in found) == sorted(FSDP_MODULES)
    assert all(f.extra["calls"] == 4 for f in found)  # 2 steps x 2 ranks


@pytest.mark.slow
def test_gradients_reduced_in_fp32_raise_nothing():
    report = rank0("fsdp2_reduce_dtype.py", "--reduce-dtype", "float32")
    assert report.findings() == []
    assert {tuple(r["reduce"]) for r in sharding.policy_rows(report)} == {("float32",)}


@pytest.mark.slow
def test_fp16_params_without_a_grad_scaler_raise_amp512():
    found = rank0("fsdp2_reduce_dtype.py", "--param-dtype", "float16", "--reduce-dtype", "float32").findings()
    assert sorted((f.code, f.extra["module"]) for f in found) == [("AMP512", m) for m in sorted(FSDP_MODULES)]


@pytest.mark.slow
def test_fp16_params_with_a_grad_scaler_raise_nothing():
    report = rank0("fsdp2_reduce_dtype.py", "--param-dtype", "float16", "--reduce-dtype", "float32", "--scaler")
    assert report.findings() == []


@pytest.mark.slow
def test_ddp_fp16_compress_hook_raises_amp511_naming_the_hook():
    report = rank0("ddp_fp16_compress.py", "--hook", "fp16")
    (finding,) = report.findings()
    assert (finding.code, finding.extra["collective"], finding.extra["dtype"]) == ("AMP511", "all_reduce", "float16")
    assert "fp16_compress_hook" in finding.message
    assert sharding.section(report)["ddp"] == [{"module": "DistributedDataParallel",
                                                "comm_hooks": ["fp16_compress_hook"]}]


@pytest.mark.slow
def test_ddp_without_a_hook_all_reduces_in_fp32_and_raises_nothing():
    report = rank0("ddp_fp16_compress.py", "--hook", "none")
    assert report.findings() == []
    assert "gradients all-reduced in float32" in report.to_text()
