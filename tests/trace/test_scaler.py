"""The GradScaler observer: per-step scale, skipped steps, AMP507/AMP508, patches undone."""
from __future__ import annotations

import sys

import pytest
import torch
from torch.nn.utils import clip_grad_norm_  # bound before any trace, like a training module's import

import ampcheck
from ampcheck.trace.report import TraceReport
from ampcheck.trace.sections.scaler import scale_events, skip_summary
from tests.paths import FIXTURES

sys.path.insert(0, str(FIXTURES / "models"))
from fp16_scaler_loop import train  # noqa: E402


def traced(**options):
    with ampcheck.trace(numerics=options.pop("numerics", False)) as t:
        train(**options)
    return t.report


def only_scaler(report: TraceReport) -> dict:
    (scaler,) = report.sections["scaler"]["scalers"]
    return scaler


def codes(report: TraceReport) -> list[str]:
    return [f.code for f in report.findings()]


def test_overflow_at_a_known_step_is_reported_skipped_and_the_scale_halved():
    scaler = only_scaler(traced(steps=6, overflow_at=3))
    assert scaler["iterations"] == [0, 1, 2, 3, 4, 5]
    assert scaler["skipped"] == [3]
    assert scaler["skipped_by_optimizer"] == {"SGD#1": [3]}
    assert scaler["scale"][3] == 1024.0 and scaler["scale"][4] == 512.0
    assert scale_events(scaler) == [{"iteration": 3, "kind": "backoff", "before": 1024.0, "after": 512.0}]


def test_the_text_summary_shows_skips_scale_and_the_scheduler_note():
    text = traced(steps=6, overflow_at=3, scheduler=True).to_text()
    assert "loss scale (GradScaler#1 on cpu; SGD#1):" in text
    assert "6 steps, 1 skipped (steps 3); scale 1024 -> 512; 0 growth, 1 backoff" in text
    assert "note: StepLR stepped 1x right after a skipped optimizer step" in text


def test_a_fused_optimizer_skip_inside_its_kernel_is_seen():
    report = traced(steps=5, overflow_at=2, fused=True)
    scaler = only_scaler(report)
    assert scaler["optimizers"] == [{"label": "Adam#1", "fused": True}]
    assert scaler["skipped"] == [2]
    assert report.meta["steps"] == 5


def test_skipped_steps_still_count_as_trace_steps():
    report = traced(steps=6, overflow_at=3)
    assert report.meta["steps"] == 6


def test_growth_events_follow_the_growth_interval():
    with ampcheck.trace() as t:
        train(steps=5)
    events = scale_events(only_scaler(t.report))
    assert events == []  # growth_interval 2000: five clean steps keep the scale
    assert only_scaler(t.report)["final_scale"] == 1024.0


def test_frequent_skips_raise_amp507_with_the_share():
    report = traced(steps=6, overflow_at=3)
    (finding,) = [f for f in report.findings() if f.code == "AMP507"]
    assert "skipped 1 of 6 optimizer steps (17%" in finding.message
    assert finding.path.endswith("fp16_scaler_loop.py")
    assert skip_summary(only_scaler(report))["share"] == pytest.approx(1 / 6)


def test_leading_skips_while_the_scale_calibrates_are_not_amp507():
    report = traced(steps=8, init_scale=2.0**19)
    summary = skip_summary(only_scaler(report))
    assert summary["calibration"] >= 1 and summary["skipped_after_calibration"] == 0
    assert "AMP507" not in codes(report)


def test_a_scale_below_one_raises_amp507():
    report = traced(steps=3, init_scale=0.25)
    (finding,) = [f for f in report.findings() if f.code == "AMP507"]
    assert "fell to 0.25 (below 1)" in finding.message


def test_clipping_before_unscale_raises_amp508_at_the_clip_line():
    report = traced(steps=3, clip="before_unscale")
    (finding,) = [f for f in report.findings() if f.code == "AMP508"]
    assert "clip_grad_norm_ ran 3x on gradients still multiplied" in finding.message
    line = (FIXTURES / "models" / "fp16_scaler_loop.py").read_text().splitlines()[finding.line - 1]
    assert "clip_grad_norm_" in line and finding.path.endswith("fp16_scaler_loop.py")


def test_clipping_after_unscale_is_silent():
    assert "AMP508" not in codes(traced(steps=3, clip="after_unscale"))


def test_clipping_imported_into_a_module_before_the_trace_is_observed_too():
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    with ampcheck.trace() as t:
        scaler.scale(model(torch.randn(3, 4)).sum()).backward()
        clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
    assert [f.code for f in t.report.findings()] == ["AMP508"]


def test_clipping_another_models_unscaled_gradients_meanwhile_is_silent():
    model, critic = torch.nn.Linear(4, 2), torch.nn.Linear(4, 1)
    opt, critic_opt = torch.optim.SGD(model.parameters(), lr=0.1), torch.optim.SGD(critic.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    with ampcheck.trace() as t:
        for _ in range(2):
            scaler.scale(model(torch.randn(3, 4)).sum()).backward()
            critic(torch.randn(3, 4)).sum().backward()  # fp32, no scaler
            torch.nn.utils.clip_grad_norm_(critic.parameters(), 1.0)
            critic_opt.step()
            scaler.step(opt)
            scaler.update()
    assert t.report.findings(select=["AMP508"]) == []


def test_a_scheduler_stepping_after_a_skipped_step_is_noted():
    report = traced(steps=6, overflow_at=3, scheduler=True)
    (note,) = only_scaler(report)["scheduler_after_skip"]
    assert note["what"] == "StepLR" and note["iterations"] == [3]
    assert "LR scheduler stepped 1x after a skipped optimizer step" in report.findings(select=["AMP507"])[0].message


def test_a_healthy_loop_has_no_findings():
    report = traced(steps=6, clip="after_unscale", scheduler=True, numerics=True)
    assert report.findings() == []
    assert only_scaler(report)["skipped"] == []


def test_a_disabled_scaler_records_nothing():
    report = traced(steps=2, use_scaler=False)
    assert "scaler" not in report.sections


def test_every_patch_is_undone_even_when_the_block_raises():
    before = {name: torch.amp.GradScaler.__dict__[name] for name in ("scale", "unscale_", "step", "update")}
    clip, step = torch.nn.utils.clip_grad_norm_, torch.optim.lr_scheduler.LRScheduler.step
    with pytest.raises(RuntimeError, match="boom"):
        with ampcheck.trace():
            train(steps=1)
            raise RuntimeError("boom")
    assert {name: torch.amp.GradScaler.__dict__[name] for name in before} == before
    assert torch.nn.utils.clip_grad_norm_ is clip
    assert torch.optim.lr_scheduler.LRScheduler.step is step


def test_the_scaler_section_round_trips_through_json(tmp_path):
    report = traced(steps=6, overflow_at=3, clip="before_unscale")
    loaded = TraceReport.load(report.save(tmp_path / "trace.json"))
    assert loaded.sections == report.sections
    assert [f.to_json() for f in loaded.findings()] == [f.to_json() for f in report.findings()]


def test_the_observer_reads_nothing_back_while_the_loop_runs(monkeypatch):
    """Host reads (item/tolist/cpu/float/bool/int) sync a GPU; the observer's only reads are
    at the end of the trace, so the loop syncs exactly when GradScaler itself does."""
    import ampcheck.trace.observers.scaler as observer_module

    reads: list[tuple[str, bool]] = []
    state = {"in_loop": False}
    for name in ("item", "tolist", "cpu", "__float__", "__bool__", "__int__"):
        original = getattr(torch.Tensor, name)

        def counted(tensor, *args, _original=original, _name=name, **kwargs):
            caller = sys._getframe(1).f_code.co_filename
            if caller == observer_module.__file__:
                reads.append((_name, state["in_loop"]))
            return _original(tensor, *args, **kwargs)

        monkeypatch.setattr(torch.Tensor, name, counted)
    with ampcheck.trace() as t:
        state["in_loop"] = True
        train(steps=5, overflow_at=2, clip="after_unscale", scheduler=True)
        state["in_loop"] = False
    assert only_scaler(t.report)["skipped"] == [2]
    assert reads and not any(in_loop for _, in_loop in reads)
