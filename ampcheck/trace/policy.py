"""Autocast's cast policy per device type, as data (no torch import).

Taken from PyTorch 2.13's `aten/src/ATen/autocast_mode.cpp` (the `AutocastCPU` block) and
`aten/src/ATen/autocast_mode.h` (the `AT_FORALL_*` lists that `AutocastCUDA` registers).
`tests/trace/test_policy.py` compares these tables with the installed torch's
`torch._C._dispatch_get_registrations_for_dispatch_key("AutocastCPU"/"AutocastCUDA")`, so a
torch upgrade that moves an op fails loudly. Supported range: torch 2.4 - 2.13. Older
releases in that range register a subset of these ops (an op they lack is never seen at run
time); the category of every op they do register is the same as here.

Autocast registers ops at the level the user calls (`linear`, `softmax`, `layer_norm`), but a
dispatch-level tracer sees the decomposed aten op (`addmm`, `_softmax`, `native_layer_norm`).
`DISPATCH_ALIASES` maps each decomposed op back to the autocast-level op whose policy governs
it, so `policy_of("cpu", "addmm")` and `policy_of("cuda", "_softmax")` both answer.
"""
from __future__ import annotations

from typing import Literal

Policy = Literal["lower_precision", "fp32", "promote", "banned", "none"]

_CUDA_LOWER = """
_convolution _convolution.deprecated conv1d conv2d conv3d conv_tbc conv_transpose1d
conv_transpose2d.input conv_transpose3d.input convolution prelu addmm addmv addr matmul
einsum mm mv linalg_vecdot linear addbmm baddbmm bmm chain_matmul linalg_multi_dot
_thnn_fused_lstm_cell _thnn_fused_gru_cell lstm_cell gru_cell rnn_tanh_cell rnn_relu_cell
_scaled_dot_product_flash_attention scaled_dot_product_attention cudnn_convolution
cudnn_convolution_transpose
"""
_CUDA_FP32 = """
acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan
pow.Tensor_Scalar pow.Tensor_Tensor pow.Scalar softplus layer_norm native_layer_norm rms_norm
group_norm frobenius_norm.dim nuclear_norm nuclear_norm.dim cosine_similarity
poisson_nll_loss cosine_embedding_loss nll_loss nll_loss2d hinge_embedding_loss kl_div
l1_loss smooth_l1_loss huber_loss mse_loss margin_ranking_loss multilabel_margin_loss
soft_margin_loss triplet_margin_loss multi_margin_loss binary_cross_entropy_with_logits
dist pdist cdist renorm logsumexp upsample_nearest1d _upsample_nearest_exact1d
upsample_nearest2d _upsample_nearest_exact2d upsample_nearest3d _upsample_nearest_exact3d
upsample_linear1d upsample_bilinear2d _upsample_bilinear2d_aa upsample_trilinear3d
upsample_bicubic2d _upsample_bicubic2d_aa
prod prod.dim_int softmax.int log_softmax.int cumprod cumsum linalg_vector_norm
linalg_matrix_norm linalg_matrix_norm.str_ord sum sum.dim_IntList
norm.Scalar norm.ScalarOpt_dim
"""
_CUDA_PROMOTE = """
addcdiv addcmul atan2 bilinear cross dot vdot grid_sampler index_put tensordot scatter_add
"""
_CUDA_BANNED = "binary_cross_entropy"

_CPU_LOWER = """
conv1d conv1d.padding conv2d conv2d.padding conv3d conv3d.padding bmm mm linalg_vecdot
baddbmm addmm _addmm_activation addbmm linear _convolution.deprecated matmul conv_tbc
mkldnn_rnn_layer conv_transpose1d conv_transpose2d.input conv_transpose3d.input prelu
scaled_dot_product_attention _native_multi_head_attention
"""
_CPU_FP32 = """
avg_pool3d binary_cross_entropy grid_sampler polar prod prod.dim_int quantile
quantile.scalar nanquantile nanquantile.scalar stft stft.center cdist grid_sampler_2d
_grid_sampler_2d_cpu_fallback grid_sampler_3d trace view_as_complex cholesky
cholesky_inverse cholesky_solve inverse lu_solve orgqr ormqr pinverse max_pool3d
max_unpool2d max_unpool3d adaptive_avg_pool3d reflection_pad1d reflection_pad2d
replication_pad1d replication_pad2d replication_pad3d mse_loss cosine_embedding_loss
nll_loss nll_loss2d hinge_embedding_loss poisson_nll_loss smooth_l1_loss cross_entropy_loss
l1_loss huber_loss margin_ranking_loss soft_margin_loss triplet_margin_loss
multi_margin_loss ctc_loss.IntList ctc_loss.Tensor kl_div multilabel_margin_loss
binary_cross_entropy_with_logits fft_fft fft_ifft fft_fft2 fft_ifft2 fft_fftn fft_ifftn
fft_rfft fft_irfft fft_rfft2 fft_irfft2 fft_rfftn fft_irfftn fft_hfft fft_ihfft linalg_cond
linalg_cond.p_str linalg_matrix_rank linalg_matrix_rank.tol_tensor
linalg_matrix_rank.atol_rtol_tensor linalg_matrix_rank.atol_rtol_float linalg_solve
linalg_cholesky linalg_svdvals linalg_eigvals linalg_eigvalsh linalg_inv
linalg_householder_product linalg_tensorinv linalg_tensorsolve
fake_quantize_per_tensor_affine geqrf _lu_with_info qr svd triangular_solve
fractional_max_pool2d fractional_max_pool3d adaptive_max_pool3d
multilabel_margin_loss_forward linalg_qr linalg_cholesky_ex linalg_svd linalg_eig
linalg_eigh linalg_lstsq linalg_inv_ex
"""
_CPU_PROMOTE = "stack cat index_copy"

# device type -> {registered op name (with overload, as autocast registers it) -> policy}
REGISTERED: dict[str, dict[str, Policy]] = {
    "cuda": {
        **{op: "lower_precision" for op in _CUDA_LOWER.split()},
        **{op: "fp32" for op in _CUDA_FP32.split()},
        **{op: "promote" for op in _CUDA_PROMOTE.split()},
        _CUDA_BANNED: "banned",
    },
    "cpu": {
        **{op: "lower_precision" for op in _CPU_LOWER.split()},
        **{op: "fp32" for op in _CPU_FP32.split()},
        **{op: "promote" for op in _CPU_PROMOTE.split()},
    },
}

# decomposed aten op seen at dispatch -> the autocast-level op that decides its precision
DISPATCH_ALIASES: dict[str, str] = {
    "convolution": "conv2d",
    "_convolution": "conv2d",
    "convolution_backward": "conv2d",
    "_softmax": "softmax",
    "_log_softmax": "log_softmax",
    "native_group_norm": "group_norm",
    "_fused_rms_norm": "rms_norm",
    "nll_loss_forward": "nll_loss",
    "nll_loss2d_forward": "nll_loss2d",
    "_scaled_dot_product_flash_attention_for_cpu": "scaled_dot_product_attention",
    "_scaled_dot_product_efficient_attention": "scaled_dot_product_attention",
    "_scaled_dot_product_cudnn_attention": "scaled_dot_product_attention",
    "_efficient_attention_forward": "scaled_dot_product_attention",
    "_flash_attention_forward": "scaled_dot_product_attention",
}

_BASE: dict[str, dict[str, Policy]] = {
    device: {name.split(".")[0]: policy for name, policy in table.items()}
    for device, table in REGISTERED.items()
}


def policy_of(device_type: str, op: str) -> Policy:
    """Policy for an aten op name without namespace or overload (`addmm`, `_softmax`).

    Device types autocast does not know here (mps, xpu, ...) answer "none": the tracer then
    reports what ran without judging it.
    """
    table = _BASE.get(device_type)
    if table is None:
        return "none"
    found = table.get(op)
    if found is None:
        alias = DISPATCH_ALIASES.get(op)
        found = table.get(alias) if alias else None
    return found or "none"
