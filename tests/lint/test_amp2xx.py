"""AMP2xx precision rules: each true-positive fixture raises exactly the findings its
`# expect:` markers declare; each trap fixture (a correct program) raises no finding at all."""
from __future__ import annotations

from pathlib import Path

import pytest

from ampcheck.config import Overrides, load_settings
from ampcheck.lint.checks import load_all
from ampcheck.lint.engine import Options, lint_paths
from tests.paths import FIXTURES
from tests.lint.helpers import codes, expected, lint_file

DIR = FIXTURES / "amp2xx"


def _assert_marked(name: str) -> None:
    path = DIR / name
    found = codes(lint_file(path, "AMP2"))
    assert found == expected(path, "AMP2") and found


def _assert_clean(name: str) -> None:
    assert codes(lint_file(DIR / name)) == []


def test_cuda_default_float16_autocast_without_scaler_is_flagged() -> None:
    _assert_marked("amp201_cuda_default_no_scaler.py")


def test_explicit_float16_autocast_stored_on_a_trainer_without_scaler_is_flagged() -> None:
    _assert_marked("amp201_explicit_fp16_trainer.py")


def test_float16_backward_whose_gradients_an_optimizer_steps_here_or_in_the_caller_is_flagged() -> None:
    _assert_marked("amp201_backward_stepped_by_the_caller.py")


def test_training_placement_and_fp16_rules_are_not_reported_in_test_code() -> None:
    # a parity test (`tests/test_parity.py`) and a helper of the test suite (`tests/memory.py`)
    # run a few fp16 steps without a scaler, or step inside autocast, on purpose; the training
    # script beside them is reported (AMP201, AMP301, AMP305)
    root = FIXTURES / "projects" / "fp16_test_code"
    settings = load_settings([str(root)], Overrides(select=("AMP2", "AMP3")), cwd=root)
    result = lint_paths([str(root)], settings, Options(cache=False, jobs=1))
    found = sorted((Path(f.path).resolve().relative_to(root).as_posix(), f.code, f.line) for f in result.findings)
    assert found == sorted(("train.py", code, line) for code, line in expected(root / "train.py", "AMP"))


def test_float16_autocast_on_exactly_when_a_scaler_is_handed_to_helpers_that_scale_with_it_is_silent() -> None:
    # `autocast(enabled=scaler is not None)` around helpers of another module that back the
    # loss up through the scaler where it is not None; the loops whose backward helper never
    # scales are reported
    root = FIXTURES / "projects" / "scaler_handed_to_helpers_that_test_it"
    settings = load_settings([str(root)], Overrides(select=("AMP2",)), cwd=root)
    result = lint_paths([str(root)], settings, Options(cache=False, jobs=1))
    found = sorted((Path(f.path).resolve().relative_to(root).as_posix(), f.code, f.line) for f in result.findings)
    marked = [(p.relative_to(root).as_posix(), *mark) for p in root.rglob("*.py") for mark in expected(p, "AMP2")]
    assert found == sorted(marked)
    assert {path for path, _, _ in found} == {"music/utils/unscaled_executor.py", "music/utils/forgetful_executor.py"}


def test_the_rules_left_out_of_test_code_are_those_about_how_a_training_run_turns_out() -> None:
    # what raises (the scaler protocol, BCE under autocast, fp16 params with a scaler) is
    # reported in tests as anywhere
    skipped = {code for chk in load_all() if not chk.in_tests for code in chk.codes}
    assert skipped == {"AMP109", "AMP201", "AMP204", "AMP205", "AMP301", "AMP303", "AMP305"}


def test_float16_backward_whose_gradients_reach_no_optimizer_needs_no_scaler() -> None:
    # a timing benchmark, a gradient-flow test, a saliency map: nothing is updated
    _assert_clean("clean_fp16_backward_without_optimizer.py")


def test_float16_autocast_used_only_for_evaluation_needs_no_scaler() -> None:
    _assert_clean("clean_fp16_eval_only.py")


def test_float16_autocast_with_accelerate_backward_leaves_scaling_to_accelerate() -> None:
    _assert_clean("clean_accelerate_fp16_frozen_helper.py")


def test_float16_autocast_with_an_optimizer_wrapper_backward_leaves_scaling_to_it() -> None:
    _assert_clean("clean_fairseq_optimizer_backward.py")


def test_float16_autocast_whose_plain_backward_is_on_the_other_branch_is_silent() -> None:
    _assert_clean("clean_convnext_amp_branch.py")


def test_float16_autocast_in_a_file_taking_an_annotated_scaler_parameter_is_silent() -> None:
    _assert_clean("clean_fp16_scaler_handed_in_by_annotation.py")


def test_bfloat16_autocast_without_scaler_is_correct() -> None:
    _assert_clean("clean_bf16_without_scaler.py")


def test_enabled_scaler_beside_bfloat16_autocast_is_flagged() -> None:
    _assert_marked("amp202_scaler_with_bf16.py")


def test_scaler_beside_a_bf16_loop_that_never_reads_it_again_is_silent() -> None:
    _assert_clean("clean_bf16_loop_beside_a_scaler_it_never_uses.py")


def test_scaler_beside_a_bf16_loop_read_by_a_nested_step_function_is_flagged() -> None:
    _assert_marked("amp202_bf16_scaler_used_by_a_nested_step.py")


def test_nanogpt_scaler_enabled_only_for_float16_is_silent() -> None:
    _assert_clean("clean_nanogpt_maybe_scaler_bf16.py")


def test_half_model_whose_optimizer_a_scaler_unscales_is_flagged() -> None:
    _assert_marked("amp203_half_model_with_scaler.py")


def test_half_model_updated_by_its_optimizer_without_master_weights_is_flagged() -> None:
    _assert_marked("amp204_half_model_sgd.py")


def test_another_functions_scaler_stepping_an_optimizer_of_the_same_name_is_not_this_ones() -> None:
    _assert_marked("amp204_half_model_beside_another_functions_scaler_of_the_same_name.py")


def test_half_model_stepped_in_a_loop_or_by_an_unchecked_step_function_is_flagged() -> None:
    _assert_marked("amp204_half_model_stepped_in_a_loop_or_unchecked.py")


def test_half_model_updated_once_and_then_asserted_on_is_a_test_not_training() -> None:
    # unittest and pytest styles: one SGD step on fp16 parameters, then assertions
    _assert_clean("clean_half_model_one_checked_update.py")


def test_adam_default_eps_over_float16_parameters_is_flagged() -> None:
    _assert_marked("amp205_fp16_adam_default_eps.py")


@pytest.mark.parametrize(
    "name",
    ["clean_inference_half.py", "clean_half_with_master_weights.py", "clean_half_then_float.py"],
    ids=["inference-under-no-grad", "fp32-master-weights", "half-then-float"],
)
def test_half_casts_that_do_not_train_fp16_parameters_are_silent(name: str) -> None:
    _assert_clean(name)


def test_half_model_whose_optimizer_apex_o2_initialises_keeps_master_weights() -> None:
    # apex itself is AMP405's (deprecated); no precision finding
    assert codes(lint_file(DIR / "clean_half_with_apex_o2.py", "AMP2")) == []


def test_fsdp1_wrapper_with_plain_grad_scaler_is_flagged() -> None:
    _assert_marked("amp206_fsdp1_plain_scaler.py")


def test_fsdp2_fully_shard_with_plain_scaler_and_fsdp1_with_sharded_scaler_are_silent() -> None:
    _assert_clean("clean_fsdp2_plain_scaler.py")


def test_sharding_policies_written_with_a_low_precision_reduce_dtype_are_flagged_in_every_spelling() -> None:
    _assert_marked("amp207_low_precision_reduce_dtype.py")


def test_reduce_dtype_float32_none_omitted_or_an_expression_is_never_reported_statically() -> None:
    _assert_clean("clean_fsdp2_reduce_dtype.py")


def test_fsdp1_plain_scaler_built_only_where_an_assert_or_a_negated_test_rules_fsdp_out_is_silent() -> None:
    _assert_clean("clean_fsdp1_plain_scaler_asserted_off.py")


def test_fsdp1_plain_scaler_replaced_only_by_a_plain_one_or_elsewhere_is_flagged() -> None:
    _assert_marked("amp206_fsdp1_plain_scaler_replaced_by_another_plain.py")


def test_fsdp1_plain_scaler_that_a_sharded_scaler_replaces_for_sharded_runs_is_silent() -> None:
    # a conditional expression, an assignment under `if args.fsdp:`, a trainer attribute, the class picked
    _assert_clean("clean_fsdp1_plain_scaler_replaced_by_sharded.py")


def test_fsdp1_plain_scaler_built_in_init_where_another_method_never_wraps_fsdp1_is_silent() -> None:
    # `if self.fsdp is not None:` means one thing in every method of the trainer
    _assert_clean("clean_fsdp1_plain_scaler_in_a_trainer_that_shards_otherwise.py")


def test_fsdp1_plain_scaler_built_under_another_test_of_the_trainer_state_is_flagged() -> None:
    _assert_marked("amp206_fsdp1_plain_scaler_in_a_trainer_tested_on_another_flag.py")


def test_fsdp1_without_sharding_and_a_plain_scaler_is_silent() -> None:
    # NO_SHARD all-reduces whole gradients on every rank, as DDP does
    _assert_clean("clean_fsdp1_without_sharding_plain_scaler.py")


def test_float16_backward_whose_gradients_nothing_uses_is_not_flagged() -> None:
    _assert_clean("clean_fp16_backward_only_timed.py")


def test_float16_backward_whose_gradients_a_helper_steps_on_is_flagged() -> None:
    _assert_marked("amp201_fp16_backward_helper_steps.py")


def test_float16_backward_whose_gradients_are_cleared_before_any_step_is_not_flagged() -> None:
    _assert_clean("clean_fp16_gradient_alignment_diagnostic_cleared_before_the_step.py")


def test_float16_backward_stepped_at_the_start_of_the_next_pass_is_flagged() -> None:
    _assert_marked("amp201_fp16_backward_stepped_at_the_start_of_the_next_pass.py")


def test_a_half_model_bound_anew_before_the_scalers_optimizer_is_built_is_not_unscaled() -> None:
    _assert_marked("amp204_half_model_then_a_fresh_fp32_model_for_the_scaler.py")


def test_a_module_rebound_to_its_own_half_is_the_module_its_optimizer_updates() -> None:
    _assert_marked("amp204_module_rebound_to_its_own_half_after_its_optimizer.py")


def test_float16_loss_scaled_by_a_gradscaler_kept_in_a_list_is_silent() -> None:
    _assert_clean("clean_fp16_loss_scaled_by_gradscalers_kept_in_a_list.py")


def test_float16_autocast_whose_loss_a_scaler_wrapper_from_a_star_import_scales_is_silent() -> None:
    # `from utils import *` binds the project's NativeScaler-style wrapper: its `__call__`
    # scales the loss; a stepper from the same import that does not is reported
    root = FIXTURES / "projects" / "scaler_wrapper_from_a_star_import"
    settings = load_settings([str(root)], Overrides(select=("AMP2",)), cwd=root)
    result = lint_paths([str(root)], settings, Options(cache=False, jobs=1))
    found = sorted((Path(f.path).resolve().relative_to(root).as_posix(), f.code, f.line) for f in result.findings)
    assert found == [("train_plain.py", "AMP201", 12)]


def test_float16_autocast_whose_plain_backward_runs_where_its_switch_is_off_is_silent() -> None:
    _assert_clean("clean_fp16_plain_backward_where_the_autocast_switch_is_off.py")


def test_float16_autocast_whose_plain_backward_runs_where_its_switch_is_on_is_flagged() -> None:
    _assert_marked("amp201_fp16_plain_backward_where_the_autocast_switch_is_on.py")
