"""AMP501-AMP503 from real traces of the fixtures, on CPU autocast bf16 and fp16."""
from __future__ import annotations

import pytest

import ampcheck
from model_fixtures import DTYPE_IDS, DTYPES, build_step


def findings(name, dtype, steps=2, code=None):
    step = build_step(name, dtype)
    with ampcheck.trace() as t:
        for _ in range(steps):
            step()
    return t.report.findings(select=[code] if code else None)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", ["mlp", "cnn", "transformer"])
def test_clean_fixtures_raise_no_finding(name, dtype):
    assert findings(name, dtype) == []


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_amp501_names_the_fp32_matmuls_after_the_region_their_module_share_and_line(dtype):
    found = findings("outside_autocast", dtype, code="AMP501")
    by_module = {f.extra["module"]: f for f in found}
    assert set(by_module) == {"decoder", "head"}
    decoder = by_module["decoder"]
    assert (decoder.path, decoder.line) == ("fixtures/models/outside_autocast.py", 18)
    assert "`addmm`" in decoder.message and "module `decoder (Linear)`" in decoder.message
    assert 0.7 < decoder.extra["share"] < 0.8 and f"{decoder.extra['share']:.1%}" in decoder.message


def test_amp501_stays_silent_for_a_program_that_never_uses_autocast():
    import torch

    model = torch.nn.Linear(64, 64)
    with ampcheck.trace() as t:
        model(torch.randn(8, 64)).sum().backward()
    assert t.report.findings() == []


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_amp502_flags_the_loss_run_on_low_precision_logits_outside_autocast(dtype):
    (found,) = findings("manual_half", dtype, code="AMP502")
    assert found.extra["op"] == "nll_loss_forward" and found.extra["dtype"] == str(dtype).removeprefix("torch.")
    assert (found.path, found.line) == ("fixtures/models/manual_half.py", 30)
    assert "outside autocast" in found.message and "float32" in found.message


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_amp503_flags_the_frozen_weight_recast_on_each_use(dtype):
    found = findings("frozen_adapter", dtype, code="AMP503")
    assert {f.extra["weight"] for f in found} == {"base.weight", "base.bias"}
    weight = next(f for f in found if f.extra["weight"] == "base.weight")
    assert (weight.extra["casts"], weight.extra["regions"]) == (4, 2)
    assert weight.path == "fixtures/models/frozen_adapter.py" and weight.line == 20


def test_findings_select_keeps_the_given_prefixes():
    assert findings("outside_autocast", DTYPES[0], code="AMP503") == []


def test_amp502_stays_silent_for_half_precision_inference():
    import torch
    import torch.nn.functional as F

    model = torch.nn.Linear(32, 10).half()
    with ampcheck.trace() as t, torch.no_grad():
        F.nll_loss(F.log_softmax(model(torch.randn(4, 32).half()), dim=-1), torch.zeros(4, dtype=torch.long))
    assert t.report.findings() == []


def test_the_summary_counts_the_findings():
    step = build_step("outside_autocast", DTYPES[0])
    with ampcheck.trace() as t:
        step()
    assert "findings: 2 (AMP501)" in t.report.to_text()
