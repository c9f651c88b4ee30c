"""bench/numerics_overhead.py runs end to end (not a timed test: it proves RESULTS.md can be
regenerated)."""
from __future__ import annotations

import sys

from tests.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import numerics_overhead  # noqa: E402


def test_the_numerics_bench_measures_every_variant_on_a_fixture():
    result = numerics_overhead.measure("mlp", rounds=1, steps=1)
    assert result["ops_per_step"] > 0
    assert set(result) == {"ops_per_step", "trace_us", "numerics_us", "every10_us", "ratio", "ratio_every10"}
    assert result["ratio"] > 0 and result["ratio_every10"] > 0
