"""Tracing distributed runs: every rank knows its place and writes its own trace."""
from __future__ import annotations

import json

import pytest

from ampcheck.trace.ranks import OutputPathError, RankInfo, from_environment, output_path

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
