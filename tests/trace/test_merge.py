"""Merging the traces of a 2-rank torchrun job (DDP, FSDP1, FSDP2 on gloo, CPU)."""
from __future__ import annotations

import json

import pytest

from ampcheck.trace.merge import render_ranks
from ampcheck.trace.report import TraceReport, load
from distributed_runs import cli, traced

pytestmark = pytest.mark.slow  # each distinct run starts two ranks with torchrun


def ranks_of(directory):
    return [TraceReport.load(directory / f"trace.rank{rank}.json") for rank in (0, 1)]


def kinds(report):
    return {d["kind"]: d for d in report.sections["ranks"]["differences"]}


def test_merged_totals_are_the_sums_of_the_ranks():
    rank0, rank1 = ranks_of(traced("ddp_bf16.py"))
    merged = TraceReport.merge([rank1, rank0])
    assert merged.total_ops == rank0.total_ops + rank1.total_ops
    assert merged.coverage()["forward"]["flops"] == (
        rank0.coverage()["forward"]["flops"] + rank1.coverage()["forward"]["flops"])
    assert merged.meta["ranks"] == [0, 1] and merged.meta["steps"] == 6
    assert merged.meta["world_size"] == 2 and merged.meta["backend"] == "gloo"


def test_identical_ranks_show_no_differences():
    merged = load([str(traced("ddp_bf16.py"))])
    assert merged.sections["ranks"]["differences"] == []
    assert "no differences between ranks" in render_ranks(merged)


def test_the_rank_that_skipped_autocast_is_pointed_out():
    merged = load([str(traced("ddp_rank_skips_autocast.py"))])
    found = kinds(merged)
    assert found["autocast_inactive"]["ranks"] == [1]
    assert "autocast was never active on rank 1" in found["autocast_inactive"]["message"]
    assert found["coverage"]["ranks"] == [1]
    assert "addmm (forward): bfloat16 on rank 0; float32 on rank 1" in found["op_dtypes"]["message"]


def test_the_merged_report_of_the_skipping_rank_finds_its_fp32_matmuls():
    merged = load([str(traced("ddp_rank_skips_autocast.py"))])
    assert {f.code for f in merged.findings()} == {"AMP501"}
    assert merged.coverage()["forward"]["share"] == pytest.approx(0.5)


def test_fsdp1_with_a_plain_grad_scaler_takes_different_skip_decisions_per_rank():
    merged = load([str(traced("fsdp1_plain_scaler.py"))])
    found = kinds(merged)
    assert found["skipped_steps"]["ranks"] == [1]
    assert "skipped 0 on rank 0; 0, 1 on rank 1" in found["skipped_steps"]["message"]
    assert found["loss_scale"]["ranks"] == [1]
    labels = [s["label"] for s in merged.sections["scaler"]["scalers"]]
    assert labels == ["GradScaler#1 (rank 0)", "GradScaler#1 (rank 1)"]


def test_sharded_grad_scaler_keeps_fsdp1_ranks_in_step():
    merged = load([str(traced("fsdp1_plain_scaler.py", "--sharded"))])
    assert merged.sections["ranks"]["differences"] == []


def test_fsdp2_fully_shard_ranks_agree_on_every_skip_decision():
    merged = load([str(traced("fsdp2_fp16_scaler.py"))])
    assert merged.sections["ranks"]["differences"] == []
    per_rank = merged.sections["ranks"]["per_rank"]
    assert [entry["scalers"][0]["skipped"] for entry in per_rank] == [[], []]
    assert merged.coverage()["forward"]["share"] == 1.0


def test_merged_report_round_trips_through_json():
    merged = load([str(traced("fsdp1_plain_scaler.py"))])
    assert TraceReport.from_json(json.loads(merged.dumps())).to_json() == merged.to_json()


def test_merging_refuses_a_rank_given_twice():
    rank0 = ranks_of(traced("ddp_bf16.py"))[0]
    with pytest.raises(ValueError, match="rank 0 appears in more than one trace"):
        TraceReport.merge([rank0, rank0])


def test_a_rank_whose_script_failed_is_named_first():
    rank0, rank1 = ranks_of(traced("ddp_bf16.py"))
    rank1.meta["exit_status"] = 1
    first = TraceReport.merge([rank0, rank1]).sections["ranks"]["differences"][0]
    assert first["kind"] == "exit_status" and first["ranks"] == [1]
    assert "0 on rank 0; 1 on rank 1" in first["message"]


def test_a_directory_missing_a_rank_says_which(tmp_path):
    (tmp_path / "trace.rank1.json").write_bytes((traced("ddp_bf16.py") / "trace.rank1.json").read_bytes())
    merged = load([str(tmp_path)])
    assert kinds(merged)["missing_ranks"]["ranks"] == [0]
    assert "no trace for rank 0 of world size 2" in render_ranks(merged)


def test_report_dir_prints_the_merged_report_and_the_differences():
    result = cli("report", str(traced("ddp_rank_skips_autocast.py")))
    assert result.returncode == 0, result.stderr
    assert "ranks: 2 of world size 2 (backend gloo)" in result.stdout
    assert "[autocast_inactive] autocast was never active on rank 1" in result.stdout


def test_report_of_several_files_equals_report_of_their_directory():
    directory = traced("ddp_bf16.py")
    files = cli("report", "--format", "json", str(directory / "trace.rank0.json"), str(directory / "trace.rank1.json"))
    folder = cli("report", "--format", "json", str(directory))
    assert files.returncode == folder.returncode == 0
    assert json.loads(files.stdout) == json.loads(folder.stdout)


def test_report_findings_of_a_directory_are_those_of_the_merged_run():
    result = cli("report", str(traced("ddp_rank_skips_autocast.py")), "--findings")
    assert result.returncode == 1
    assert "AMP501" in result.stdout
