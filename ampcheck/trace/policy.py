"""Autocast's cast policy per device type, as data (no torch import).

Taken from PyTorch 2.13's `aten/src/ATen/autocast_mode.cpp` (the `AutocastCPU` and `AutocastMPS`
blocks) and `aten/src/ATen/autocast_mode.h` (the `AT_FORALL_*` lists that `AutocastCUDA` and
`AutocastXPU` both register; CUDA adds its two cuDNN convolutions). `tests/trace/test_policy.py`
compares these tables with the installed torch's
`torch._C._dispatch_get_registrations_for_dispatch_key("Autocast<DEVICE>")`, so a torch upgrade
that moves an op fails loudly; the CPU build of torch registers every device's autocast kernels,
so the check needs no GPU. Supported range: torch 2.4 - 2.13. Older
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

# the AT_FORALL_* lists of autocast_mode.h: CUDA and XPU register both the same
_FORALL_LOWER = """
_convolution _convolution.deprecated conv1d conv2d conv3d conv_tbc conv_transpose1d
conv_transpose2d.input conv_transpose3d.input convolution prelu addmm addmv addr matmul
einsum mm mv linalg_vecdot linear addbmm baddbmm bmm chain_matmul linalg_multi_dot
_thnn_fused_lstm_cell _thnn_fused_gru_cell lstm_cell gru_cell rnn_tanh_cell rnn_relu_cell
_scaled_dot_product_flash_attention scaled_dot_product_attention
"""
_CUDA_ONLY_LOWER = "cudnn_convolution cudnn_convolution_transpose"
_FORALL_FP32 = """
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
_FORALL_PROMOTE = """
addcdiv addcmul atan2 bilinear cross dot vdot grid_sampler index_put tensordot scatter_add
"""
_FORALL_BANNED = "binary_cross_entropy"

# Apple's own lists: batch_norm is fp32 here, and 3-d transposed convolution stays fp32
_MPS_LOWER = """
_convolution.deprecated _convolution conv1d conv2d conv3d conv_tbc conv_transpose1d
conv_transpose2d.input convolution _mps_convolution prelu addmm addmv addr matmul einsum mm
mv linear addbmm baddbmm bmm chain_matmul linalg_multi_dot lstm_cell
scaled_dot_product_attention
"""
_MPS_FP32 = """
conv_transpose3d.input acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt
sinh tan pow.Tensor_Scalar pow.Tensor_Tensor pow.Scalar softplus layer_norm native_layer_norm
group_norm frobenius_norm.dim nuclear_norm nuclear_norm.dim batch_norm cosine_similarity
poisson_nll_loss cosine_embedding_loss nll_loss nll_loss2d hinge_embedding_loss kl_div
l1_loss smooth_l1_loss huber_loss mse_loss margin_ranking_loss multilabel_margin_loss
soft_margin_loss triplet_margin_loss multi_margin_loss binary_cross_entropy_with_logits dist
pdist cdist renorm logsumexp prod prod.dim_int softmax.int log_softmax.int cumprod cumsum
linalg_vector_norm linalg_matrix_norm linalg_matrix_norm.str_ord sum sum.dim_IntList
"""
_MPS_PROMOTE = "addcdiv addcmul atan2 bilinear cross dot grid_sampler index_put tensordot scatter_add"

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


def _table(lower: str, fp32: str, promote: str, banned: str = "") -> dict[str, Policy]:
    return {
        **{op: "lower_precision" for op in lower.split()},
        **{op: "fp32" for op in fp32.split()},
        **{op: "promote" for op in promote.split()},
        **{op: "banned" for op in banned.split()},
    }


# device type -> {registered op name (with overload, as autocast registers it) -> policy}
REGISTERED: dict[str, dict[str, Policy]] = {
    "cuda": _table(_FORALL_LOWER + _CUDA_ONLY_LOWER, _FORALL_FP32, _FORALL_PROMOTE, _FORALL_BANNED),
    "xpu": _table(_FORALL_LOWER, _FORALL_FP32, _FORALL_PROMOTE, _FORALL_BANNED),
    "mps": _table(_MPS_LOWER, _MPS_FP32, _MPS_PROMOTE),
    "cpu": _table(_CPU_LOWER, _CPU_FP32, _CPU_PROMOTE),
}
# the dispatch key whose registrations each table mirrors, and the torch release it was taken from
DISPATCH_KEYS: dict[str, str] = {device: f"Autocast{device.upper()}" for device in REGISTERED}
TABLES_FROM = "torch 2.13"

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
    "_scaled_dot_product_attention_math_for_mps": "scaled_dot_product_attention",
    "_scaled_dot_product_fused_attention_overrideable": "scaled_dot_product_attention",
    "native_batch_norm": "batch_norm",
    "_native_batch_norm_legit": "batch_norm",
    "_batch_norm_with_update": "batch_norm",
}

_BASE: dict[str, dict[str, Policy]] = {
    device: {name.split(".")[0]: policy for name, policy in table.items()}
    for device, table in REGISTERED.items()
}


def policy_of(device_type: str, op: str) -> Policy:
    """Policy for an aten op name without namespace or overload (`addmm`, `_softmax`).

    Device types without a table here (xla, hpu, privateuse1, ...) answer "none": the tracer
    then reports what ran without judging it.
    """
    table = _BASE.get(device_type)
    if table is None:
        return "none"
    found = table.get(op)
    if found is None:
        alias = DISPATCH_ALIASES.get(op)
        found = table.get(alias) if alias else None
    return found or "none"

