"""The autocast policy table matches what the installed torch registers, op for op."""
from __future__ import annotations

import pytest
import torch

from ampcheck.trace.policy import DISPATCH_KEYS, REGISTERED, policy_of


@pytest.mark.parametrize("device, key", [("cpu", "AutocastCPU"), ("cuda", "AutocastCUDA"), ("xpu", "AutocastXPU"),
                                         ("mps", "AutocastMPS")])
def test_policy_table_lists_exactly_the_ops_torch_registers_for_autocast(device, key):
    assert DISPATCH_KEYS[device] == key
    registered = {op.removeprefix("aten::") for op in torch._C._dispatch_get_registrations_for_dispatch_key(key)}
    table = set(REGISTERED[device])
    assert registered - table == set(), f"torch {torch.__version__} autocasts ops the table lacks"
    assert table - registered == set(), f"the table lists ops torch {torch.__version__} does not autocast"


def test_matmul_and_conv_are_lower_precision_on_every_device_as_dispatched():
    for device in ("cpu", "cuda", "xpu", "mps"):
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
    assert policy_of("xla", "addmm") == "none"
    assert policy_of("cpu", "relu") == "none"


def test_xpu_shares_cudas_lists_without_the_cudnn_convolutions():
    assert set(REGISTERED["cuda"]) - set(REGISTERED["xpu"]) == {"cudnn_convolution", "cudnn_convolution_transpose"}
    assert all(REGISTERED["cuda"][op] == policy for op, policy in REGISTERED["xpu"].items())
    assert policy_of("xpu", "binary_cross_entropy") == "banned"


def test_mps_keeps_batch_norm_and_3d_transposed_convolution_in_fp32_and_bans_nothing():
    assert policy_of("mps", "native_batch_norm") == "fp32"
    assert policy_of("mps", "conv_transpose3d") == "fp32"
    assert policy_of("mps", "_softmax") == "fp32"
    assert "banned" not in REGISTERED["mps"].values()


@pytest.mark.parametrize("device", ["xpu", "mps"])
def test_each_category_is_what_autocast_does_on_fake_tensors_of_that_device(device):
    """torch's CPU build runs the XPU and MPS autocast kernels on fake tensors of those devices, so
    the categories (not only the op lists) are checked without the hardware."""
    import torch.nn.functional as F
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode(), torch.autocast(device, dtype=torch.float16):
        a = torch.empty(8, 8, device=device)
        video, kernel = torch.empty(1, 8, 4, 4, 4, device=device), torch.empty(8, 8, 3, 3, 3, device=device)
        ran = {
            "mm": torch.mm(a, a).dtype,
            "conv3d": F.conv3d(video, kernel).dtype,
            "conv_transpose3d": F.conv_transpose3d(video, kernel).dtype,
            "softmax": torch.softmax(a.half(), -1).dtype,
            "layer_norm": F.layer_norm(a.half(), (8,)).dtype,
        }
    for op, dtype in ran.items():
        expected = {"lower_precision": torch.float16, "fp32": torch.float32}[policy_of(device, op)]
        assert dtype == expected, (op, dtype)


@pytest.mark.parametrize("device", ["xpu", "mps"])
def test_a_run_on_xpu_or_mps_is_judged_by_that_devices_table_and_the_report_says_so(device):
    import torch.nn.functional as F
    from torch._subclasses.fake_tensor import FakeTensorMode

    import ampcheck
    from model_fixtures import records

    with FakeTensorMode():
        weight, bias, x = (torch.empty(8, 8, device=device), torch.empty(8, device=device),
                           torch.empty(4, 8, device=device))
        with ampcheck.trace() as t, torch.autocast(device, dtype=torch.float16):
            torch.softmax(F.linear(x, weight, bias), -1)
    (addmm,) = records(t.report, op="addmm")
    (softmax,) = records(t.report, op="_softmax")
    assert (addmm.device, addmm.policy, addmm.out_dtype, addmm.ran_as_policy) == (
        device, "lower_precision", "float16", True)
    assert (softmax.policy, softmax.out_dtype, softmax.ran_as_policy) == ("fp32", "float32", True)
    assert t.report.meta["policy"] == {"tables": "torch 2.13", "devices": {device: DISPATCH_KEYS[device]}}
    assert f"autocast policy (torch 2.13 tables): {device} by Autocast{device.upper()}" in t.report.to_text()


def test_a_device_without_a_table_is_named_as_not_judged():
    from ampcheck.trace.text import policy_lines

    meta = {"policy": {"tables": "torch 2.13", "devices": {"cpu": "AutocastCPU", "xla": None}}}
    assert policy_lines(meta) == [
        "autocast policy (torch 2.13 tables): cpu by AutocastCPU; xla: no autocast policy table, not judged"]
