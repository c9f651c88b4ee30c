"""The bindings facet: what the names of a training script stand for."""
from __future__ import annotations

import libcst as cst

from ampcheck.lint.model import FileModel
from tests.paths import FIXTURES

FIXTURE = FIXTURES / "amp1xx" / "model_bindings.py"


def _model() -> FileModel:
    return FileModel(str(FIXTURE), FIXTURE.read_text())


def _by_key(model: FileModel):
    return {b.key: b for b in model.bindings.all}


def test_every_scaler_spelling_is_a_scaler():
    b = _by_key(_model())
    for key in ("nano_scaler", "aliased_scaler", "legacy_off", "maybe_scaler", "optional_scaler", "sharded"):
        assert b[key].kind == "scaler", key


def test_scaler_enabled_is_evaluated_from_module_constants():
    b = _by_key(_model())
    assert b["nano_scaler"].enabled is False  # dtype == "float16" with dtype = "bfloat16"
    assert b["legacy_off"].enabled is False
    assert b["maybe_scaler"].enabled is None
    assert b["optional_scaler"].enabled is None  # exists only when use_amp
    assert b["sharded"].enabled is True


def test_scaler_device_comes_from_spelling_or_argument():
    b = _by_key(_model())
    assert b["aliased_scaler"].device == "cpu"
    assert b["legacy_off"].device == "cuda"
    assert b["nano_scaler"].device == "cuda"


def test_models_through_subclasses_wrappers_and_device_moves():
    b = _by_key(_model())
    assert b["net"].kind == "model" and b["net"].qualname == "Wide"
    assert b["backbone"].kind == "model"
    assert b["criterion"].kind == "loss"
    assert b["sched"].kind == "scheduler"


def test_optimizer_records_the_module_it_optimizes():
    b = _by_key(_model())
    assert (b["sgd"].kind, b["sgd"].params_of) == ("optimizer", "net")
    assert (b["adam"].kind, b["adam"].params_of) == ("optimizer", "backbone")
    assert b["self.optimizer"].params_of == "self.model"


def test_self_attribute_set_in_any_method_is_found_from_another_method():
    model = _model()
    trainer = next(c for c in model.classes if c.name.value == "Trainer")
    # a use inside __init__; the attribute is bound in `setup`, a sibling method
    anchor = next(n for n in model.attributes if model.code_for(n) == "self.model" and model.enclosing_class(n) is trainer)
    found = model.bindings.lookup(cst.parse_expression("self.scaler"), at=anchor)
    assert found is not None and found.kind == "scaler" and found.enabled is None


def test_parameter_used_as_a_scaler_is_an_inferred_maybe_scaler():
    model = _model()
    train = next(f for f in model.functions if f.name.value == "train")
    scalers = [b for b in model.bindings.of_kind("scaler") if b.inferred]
    assert [(b.key, b.scope) for b in scalers] == [("scaler", train)]
    assert scalers[0].enabled is None


def test_optimizer_like_names_count_as_optimizers_but_schedulers_do_not():
    model = _model()
    bindings = model.bindings
    assert bindings.is_optimizer(cst.parse_expression("optimizer_g"), at=model.module)
    assert bindings.is_optimizer(cst.parse_expression("self.opt"), at=model.module)
    assert not bindings.is_optimizer(cst.parse_expression("lr_scheduler"), at=model.module)
    assert not bindings.is_optimizer(cst.parse_expression("sched"), at=model.module)
