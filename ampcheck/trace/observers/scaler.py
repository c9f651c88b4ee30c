"""GradScaler observer: what the loss scaler did while a trace ran.

For the trace's duration it wraps GradScaler's `scale`/`unscale_`/`step`/`update` (on every
class of the GradScaler family that defines them), the gradient-clipping functions and the LR
schedulers' `step`, and undoes every patch on exit, exceptions included.

No extra device synchronisation: the values come from tensors GradScaler already computed
(its `_scale` and per-optimizer `found_inf`), copied into a small on-device log with
asynchronous kernels and read back once, when the trace closes. Whether a step was skipped is
therefore known only then, which is also how fused optimizers work (the skip happens inside
their kernel, from the same `found_inf`).

The section it writes (`report.sections["scaler"]`) is plain JSON;
`ampcheck.trace.sections.scaler` turns it into AMP507/AMP508 without torch, so `ampcheck
report` works anywhere.
"""
from __future__ import annotations

import sys
import types
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional

from ampcheck.trace.model import ReportData
from ampcheck.trace.observers import Observer
from ampcheck.trace.runtime import untraced, user_source
from ampcheck.trace.sections.scaler import SECTION

if TYPE_CHECKING:
    import torch

DEFAULT_SKIP_THRESHOLD = 0.05
_CHUNK = 256
_CLIP_FUNCTIONS = ("clip_grad_norm_", "clip_grad_value_", "clip_grad_norm")


class DeviceLog:
    """Rows of small device values appended with asynchronous copies and read back once.

    Rows live in chunks of 256 on the values' device (a new chunk every 256 rows); appending
    is two small kernels and never syncs; `read()` is the single device-to-host transfer.
    """

    def __init__(self, width: int) -> None:
        self.width = width
        self.rows = 0
        self._chunks: list["torch.Tensor"] = []

    def append(self, values: list["torch.Tensor"]) -> int:
        import torch

        device = values[0].device
        if self.rows == len(self._chunks) * _CHUNK:
            self._chunks.append(torch.zeros((_CHUNK, self.width), dtype=torch.float32, device=device))
        row = torch.stack([v.to(device=device, dtype=torch.float32, non_blocking=True).reshape(()) for v in values])
        self._chunks[-1][self.rows % _CHUNK].copy_(row, non_blocking=True)
        self.rows += 1
        return self.rows - 1

    def read(self) -> list[list[float]]:
        if not self.rows:
            return []
        import torch

        return torch.cat([c.cpu() for c in self._chunks])[: self.rows].tolist()


@dataclass
class _Optimizer:
    label: str
    fused: bool
    ref: "weakref.ReferenceType[Any]"
    params: frozenset[int] = frozenset()
    last_row: Optional[int] = None


@dataclass
class _Site:
    """Calls of one kind from one user line, with the scaler iterations they happened in."""

    what: str
    site: Optional[str]
    iterations: list[int] = field(default_factory=list)
    rows: list[int] = field(default_factory=list)
    params: set[int] = field(default_factory=set)


@dataclass
class _Watch:
    """Everything observed about one GradScaler instance."""

    label: str
    scaler: Any
    site: Optional[str] = None
    iteration: int = 0
    scaled_pending: bool = False
    optimizers: dict[int, _Optimizer] = field(default_factory=dict)
    updates: DeviceLog = field(default_factory=lambda: DeviceLog(2))
    update_iterations: list[int] = field(default_factory=list)
    manual_updates: list[int] = field(default_factory=list)
    steps: DeviceLog = field(default_factory=lambda: DeviceLog(1))
    step_meta: list[tuple[int, str]] = field(default_factory=list)
    clips: dict[tuple[str, Optional[str]], _Site] = field(default_factory=dict)
    schedulers: dict[tuple[str, Optional[str]], _Site] = field(default_factory=dict)

    def optimizer(self, opt: Any) -> _Optimizer:
        known = self.optimizers.get(id(opt))
        if known is None or known.ref() is not opt:
            count = sum(1 for o in self.optimizers.values() if o.label.startswith(type(opt).__name__ + "#"))
            known = _Optimizer(
                label=f"{type(opt).__name__}#{count + 1}",
                fused=bool(getattr(opt, "_step_supports_amp_scaling", False)),
                ref=weakref.ref(opt),
                params=frozenset(id(p) for group in opt.param_groups for p in group["params"]),
            )
            self.optimizers[id(opt)] = known
        return known

    def scaled_params(self) -> set[int]:
        """ids of the parameters of every optimizer this scaler stepped or unscaled."""
        return {p for opt in self.optimizers.values() for p in opt.params}

    def unscaled_params(self) -> set[int]:
        """ids of parameters whose optimizer this scaler has unscaled (or stepped) since update."""
        done: set[int] = set()
        for key, state in self.scaler._per_optimizer_states.items():
            if state["stage"].name == "READY":
                continue
            opt = self.optimizers.get(key)
            target = opt.ref() if opt else None
            if target is not None:
                done.update(id(p) for group in target.param_groups for p in group["params"])
        return done

    def to_json(self, skip_threshold: float) -> dict[str, Any]:
        step_rows = self.steps.read()
        skipped_by: dict[str, list[int]] = {}
        iterations: list[int] = []
        skipped_rows: set[int] = set()
        for index, ((found_inf,), (iteration, label)) in enumerate(zip(step_rows, self.step_meta)):
            if not iterations or iterations[-1] != iteration:
                iterations.append(iteration)
            if found_inf > 0:
                skipped_rows.add(index)
                skipped_by.setdefault(label, []).append(iteration)
        update_rows = self.updates.read()
        scale = [before for before, _ in update_rows]
        return {
            "label": self.label,
            "class": type(self.scaler).__name__,
            "device": str(self.scaler._device),
            "init_scale": float(self.scaler._init_scale),
            "growth_factor": float(self.scaler._growth_factor),
            "backoff_factor": float(self.scaler._backoff_factor),
            "growth_interval": int(self.scaler._growth_interval),
            "site": self.site,
            "optimizers": [{"label": o.label, "fused": o.fused} for o in self.optimizers.values()],
            "iterations": iterations,
            "update_iterations": self.update_iterations,
            "scale": scale,
            "final_scale": update_rows[-1][1] if update_rows else None,
            "manual_updates": self.manual_updates,
            "skipped": sorted({it for its in skipped_by.values() for it in its}),
            "skipped_by_optimizer": skipped_by,
            "skip_threshold": skip_threshold,
            # only clipping of parameters this scaler's optimizers own: another model's
            # unscaled gradients clipped meanwhile are not this scaler's business
            "clips_on_scaled": [_site_json(s) for s in self.clips.values() if s.params & self.scaled_params()],
            "scheduler_after_skip": [
                _site_json(s, keep=[i for i, r in zip(s.iterations, s.rows) if r in skipped_rows])
                for s in self.schedulers.values()
                if any(r in skipped_rows for r in s.rows)
            ],
        }


def _site_json(site: _Site, keep: Optional[list[int]] = None) -> dict[str, Any]:
    iterations = site.iterations if keep is None else keep
    return {"what": site.what, "site": site.site, "count": len(iterations), "iterations": iterations[:100]}


class _Patches:
    """setattr with a record of what to put back; `undo()` restores in reverse order."""

    def __init__(self) -> None:
        self._undo: list[tuple[Any, str, Any]] = []

    def set(self, owner: Any, name: str, value: Any) -> None:
        self._undo.append((owner, name, owner.__dict__[name]))
        setattr(owner, name, value)

    def undo(self) -> None:
        while self._undo:
            owner, name, old = self._undo.pop()
            setattr(owner, name, old)


def _family(cls: type) -> list[type]:
    found, todo = [], [cls]
    while todo:
        current = todo.pop()
        if current not in found:
            found.append(current)
            todo.extend(current.__subclasses__())
    return found


class ScalerObserver(Observer):
    """Watches every enabled GradScaler used while a trace records; see the module docstring.
    It runs in every trace (the tracer's DEFAULT_OBSERVERS)."""

    def __init__(self, skip_threshold: float = DEFAULT_SKIP_THRESHOLD) -> None:
        self.skip_threshold = skip_threshold
        self._watches: dict[int, _Watch] = {}
        self._patches = _Patches()
        self._active = False
        self._depth = 0
        self._trace: Any = None

    # -- lifecycle -----------------------------------------------------------------------
    def on_start(self, trace: Any) -> None:
        self._trace = trace
        self._install()

    def on_stop(self, trace: Any) -> None:
        self._active = False
        self._patches.undo()

    def _install(self) -> None:
        import torch
        import torch.nn.utils.clip_grad as clip_grad
        import torch.optim.lr_scheduler as lr_scheduler

        try:
            for cls in _family(torch.amp.GradScaler):
                for name, make in (("scale", self._wrap_scale), ("unscale_", self._wrap_unscale),
                                   ("step", self._wrap_step), ("update", self._wrap_update)):
                    if name in cls.__dict__:
                        self._patches.set(cls, name, make(cls.__dict__[name]))
            for cls in _family(lr_scheduler.LRScheduler):
                if "step" in cls.__dict__:
                    self._patches.set(cls, "step", self._wrap_scheduler(cls.__dict__["step"]))
            # by identity: the functions and every module global bound to them, so that
            # `from torch.nn.utils import clip_grad_norm_` done before the trace is seen too
            wrappers = {id(getattr(clip_grad, n)): self._wrap_clip(getattr(clip_grad, n), n) for n in _CLIP_FUNCTIONS}
            for module in list(sys.modules.values()):
                namespace = vars(module) if isinstance(module, types.ModuleType) else None
                for name in _CLIP_FUNCTIONS if isinstance(namespace, dict) else ():
                    wrapper = wrappers.get(id(namespace.get(name)))
                    if wrapper is not None:
                        self._patches.set(module, name, wrapper)
        except BaseException:
            self._patches.undo()
            raise
        self._active = True

    def contribute(self, report: ReportData) -> None:
        """Read the device logs back (the one transfer) and store the section."""
        if self._watches:
            report.sections[SECTION] = {
                "scalers": [w.to_json(self.skip_threshold) for w in self._watches.values()]
            }

    # -- bookkeeping ---------------------------------------------------------------------
    def _watch(self, scaler: Any) -> Optional[_Watch]:
        if not (self._active and scaler._enabled) or self._depth:
            return None
        watch = self._watches.get(id(scaler))
        if watch is None:
            watch = _Watch(label=f"{type(scaler).__name__}#{len(self._watches) + 1}", scaler=scaler)
            self._watches[id(scaler)] = watch
        return watch

    def _call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call the original with our own wrappers muted (GradScaler methods call each other)."""
        self._depth += 1
        try:
            return fn(*args, **kwargs)
        finally:
            self._depth -= 1

    # -- wrappers ------------------------------------------------------------------------
    def _wrap_scale(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def scale(scaler: Any, outputs: Any) -> Any:
            watch = self._watch(scaler)
            result = self._call(original, scaler, outputs)
            if watch is not None:
                watch.scaled_pending = True
            return result

        return scale

    def _wrap_unscale(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def unscale_(scaler: Any, optimizer: Any) -> Any:
            watch = self._watch(scaler)
            if watch is not None:
                watch.optimizer(optimizer)
            return self._call(original, scaler, optimizer)

        return unscale_

    def _wrap_step(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def step(scaler: Any, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
            watch = self._watch(scaler)
            if watch is None:
                return self._call(original, scaler, optimizer, *args, **kwargs)
            opt = watch.optimizer(optimizer)
            if watch.site is None:
                watch.site = user_source()
            steps = self._trace.steps
            result = self._call(original, scaler, optimizer, *args, **kwargs)
            if self._trace.steps == steps and self._trace.recording:
                # GradScaler saw inf/nan (its own .item()) and skipped optimizer.step(), so the
                # tracer's step hook did not fire: count the iteration as the step it is
                self._trace._optimizer_post(optimizer, args, kwargs)
            found = list(scaler._per_optimizer_states[id(optimizer)]["found_inf_per_device"].values())
            if found:
                with untraced():
                    opt.last_row = watch.steps.append([sum(f.to(found[0].device) for f in found)])
                watch.step_meta.append((watch.iteration, opt.label))
            return result

        return step

    def _wrap_update(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def update(scaler: Any, new_scale: Any = None) -> Any:
            watch = self._watch(scaler)
            if watch is None or scaler._scale is None:
                return self._call(original, scaler, new_scale)
            with untraced():
                before = scaler._scale.clone()
            result = self._call(original, scaler, new_scale)
            with untraced():
                watch.updates.append([before, scaler._scale])
            watch.update_iterations.append(watch.iteration)
            if new_scale is not None:
                watch.manual_updates.append(watch.iteration)
            watch.iteration += 1
            watch.scaled_pending = False
            return result

        return update

    def _wrap_clip(self, original: Callable[..., Any], name: str) -> Callable[..., Any]:
        import functools

        import torch

        @functools.wraps(original)
        def clip(parameters: Any, *args: Any, **kwargs: Any) -> Any:
            if not self._active:
                return original(parameters, *args, **kwargs)
            params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
            with_grad = {id(p) for p in params if p.grad is not None}
            for watch in self._watches.values():
                still_scaled = with_grad - watch.unscaled_params() if watch.scaled_pending else None
                if still_scaled:
                    site = user_source()
                    entry = watch.clips.setdefault((name, site), _Site(name, site))
                    entry.iterations.append(watch.iteration)
                    entry.params |= still_scaled
            return original(params, *args, **kwargs)

        return clip

    def _wrap_scheduler(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def step(scheduler: Any, *args: Any, **kwargs: Any) -> Any:
            if self._active and not self._depth:
                self._note_scheduler(scheduler)
            return self._call(original, scheduler, *args, **kwargs)

        return step

    def _note_scheduler(self, scheduler: Any) -> None:
        optimizer = getattr(scheduler, "optimizer", None)
        for watch in self._watches.values():
            opt = watch.optimizers.get(id(optimizer))
            if opt is None or opt.ref() is not optimizer or opt.last_row is None:
                continue
            iteration = watch.step_meta[opt.last_row][0]
            if iteration >= watch.iteration - 1:
                what = type(scheduler).__name__
                site = user_source()
                entry = watch.schedulers.setdefault((what, site), _Site(what, site))
                entry.iterations.append(iteration)
                entry.rows.append(opt.last_row)
