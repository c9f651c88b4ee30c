"""Merging ranks keeps Tensor Core alignment, the fp32 comparison and the judging policies
(two traces of one process stand in for the ranks: no torchrun needed)."""
from __future__ import annotations

import pytest

import ampcheck
from ampcheck.trace.report import TraceReport
from model_fixtures import build_step


def rank(number: int) -> TraceReport:
    step = build_step("mlp", seed=number)
    with ampcheck.trace(compare_fp32=True) as t:
        step()
    t.report.meta.update(rank=number, world_size=2)
    return t.report


@pytest.fixture(scope="module")
def ranks() -> list[TraceReport]:
    return [rank(0), rank(1)]


def test_misaligned_flops_and_calls_add_up_and_the_shapes_are_kept(ranks):
    merged = TraceReport.merge(ranks)
    fc2 = [next(r for r in report.ops if r.name == "addmm" and r.module == "fc2") for report in ranks]
    (both,) = [r for r in merged.ops if r.name == "addmm" and r.module == "fc2"]
    assert both.misaligned_flops == fc2[0].misaligned_flops + fc2[1].misaligned_flops
    assert both.misaligned_calls == 2 and both.misaligned_shapes == fc2[0].misaligned_shapes
    assert merged.tensor_core_alignment()["share"] == ranks[0].tensor_core_alignment()["share"]


def test_the_comparison_is_merged_per_module_with_the_worst_error(ranks):
    merged = TraceReport.merge(ranks)
    modules = {m["module"]: m for m in merged.sections["compare_fp32"]["modules"]}
    per_rank = [{m["module"]: m for m in r.sections["compare_fp32"]["modules"]} for r in ranks]
    assert modules["fc1"]["calls"] == 2
    assert modules["fc1"]["max_rel_error"] == max(p["fc1"]["max_rel_error"] for p in per_rank)
    assert "compare_fp32" not in merged.sections["ranks"]["per_rank"][0]["sections"]


def test_the_merged_report_says_which_policy_judged_the_ranks(ranks):
    merged = TraceReport.merge(ranks)
    assert merged.meta["policy"] == {"tables": "torch 2.13", "devices": {"cpu": "AutocastCPU"}}
