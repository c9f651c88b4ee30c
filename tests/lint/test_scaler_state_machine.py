"""AMP1xx as GradScaler's own state machine: what torch accepts is never reported, what it
rejects (or steps wrongly on) is. Each test names one behaviour and the fixtures pinning it;
the cross-module forms are fixtures/projects/shared_scaler_helpers (test_projects)."""
from __future__ import annotations

import pytest

from tests.lint.helpers import codes, expected, lint_file
from tests.paths import FIXTURES

AMP1XX = FIXTURES / "amp1xx"


def _exact(name: str) -> None:
    path = AMP1XX / f"{name}.py"
    assert codes(lint_file(path, select="AMP1")) == expected(path, "AMP1")


@pytest.mark.parametrize("name", ["clean_set_scale_script", "clean_set_scale_trainer", "clean_set_scale_helper"])
def test_update_with_a_new_scale_is_no_second_update_and_needs_no_step(name: str):
    _exact(name)


def test_setting_the_scale_between_a_backward_and_its_step_is_reported():
    _exact("amp103_set_scale_before_step")


@pytest.mark.parametrize(
    "name", ["clean_two_cycles_trainer", "clean_two_cycles_same_optimizer", "clean_two_cycles_helper",
             "clean_update_per_optimizer_own_backward"],
)
def test_two_whole_cycles_in_one_iteration_are_legal(name: str):
    _exact(name)


@pytest.mark.parametrize(
    "name", ["amp103_trainer", "amp103_update_per_optimizer_script", "amp103_update_per_optimizer_of_a_named_list"],
)
def test_a_step_on_gradients_scaled_before_the_last_update_is_reported(name: str):
    _exact(name)


def test_a_step_and_update_per_pass_over_optimizers_of_unknown_number_is_silent():
    _exact("clean_update_per_optimizer_of_a_selected_one")


def test_an_update_with_no_inf_check_since_the_last_is_reported():
    _exact("amp103_update_twice_script")


@pytest.mark.parametrize("name", ["clean_scaled_loss_wrappers_script", "clean_scaled_loss_wrappers_trainer", "amp105_wrapped_script"])
def test_identity_wrappers_keep_the_scaled_mark(name: str):
    _exact(name)



@pytest.mark.parametrize(
    "name", ["clean_linear_grad_uses_script", "clean_linear_grad_uses_trainer", "clean_linear_grad_uses_helper"],
)
def test_linear_uses_of_scaled_gradients_are_harmless(name: str):
    _exact(name)


@pytest.mark.parametrize("name", ["amp104_threshold_script", "amp104_script", "amp104_trainer", "amp104_helper"])
def test_nonlinear_reads_of_scaled_gradients_are_reported(name: str):
    _exact(name)


@pytest.mark.parametrize("name", ["clean_scaler_named_object", "clean_project_scaler_class", "clean_scaler_param_always_none"])
def test_a_name_saying_scaler_is_no_evidence_of_a_gradscaler(name: str):
    _exact(name)


def test_a_project_subclass_of_gradscaler_is_a_gradscaler():
    _exact("amp102_project_subclass")


def test_unscale_of_a_stepped_optimizer_is_reported():
    _exact("amp106_unscale_after_step")


def test_an_unscale_guarded_by_the_scalers_own_stage_cannot_repeat():
    _exact("clean_unscale_guarded_by_stage")


def test_a_plain_step_follows_the_plain_backward_on_its_own_amp_off_branch():
    _exact("clean_gan_scaler_per_network_amp_branch")


def test_a_scaler_rebuilt_every_pass_starts_ready_so_its_unscale_is_no_repeat():
    _exact("amp108_rebuilt_scaler_unscales_once")
