"""AMP1xx: the GradScaler protocol, judged over the training-step event sequences.

Each rule reads `model.steps.roots()` (helpers already followed into their callers). A scaler
that is certainly disabled is never judged; a scaler handed, once per step, to code this file
cannot see is never judged in that sequence; a "maybe" scaler is judged only where the bug
holds whenever it is on, and the message says so. Conditions that switch AMP itself
(`if use_amp:`, `if scaler is not None:`) pick the scaler's own states, so they never make
two calls' conditions differ.
"""
from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional

import libcst as cst

from ampcheck.findings import Finding
from ampcheck.lint.checks import check
from ampcheck.lint.closures import local_use
from ampcheck.lint.kinds import is_scaler_class, scale_invariant_optimizer, scaler_shaped
from ampcheck.lint.model import FileModel
from ampcheck.lint.names import compared_to_none, dotted, is_none
from ampcheck.lint.program import (
    NONFINITE_TESTS, Attr, BindingInfo as Binding, Branch, GuardKind, Imported, Method, Param, Ref, Test, Value,
)
from ampcheck.lint.steps import Event, EventKind, Guard, OnePins, exclusive, separating

# Conditions that switch AMP on and off; the branches they pick are the scaler's own states. A
# test of a TPU or XLA run is one too: there torch's GradScaler never runs (a vendored Hugging
# Face Trainer's `if is_torch_tpu_available(): xm.optimizer_step(...)` / `elif self.use_amp:
# self.scaler.step(...)` after an `unscale_` under `use_amp` alone).
_AMP_TOGGLE = re.compile(r"amp|fp16|half|mixed|scal(er|ing)|precision|autocast|dtype|float16|tpu|xla", re.I)
_SCALE_WORD = re.compile(r"scal", re.I)
_SCALER_EVENTS = (EventKind.SCALED_BACKWARD, EventKind.UNSCALE, EventKind.SCALER_STEP, EventKind.UPDATE, EventKind.SET_SCALE)
_NOT_SCALERS = frozenset({"model", "loss", "optimizer", "scheduler"})
# what the optimizer is handed to only to read its parameters (apex's fp32 master copies)
_READS_PARAMETERS = frozenset({"apex.amp.master_params"})
_LR_SCHEDULE = re.compile(r"sched|(^|[._])lr(_|$)|_lr\b|warmup|learning_rate", re.I)
_PER_OPTIMIZER = re.compile(r"optim|^opt_?(idx|id|i|index)$", re.I)
_NONFINITE_WORD = re.compile(r"^(isfinite|isnan|isinf|nan|inf|finite|found_inf|all_finite|is_finite)$|finite", re.I)


@dataclass(frozen=True)
class Cond:
    """A condition an event runs under: which one (`Guard.condition`), which way, its test
    (which the key already names: a test one implies, `x and y` where `x is not None and y`
    fails, is known by the key alone)."""

    key: tuple
    side: tuple[Branch, int]
    test: Optional[Test] = field(compare=False)
    frame: tuple = field(compare=False)  # the call of a function it is tested in (`Guard.frame`)


@dataclass
class _Step:
    """One root sequence as the rules see it."""

    model: FileModel
    events: list[Event]

    def __post_init__(self) -> None:
        self._index = {id(e): i for i, e in enumerate(self.events)}

    def index(self, e: Event) -> int:
        return self._index[id(e)]

    def of(self, kind: EventKind, scaler: Optional[str] = None) -> list[Event]:
        return [e for e in self.events if e.kind == kind and (scaler is None or e.scaler == scaler)]

    def resets(self, scaler: str) -> list[Event]:
        """The calls that make every optimizer of `scaler` READY again: `update()` and
        `update(new_scale)`, in order."""
        return [e for e in self.events if e.kind in (EventKind.UPDATE, EventKind.SET_SCALE) and e.scaler == scaler]

    def recorders(self, scaler: str) -> list[Event]:
        """The calls that record an inf check for `update()` to read: `unscale_` and `step`."""
        return [e for e in self.events if e.kind in (EventKind.UNSCALE, EventKind.SCALER_STEP) and e.scaler == scaler]

    def scalers(self) -> dict[str, Optional[Binding]]:
        """The scalers judged here: used, and not certainly disabled."""
        found: dict[str, Optional[Binding]] = {}
        for e in self.events:
            if e.kind in _SCALER_EVENTS and e.scaler is not None:
                if e.scaler not in found or found[e.scaler] is None:
                    found[e.scaler] = e.binding
        return {s: b for s, b in found.items() if b is None or b.enabled is not False}

    def blocked(self, scaler: str, *others: Optional[str], at: Optional[Event] = None, since: Optional[Event] = None) -> bool:
        """Whether the step of `scaler` hands it (or `others`: its optimizer) to code this file
        cannot see, where that code runs once per step: inside the loop the scaler's own calls
        repeat in, or anywhere when one of them is outside every loop. Handing it to a
        checkpoint loader before the loop does not make the step opaque, nor handing the
        optimizer to a learning-rate scheduler (which sets its learning rate, never steps it).
        With `at`, a hand-off on the other branch of a condition than `at` does not count; with
        `since` too (a finding about the pair `since` → `at`), neither does one on the other
        branch of a condition than `since`, nor one in the same iteration body outside the pair
        (a checkpoint saved after `update()`): it runs before `since` or after `at`, never
        between them. Handing the optimizer to what only reads its parameters (apex's
        `amp.master_params`) never counts."""
        names = {scaler, *(o for o in others if o is not None)}
        units = {e.loops[-1] if e.loops else None for e in self.events if e.kind in _SCALER_EVENTS and e.scaler == scaler}
        pass_of_pair = self._pass_of(since, at) if at is not None and since is not None else None
        for e in self._handoffs(names):
            if at is not None and exclusive(e, at):
                continue
            if since is not None and exclusive(e, since):
                continue  # (apex's `amp.scale_loss` on the branch the scaled backward is not on)
            if at is not None and since is not None and e.loops and e.loops == at.loops == since.loops \
                    and not self.index(since) < self.index(e) < self.index(at):
                continue
            if pass_of_pair is not None and pass_of_pair not in e.loops:
                continue  # (outside the loop whose one pass holds the pair: it runs before or after that loop)
            if None in units or any(u in e.loops for u in units):
                return True
        return False

    def _pass_of(self, since: Event, at: Event) -> Optional[Guard]:
        """The innermost loop that runs `since` and then `at` in one pass (a scaled backward
        and the step after it in a batch loop), or None: code outside that loop (a checkpoint
        saved once per epoch) never runs between them."""
        common = list(itertools.takewhile(lambda pair: pair[0] == pair[1], zip(since.loops, at.loops)))
        return common[-1][0] if common and self.index(since) < self.index(at) else None

    def handed_on_every_pass(self, scaler: str, x: Event, loop: Guard, binding: Optional[Binding]) -> bool:
        """Whether code out of sight is handed `scaler` in the iteration `loop` on every path
        `x` runs on: that code may be what resets it each pass. One under a condition `x` is
        not under (a checkpoint saved every N steps) cannot be: the passes without it reset
        nothing."""
        return any(
            loop in e.loops and not exclusive(e, x) and self.covered(x, [e], binding, scaler)
            for e in self._handoffs({scaler})
        )

    def _handoffs(self, names: set[str]) -> Iterator[Event]:
        """The calls out of sight handed one of `names`, but for a learning-rate scheduler
        (which sets an optimizer's learning rate, never steps it) and what only reads the
        parameters (apex's `amp.master_params`)."""
        for e in self.events:
            if e.kind != EventKind.OPAQUE or not names & set(e.target or ()) or _LR_SCHEDULE.search(e.op.text):
                continue
            if isinstance(e.op.callee, Imported) and e.op.callee.qualname in _READS_PARAMETERS:
                continue
            yield e

    def iteration(self, e: Event, scaler: str) -> Optional[Guard]:
        """The training iteration `e` repeats in: its innermost loop that also back-propagates
        through `scaler`, unless each of its passes steps (or unscales) another optimizer (a
        loop over the optimizers, stepping each once, is not one, even with a backward of its
        own per optimizer: `for i in range(2): ... scaler.step(optimizers[start + i])`). Where
        no backward through `scaler` is in sight (run by a closure handed to a helper outside
        the project) or none in a loop around `e` (back-propagated once, before the loop: a
        CUDA graph captured with the scaled backward and replayed each pass), the innermost
        loop around `e` that does not walk what `e` works on (`for opt in used_optimizers:
        scaler.step(opt)` inside the loop over batches): each of its passes steps the same
        optimizer again, which raises without an update in between."""
        backs = [b for b in self.of(EventKind.SCALED_BACKWARD, scaler)]
        for loop in reversed(e.loops):
            if any(loop in b.loops for b in backs) and not _walks(e, loop):
                return loop
        if e.kind not in (EventKind.SCALER_STEP, EventKind.UNSCALE) or not isinstance(e.target, str):
            return None
        return next((loop for loop in reversed(e.loops) if not _walks(e, loop)), None)

    def dominates(self, a: Event, b: Event, scaler: Optional[Binding], text: str) -> bool:
        """Whether `a` (before `b`) runs whenever `b` does: in the same iteration, under no
        condition `b` is not under (those that switch AMP itself aside)."""
        return a.loops == b.loops and self.conditions(a, scaler, text) <= self.known(b, scaler, text)

    def checks_nonfinite(self, a: Optional[Event], b: Event) -> bool:
        """Whether the code looks for (or repairs) inf/NaN between `a` (the sequence's start
        when None) and `b`, or `b` runs only when a check it sits under passes (`if
        torch.isfinite(norm): opt.step()`). A check that `a` sits under too came before it
        (`if np.isnan(loss): raise` ahead of the backward): a finite loss says nothing of the
        gradients the backward then overflows. A `b` on the side of a check where it found
        inf/NaN (`if not torch.isfinite(norm): opt.step()`) runs on exactly those values."""
        if any(_on_the_nonfinite_side(g) for g in b.guards if a is None or g not in a.guards):
            return False
        if any(
            x.kind == EventKind.NONFINITE and not x.op.inert
            for x in (self.between(a, b) if a else self.events[: self.index(b)])
        ):
            return True
        return any(
            g.test is not None and g.kind is not GuardKind.FOR and (a is None or g not in a.guards)
            and any(_NONFINITE_WORD.search(w) for w in g.test.words())
            for g in b.guards
        )

    def training_loops(self, e: Event) -> tuple[Guard, ...]:
        """The loops around `e` that back-propagate (not a loop over the optimizers)."""
        backs = [x for x in self.events if x.kind in (EventKind.SCALED_BACKWARD, EventKind.BACKWARD)]
        return tuple(g for g in e.loops if any(g in x.loops for x in backs))

    def between(self, a: Event, b: Event) -> list[Event]:
        i, j = self.index(a), self.index(b)
        return self.events[i + 1 : j]

    def conditions(self, e: Event, scaler: Optional[Binding], text: str) -> frozenset["Cond"]:
        """The conditions that decide whether `e` runs, less those that switch AMP itself and those a
        pass escapes only by raising (`if bad: raise ...` before it: a pass that goes on runs it).
        Where an `and` that holds mixes the two (`if train and scaler is not None:`), its other
        parts still decide: it runs where `if train:` around an `if scaler is not None:` does."""
        found = set()
        for g in e.guards:
            if g.is_loop or g.branch in (Branch.EXCEPT, Branch.RETRY) or g.spec.aborts:
                continue
            if not self.is_toggle(g.test, scaler, text):
                found.add(Cond(g.condition, g.side, g.test, g.frame))
            elif g.branch is Branch.BODY and g.test is not None and g.test.conjuncts:
                parts = set(map(id, g.test.conjuncts))
                found.update(
                    Cond(key, side, part, g.frame) for key, side, part in g.facts
                    if id(part) in parts and not self.is_toggle(part, scaler, text)
                )
        return frozenset(found)

    def known(self, e: Event, scaler: Optional[Binding], text: str) -> frozenset["Cond"]:
        """`conditions`, with what else the `if`s around `e` tell (`Guard.facts`): conditions
        it runs under too, for asking whether another event runs wherever `e` does."""
        return self.conditions(e, scaler, text) | frozenset(
            Cond(key, side, part, g.frame) for g in e.guards for key, side, part in g.facts
            if not g.is_loop and not self.is_toggle(part, scaler, text)
        )

    def covered(self, x: Event, resets: list[Event], scaler: Optional[Binding], text: str) -> bool:
        """Whether one of `resets` runs on every path `x` runs on: one under no condition `x`
        lacks (nor one `x`'s own conditions settle: `if accum == 1:` around the step, `if (i +
        1) % accum == 0:` around the update), or two on the two sides of one `if` and under no
        other (`update(new_scale)` above a threshold, `update()` below it), or one after a
        statement that some paths leave early and one on each of those paths."""
        cx = self.known(x, scaler, text)
        ones = OnePins((c.frame, c.side, c.test) for c in cx)
        sides: dict[tuple, set[tuple[Branch, int]]] = {}
        for r in resets:
            extra = {c for c in self.conditions(r, scaler, text) - cx if ones.runs(c.frame, c.side, c.test) is not True}
            if not extra:
                return True
            settled = {
                c for c in extra if c.side[0] is Branch.STAYED
                and self._ways_after(x, c.key, c.side[1]) <= self._left_with_reset(c.key, resets)
            }
            if extra == settled:
                return True  # after statements that some paths leave early, and on each of those paths
            # what else decides: a reset on a path that leaves a statement early (`if bad:
            # update(); continue`) stands for its side of the `if` it is in, as one after the
            # statement, on a path each of whose early exits resets, stands for the other side
            core = {c for c in extra - settled if c.side[0] is not Branch.LEFT}
            if len(core) == 1:
                [c] = core
                sides.setdefault(c.key, set()).add(c.side)
        return any({(Branch.BODY, 0), (Branch.ORELSE, 0)} <= found for found in sides.values())

    @staticmethod
    def _ways_after(x: Event, key: tuple, ways: int) -> set[int]:
        """The early ways out (numbered 1 to `ways`) of the statement `key` names that a pass may
        take after `x`: those ahead of it where `x` is inside the statement, every one where it
        comes before the statement."""
        ahead = {case for k, case in x.ways_ahead if k == key}
        return ahead or set(range(1, ways + 1))

    @staticmethod
    def _left_with_reset(key: tuple, resets: list[Event]) -> set[int]:
        """The early-leaving paths (numbered) through the statement `key` names that run one of
        `resets` before they leave (imaginaire's `step(); update(); break` when the norm is too
        large, beside the regular step and update after the statement; an `update()` before a
        nested `if gave_up: return` in a branch that then continues)."""
        return {case for r in resets for k, case in r.ways_out if k == key}

    def alternative(self, a: Event, b: Event, scaler: Optional[Binding], text: str) -> bool:
        """Whether `a` and `b` sit on the two sides of a condition that switches AMP
        (`if use_amp: scaler.scale(loss).backward() else: loss.backward()`)."""
        return bool(self.switches(a, b, scaler, text))

    def switches(self, a: Event, b: Event, scaler: Optional[Binding], text: str) -> list[Guard]:
        """The guards of `b` that switch AMP and send `a` down their other side."""
        return [g for g in separating(a, b) if self.is_toggle(g.test, scaler, text)]

    def is_toggle(self, test: Optional[Test], scaler: Optional[Binding], text: str) -> bool:
        """A condition on the scaler itself (`if scaler is not None:`, `scaler.is_enabled()`),
        on a name its `enabled=` or an autocast region's reads (`autocast(enabled=f16)`), or on
        a word that switches AMP (`use_amp`, `args.fp16`, `precision == "16-mixed"`)."""
        if test is None:
            return False
        if test.ordered:
            # a threshold: on a precision (`precision < 32`) it switches AMP, on the scale
            # (`scaler.get_scale() > 32768.`, `scaler_sc < 1.0`) it never does
            words = [w for w in test.words() if not _SCALE_WORD.search(w)]
        elif any(n == text or n.startswith(text + ".") for n in test.names):
            return True
        else:
            words = list(test.words())
        if any(_AMP_TOGGLE.search(w) for w in words):
            return True
        toggles = set(scaler.toggles) if scaler is not None else set()
        return any(n in toggles or n in self.model.regions.toggle_names for n in test.names)


def _roots(model: FileModel) -> Iterator[tuple[object, list[Event]]]:
    """The step sequences, or none in a file where no GradScaler can appear: every AMP1xx rule
    is about one, and following the calls of a large scaler-free file into the project costs
    more than parsing it. A GradScaler can appear where one is bound (inferred from use
    included, or an object of a project class that is one), where a call a GradScaler makes
    (`x.step(opt)`, `x.update()`) goes to a receiver this file does not bind to something
    else, or in a function whose callers in the project hand it one (it back-propagates or
    works a parameter): what it is, the project says. All but the first need a GradScaler
    somewhere in the project (`Project.scaler_free`): DeepSpeed's engine, whose own loss
    scalers call `update(x)` and whose schedulers `step(x)`, resolves none of its objects'
    classes and replays none of its callers."""
    if not (
        model.bindings.of_kind("scaler")
        or (not model.project.scaler_free() and (
            _project_scalers(model) or _scaler_shaped_calls(model) or model.steps.has_caller_context()
        ))
    ):
        return iter(())
    return model.steps.roots()


def _project_scalers(model: FileModel) -> bool:
    """An object of a class imported from the project that is a GradScaler: re-exported
    (`from pkg.fsdp import ShardedGradScaler`) or a subclass of one."""
    for b in model.bindings.of_kind("instance"):
        if b.class_qualname is None or b.class_qualname.startswith("torch."):
            continue
        if is_scaler_class(model.project.canonical(b.class_qualname, model.summary)):
            return True
        found = model.project.find_class(b.class_qualname, model.summary)
        if found is not None and model.project.base_kind(*found) == "scaler":
            return True
    return False


def _scaler_shaped_calls(model: FileModel) -> bool:
    for call in model.calls:
        func = call.func
        if not isinstance(func, cst.Attribute) or (isinstance(func.value, cst.Name) and func.value.value == "self"):
            continue
        positional = sum(1 for a in call.args if a.keyword is None and not a.star)
        if func.attr.value == "scale" or not scaler_shaped(func.attr.value, positional):
            continue
        b = model.bindings.lookup(func.value, call)
        if b is None or b.kind not in _NOT_SCALERS:
            return True
    return False


def _steps(model: FileModel) -> Iterator[_Step]:
    for _, events in _roots(model):
        yield _Step(model, events)


def _when(b: Optional[Binding]) -> str:
    return "" if b is not None and b.enabled is True else "When the scaler is enabled, "


def _say(b: Optional[Binding], text: str) -> str:
    prefix = _when(b)
    return prefix + (text[0].lower() + text[1:] if prefix else text)


Rule = Callable[[_Step], Iterator[tuple[Event, str]]]


def _judge(model: FileModel, code: str, rule: Rule) -> Iterator[Finding]:
    """The findings of a rule over every step sequence of the file, once per place. An event
    written in another module is reported at the call of this file that leads to it, unless
    the function it is written in shows the bug on its own: that is its own module's finding."""
    seen: set[tuple[int, int]] = set()
    for step in _steps(model):
        for event, message in rule(step):
            if _scalers_off_at(step, event):
                continue
            if event.node is None and _shown_alone(model, rule, event):
                continue
            found = model.event_finding(code, event, message)
            if found is not None and (found.line, found.col) not in seen:
                seen.add((found.line, found.col))
                yield found


def _scalers_off_at(step: _Step, e: Event) -> bool:
    """Whether every scaler judged here is None or disabled where `e` runs: `e` is on the side
    of an `if` where a condition the scaler is on under fails (`GradScaler(enabled=c)`,
    `GradScaler() if c else None`, `if c: scaler = GradScaler()`; the `else` of `if c:`). There
    a disabled scaler's calls are the plain ones (`scale` returns the loss, `step` calls
    `optimizer.step()`) and a None one raises at its first call: no protocol is left to break."""
    scalers = step.scalers().values()
    return bool(scalers) and all(
        b is not None and any(_fails(g, c) for g in e.guards for c in b.on_when) for b in scalers
    )


def _fails(g: Guard, condition: tuple[str, bool]) -> bool:
    """Whether the side `g` of an `if` runs only where `condition` (text, value) does not hold."""
    text, value = condition
    t = g.test
    if t is None or g.branch not in (Branch.BODY, Branch.ORELSE):
        return False
    if t.text == text:
        return (g.branch is Branch.BODY) != value
    if t.negated is not None and t.negated.text == text:
        return (g.branch is Branch.BODY) == value
    parts = t.conjuncts if g.branch is Branch.BODY else t.disjuncts
    return any(p.text == text and (g.branch is Branch.BODY) != value for p in parts)


def _shown_alone(model: FileModel, rule: Rule, event: Event) -> bool:
    found = model.steps.written_in(event)
    if found is None:
        return False
    alone = _Step(model, model.steps.standalone(*found))
    return any(e.op is event.op for e, _ in rule(alone))


def _call_text(scaler: str, method: str, target: object, closure: bool = False) -> str:
    """A short spelling of a scaler call for messages (the source may span lines)."""
    opt = target if isinstance(target, str) else "optimizer"
    return f"{scaler}.{method}({opt}{', closure' if closure else ''})"


def _loops_prefix(short: tuple, long: tuple) -> bool:
    return long[: len(short)] == short


# -- AMP101 -------------------------------------------------------------------------------------
@check("AMP101")
def optimizer_step_bypasses_scaler(model: FileModel) -> Iterator[Finding]:
    return _judge(model, "AMP101", _amp101)


def _amp101(step: _Step) -> Iterator[tuple[Event, str]]:
    scalers = step.scalers()
    for o in step.of(EventKind.OPT_STEP):
        if o.recomputed:
            continue  # (`opt.step(closure)` whose closure zeroes and back-propagates: it steps on those gradients)
        if _asserted_amp_off(step, o):
            continue
        last = _last_backward(step, o) or _unscale_without_backward(step, o)
        if last is not None and last.kind == EventKind.BACKWARD:
            last = _unscaled_since(step, last, o) or last
        if last is None:
            yield from _hand_step_then_update(step, o, scalers)
            continue
        if last.kind not in (EventKind.SCALED_BACKWARD, EventKind.UNSCALE) or last.scaler not in scalers:
            continue
        if step.blocked(last.scaler, o.target, at=o, since=last):
            continue
        s, b = last.scaler, scalers[last.scaler]
        if o.target is not None and any(
            x.kind is EventKind.ZERO_GRAD and x.target == o.target and not exclusive(x, o) and step.dominates(x, o, b, s)
            for x in step.between(last, o)
        ):
            continue  # `scaler.step(opt); scaler.update(); opt.zero_grad(); ... opt.step()`: no scaled gradient is left to step on
        if _beside_a_plain_backward(step, last, o, s, b):
            continue
        if _constant_scale(step, s) and (
            (b is not None and b.unit_scale) or (o.target_binding is not None and scale_invariant_optimizer(o.target_binding.qualname))
        ):
            continue  # a loss multiplied by 1, or by a constant an Adam-like step does not see
        if any(
            step.alternative(o, x, b, s) and not exclusive(x, last)
            for x in step.events if x.kind in _SCALER_EVENTS and x.scaler == s
        ):
            continue  # `if scaler is None: opt.step() else: scaler.step(opt)` after the scaled backward
        opt = o.target or o.op.text.rpartition(".")[0] or "optimizer"  # (`self.optimizers[name]`: no identity, as written)
        unscaled = [
            x for x in (last, *step.between(last, o))
            if x.kind == EventKind.UNSCALE and x.target == o.target and step.dominates(x, o, b, s)
        ]
        if not unscaled:
            yield o, (
                _say(b, f"`{opt}.step()` steps on gradients still multiplied by the loss scale and is "
                f"never skipped when they hold inf/NaN; call `{s}.step({opt})` instead")
            )
        elif not step.checks_nonfinite(unscaled[-1], o):
            yield o, (
                _say(b, f"`{opt}.step()` steps on the unscaled gradients even when they hold inf/NaN, which "
                f"`{s}.step({opt})` would have skipped (and backed the scale off for); call `{s}.step({opt})` "
                "instead, or check the gradients for inf/NaN before stepping by hand")
            )


def _asserted_amp_off(step: _Step, e: Event) -> bool:
    """Whether the function `e` is written in asserts, in its body before `e`, that AMP is off
    (`assert not self._fp16`, `assert not args.amp and ...`, `assert scaler is None`): a run
    with AMP on raises there, so `e` runs only where no scaler scales anything."""
    found = step.model.steps.written_in(e)
    if found is None:
        return False
    fn = found[1]
    at = next((i for i, op in enumerate(fn.ops) if op is e.op), None)
    return at is not None and any(
        a.after <= at and any(
            (t.negated is not None and step.is_toggle(t.negated, None, ""))
            or (t.none_of is not None and t.none_of[1] and step.is_toggle(t, None, ""))
            for t in (a.test, *a.test.conjuncts)
        )
        for a in fn.asserted
    )


def _beside_a_plain_backward(step: _Step, last: Event, o: Event, s: str, b: Optional[Binding]) -> bool:
    """Whether the hand step `o` follows a scaled backward that a plain one came before in
    the same pass (or a call out of sight handed `o`'s optimizer, which may run one), of an
    optimizer the scaler `s` never unscales or steps: it may own the parameters of the plain
    backward's graph (a partial-FC head back-propagates its own loss unscaled, then
    `features.backward(scaler.scale(grad))` reaches only the backbone). A plain backward that
    an optimizer step after it consumed (a GAN's discriminator stepped before the generator's
    scaled backward; a step on another branch than the scaled backward runs on no path between
    them), or whose gradients `o`'s optimizer zeroes before `o` on every path to it
    (a look-ahead gradient taken to pick samples, then `opt.zero_grad()` and the scaled
    backward), is no such graph."""
    if any(x.kind in (EventKind.UNSCALE, EventKind.SCALER_STEP) and x.scaler == s and x.target == o.target for x in step.events):
        return False
    scaled = step.of(EventKind.SCALED_BACKWARD)
    return any(
        (x.kind == EventKind.BACKWARD or (x.kind == EventKind.OPAQUE and o.target in (x.target or ())))
        and x.loops == last.loops and not exclusive(x, last) and not exclusive(x, o)
        and not any(step.alternative(x, y, y.binding, y.scaler or "") for y in scaled)  # (the AMP-off side of a scaled one)
        and not any(
            y.kind in (EventKind.OPT_STEP, EventKind.SCALER_STEP) and not exclusive(y, x) and not exclusive(y, last)
            for y in step.between(x, last)
        )
        and not any(
            y.kind is EventKind.ZERO_GRAD and o.target is not None and y.target == o.target and step.dominates(y, o, b, s)
            for y in step.between(x, o)
        )
        for x in step.events[: step.index(last)]
    )


def _constant_scale(step: _Step, s: str) -> bool:
    """Whether the scaler `s` only ever multiplies losses here: nothing steps, unscales,
    updates it or hands it to code out of sight, so its scale stays the one it was built with
    (nerfacc's `GradScaler(2**10)` in front of Adam)."""
    return not step.blocked(s) and not any(
        e.scaler == s and e.kind in (EventKind.UPDATE, EventKind.SET_SCALE, EventKind.SCALER_STEP, EventKind.UNSCALE)
        for e in step.events
    )


def _hand_step_then_update(step: _Step, o: Event, scalers: dict[str, Binding]) -> Iterator[tuple[Event, str]]:
    """In a sequence with no backward before the step `o` (a wrapper's `step()` that the
    framework calls after its `backward(loss)` has scaled the loss), an `update()` after `o`
    of a scaler that nothing in the sequence steps or unscales: the inf checks it reads were
    recorded on the gradients of a scaled backward (else it raises "No inf checks were
    recorded prior to update."), and `o` steps on those same gradients outside the scaler,
    still scaled or, once unscaled, even when they hold inf/NaN."""
    if step.checks_nonfinite(None, o):
        return
    for u in step.events[step.index(o) + 1:]:
        s = u.scaler or ""
        if u.kind != EventKind.UPDATE or s not in scalers or exclusive(u, o) or step.blocked(s, o.target, at=u, since=o):
            continue
        if any(x.kind in (EventKind.SCALER_STEP, EventKind.UNSCALE) and x.scaler == s for x in step.events):
            continue
        opt = o.target or o.op.text.rpartition(".")[0] or "optimizer"  # (`self.optimizers[name]`: no identity, as written)
        yield o, (
            _say(scalers[s], f"`{opt}.step()` is followed by `{s}.update()` but bypasses `{s}.step({opt})`: "
            "it steps on gradients of a scaled backward, still multiplied by the loss scale or, once unscaled, "
            f"even when they hold inf/NaN (which `{s}.step` would have skipped); call `{s}.step({opt})` instead")
        )
        return


def _unscaled_since(step: _Step, back: Event, o: Event) -> Optional[Event]:
    """After a backward the file cannot see scaled (a base trainer's `loss.backward()` of a
    loss its callers scaled), an `unscale_` of the step `o`'s optimizer before `o`: the
    scaler is unscaling those gradients, so they came scaled, and `o` stepping by hand skips
    the inf check `unscale_` recorded."""
    return next(
        (x for x in step.between(back, o) if x.kind == EventKind.UNSCALE and x.target == o.target and not exclusive(x, o)),
        None,
    )


def _unscale_without_backward(step: _Step, o: Event) -> Optional[Event]:
    """In a sequence with no backward before the step `o` (a helper that unscales, clips and
    steps, handed a scaler by code outside the project), the last `unscale_` of `o`'s
    optimizer since its last `scaler.step`: the scaler is unscaling that optimizer's
    gradients, so they came from a scaled backward, whichever caller ran it."""
    for prev in reversed(step.events[: step.index(o)]):
        if prev.target != o.target or exclusive(prev, o):
            continue
        if prev.kind == EventKind.SCALER_STEP:
            return None
        if prev.kind == EventKind.UNSCALE:
            return prev
    return None


def _last_backward(
    step: _Step, e: Event, stop: tuple[EventKind, ...] = (), passes: Callable[[Event], bool] = lambda _: False,
) -> Optional[Event]:
    """The backward whose gradients `e` consumes: the nearest one before it that can run with
    it (a framework's backward included); None when an event of a `stop` kind that can run
    with it comes first (one that `passes` leaves `e`'s gradients alone), unless the last
    pass of a loop `e` is after may have skipped it (`_left_by_the_last_pass`), or a scaler's
    call on the other side of a switch of AMP from `e` (`e` is on the AMP-off side, whatever
    the backward its helpers run)."""
    scaled = step.of(EventKind.SCALED_BACKWARD)
    skipped: list[tuple[Event, Guard]] = []
    for prev in reversed(step.events[: step.index(e)]):
        if prev.kind in stop and passes(prev):
            continue
        if prev.kind in stop and exclusive(prev, e):
            if prev.scaler is not None and step.alternative(e, prev, prev.binding, prev.scaler):
                return None  # (`e` is on the AMP-off side of a switch its scaler's calls are on the other side of)
            continue
        if prev.kind in stop:
            loop = _left_by_the_last_pass(step, prev, e)
            if loop is None:
                return None
            skipped.append((prev, loop))
            continue
        if skipped and prev.kind in (EventKind.SCALED_BACKWARD, EventKind.BACKWARD) and not all(
            loop in prev.loops and _inner_conditions(x, loop) - set(prev.guards) for x, loop in skipped
        ):
            return None  # (the backward runs only where the step does)
        if prev.kind == EventKind.BACKWARD and any(
            step.alternative(prev, x, x.binding, x.scaler or "") and not exclusive(x, e) for x in scaled
        ):
            continue  # the AMP-off alternative of a scaled backward that `e` may follow
        if prev.kind in (EventKind.SCALED_BACKWARD, EventKind.BACKWARD) and not exclusive(prev, e):
            return prev
        if prev.framework_backward and not exclusive(prev, e):
            return prev
    return None


def _left_by_the_last_pass(step: _Step, x: Event, e: Event) -> Optional[Guard]:
    """The loop around `x` that `e` comes after, when `x` runs in it only under a condition
    and a step of its scaler after `e` takes the gradients the loop left (gradient
    accumulation whose last, partial window is clipped and stepped after the loop): the last
    pass may have back-propagated without reaching `x`."""
    loop = next((g for g in reversed(x.loops) if g not in e.loops), None)
    if loop is None or not _inner_conditions(x, loop) or x.scaler is None:
        return None
    later = step.events[step.index(e) + 1 :]
    if not any(y.kind == EventKind.SCALER_STEP and y.scaler == x.scaler and loop not in y.loops and not exclusive(y, e) for y in later):
        return None
    return loop


def _walks(e: Event, loop: Guard) -> bool:
    """Whether each pass of `loop` may step or unscale another optimizer with `e`: the
    optimizer is a name the loop binds (`for opt in optimizers`, a dotted name on it: `opt`,
    `group.optimizer`) or is picked from a collection by one (`optimizers[start + i]`)."""
    if e.kind not in (EventKind.SCALER_STEP, EventKind.UNSCALE):
        return False
    if isinstance(e.target, str):
        return any(e.target == bound or e.target.startswith(f"{bound}.") for bound in loop.binds)
    return any(name in loop.binds for name in e.target_reads)


def _inner_conditions(x: Event, loop: Guard) -> set[Guard]:
    """The conditions `x` runs under inside `loop`."""
    inner = x.guards[x.guards.index(loop) + 1 :]
    return {g for g in inner if g.kind in (GuardKind.IF, GuardKind.MATCH, GuardKind.EXIT)}


# -- AMP102 -------------------------------------------------------------------------------------
@check("AMP102")
def scaler_update_missing(model: FileModel) -> Iterator[Finding]:
    return _judge(model, "AMP102", _amp102)


def _amp102(step: _Step) -> Iterator[tuple[Event, str]]:
    for s, b in step.scalers().items():
        blocked = step.blocked(s)
        updates = step.resets(s)
        for st in step.of(EventKind.SCALER_STEP, s):
            loop = step.iteration(st, s)
            if loop is None:
                if blocked:
                    continue
                if not updates and step.model.steps.never_updated(st):
                    yield st, (
                        _say(b, f"`{_call_text(s, 'step', st.target)}` steps a scaler that no code can ever "
                        f"update (nothing calls `{s}.update()` and it is never handed on): the second step raises \"step() has already been called "
                        f"since the last update()\" and the scale never adapts; call `{s}.update()` after the step")
                    )
                elif updates and _scaled_before(step, st, s) and _uncovered(step, st, updates, b, s):
                    resets = (
                        f"`{s}.update()` runs only under a condition this step is not under"
                        if any(u.kind == EventKind.UPDATE for u in updates)
                        else f"only `{s}.update(new_scale)` under another condition resets the scaler and `{s}.update()` is never called"
                    )
                    yield st, (
                        _say(b, f"`{_call_text(s, 'step', st.target)}` runs in each call of this training step, but "
                        f"{resets}: where that condition is false, the next call raises \"step() has already "
                        f"been called since the last update()\"; call `{s}.update()` after the step on every path")
                    )
                continue
            if blocked and step.handed_on_every_pass(s, st, loop, b):
                continue
            in_loop = [u for u in updates if loop in u.loops]
            if not _uncovered(step, st, in_loop, b, s):
                continue
            if any(u.kind == EventKind.UPDATE and not exclusive(u, st) for u in in_loop):
                yield st, (
                    _say(b, f"`{_call_text(s, 'step', st.target)}` runs every iteration of this loop but `{s}.update()` "
                    "runs in it only under a condition this step is not under: on the iterations without it, the next "
                    "step raises \"step() has already been called since the last update()\"; call "
                    f"`{s}.update()` on every iteration that steps")
                )
                continue
            yield st, (
                _say(b, f"`{_call_text(s, 'step', st.target)}` runs every iteration of this loop but `{s}.update()` "
                "is never called in it: the next iteration raises \"step() has already been called since "
                f"the last update()\"; call `{s}.update()` once per iteration after the optimizer steps")
            )


def _uncovered(step: _Step, st: Event, resets: list[Event], b: Optional[Binding], s: str) -> bool:
    """Whether no reset among `resets` (of the step `st`'s iteration or call) runs wherever
    the step does (an `update(new_scale)` that does resets it too), and no `update()` there
    is AMP107's to report: one that goes with no step of its own (under conditions no step is
    under). An `update()` that goes with another step (the architecture step of a search,
    after `if epoch < warmup: continue`) leaves this one without a reset on the other passes."""
    resets = [u for u in resets if not exclusive(u, st)]
    if step.covered(st, resets, b, s):
        return False
    return not any(u.kind == EventKind.UPDATE and not _paired(step, u, s, b) for u in resets)


def _paired(step: _Step, u: Event, s: str, b: Optional[Binding]) -> bool:
    """Whether a step of `s` runs in the same loops and under the same conditions as the
    update `u` (the pair AMP107 accepts)."""
    cu = step.conditions(u, b, s)
    return any(x.loops == u.loops and step.conditions(x, b, s) == cu for x in step.of(EventKind.SCALER_STEP, s))


def _scaled_before(step: _Step, st: Event, s: str) -> bool:
    """Whether the sequence back-propagates a loss scaled by `s` before its step `st`: a
    training step that runs once per call, so a call that leaves the scaler stepped but not
    reset makes the next call's step raise."""
    return any(x.kind == EventKind.SCALED_BACKWARD and x.scaler == s and not exclusive(x, st) for x in step.events[: step.index(st)])


# -- AMP103 -------------------------------------------------------------------------------------
@check("AMP103")
def scaler_calls_out_of_order(model: FileModel) -> Iterator[Finding]:
    return _judge(model, "AMP103", _amp103)


def _amp103(step: _Step) -> Iterator[tuple[Event, str]]:
    """GradScaler's own state machine (torch/amp/grad_scaler.py): each optimizer goes READY ->
    UNSCALED (unscale_) -> STEPPED (step); `update()` and `update(new_scale)` make every
    optimizer READY again, and only `update()` reads the inf checks `unscale_` or `step`
    recorded since the last one. Two whole backward/step/update cycles in one iteration are
    legal; what is reported is an update that finds no inf check (torch raises), and a step
    whose gradients come from a backward scaled before the last update (they are divided by
    another scale than the one they were multiplied by)."""
    for s, b in step.scalers().items():
        if step.blocked(s):
            continue
        resets = step.resets(s)
        recorders = step.recorders(s)
        for u in step.of(EventKind.UPDATE, s):
            prior = [r for r in resets if r.loops == u.loops and step.index(r) < step.index(u) and not exclusive(r, u)]
            if prior:
                r = prior[-1]
                if step.dominates(r, u, b, s) and not any(
                    x in recorders and not exclusive(x, u) for x in step.between(r, u)
                ):
                    yield u, (
                        _say(b, f"`{s}.update()` runs again with no `{s}.step(...)` or `{s}.unscale_(...)` since "
                        f"the last `{r.op.text}(...)`: it raises \"No inf checks were recorded prior to update.\"; "
                        f"call `{s}.update()` once, after the optimizers of the iteration have stepped")
                    )
                continue
            same = [x for x in step.of(EventKind.SCALER_STEP, s) if x.loops == u.loops and not exclusive(x, u)]
            before = [x for x in recorders if x.loops == u.loops and step.index(x) < step.index(u) and not exclusive(x, u)]
            if same and not before and all(step.index(x) > step.index(u) for x in same):
                yield u, (
                    _say(b, f"`{s}.update()` runs before `{s}.step(...)` in the same iteration: no inf check "
                    "has been recorded yet, so it raises \"No inf checks were recorded prior to update.\" "
                    f"(or adjusts the scale from the previous iteration's); call `{s}.update()` after "
                    f"`{s}.step(...)`")
                )
        for x, again in _stepped_again(step, s, b):
            if x.op.node is again.op.node:
                where = " again (its function is entered a second time)"
            elif step.index(x) > step.index(again):
                where = f" on the next iteration after the `{_call_text(s, 'step', x.target)}` that ends this one"
            elif x.op.node is not None and step.model.owns(x.op.node):
                where = f" after `{_call_text(s, 'step', x.target)}` on {step.model.line_name(x.op.node)}"
            else:
                where = f" after `{_call_text(s, 'step', x.target)}`"
            yield again, (
                _say(b, f"`{again.op.text}({again.target})` runs{where} with no `{s}.update()` between: the "
                f"optimizer is still marked stepped, so it raises \"step() has already been called since the last update()\"; call `{s}.update()` after each step")
            )
        for st in step.of(EventKind.SCALER_STEP, s):
            r = _stale(step, st, s, b)
            if r is not None:
                yield r, (
                    _say(b, f"`{r.op.text}(...)` runs between a backward and `{_call_text(s, 'step', st.target)}` "
                    "that steps on its gradients: the update may change the scale, and the step then divides "
                    "gradients by another scale than the loss was multiplied by; call the update once, after "
                    "every optimizer of that backward has stepped")
                )


def _stepped_again(step: _Step, s: str, b: Optional[Binding]) -> Iterator[tuple[Event, Event]]:
    """(a step, the later step of the same optimizer that raises): GradScaler marks an
    optimizer STEPPED at `step` until `update()` makes it READY again, and a second `step` of
    a STEPPED optimizer raises (an `unscale_` of one is AMP106's). The two run in one pass, the first
    wherever the second does, with no reset between them on any path and nothing out of sight
    handed the scaler or the optimizer between them; or the first ends an iteration with no
    reset after it and the second begins the next with none before it (RobustVideoMatting's
    matting and segmentation passes stepping one optimizer, with one `update()` dropped)."""
    steps = step.of(EventKind.SCALER_STEP, s)
    resets = step.resets(s)
    for again in steps:
        for x in steps:
            if x is again or x.target is None or x.target != again.target:
                continue
            i, j = step.index(x), step.index(again)
            if exclusive(x, again) or not (_runs_before_every(step, x, again, b, s) if i < j else step.dominates(again, x, b, s)):
                continue  # (round the loop: `again` runs on every iteration after one `x` ran on)
            if i < j:
                if any(i < step.index(r) < j and not exclusive(r, again) for r in resets):
                    continue
            elif again.loops:  # round the loop: x late in one iteration, `again` early in the next
                loop = again.loops[-1]
                if not any(loop in r.loops and not exclusive(r, x) for r in resets):
                    continue  # (no update in the loop at all: AMP102's)
                if any(
                    loop in r.loops and (step.index(r) > i or step.index(r) < j) and not exclusive(r, again)
                    for r in resets
                ):
                    continue
            else:
                continue
            if step.blocked(s, x.target, at=again, since=x if i < j else None):
                continue
            yield x, again
            break


def _runs_before_every(step: _Step, x: Event, again: Event, b: Optional[Binding], s: str) -> bool:
    """Whether `x` (earlier in the pass) has run whenever `again` runs: in the same iteration or
    in the one around the loop `again` is in (a step, then a loop of further steps of the same
    optimizer), under no condition `again` is not under."""
    return _loops_prefix(x.loops, again.loops) and step.conditions(x, b, s) <= step.known(again, b, s)


def _stale(step: _Step, st: Event, s: str, b: Optional[Binding]) -> Optional[Event]:
    """The update (or `update(new_scale)`) that runs between the scaled backward a step's
    gradients come from and the step: in order in one pass (step A, update, step B), or in a
    loop the backward is outside of that runs the step and then the update on every pass (a
    loop over two or more optimizers the code names, stepping and updating each), whose next
    pass steps after it. A loop over a sequence of unknown length (ESPnet's `for optimizer in
    optimizers`, one optimizer unless a model picks one per turn) may make one pass only."""
    back = _last_backward(step, st)
    if back is None or back.kind != EventKind.SCALED_BACKWARD or back.scaler != s:
        return None
    cst_ = step.known(st, b, s)
    for r in step.resets(s):
        if exclusive(r, st) or not _loops_prefix(back.loops, r.loops):
            continue
        if step.index(back) < step.index(r) < step.index(st):
            read = r.kind == EventKind.SET_SCALE or any(
                x.kind in (EventKind.UNSCALE, EventKind.SCALER_STEP) and x.scaler == s and not exclusive(x, r) for x in step.between(back, r)
            )  # (an update that finds no inf check is the finding, not the step after it)
            if read and _loops_prefix(r.loops, st.loops) and step.conditions(r, b, s) <= cst_:
                return r
        elif step.index(r) > step.index(st) and b is not None and not b.inferred:
            # (over a sequence of optimizers the code spells out with two or more: with one,
            # one pass steps and updates once, as it should)
            loop = next((g for g in reversed(st.loops) if g not in back.loops), None)
            if loop is not None and (loop.passes or 0) >= 2 and r.loops == st.loops and step.conditions(r, b, s) <= cst_:
                return r
    return None


# -- AMP104 -------------------------------------------------------------------------------------
@check("AMP104")
def grads_used_while_scaled(model: FileModel) -> Iterator[Finding]:
    return _judge(model, "AMP104", _amp104)


def _amp104(step: _Step) -> Iterator[tuple[Event, str]]:
    scalers = step.scalers()
    for g in step.of(EventKind.GRAD_USE):
        back = _last_backward(
            step, g, stop=(EventKind.UNSCALE, EventKind.SCALER_STEP, EventKind.OPAQUE), passes=lambda x: _unscales_other_parameters(x, g),
        ) or _unscale_after_read(step, g)
        if back is None or back.kind not in (EventKind.SCALED_BACKWARD, EventKind.UNSCALE) or back.scaler not in scalers:
            continue
        s, b = back.scaler, scalers[back.scaler]
        if step.blocked(s, at=g, since=back) or _amp_off_alternative(step, g, s, b):
            continue
        later = [x for x in step.events[step.index(g):] if x.kind in (EventKind.UNSCALE, EventKind.SCALER_STEP) and x.scaler == s]
        first = next((x for x in later if _owns_what_is_clipped(x, g)), later[0] if later else None)
        at = _call_leading_to(g, back, first)
        does = "reads a gradient" if g.op.text.endswith(".grad") else "clips gradients"
        what = f"`{g.op.text}` {does}" if at is g else f"`{at.op.text}` runs `{g.op.text}`, which {does}"
        other = next((x for x in reversed(step.between(back, g)) if _unscales_other_parameters(x, g)), None)
        if other is not None and other.target_binding is not None and other.target_binding.owns is not None:
            fix = (
                f"call `{_call_text(s, 'unscale_', first.target)}`" if first is not None and _owns_what_is_clipped(first, g)
                else f"unscale the optimizer of `{g.op.clips}`"
            )
            yield at, (
                _say(b, f"{what} of `{g.op.clips}` still multiplied by the loss scale (65536 at first): "
                f"`{_call_text(other.scaler or s, 'unscale_', other.target)}` unscales only the gradients of "
                f"`{other.target_binding.owns[1]}`, whose parameters `{other.target}` was built from; {fix} before it")
            )
            continue
        yield at, (
            _say(b, f"{what} still multiplied by the loss scale (65536 at first), so thresholds and "
            f"norms are off by that factor; call `{_call_text(s, 'unscale_', first.target if first else None)}` "
            "before it")
        )


def _on_the_nonfinite_side(g: Guard) -> bool:
    """Whether `g` holds its events only where a NaN/inf test found one: the body of `if not
    torch.isfinite(norm):` or of `if torch.isnan(loss):`, the else of `if torch.isfinite(norm):`
    (and the code after such an `if` whose body leaves). A test that also reads other things
    (`and`, `or`, a comparison) or could go either way (`isfinite(g).any()`) says nothing."""
    test, holds = g.test, g.branch is Branch.BODY
    if test is None or g.branch not in (Branch.BODY, Branch.ORELSE):
        return False
    while test.negated is not None:
        test, holds = test.negated, not holds
    if test.conjuncts or test.disjuncts or test.ordered or test.compared is not None:
        return False
    found = [c for c in test.calls if c in NONFINITE_TESTS]
    if len(found) != 1:
        return False
    finite_when_true = found[0] == "isfinite"
    if ("any" if finite_when_true else "all") in test.calls:
        return False
    return holds != finite_when_true


def _amp_off_alternative(step: _Step, g: Event, s: str, b: Optional[Binding]) -> bool:
    """Whether the read `g` of gradients `s` scaled sits on the AMP-off side of a switch whose
    other side scales or unscales (`if not use_fp16: clip(...)` / `else: scaler.unscale_(opt);
    clip(...)`), and `s` may be off there too: the code's own branches say no scaling reaches
    this read. A scaler on whenever it runs scales the AMP-off side's gradients all the same;
    the place another scaler is built in (`if args.mode == "gen":` around the loop of that
    scaler) switches nothing of `s` (`_switches_for`)."""
    return any(
        toggles and _scaler_may_be_off(b, s, toggles)
        for x in step.events if x.kind in (EventKind.SCALED_BACKWARD, EventKind.UNSCALE)
        for toggles in (_switches_for(step, step.switches(g, x, b, s), x.scaler, s),)
    )


def _switches_for(step: _Step, toggles: list[Guard], theirs: Optional[str], mine: str) -> list[Guard]:
    """The switches `toggles` that send an event of the scaler `mine` to the other side of an
    event of the scaler `theirs`, as switches of AMP for `mine`: all of them when the two are
    one scaler; else only a test of AMP itself (`if not use_mixed_precision:`, a test of the
    scaler), not one that merely decides where the other scaler is built (`if args.mode ==
    "gen":`), which says nothing of `mine`."""
    if theirs == mine:
        return toggles
    return [g for g in toggles if step.is_toggle(g.test, None, mine)]


def _unscales_other_parameters(x: Event, g: Event) -> bool:
    """Whether `x` unscales an optimizer built from all the parameters of one module
    (`Adam(self.value_net.parameters())`) and the clip `g`, written where that module's name
    means the same object (the methods of the class for a `self.` attribute, else the function
    that built the optimizer), reads those of another (`clip_grad_norm_(self.policy.parameters(),
    ...)`), neither module holding the other: `unscale_` divides only its optimizer's
    gradients (GradScaler keeps its inf checks and stage per optimizer), so the clip's stay
    scaled."""
    owns = x.target_binding.owns if x.kind is EventKind.UNSCALE and x.target_binding is not None else None
    clips = g.op.clips
    if owns is None or clips is None or x.path != g.path:
        return False
    where, module = owns
    if not (g.function.startswith(where + ".") if module.startswith("self.") else g.function == where):
        return False
    return not (module == clips or module.startswith(clips + ".") or clips.startswith(module + "."))


def _owns_what_is_clipped(x: Event, g: Event) -> bool:
    """Whether the optimizer of `x` was built from the very module whose parameters `g` clips:
    the one to unscale before the clip."""
    return x.target_binding is not None and x.target_binding.owns is not None and x.target_binding.owns[1] == g.op.clips


def _unscale_after_read(step: _Step, g: Event) -> Optional[Event]:
    """In a sequence that starts with no backward and no scaler call before the read `g` (a
    helper handed a scaler by code outside the project), the `unscale_` after `g` and before
    any `scaler.step`: the gradients were still scaled when `g` read them (had a caller
    unscaled them already, this `unscale_` would raise)."""
    i = step.index(g)
    if any(x.kind in _BEFORE_UNSCALED_READ or x.framework_backward for x in step.events[:i]):
        return None
    for x in step.events[i + 1 :]:
        if exclusive(x, g):
            continue
        if x.kind == EventKind.UNSCALE:
            return x
        if x.kind in _BEFORE_UNSCALED_READ:
            return None
    return None


_BEFORE_UNSCALED_READ = (
    EventKind.BACKWARD, EventKind.SCALED_BACKWARD, EventKind.UNSCALE, EventKind.SCALER_STEP, EventKind.OPAQUE,
)


def _call_leading_to(g: Event, back: Event, later: Optional[Event]) -> Event:
    """Where a read of scaled gradients written in this file is reported: at the call from which
    the code that reads them is entered, when that code is a helper that neither scaled them
    nor steps the scaler (`clip(model)` in the loop, not the clip inside `clip`). A helper
    called from two loops, one that unscales first, is then wrong at one call, the one a fix
    belongs to; a closure that back-propagates and then reads is wrong inside itself."""
    theirs = later.via if later is not None else ()
    k = 0
    while k < min(len(g.via), len(theirs)) and g.via[k].op is theirs[k].op:
        k += 1
    if k == len(g.via) or g.node is None or g.via[k].path != g.path or g.via[k].op.node is None:
        return g  # (a helper of another module is reported at the call of this file that leads to it)
    if len(back.via) > k and back.via[k].op is g.via[k].op:
        return g  # the helper scaled the gradients itself
    return dataclasses.replace(g, op=g.via[k].op, path=g.via[k].path, via=g.via[:k])


# -- AMP105 -------------------------------------------------------------------------------------
@check("AMP105")
def unscaled_backward(model: FileModel) -> Iterator[Finding]:
    return _judge(model, "AMP105", _amp105)


def _amp105(step: _Step) -> Iterator[tuple[Event, str]]:
    scalers = step.scalers()
    scaled = step.of(EventKind.SCALED_BACKWARD)
    if not scaled and not step.of(EventKind.SCALER_STEP):
        yield from _never_scaled(step)
        return
    # `unscale_` divides the gradients by the scale as `step` does: a backward that skipped
    # `scale()` is wrong before either (SAM's manual `unscale_` and `first_step`, no `step`)
    dividers = [e for e in step.events if e.kind in (EventKind.SCALER_STEP, EventKind.UNSCALE)]
    for p in step.of(EventKind.BACKWARD):
        if p.op.apex_scaled:
            continue  # scaled by apex (a framework's apex branch; apex and a GradScaler never run together)
        # the switches of AMP between `p` and each scaled backward (`if use_amp: ... else: p`)
        switched = [(x, step.switches(p, x, scalers.get(x.scaler or ""), x.scaler or "")) for x in scaled]
        for st in dividers:
            if st.scaler not in scalers or step.index(st) < step.index(p) or (exclusive(p, st) and not _left_for_a_later_pass(step, p)):
                continue
            # `p` as the AMP-off alternative of a scaled backward: of this very scaler, or on the
            # other side of a switch of AMP itself; the mere place another scaler is built in
            # (`if args.mode == "dpo":` around the loop that builds and uses it) says nothing of
            # the one that divides `p`'s gradients
            toggled = [(x, t) for x, toggles in switched for t in [_switches_for(step, toggles, x.scaler, st.scaler)] if t]
            if any(_scaler_may_be_off(scalers.get(x.scaler or ""), x.scaler or "", toggles) for x, toggles in toggled):
                continue
            off_side = bool(toggled)
            if off_side and any(g not in p.guards and step.is_toggle(g.test, scalers[st.scaler], st.scaler or "") for g in st.guards):
                continue  # (an AMP-off backward, and a divider under a switch of its own: `if use_amp: scaler.step(opt)`)
            if not _loops_prefix(step.training_loops(st), p.loops):
                continue
            consumed = any(
                (x.kind in (EventKind.OPT_STEP, EventKind.SCALER_STEP) and not step.alternative(x, st, scalers[st.scaler], st.scaler or ""))
                or (x.kind == EventKind.ZERO_GRAD and x.target is not None and x.target == st.target)
                for x in step.between(p, st) if not exclusive(x, p) and not exclusive(x, st)
            )  # (a step on the AMP-off branch, `if scaler is None: opt.step()`, or on a path that leaves
            # before `st`, `zero_grad(); scaler.step(opt); scaler.update(); break`, consumes nothing `st`
            # takes; the stepped optimizer's zero_grad clears what the plain backward left: a reference model's loss)
            if consumed or any(x.seeded and x.scaler == st.scaler and not exclusive(x, p) for x in step.between(p, st)):
                continue  # (a head's own loss, then `features.backward(scaler.scale(grad))` for the backbone)
            s, b = st.scaler, scalers[st.scaler]
            if step.blocked(s, at=st, since=p) or _scaled_out_of_sight(step, p, s):
                break
            loss = p.op.subject or "loss"
            divider = "step" if st.kind is EventKind.SCALER_STEP else "unscale_"
            if off_side:
                yield p, (  # (the AMP-off side, where the scaler is on all the same)
                    f"`{loss}` is back-propagated without `{s}.scale()` on the AMP-off side, yet `{s}` stays "
                    f"enabled there and its `{divider}()` divides these gradients by the loss scale: the update "
                    f"shrinks by about 65536x; build the scaler with `enabled=` the same switch, or write "
                    f"`{s}.scale({loss}).backward()` here too"
                )
                break
            yield p, (
                _say(b, f"`{loss}` is back-propagated without `{s}.scale()`, yet `{s}.{divider}()` divides "
                "its gradients by the loss scale: fp16 gradients underflow and the update shrinks by "
                f"about 65536x; write `{s}.scale({loss}).backward()`")
            )
            break


def _scaler_may_be_off(b: Optional[Binding], text: str, toggles: list[Guard]) -> bool:
    """Whether, on the AMP-off side of the switches `toggles`, the scaler `text` may be off as
    well: built with `enabled=use_amp`, or a stand-in (`None`) where AMP is off, or a switch
    asks the scaler itself (`if scaler.is_enabled():`). A GradScaler that is on whenever it runs
    (`GradScaler()`) still divides by the scale whatever AMP-off side calls its `step` or
    `unscale_`: the plain gradients come out 65536 times too small (the dividers after the plain
    backward judge that)."""
    if b is None or b.enabled is not True:
        return True
    return any(n == text or n.startswith(text + ".") for g in toggles if g.test is not None for n in g.test.names)


def _left_for_a_later_pass(step: _Step, p: Event) -> bool:
    """Whether the plain backward `p` runs in a loop on a pass that neither steps nor zeroes
    the gradients after it: they accumulate into a later pass, whose step takes them with its
    own (LVSM's micro-batches back-propagated on one side of `if update_grads:`, the scaled
    one and the step on the other)."""
    if not p.loops:
        return False
    after = step.events[step.index(p) + 1 :]
    return not any(
        x.kind in (EventKind.OPT_STEP, EventKind.SCALER_STEP, EventKind.ZERO_GRAD)
        and (_loops_prefix(p.loops, x.loops) or _loops_prefix(x.loops, p.loops))  # (the same pass, or the one around it)
        and not exclusive(x, p)
        for x in after
    )


def _scaled_out_of_sight(step: _Step, p: Event, s: str) -> bool:
    """Whether the plain backward `p` back-propagates a loss this sequence's root was handed
    (`def _backward(self, loss): loss.backward()`, no project caller in sight) that its
    callers may have scaled with `s`, the scaler stepped after it: they can reach it, unless
    the class keeps it private (`self._scaler`: a NativeScaler's `__call__(loss, optimizer)`
    that forgot `scale()`), or an enclosing function built it and shares it only with its
    nested functions (an engine's `backward_pass(engine, loss)`)."""
    if isinstance(p.op.callee, Method) and isinstance(p.op.callee.recv, Attr) and p.op.callee.recv.name:
        return _object_stores_scaled(step, p)
    if p.via or not isinstance(p.op.callee, Method) or not isinstance(p.op.callee.recv, Param):
        return False
    unused = step.model.steps.never_scaled(p)
    if unused is not None and unused[0] == s:
        return False  # no code anywhere scales with the class's scaler: no caller did either
    found = step.model.steps.written_in(p)
    owner, _, attr = s.partition(".")
    if owner == "self" and attr.startswith("_") and "." not in attr and found is not None and found[1].cls is not None:
        module, fn = found
        return any(  # the class's own: a caller reaches `self._scaler` only through a method that scales
            f is not fn and key.startswith(f"{fn.cls}.")
            and any(isinstance(op.callee, Method) and op.callee.name == "scale" and op.callee.recv == Attr(attr) for op in f.ops)
            for key, f in module.functions.items()
        )
    return not (s.isidentifier() and step.model.steps.kept_by_enclosing(p, s))


def _object_stores_scaled(step: _Step, p: Event) -> bool:
    """Whether the plain backward `p` of an attribute of the object (`self.loss.backward()`) may
    run on a scaled value: a method of its class or of a project base class stores one in the
    object's attributes under a name the code works out at run time (torch-points3d's
    `setattr(self, name, self._grad_scale.scale(loss))` for each loss name, before the
    subclass's `backward()`)."""
    found = step.model.steps.written_in(p)
    if found is None or found[1].cls is None:
        return False
    module, fn = found
    cls = module.classes.get(fn.cls)
    return cls is not None and any(c.stores_scaled for _, c in step.model.project.mro(module, cls))


def _never_scaled(step: _Step) -> Iterator[tuple[Event, str]]:
    """A backward in a method of a class whose scaler no code ever scales with, while the
    class steps it (a wrapper's `backward(loss)` apart from its `step()`). A backward whose
    own sequence then steps an optimizer by hand is the class's AMP-off path (`loss.backward();
    self.optimizer.step()` beside the mixed one), which the scaler never steps."""
    for p in step.of(EventKind.BACKWARD):
        if any(x.kind is EventKind.OPT_STEP and not exclusive(x, p) for x in step.events[step.index(p) + 1:]):
            continue
        found = step.model.steps.never_scaled(p)
        if found is None:
            continue
        s, b = found
        loss = p.op.subject or "loss"
        yield p, (
            _say(b, f"`{loss}` is back-propagated without `{s}.scale()`, and no code ever scales with `{s}`, "
            f"yet the class steps it: `{s}.step()` divides the gradients by the loss scale, so fp16 "
            f"gradients underflow and the update shrinks by about 65536x; write `{s}.scale({loss}).backward()`")
        )


# -- AMP106 -------------------------------------------------------------------------------------
@check("AMP106")
def unscale_repeated(model: FileModel) -> Iterator[Finding]:
    return _judge(model, "AMP106", _amp106)


def _amp106(step: _Step) -> Iterator[tuple[Event, str]]:
    for s, b in step.scalers().items():
        updates = step.resets(s)
        if not updates:
            continue
        unscales = step.of(EventKind.UNSCALE, s)
        rebuilt = _rebuilt_in(step.model, s)
        for u in unscales:
            if step.blocked(s, u.target) or _asks_the_state_machine(u) or any(g.spec.node in rebuilt for g in u.loops):
                continue  # (a GradScaler built anew every pass of a loop around it starts READY)
            loop = step.iteration(u, s)
            if _unscale_repeats(step, u, loop, updates, unscales, b, s):
                yield u, (
                    _say(b, f"`{_call_text(s, 'unscale_', u.target)}` can run again before `{s}.update()` (e.g. every "
                    "micro-batch while the optimizer steps every N): the second call raises \"unscale_() "
                    "has already been called on this optimizer since the last update()\"; call it only "
                    f"where `{s}.step(...)` and `{s}.update()` run")
                )
            elif _repeats_next_pass(step, u, loop, updates, unscales):
                yield u, (
                    _say(b, f"`{_call_text(s, 'unscale_', u.target)}` runs after this iteration's `{s}.update()`, and "
                    f"the next iteration unscales `{u.target}` again before its update: the second call raises "
                    "\"unscale_() has already been called on this optimizer since the last update()\"; update after "
                    "this `unscale_` too, or unscale the optimizer this step is for")
                )
            elif _after_step(step, u):
                yield u, (
                    _say(b, f"`{_call_text(s, 'unscale_', u.target)}` runs after `{s}.step({u.target})` with no "
                    f"`{s}.update()` between: it raises \"unscale_() is being called after step().\"; call "
                    f"`unscale_` before the step, or update after the step")
                )


def _rebuilt_in(model: FileModel, scaler: str) -> set[cst.CSTNode]:
    """The loops of this file whose every pass constructs `scaler` anew (AMP108's finding):
    its per-optimizer states start again at READY there."""
    return {
        loop for b in model.bindings.of_kind("scaler")
        if b.key == scaler and not b.inferred and (loop := _innermost_loop(model, b.node)) is not None
    }


def _asks_the_state_machine(e: Event) -> bool:
    """Whether `e` runs only under a test of the scaler's own per-optimizer stage
    (`if state["stage"] is not OptState.UNSCALED: scaler.unscale_(opt)`): torch's state machine
    decides, so the call cannot repeat."""
    return any(g.test is not None and "OptState" in g.test.words() for g in e.guards if not g.is_loop)


def _after_step(step: _Step, u: Event) -> bool:
    """An `unscale_` of an optimizer its scaler has stepped since the last reset, in the
    same pass (the optimizer is STEPPED)."""
    for st in step.of(EventKind.SCALER_STEP, u.scaler):
        if st.target != u.target or st.loops != u.loops or exclusive(st, u) or step.index(st) > step.index(u):
            continue
        if not any(x.kind in (EventKind.UPDATE, EventKind.SET_SCALE) and x.scaler == u.scaler for x in step.between(st, u)):
            return True
    return False


def _unscale_repeats(
    step: _Step, u: Event, loop: Optional[Guard], updates: list[Event], unscales: list[Event], b: Optional[Binding], s: str,
) -> bool:
    # in a training loop (`loop`, `step.iteration`) that no update shares: it runs several times per update
    if loop is not None and not any(loop in x.loops for x in updates):
        return True
    # updated only under a condition this unscale_ does not have
    same = [x for x in updates if x.loops == u.loops and not exclusive(x, u)]
    if same and not step.covered(u, same, b, s):
        return True
    # twice in one iteration for the same optimizer with no update between
    for other in unscales:
        if other is u or other.target != u.target or exclusive(other, u) or other.loops != u.loops:
            continue
        if step.index(other) < step.index(u) and not any(x.kind in (EventKind.UPDATE, EventKind.SET_SCALE) for x in step.between(other, u)):
            return True
    return False


def _repeats_next_pass(step: _Step, u: Event, loop: Optional[Guard], updates: list[Event], unscales: list[Event]) -> bool:
    """Whether `u` runs after the last reset (of `updates`, its scaler's) of its iteration's
    pass while another `unscale_` of the same optimizer runs before the first (`unscale_(opt);
    step(opt); update(); ...; unscale_(opt); step(opt_d)`): the next pass unscales it again
    with no `update()` between. Any reset after `u`, or before the other, in the pass (whatever
    its condition) clears it."""
    if loop is None or loop.branch is not Branch.LOOP:
        return False
    resets = [x for x in updates if loop in x.loops]
    if not resets or any(step.index(r) > step.index(u) for r in resets):
        return False
    first = min(step.index(r) for r in resets)
    return any(
        other is not u and other.target == u.target and other.loops == u.loops and not exclusive(other, u)
        and step.index(other) < first
        for other in unscales
    )


# -- AMP107 -------------------------------------------------------------------------------------
@check("AMP107")
def step_update_conditions_differ(model: FileModel) -> Iterator[Finding]:
    return _judge(model, "AMP107", _amp107)


def _amp107(step: _Step) -> Iterator[tuple[Event, str]]:
    for s, b in step.scalers().items():
        if step.blocked(s):
            continue
        steps_ = step.of(EventKind.SCALER_STEP, s)
        for u in step.of(EventKind.UPDATE, s):
            cands = [x for x in steps_ if _loops_prefix(x.loops, u.loops) and not exclusive(x, u)]
            if not cands:
                continue
            cu = step.conditions(u, b, s)
            if any(step.conditions(x, b, s) == cu and x.loops == u.loops for x in cands):
                continue
            x = cands[0]
            cx = step.conditions(x, b, s)
            if x.loops == u.loops and cu > cx:
                if all(c.test is not None and any(_PER_OPTIMIZER.search(w) for w in c.test.words()) for c in cu - cx):
                    continue  # updated after the last of several optimizers (`if opt_idx == n - 1`)
                if step.covered(x, [r for r in step.resets(s) if r.loops == x.loops and not exclusive(r, x)], b, s):
                    continue  # `update(new_scale)` resets it where `update()` does not run
                yield u, (
                    _say(b, f"`{s}.update()` is skipped on some iterations where `{s}.step(...)` ran: the "
                    "next step raises \"step() has already been called since the last update()\"; put "
                    "the update under the same condition as the step")
                )
            elif (len(u.loops) > len(x.loops) or cx > cu) and not _inf_checked(step, u, s, b, cu):
                yield u, (
                    _say(b, f"`{s}.update()` runs on iterations where `{s}.step(...)` does not (e.g. every "
                    "micro-batch while stepping at the accumulation boundary): it raises \"No inf checks "
                    "were recorded prior to update\" or shifts the scale mid-accumulation; put it under "
                    "the same condition as the step")
                )


def _inf_checked(step: _Step, u: Event, s: str, b: Optional[Binding], cu: frozenset["Cond"]) -> bool:
    """Whether the update may have its inf check: a step or unscale_ before it that runs
    whenever it does, or several of them under different conditions (each optimizer stepped
    or unscaled under its own flag: the code reasons about the cases, which we cannot)."""
    recorders = [
        x for x in (*step.of(EventKind.UNSCALE, s), *step.of(EventKind.SCALER_STEP, s))
        if x.loops == u.loops and step.index(x) < step.index(u) and not exclusive(x, u)
    ]
    conds = {step.conditions(x, b, s) for x in recorders}
    return any(c <= cu for c in conds) or len(conds) > 1


# -- AMP108 -------------------------------------------------------------------------------------
@check("AMP108")
def scaler_created_in_loop(model: FileModel) -> Iterator[Finding]:
    training: set[cst.CSTNode] = set()  # the loops that back-propagate or step
    stepped: dict[str, set[str]] = {}  # scaler -> the optimizers it steps or unscales (as the code names them)
    outer: dict[str, set[cst.CSTNode]] = {}  # scaler -> the loops around another loop its steps repeat in
    for _, events in _roots(model):
        for e in events:
            if e.kind in (EventKind.SCALED_BACKWARD, EventKind.SCALER_STEP, EventKind.BACKWARD, EventKind.OPT_STEP):
                training.update(g.spec.node for g in e.guards if g.is_loop)
            if e.kind in (EventKind.SCALER_STEP, EventKind.UNSCALE) and e.scaler is not None:
                name = _stepped_name(e)
                if name is not None:
                    stepped.setdefault(e.scaler, set()).add(name)
            if e.kind == EventKind.SCALER_STEP and e.scaler is not None:
                loops = [g.spec.node for g in e.guards if g.is_loop]  # outermost first, callers' before callees'
                outer.setdefault(e.scaler, set()).update(loops[:-1])
    setup = [b.node for b in model.bindings.all if b.kind in ("model", "optimizer") and not b.inferred]
    for b in model.bindings.of_kind("scaler"):
        if b.inferred or b.enabled is False or not _made_by_a_call(b.node):
            continue
        loop = _innermost_loop(model, b.node)
        if loop is None or loop not in training:
            continue
        if any(loop in model.ancestors(n) for n in setup) or any(model.bindings.bound_under(loop, t) for t in stepped.get(b.key, ())):
            continue  # a fresh run per iteration (a fold, a sweep): model or optimizer (or the list holding it) are rebuilt too
        if _built_once(model, b, loop):
            continue
        nested = loop in outer.get(b.key, ())  # (its steps repeat in a loop inside this one)
        yield model.finding(
            "AMP108", b.node,
            _say(b, "this GradScaler is created anew on every pass of a loop whose inner loop steps with it "
            "(an epoch loop): each pass restarts from the initial scale, its first steps overflow and are "
            "skipped until it backs off again, and the growth of the pass before is lost; create it once "
            "before the loop")
            if nested else
            _say(b, "this GradScaler is created inside the training loop, so its scale and growth tracker "
            "reset every iteration: the scale never adapts and early overflows repeat; create it once "
            "before the loop"),
        )


def _built_once(model: FileModel, b: Binding, loop: cst.CSTNode) -> bool:
    """Whether the scaler is built lazily, on the first pass only: under `if <it> is None:`
    (or `if not <it>:`) where what is tested keeps its value from one pass to the next (an
    attribute, or a name last assigned in the pass from a stored value: `scaler =
    getattr(main, "_scaler", None)` before the test, `main._scaler = scaler` after it). A name
    the pass sets to None before the test is built anew each pass."""
    guard = next((a for a in model.ancestors(b.node) if isinstance(a, cst.If) or a is loop), None)
    if not isinstance(guard, cst.If):
        return False
    test, negated = guard.test, False
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, negated = test.expression, not negated
    op = compared_to_none(test)
    if isinstance(op, cst.Is) and not negated:
        tested = dotted(test.left)  # type: ignore[attr-defined]
    elif op is None and negated:
        tested = dotted(test)
    else:
        return False
    if tested != b.key:
        return False
    if "." in b.key:
        return True
    fn = model.enclosing_function(guard)
    before = [node for node in model.name_assignments(fn, b.key) if model.within(node, loop) and model.precedes(node, guard)]
    return not before or not is_none(before[-1].value)


def _stepped_name(e: Event) -> Optional[str]:
    """The name an `unscale_`/`step` of this file hands its optimizer by: the optimizer's, or
    that of the list it is picked from (`scaler.step(optimizers[i])`: `optimizers`)."""
    if isinstance(e.target, str):
        return e.target
    if not isinstance(e.node, cst.Call) or not e.node.args:
        return None
    arg = e.node.args[0].value
    while isinstance(arg, cst.Subscript):
        arg = arg.value
    return dotted(arg)


def _made_by_a_call(node: cst.CSTNode) -> bool:
    """Whether a scaler binding is made by a call (`GradScaler(...)`, a factory, or one side of
    a conditional expression: `GradScaler("cuda") if amp else None`), not an alias of a scaler
    made elsewhere (`scaler = self.scaler if self.do_grad_scaling else None` in the loop)."""
    if isinstance(node, cst.IfExp):
        return _made_by_a_call(node.body) or _made_by_a_call(node.orelse)
    return isinstance(node, cst.Call)


def _innermost_loop(model: FileModel, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    child = node
    for anc in model.ancestors(node):
        if isinstance(anc, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return None
        if isinstance(anc, (cst.For, cst.While)) and child is anc.body:
            return anc
        child = anc
    return None


# -- AMP109 -------------------------------------------------------------------------------------
@check("AMP109", in_tests=False)
def scaler_state_not_checkpointed(model: FileModel) -> Iterator[Finding]:
    used = [
        e.binding for _, events in _roots(model) for e in events
        if e.kind in (EventKind.SCALED_BACKWARD, EventKind.SCALER_STEP) and (e.binding is None or e.binding.enabled is not False)
    ]
    if not used or not _scale_may_change(model):
        return
    b = next((x for x in used if x is not None and x.enabled is True), used[0])
    homes = _local_homes(model)
    alive = None if homes is None else {
        (e.path, e.op.checkpoint) for _, events in _roots(model) for e in events
        if e.kind == EventKind.SAVE and _runs_in(model, e, homes)
    }
    without = _saved_without_the_scaler(model)
    seen: set[tuple[str, int]] = set()
    # every save written here (reached or not), then those of helpers in other modules that
    # are not judged at home: a helper handed the scaler it leaves out is its own module's
    # finding (that module is linted with its callers), not one more at each call
    foreign = (e for _, events in _roots(model) for e in events if e.node is None and not _takes_a_scaler(model, e))
    for e in itertools.chain(model.steps.events, foreign):
        if e.kind != EventKind.SAVE or e.op.checkpoint is None or (e.path, e.op.checkpoint) in seen:
            continue
        if alive is not None and (e.path, e.op.checkpoint) not in alive and not _runs_in(model, e, homes or set()):
            continue  # saved after the function that built the scaler returned: it is gone
        if (e.path, e.op.checkpoint) in without:
            continue  # saved only where the scaler is absent (`if scaler is None:`)
        if _never_read_back(model, e):
            continue
        found = model.event_finding(
            "AMP109", e,
            _say(b, "this checkpoint saves the model and optimizer state but not the GradScaler's: after "
            "resuming, the loss scale restarts at 65536 and the first steps overflow and are skipped; add "
            "`\"scaler\": scaler.state_dict()` and load it on resume"),
        )
        if found is not None:
            seen.add((e.path, e.op.checkpoint))  # one finding per checkpoint dict, at its first save
            yield found


def _scale_may_change(model: FileModel) -> bool:
    """Whether a scaler used here may leave its initial state: one is updated, or handed to
    code out of sight that may update it. A scaler only ever multiplying losses
    (EmerNeRF's `GradScaler(2**10)` in front of Adam, never stepped or updated) keeps the scale
    it was built with, which the same constructor gives a resumed run: its state_dict holds
    nothing to lose."""
    events = [e for _, seq in _roots(model) for e in seq]
    names = {e.scaler for e in events if e.kind in (EventKind.SCALED_BACKWARD, EventKind.SCALER_STEP) and e.scaler}
    return any(
        (e.kind in (EventKind.UPDATE, EventKind.SET_SCALE) and e.scaler in names)
        or (e.kind == EventKind.OPAQUE and names & set(e.target or ()))
        for e in events
    )


def _never_read_back(model: FileModel, e: Event) -> bool:
    """Whether the project reads states back from this checkpoint but never its optimizer
    state: a key of another state it holds (the model's) is quoted somewhere beyond the keys
    of dict displays (`ckpt["model_state_dict"]`), the keys of the optimizer state nowhere.
    Its resume path restarts the optimizer's moments, so the scaler's state left out of the
    checkpoint loses nothing a resumed run would have kept. A checkpoint no code of the
    project reads back (a script without a resume path yet, or one a framework resumes) is
    still reported."""
    keys, others = e.op.optimizer_keys, e.op.state_keys
    if not keys or not others:
        return False
    near = e.path or model.path

    def read(k: str) -> bool:
        return model.project.quoted_beyond_dict_keys(k, near, model.source)

    return any(read(k) for k in others) and not any(read(k) for k in keys)


def _saved_without_the_scaler(model: FileModel) -> set[tuple[str, int]]:
    """The checkpoints that, in every training step that reaches them, are saved only on
    paths where no scaled backward or scaler step runs: under `if scaler is None:` where the
    scaler is used under `if scaler is not None:` (an emergency dump of an fp32 run)."""
    verdict: dict[tuple[str, int], bool] = {}
    for _, events in _roots(model):
        uses = [e for e in events if e.kind in (EventKind.SCALED_BACKWARD, EventKind.SCALER_STEP)]
        for e in events:
            if e.kind == EventKind.SAVE and e.op.checkpoint is not None:
                key = (e.path, e.op.checkpoint)
                verdict[key] = verdict.get(key, True) and bool(uses) and all(exclusive(e, u) for u in uses)
    return {key for key, off in verdict.items() if off}


def _local_homes(model: FileModel) -> Optional[set[cst.FunctionDef]]:
    """The functions whose plain locals every GradScaler used here is: built there and never
    handed out (returned, stored, passed on, aliased), so that it dies when the function
    returns (OpenPCDet's `train_one_epoch` builds one per epoch). None when some scaler may
    outlive its function (an attribute, a parameter, a module global, one handed on)."""
    homes: set[cst.FunctionDef] = set()
    for _, events in _roots(model):
        for e in events:
            if e.kind not in (EventKind.SCALED_BACKWARD, EventKind.SCALER_STEP):
                continue
            fn = model.enclosing_function(e.node) if e.node is not None and model.owns(e.node) else None
            text = e.scaler or ""
            if not isinstance(fn, cst.FunctionDef) or not text.isidentifier() or not any(
                x.key == text and x.scope is fn and not x.inferred for x in model.bindings.of_kind("scaler")
            ):
                return None
            use = local_use(fn, text)
            if use.handed_on or use.as_parameter or use.aliases:
                return None
            homes.add(fn)
    return homes


def _runs_in(model: FileModel, e: Event, homes: set[cst.FunctionDef]) -> bool:
    """Whether `e` runs inside one of `homes`: written there, or reached through a call
    written there."""
    return any(
        n is not None and model.owns(n) and any(a in homes for a in model.ancestors(n))
        for n in (e.node, *(c.op.node for c in e.via))
    )


def _takes_a_scaler(model: FileModel, e: Event) -> bool:
    """Whether the function `e` is written in (another module's) has a GradScaler parameter."""
    found = model.steps.written_in(e)
    return found is not None and any(b.kind == "scaler" for b in found[1].param_bindings.values())


# -- AMP110 -------------------------------------------------------------------------------------
def _may_be_a_closure(arg: Optional[Ref]) -> bool:
    """A positional after the optimizer that may hold a closure: not `None`, nor a parameter
    no code in sight fills."""
    return not isinstance(arg, Param) and not (isinstance(arg, Value) and arg.text == "None")


@check("AMP110")
def scaler_with_closure_optimizer(model: FileModel) -> Iterator[Finding]:
    return _judge(model, "AMP110", _amp110)


def _amp110(step: _Step) -> Iterator[tuple[Event, str]]:
    for s, b in step.scalers().items():
        if b is None or b.inferred:
            # a scaler built elsewhere, or known only from its use: whether it is a GradScaler
            # (not a subclass that supports closures, as composer's) and on is unknown
            continue
        for st in step.of(EventKind.SCALER_STEP, s):
            # a `closure=` (torch refuses the keyword whatever it holds), or a second positional
            # that may hold one: not `None`, nor a parameter that no code in sight fills (a
            # wrapper's `step(optimizer, closure=None)` forwarding its own); `**kwargs`
            # forwarded by a wrapper is not known to hold a closure
            extra = any(k == "closure" for k, _ in st.op.kwargs) or any(_may_be_a_closure(a) for a in st.op.args[1:])
            lbfgs = st.target_binding is not None and (st.target_binding.qualname or "").endswith("LBFGS")
            if not (extra or lbfgs):
                continue
            what = (
                f"`{_call_text(s, 'step', st.target, closure=True)}` passes a closure" if extra
                else f"`{_call_text(s, 'step', st.target)}` steps LBFGS, which needs a closure"
            )
            yield st, (
                _say(b, f"{what}: GradScaler does not support closures (\"Closure use is not currently "
                "supported if GradScaler is enabled\"), and gradients the closure recomputes are never "
                "unscaled; use an optimizer without a closure, or bfloat16 autocast without a scaler")
            )
