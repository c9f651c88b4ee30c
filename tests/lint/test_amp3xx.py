"""AMP3xx autocast-region rules: true-positive fixtures raise exactly their `# expect:`
markers; trap fixtures (correct programs) raise no finding at all."""
from __future__ import annotations

import pytest

from ampcheck.lint.fix import apply_fixes, verify
from tests.paths import FIXTURES
from tests.lint.helpers import codes, expected, lint_file, lint_source

DIR = FIXTURES / "amp3xx"


def _assert_marked(name: str) -> None:
    path = DIR / name
    found = codes(lint_file(path, "AMP3"))
    assert found == expected(path, "AMP3") and found


def _assert_clean(name: str, select: str = "AMP") -> None:
    assert codes(lint_file(DIR / name, select)) == []


def test_backward_and_autograd_grad_inside_autocast_are_flagged_also_through_a_called_step() -> None:
    _assert_marked("amp301_backward_in_autocast.py")


def test_backward_in_autocast_of_a_timed_training_step_or_a_step_function_is_flagged() -> None:
    _assert_marked("amp301_timed_training_step_in_autocast.py")


def test_backward_in_autocast_is_flagged_only_where_the_blocks_enabled_toggle_may_be_on() -> None:
    _assert_marked("amp301_only_where_the_toggle_is_on.py")


def test_backward_in_autocast_whose_gradients_reach_no_optimizer_is_silent() -> None:
    # a timed backward, a gradient-flow test, a saliency map
    _assert_clean("clean_backward_in_autocast_updating_nothing.py")


def test_binary_cross_entropy_and_a_bceloss_attribute_in_cuda_autocast_are_flagged() -> None:
    _assert_marked("amp302_bce_in_autocast.py")


def test_binary_cross_entropy_under_autocast_disabled_or_on_cpu_is_silent() -> None:
    _assert_clean("clean_yolox_bce_fp32.py")


def test_manual_half_and_bfloat16_casts_of_tensors_in_autocast_are_flagged() -> None:
    _assert_marked("amp303_manual_cast_in_autocast.py")


def test_manual_casts_in_training_code_that_asserts_on_something_else_stay_flagged() -> None:
    _assert_marked("amp303_cast_in_autocast_with_other_assertions.py")


def test_manual_casts_whose_dtype_the_code_then_asserts_on_are_silent() -> None:
    # unittest, pytest and torch.testing styles: the half input is the behaviour under test
    _assert_clean("clean_dtype_under_test_in_autocast.py")


def test_casts_inside_a_custom_fwd_forward_are_silent() -> None:
    _assert_clean("clean_mamba_custom_fwd.py")


def test_casts_for_inference_engines_under_inference_mode_are_silent() -> None:
    _assert_clean("clean_inference_casts_in_autocast.py")


def test_casts_in_a_script_after_autograd_is_turned_off_are_silent() -> None:
    _assert_clean("clean_casts_after_grad_turned_off.py")


def test_casts_in_a_script_before_autograd_is_turned_off_are_flagged() -> None:
    _assert_marked("amp303_cast_before_grad_turned_off.py")


def test_model_inputs_cast_to_the_regions_own_dtype_as_they_are_handed_over_are_silent() -> None:
    _assert_clean("clean_model_inputs_cast_to_the_autocast_dtype.py")


def test_casts_fed_to_a_torch_op_or_to_another_dtype_than_the_regions_are_flagged() -> None:
    _assert_marked("amp303_cast_fed_to_torch_or_to_another_dtype.py")


def test_canonical_step_with_fp32_subregion_and_module_cast_is_silent() -> None:
    _assert_clean("clean_canonical_step.py")


def test_custom_function_with_matmuls_without_amp_decorators_in_an_autocast_file_is_flagged() -> None:
    _assert_marked("amp304_function_without_decorators.py")


@pytest.mark.parametrize(
    "name",
    [
        "clean_custom_function_decorated.py",
        "clean_function_without_autocast.py",
        "clean_function_in_file_that_only_disables_autocast.py",
        "clean_apex_fused_function.py",
    ],
)
def test_decorated_function_a_file_without_autocast_or_a_function_applied_with_autocast_off_is_silent(name: str) -> None:
    _assert_clean(name)


def test_function_applied_with_autocast_off_whose_static_helper_is_also_called_by_name_is_silent() -> None:
    _assert_clean("clean_function_applied_with_autocast_off_beside_calls_of_its_static_helper.py")


def test_function_with_a_static_helper_applied_under_autocast_is_flagged() -> None:
    _assert_marked("amp304_function_with_a_static_helper_applied_under_autocast.py")


def test_function_applied_by_a_classmethod_of_its_own_under_autocast_is_flagged() -> None:
    _assert_marked("amp304_function_applied_by_its_classmethod_under_autocast.py")


def test_private_function_that_only_test_functions_apply_without_autocast_is_silent() -> None:
    _assert_marked("tests/test_custom_function_used_by_tests.py")


def test_function_in_a_file_that_only_defines_an_autocast_alias_for_others_is_silent() -> None:
    _assert_clean("clean_function_beside_an_autocast_alias.py")


def test_function_applied_under_an_autocast_alias_the_file_enters_is_flagged() -> None:
    _assert_marked("amp304_function_under_an_autocast_alias.py")


def test_function_that_only_reshapes_flips_or_negates_gradients_is_silent() -> None:
    # gradient reversal, a straight-through estimator, a permute-only cross-scan whose helpers
    # are picked at run time: nothing in them is an op autocast lowers or a kernel it cannot see
    _assert_clean("clean_function_autocast_neutral.py")


def test_function_whose_backward_enters_a_fixed_or_non_autocast_state_is_flagged() -> None:
    _assert_marked("amp304_backward_enters_another_autocast_state.py")


def test_function_whose_backward_restores_the_forward_autocast_state_from_ctx_is_silent() -> None:
    # `torch.autocast(**ctx.kwargs)` and a same-file context manager that opens autocast
    _assert_clean("clean_function_restoring_forward_autocast.py")


def test_function_whose_forward_and_backward_are_decorated_with_one_autocast_state_is_silent() -> None:
    _assert_clean("clean_function_with_one_autocast_on_both_passes.py")


def test_function_with_autocast_decorating_its_forward_alone_is_flagged() -> None:
    _assert_marked("amp304_function_with_autocast_on_forward_only.py")


def test_function_of_triton_kernels_that_hands_helpers_only_shapes_and_devices_is_silent() -> None:
    # kernels wrapped at module level or picked between two; `calculate_settings(n_cols)`
    _assert_clean("clean_function_of_triton_kernels_and_shape_helpers.py")


def test_function_handing_a_tensor_to_a_helper_of_another_module_is_flagged() -> None:
    _assert_marked("amp304_function_handing_a_tensor_to_a_helper.py")


def test_deprecated_custom_fwd_spelling_is_left_to_amp403() -> None:
    _assert_clean("deprecated_custom_fwd_left_to_amp403.py", "AMP3")


def test_optimizer_and_scaler_steps_inside_autocast_are_flagged_but_not_scheduler_steps() -> None:
    _assert_marked("amp305_step_in_autocast.py")


def test_step_in_autocast_of_an_optimizer_a_library_handed_back_is_flagged() -> None:
    _assert_marked("amp305_optimizer_rebound_by_a_library.py")


def test_device_index_and_torch_device_objects_given_to_autocast_are_flagged() -> None:
    _assert_marked("amp306_invalid_device.py")


def test_device_index_fix_keeps_only_the_device_type() -> None:
    source = (DIR / "amp306_invalid_device.py").read_text()
    (finding,) = [f for f in lint_source(source, "AMP306") if f.fix is not None]
    assert finding.fix.applicability == "safe"
    fixed, applied = apply_fixes(source, [finding.fix])
    verify(fixed)
    assert applied == [finding.fix]
    assert 'torch.autocast("cuda", dtype=torch.float16)' in fixed
    assert "cuda:0\", dtype" not in fixed


def test_backward_of_a_function_entered_where_its_callers_autocast_test_holds_is_flagged() -> None:
    _assert_marked("amp301_backward_of_a_function_entered_where_its_callers_test_turns_autocast_on.py")


def test_backward_of_a_function_entered_where_its_callers_autocast_test_fails_is_silent() -> None:
    # `autocast() if opt.torch_amp else nullcontext()` around `train(..., opt)`, whose plain
    # backward is in the else of `if opt.torch_amp:`
    _assert_clean("clean_plain_backward_of_a_function_entered_where_its_callers_test_turns_autocast_off.py")
