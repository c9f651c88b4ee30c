"""Tracing distributed runs: every rank knows its place and writes its own trace."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import ampcheck.trace
from ampcheck.trace.ranks import OutputPathError, RankInfo, from_environment, output_path
from ampcheck.trace.report import TraceReport
from distributed_runs import DISTRIBUTED, LAUNCH_OUTPUT, launch_env, traced
from model_fixtures import build_step

TORCHRUN_RANK_1 = {"RANK": "1", "LOCAL_RANK": "1", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1"}


def test_rank_comes_from_the_launcher_environment():
    assert from_environment(TORCHRUN_RANK_1) == RankInfo(rank=1, local_rank=1, world_size=2)


def test_a_plain_process_is_not_distributed():
    info = from_environment({})
    assert info == RankInfo() and not info.distributed


def test_ranks_write_into_the_out_directory_even_when_it_does_not_exist(tmp_path):
    info = from_environment(TORCHRUN_RANK_1)
    assert output_path(str(tmp_path / "traces"), info) == tmp_path / "traces" / "trace.rank1.json"


def test_ranks_without_out_share_a_default_directory():
    assert str(output_path(None, from_environment(TORCHRUN_RANK_1))) == "ampcheck-trace/trace.rank1.json"


def test_a_single_process_may_name_a_file_or_a_directory(tmp_path):
    single = RankInfo()
    assert output_path(str(tmp_path / "t.json"), single) == tmp_path / "t.json"
    assert output_path(str(tmp_path), single) == tmp_path / "trace.rank0.json"


def test_ranks_refuse_an_existing_file_as_out(tmp_path):
    existing = tmp_path / "trace.json"
    existing.write_text("{}")
    with pytest.raises(OutputPathError, match="2 ranks need a directory"):
        output_path(str(existing), from_environment(TORCHRUN_RANK_1))


def test_rank_info_round_trips_through_json():
    info = RankInfo(rank=3, local_rank=1, world_size=8, backend="nccl")
    assert RankInfo.from_json(json.loads(json.dumps(info.to_json()))) == info


@pytest.mark.slow
def test_each_rank_of_a_torchrun_job_writes_its_own_trace():
    directory = traced("ddp_bf16.py")
    assert sorted(p.name for p in directory.iterdir()) == ["trace.rank0.json", "trace.rank1.json"]
    for rank in (0, 1):
        meta = TraceReport.load(directory / f"trace.rank{rank}.json").meta
        assert RankInfo.from_json(meta) == RankInfo(rank=rank, local_rank=rank, world_size=2, backend="gloo")


@pytest.mark.slow
def test_only_rank_0_prints_the_summary_and_says_how_to_merge():
    directory = traced("ddp_bf16.py")
    printed = LAUNCH_OUTPUT[directory]
    assert printed.count("matmul-class FLOPs in float16/bfloat16:") == 1
    assert f"ampcheck: trace report written to {directory / 'trace.rank1.json'}" in printed
    assert f"ampcheck: merge the ranks' traces with: ampcheck report {directory}" in printed


@pytest.mark.slow
def test_fsdp2_fully_shard_traces_on_cpu_gloo():
    rank0 = TraceReport.load(traced("fsdp2_fp16_scaler.py") / "trace.rank0.json")
    assert rank0.meta["backend"] == "gloo" and rank0.meta["steps"] == 3
    assert rank0.coverage()["forward"]["share"] == 1.0
    assert rank0.sections["scaler"]["scalers"][0]["skipped"] == []


def test_a_plain_trace_records_no_rank(monkeypatch):
    for name in ("RANK", "LOCAL_RANK", "WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    step = build_step("mlp")
    with ampcheck.trace() as t:
        step()
    assert RankInfo.from_json(t.report.meta) == RankInfo()


def test_a_rank_refuses_an_existing_file_as_out_in_one_line(tmp_path):
    existing = tmp_path / "trace.json"
    existing.write_text("{}")
    env = {**launch_env(), "RANK": "1", "LOCAL_RANK": "1", "WORLD_SIZE": "2"}
    result = subprocess.run(
        [sys.executable, "-m", "ampcheck", "trace", "--out", str(existing), str(DISTRIBUTED / "ddp_bf16.py")],
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"ampcheck: error: --out {existing}: is a file, but 2 ranks need a directory for their traces"]
