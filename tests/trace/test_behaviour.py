"""The tracer changes nothing it observes, cleans up after itself, and says what it cannot do."""
from __future__ import annotations

import threading
import warnings

import pytest
import torch
from torch.nn.modules import module as nn_module

import ampcheck
from ampcheck.trace.tracer import Trace
from model_fixtures import build_step, records


def _train(step, steps):
    losses = [step() for _ in range(steps)]
    return losses, [p.detach().clone() for p in step.model.parameters()]


def _clean_state():
    return (
        torch._C._len_torch_dispatch_stack(),
        torch.amp.autocast_mode.autocast.__enter__,
        torch.amp.autocast_mode.autocast.__exit__,
        "to" in torch.Tensor.__dict__,
        torch.compile,
        len(nn_module._global_forward_pre_hooks),
        len(nn_module._global_forward_hooks),
    )


@pytest.mark.parametrize("name", ["mlp", "cnn", "transformer", "frozen_adapter"])
def test_traced_training_is_bitwise_identical_to_untraced(name):
    plain_losses, plain_params = _train(build_step(name, seed=3), 3)
    with ampcheck.trace():
        traced_losses, traced_params = _train(build_step(name, seed=3), 3)
    assert all(torch.equal(a, b) for a, b in zip(plain_losses, traced_losses))
    assert all(torch.equal(a, b) for a, b in zip(plain_params, traced_params))


def test_an_exception_in_the_block_propagates_and_leaves_nothing_behind():
    before = _clean_state()
    step = build_step("mlp")
    tracer = ampcheck.trace()
    with pytest.raises(ZeroDivisionError):
        with tracer:
            step()
            1 / 0
    assert _clean_state() == before
    assert records(tracer.report, op="addmm", module="fc1")  # what ran before is reported


def test_nesting_traces_is_a_clear_error_and_the_outer_trace_goes_on():
    step = build_step("mlp")
    with ampcheck.trace() as outer:
        with pytest.raises(RuntimeError, match="already active"):
            with ampcheck.trace():
                pass
        step()
    assert records(outer.report, op="addmm", module="fc1")


def test_steps_stops_recording_after_n_optimizer_steps_and_the_block_runs_on_untraced():
    step = build_step("mlp")
    with ampcheck.trace(steps=2) as t:
        step()
        step()
        assert torch._C._len_torch_dispatch_stack() == 0  # the mode is gone mid-block
        step()
    assert t.report.meta["steps"] == 2
    (fc1,) = records(t.report, op="addmm", module="fc1")
    assert fc1.count == 2


def test_bad_options_are_rejected_before_anything_runs():
    with pytest.raises(ValueError, match="unknown trace phase"):
        ampcheck.trace(phases=("forwards",))
    with pytest.raises(ValueError, match="positive"):
        ampcheck.trace(steps=0)


def test_torch_compile_inside_a_trace_with_compiled_false_warns_once_that_it_runs_eagerly():
    fn = lambda x: x * 2  # noqa: E731
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ampcheck.trace(compiled=False):
            torch.compile(fn)
            torch.compile(fn)
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1 and "eagerly" in messages[0]


def test_autocast_entered_in_another_thread_does_not_change_the_traced_state():
    lin = torch.nn.Linear(8, 8)
    entered, release = threading.Event(), threading.Event()

    def other():
        with torch.autocast("cpu", dtype=torch.bfloat16):
            entered.set()
            release.wait(10)

    with ampcheck.trace() as t:
        worker = threading.Thread(target=other)
        worker.start()
        entered.wait(10)
        lin(torch.randn(2, 8))  # this thread has no autocast: fp32
        release.set()
        worker.join()
    (mm,) = records(t.report, op="addmm")
    assert mm.autocast is None and mm.out_dtype == "float32"


def test_a_trace_started_inside_autocast_sees_the_region():
    lin = torch.nn.Linear(8, 8)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with ampcheck.trace() as t:
            lin(torch.randn(2, 8))
    (mm,) = records(t.report, op="addmm")
    assert mm.autocast == mm.out_dtype == "bfloat16"


def test_observers_see_start_steps_ops_and_contribute_a_section():
    class Counter(ampcheck.trace.tracer.Observer):
        wants_ops = True

        def __init__(self):
            self.events = []
            self.ops = 0

        def on_start(self, trace):
            self.events.append("start")

        def on_step(self, trace, optimizer):
            self.events.append(f"step {trace.steps}")

        def on_op(self, trace, func, args, kwargs, out, key):
            self.ops += 1

        def on_stop(self, trace):
            self.events.append("stop")

        def contribute(self, report):
            report.sections["counter"] = {"ops": self.ops}

    counter = Counter()
    step = build_step("mlp")
    with ampcheck.trace(observers=[counter]) as t:
        step()
        step()
    assert counter.events == ["start", "step 1", "step 2", "stop"]
    assert t.report.sections["counter"]["ops"] == t.report.total_ops


def test_trace_is_both_the_package_and_the_function():
    assert isinstance(ampcheck.trace(), Trace)


def test_with_compiled_false_a_compiled_module_runs_eagerly_traced_with_one_warning():
    """The fallback of a torch whose modes cannot ignore compile internals, forced on this one."""
    compiled = torch.compile(torch.nn.Linear(8, 8))  # compiled before the trace
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ampcheck.trace(compiled=False) as t:
            compiled(torch.randn(2, 8))
            compiled(torch.randn(2, 8))
    ours = [w for w in caught if "ampcheck.trace" in str(w.message)]
    assert len(ours) == 1 and "eagerly" in str(ours[0].message)
    (mm,) = records(t.report, op="addmm")
    assert mm.count == 2 and mm.module == "_orig_mod"  # the compiled wrapper's state_dict name


def test_a_finished_trace_cannot_be_entered_again_and_leaves_nothing_behind():
    before = _clean_state()
    tracer = ampcheck.trace()
    with tracer:
        pass
    with pytest.raises(RuntimeError, match="already run"):
        with tracer:
            pass
    assert _clean_state() == before
