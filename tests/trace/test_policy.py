"""The autocast policy table matches what the installed torch registers, op for op."""
from __future__ import annotations

import pytest
import torch

from ampcheck.trace.policy import REGISTERED, policy_of


@pytest.mark.parametrize("device, key", [("cpu", "AutocastCPU"), ("cuda", "AutocastCUDA")])
def test_policy_table_lists_exactly_the_ops_torch_registers_for_autocast(device, key):
    registered = {op.removeprefix("aten::") for op in torch._C._dispatch_get_registrations_for_dispatch_key(key)}
    table = set(REGISTERED[device])
    assert registered - table == set(), f"torch {torch.__version__} autocasts ops the table lacks"
    assert table - registered == set(), f"the table lists ops torch {torch.__version__} does not autocast"


def test_matmul_and_conv_are_lower_precision_on_both_devices_as_dispatched():
    for device in ("cpu", "cuda"):
        assert policy_of(device, "addmm") == "lower_precision"
        assert policy_of(device, "convolution") == "lower_precision"
        assert policy_of(device, "bmm") == "lower_precision"


def test_softmax_and_layer_norm_are_fp32_on_cuda_but_keep_their_dtype_on_cpu():
    assert policy_of("cuda", "_softmax") == "fp32"
    assert policy_of("cuda", "native_layer_norm") == "fp32"
    assert policy_of("cpu", "_softmax") == "none"
    assert policy_of("cpu", "native_layer_norm") == "none"


def test_losses_are_fp32_on_both_devices():
    assert policy_of("cpu", "nll_loss_forward") == "fp32"
    assert policy_of("cuda", "nll_loss_forward") == "fp32"
    assert policy_of("cpu", "mse_loss") == "fp32"


def test_binary_cross_entropy_is_banned_on_cuda_only():
    assert policy_of("cuda", "binary_cross_entropy") == "banned"
    assert policy_of("cpu", "binary_cross_entropy") == "fp32"


def test_cat_promotes_and_unknown_devices_have_no_policy():
    assert policy_of("cpu", "cat") == "promote"
    assert policy_of("mps", "addmm") == "none"
    assert policy_of("cpu", "relu") == "none"
