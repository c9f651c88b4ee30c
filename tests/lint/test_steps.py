"""The training-step event sequences, asserted directly on tricky inputs."""
from __future__ import annotations

import pytest

from ampcheck.lint.model import FileModel
from ampcheck.lint.program import FunctionProgram
from ampcheck.lint.steps import Event, exclusive
from tests.paths import FIXTURES

FIXTURE = FIXTURES / "amp1xx" / "model_events.py"


@pytest.fixture(scope="module")
def model() -> FileModel:
    return FileModel(str(FIXTURE), FIXTURE.read_text())


def _fn(model: FileModel, name: str) -> FunctionProgram:
    return model.summary.functions[name]


def _root(model: FileModel, name: str) -> list[Event]:
    return next(events for fn, events in model.steps.roots() if fn.key == name)


def _kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def _line(model: FileModel, e: Event) -> int:
    return model.range(e.node).start.line


def test_scaled_loss_stored_in_a_name_is_a_scaled_backward_and_grad_zeroing_is_no_grad_use(model):
    events = model.steps.of(_fn(model, "stored_scaled_loss"))
    assert _kinds(events) == ["scaled_backward", "scaler_step", "update"]
    assert events[0].scaler == "scaler" and events[0].enabled is True


def test_helper_events_appear_at_the_call_site_with_the_callers_names(model):
    events = _root(model, "accumulate")
    assert _kinds(events) == [
        "nonfinite", "scaled_backward", "unscale", "grad_use", "scaler_step", "update", "backward", "opaque", "save",
    ]
    helper_step = events[4]
    assert helper_step.scaler == "sc" and helper_step.target == "optimizer"  # named as the helper writes it
    assert len(helper_step.via) == 1 and model.code_for(helper_step.via[0].op.node).startswith("helper(")


def test_guards_record_loops_branches_and_early_exits(model):
    events = _root(model, "accumulate")
    step, plain = events[4], events[6]
    branches = [(g.kind, g.branch) for g in step.guards]
    assert branches == [("for", "loop"), ("if", "orelse"), ("if", "body")]  # after `continue`, then the boundary
    assert exclusive(step, plain) and not exclusive(step, events[7])
    assert events[8].loops == ()  # the save after the loop


def test_opaque_call_records_what_it_was_handed(model):
    opaque = _root(model, "accumulate")[7]
    assert opaque.kind == "opaque" and opaque.target == frozenset({"optimizer"})


def test_a_helper_called_twice_has_two_instances_of_its_guards(model):
    events = _root(model, "twice")
    updates = [e for e in events if e.kind == "update"]
    assert len(updates) == 2 and updates[0].loops == updates[1].loops  # the one `while` of `twice`
    assert updates[0].via != updates[1].via


def test_call_of_an_in_file_class_instance_follows_its_dunder_call(model):
    events = _root(model, "run")
    assert _kinds(events) == ["scaled_backward", "scaler_step", "update"]
    assert events[0].scaler == "self.scaler" and events[0].enabled is False


def test_a_check_for_non_finite_values_is_an_event(model):
    (check,) = [e for e in _root(model, "accumulate") if e.kind == "nonfinite"]
    assert check.op.text == "torch.isfinite"


def test_helpers_called_in_the_file_are_not_roots_of_their_own(model):
    roots = {fn.key for fn, _ in model.steps.roots()}
    assert "helper" not in roots and "__call__" not in roots
    assert {"accumulate", "twice", "run", "stored_scaled_loss"} <= roots


def test_event_region_comes_from_the_autocast_facet(model):
    events = model.steps.of(_fn(model, "accumulate"))
    assert all(e.region is None for e in events)  # backward and steps are outside `with ctx:`


def test_every_event_is_listed_once_as_written(model):
    lines = sorted(_line(model, e) for e in model.steps.events)
    assert len(lines) == len(set(lines))


def test_a_loop_that_leaves_after_one_pass_is_a_retry_not_an_iteration(model):
    events = _root(model, "retry")
    assert _kinds(events)[:2] == ["scaled_backward", "unscale"]
    assert all(e.loops == () for e in events)
    assert [g.branch for g in events[0].guards] == ["retry"]
