"""AMP2xx: precision choices that make fp16/bf16 training lose information or crash."""
from __future__ import annotations

import re
from typing import Iterable, Optional

import libcst as cst

from ampcheck.findings import Finding
from ampcheck.lint.assertions import assertions_after
from ampcheck.lint.bindings import Binding
from ampcheck.lint.casts import Cast
from ampcheck.lint.checks import check
from ampcheck.lint.consteval import TorchDtype, param_names
from ampcheck.lint.kinds import plain_cuda_scaler, sharded_scaler
from ampcheck.lint.model import FileModel
from ampcheck.lint.names import compared_to_string, dotted
from ampcheck.lint.program import Branch, Method, Scaled
from ampcheck.lint.regions import AutocastRegion
from ampcheck.lint.steps import Event, EventKind

_FSDP1 = frozenset(
    {
        "torch.distributed.fsdp.FullyShardedDataParallel",
        "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
        "fairscale.nn.FullyShardedDataParallel",
        "fairscale.nn.data_parallel.FullyShardedDataParallel",
    }
)
# FSDP2's MixedPrecisionPolicy and FSDP1's MixedPrecision: dataclasses whose second field is
# reduce_dtype, the dtype gradients are reduce-scattered / all-reduced in
_SHARDING_POLICIES = frozenset(
    {
        "torch.distributed.fsdp.MixedPrecisionPolicy",
        "torch.distributed.fsdp._fully_shard.MixedPrecisionPolicy",
        "torch.distributed.fsdp._fully_shard._fsdp_api.MixedPrecisionPolicy",
        "torch.distributed._composable.fsdp.MixedPrecisionPolicy",
        "torch.distributed.fsdp.MixedPrecision",
        "torch.distributed.fsdp.api.MixedPrecision",
        "torch.distributed.fsdp.fully_sharded_data_parallel.MixedPrecision",
    }
)
_REDUCE_DTYPE_POS = 1
_LOW_PRECISION = frozenset({"float16", "bfloat16"})
_ADAM = frozenset({"torch.optim.Adam", "torch.optim.AdamW", "torch.optim.adam.Adam", "torch.optim.adamw.AdamW", "Adam", "AdamW"})
_ADAM_EPS_POS = 3  # Adam(params, lr, betas, eps, ...)
_FP16_SMALLEST_SUBNORMAL = 6e-8
_MASTER_WEIGHT_WRAPPER = re.compile(r"fp16_?optimizer|master", re.I)


@check("AMP201", in_tests=False)
def fp16_without_scaler(model: FileModel) -> Iterable[Finding]:
    if any(b.enabled is not False for b in model.bindings.of_kind("scaler")):
        return
    seen: set[int] = set()
    for region in model.regions.all:
        if region.dtype != "float16" or region.enabled is False or region.via or id(region.anchor) in seen:
            continue
        if model.runs_without_grad(region):
            continue
        following = _backwards_following(model, region)
        if not following & _UNSCALED or following & _SCALED:
            continue  # (a scaled one: a scaler handed on scales the loss there, a helper's `if scaler is not None:`)
        seen.add(id(region.anchor))
        when = " (when enabled)" if region.enabled is None else ""
        yield model.finding(
            "AMP201",
            region.anchor,
            f"float16 autocast{when} drives a backward pass but no GradScaler scales the loss; small gradients "
            "underflow to zero in fp16. Use torch.amp.GradScaler, or autocast with dtype=torch.bfloat16",
        )


_UNSCALED = frozenset({EventKind.BACKWARD, EventKind.AUTOGRAD_GRAD})
_SCALED = frozenset({EventKind.SCALED_BACKWARD, EventKind.SCALED_AUTOGRAD_GRAD})


def _backwards_following(model: FileModel, region: AutocastRegion) -> set[EventKind]:
    """The kinds of the training backwards (`model.trains`: their gradients can reach an
    optimizer update) in the same function (or module body) as the region, at or after it and
    not on the other branch of an `if` (ConvNeXt's `if use_amp: ... else: loss.backward()`)
    nor where the test that switches the region on is false (`autocast(enabled=args.amp)`,
    then `else: loss.backward()` of `if args.amp:`, the AMP side handing the loss to timm's
    `NativeScaler`), written there or in a helper called there. A loss handed to a framework (`accelerator.backward(loss)`) is
    the framework's to scale. A scaled one means a scaler exists, also where it is handed to a
    helper of another module (InspireMusic's `autocast(enabled=scaler is not None)` around
    helpers that scale where the scaler is not None)."""
    node = region.node
    fn = node if isinstance(node, cst.FunctionDef) else model.enclosing_function(node)
    start = model.range(node).start.line
    return {
        EventKind.SCALED_BACKWARD if _scaled_by_some_object(e) else e.kind
        for _, events in model.steps.roots()
        for e in events
        if e.kind in _UNSCALED | _SCALED
        for at in (e.node, *(c.op.node for c in e.via))
        if at is not None and model.owns(at) and model.enclosing_function(at) is fn and model.range(at).start.line >= start
        and not model.exclusive_branches(node, at) and model.trains(e)
        and not (region.toggle is not None and model.known(at, region.toggle) is False)
    }


def _scaled_by_some_object(e: Event) -> bool:
    """A backward of `x.scale(loss)` whose `x` the analysis could not pin down (a GradScaler
    kept in a list, `self.fp16_scalers[0].scale(errD).backward()`): the code scales the loss,
    whatever scales it."""
    return e.kind is EventKind.BACKWARD and isinstance(e.op.callee, Method) and isinstance(e.op.callee.recv, Scaled)


@check("AMP202")
def scaler_with_bf16(model: FileModel) -> Iterable[Finding]:
    live = [r for r in model.regions.all if r.enabled is not False]
    if not live or any(r.dtype != "bfloat16" for r in live):
        return
    seen: set[int] = set()
    for scaler in model.bindings.of_kind("scaler"):
        if scaler.built_enabled is not True or scaler.inferred or id(scaler.node) in seen or _never_read(model, scaler):
            continue
        seen.add(id(scaler.node))
        yield model.finding(
            "AMP202",
            scaler.node,
            "GradScaler is enabled while every autocast region here is bfloat16; bf16 has fp32's range and needs "
            "no loss scaling (with bf16 parameters unscale_ raises). Drop the scaler or pass enabled=False",
        )


def _never_read(model: FileModel, scaler: Binding) -> bool:
    """A GradScaler a function binds to a local name it never reads again (built beside a
    bfloat16 loop that back-propagates plainly): it scales nothing, so bf16 makes it no worse."""
    if not isinstance(scaler.scope, cst.FunctionDef) or "." in scaler.key:
        return False
    return all(
        model.is_target(n) for n in model.name_nodes.get(scaler.key, [])
        if model.within(n, scaler.scope)
    )


def _training_casts(model: FileModel) -> list[tuple[Cast, Binding]]:
    """fp16 model casts that stay fp16 while an optimizer updates those very parameters
    (no fp32 master copy in between)."""
    out = []
    for cast in model.casts.of_models("float16"):
        if cast.no_grad or cast.undone:
            continue
        for opt in model.bindings.of_kind("optimizer"):
            if opt.params_of == cast.model_key and _same_model(model, cast, opt) and not _keeps_master_weights(model, opt):
                out.append((cast, opt))
    return out


def _same_model(model: FileModel, cast: Cast, opt: Binding) -> bool:
    """Whether the name the optimizer takes parameters from is the one cast: a local of the
    same function (a `model` of another test or fixture is another model), an attribute of
    the same class; a local not bound anew between the cast and the optimizer's construction
    (a notebook's later cell that builds a fresh fp32 `net` and its own `opt`)."""
    if (cast.model_key or "").startswith("self."):
        return model.enclosing_class(cast.call) is model.enclosing_class(opt.node)
    fn = model.enclosing_function(cast.call)
    return fn is model.enclosing_function(opt.node) and not _bound_between(model, cast.model_key or "", fn, cast.call, opt.node)


def _bound_between(model: FileModel, name: str, fn: Optional[cst.CSTNode], a: cst.CSTNode, b: cst.CSTNode) -> bool:
    """Whether an assignment in `fn` (None: the module body) binds the plain name `name` at a
    place between `a` and `b` in the source, whichever comes first; not one that holds either
    (`net = net.half()` binds the module the cast returns, itself)."""
    first, last = (a, b) if model.precedes(a, b) else (b, a)
    return any(
        model.precedes(first, node) and model.precedes(node, last) and not model.within(a, node) and not model.within(b, node)
        for node in model.name_assignments(fn, name)
    )


def _keeps_master_weights(model: FileModel, opt: Binding) -> bool:
    """fp32 copies handed to the optimizer (`[p.float() for p in ...]`, `.clone().float()`), an
    optimizer wrapped by a master-weights helper (apex FP16_Optimizer and the like), or one
    handed over to a framework."""
    if isinstance(opt.node, cst.Call) and opt.node.args:
        params = opt.node.args[0].value
        exprs = [params, *model.values_of(params)] if isinstance(params, cst.Name) else [params]
        if any(c.dtype == "float32" and model.within(c.call, e) for c in model.casts.all for e in exprs):
            return True
    for call in model.calls:
        name = dotted(call.func) or ""
        if _MASTER_WEIGHT_WRAPPER.search(name.rsplit(".", 1)[-1]) and any(dotted(a.value) == opt.key for a in call.args):
            return True
    # `model, opt = amp.initialize(model, opt, opt_level="O2")` / `accelerator.prepare(...)`:
    # the framework now owns the optimizer and its master weights
    return any(b.key == opt.key for b in model.bindings.of_kind("opaque"))


def _unscaling_scaler(model: FileModel, opt: Binding) -> Optional[Binding]:
    """A scaler that is not certainly off and steps or unscales this optimizer (its name not
    bound to another optimizer in between: a notebook cell that builds a new `opt`)."""
    for call in model.calls:
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in ("step", "unscale_") and call.args):
            continue
        if dotted(call.args[0].value) != opt.key or not _names_the_binding(model, call, opt):
            continue
        home = model.enclosing_function(opt.node)
        if home is model.enclosing_function(call) and _bound_between(model, opt.key, home, opt.node, call):
            continue
        b = model.bindings.lookup(func.value, call) if isinstance(func.value, (cst.Name, cst.Attribute)) else None
        if b is not None and b.kind == "scaler" and b.enabled is not False:
            return b
    return None


def _names_the_binding(model: FileModel, at: cst.CSTNode, b: Binding) -> bool:
    """Whether `b.key` written at `at` can name the object bound at `b.node`: an attribute of
    the same class, or a local name read in the function that binds it or in one nested in
    it, with no parameter of that name in between (the `opt` another function takes is
    another optimizer)."""
    if b.key.startswith("self."):
        return model.enclosing_class(at) is model.enclosing_class(b.node)
    home = model.enclosing_function(b.node)
    fn = model.enclosing_function(at)
    while fn is not home:
        if fn is None or b.key.split(".", 1)[0] in param_names(fn):
            return False
        fn = model.enclosing_function(fn)
    return True


def _never_together(model: FileModel, cast: Cast, opt: Binding) -> bool:
    """Whether the cast and every `step`/`unscale_` of `opt` through a scaler sit on opposite
    sides of one string switch (`net.half()` under `precision == "fp16"`, the scaler's steps in
    a function called only under `precision == "amp"`): a run takes one value, so the fp16
    parameters never meet the scaler."""
    mine = _string_values(model, cast.call)
    if not mine:
        return False
    theirs = [
        e for _, events in model.steps.roots() for e in events
        if e.kind in (EventKind.SCALER_STEP, EventKind.UNSCALE) and e.target == opt.key
    ]
    return bool(theirs) and all(
        any(mine.get(name, value) != value for name, value in _guarded_values(e).items()) for e in theirs
    )


def _string_values(model: FileModel, node: cst.CSTNode) -> dict[str, str]:
    """The strings the `if`s around `node` (up to its module) say names equal where it runs:
    the body of `if mode == "fp16":`, the `else` of `if mode != "fp16":`."""
    out: dict[str, str] = {}
    child = node
    for anc in model.ancestors(node):
        if isinstance(anc, cst.If) and child is not anc.test:
            found = compared_to_string(anc.test)
            if found is not None and found[2] == (child is anc.body):
                out.setdefault(found[0], found[1])
        child = anc
    return out


def _guarded_values(e: Event) -> dict[str, str]:
    """`_string_values` of an event, from its guards (its callers' included)."""
    out: dict[str, str] = {}
    for g in e.guards:
        found = g.test.compared if g.test is not None and g.branch in (Branch.BODY, Branch.ORELSE) else None
        if found is not None and found[2] == (g.branch is Branch.BODY):
            out.setdefault(found[0], found[1])
    return out


@check("AMP203")
def fp16_params_with_scaler(model: FileModel) -> Iterable[Finding]:
    for cast, opt in _training_casts(model):
        scaler = _unscaling_scaler(model, opt)
        if scaler is not None and not _never_together(model, cast, opt):
            when = " (when it is enabled)" if scaler.enabled is None else ""
            yield model.finding(
                "AMP203",
                cast.call,
                f"{cast.model_key} is cast to float16 and GradScaler{when} unscales its gradients through "
                f"{opt.key}: unscale_ raises 'Attempting to unscale FP16 gradients'. Keep the parameters fp32 "
                "and let autocast run the compute in fp16",
            )


@check("AMP204", in_tests=False)
def fp16_params_without_master_weights(model: FileModel) -> Iterable[Finding]:
    for cast, opt in _training_casts(model):
        scaler = _unscaling_scaler(model, opt)
        if (scaler is None or _never_together(model, cast, opt)) and not _one_checked_update(model, opt):
            yield model.finding(
                "AMP204",
                cast.call,
                f"{cast.model_key} is cast to float16 and {opt.key} updates those fp16 parameters directly, with no "
                "fp32 master copy: updates smaller than fp16's resolution are lost. Keep the parameters fp32 and use "
                "autocast (+ GradScaler)",
            )


def _one_checked_update(model: FileModel, opt: Binding) -> bool:
    """Whether every step of `opt` is one update, in no loop, that the function then asserts
    on (a unit test of what an fp16 update or an fp16 EMA does). The loss AMP204 describes
    adds up over a run of steps: an update below fp16's resolution lost at every step. One
    step whose result is checked loses nothing that training would."""
    steps = [e for e in model.steps.events if e.kind == EventKind.OPT_STEP and e.target == opt.key and e.node is not None]
    return bool(steps) and all(not e.loops and assertions_after(model, e.node) for e in steps)


@check("AMP205", in_tests=False)
def adam_eps_underflows(model: FileModel) -> Iterable[Finding]:
    seen: set[int] = set()
    for _, opt in _training_casts(model):
        if opt.qualname not in _ADAM or id(opt.node) in seen or not isinstance(opt.node, cst.Call):
            continue
        seen.add(id(opt.node))
        eps = _eps(model, opt.node)
        if eps is not None and eps < _FP16_SMALLEST_SUBNORMAL:
            yield model.finding(
                "AMP205",
                opt.node,
                f"{opt.qualname.rsplit('.', 1)[-1]} eps={eps:g} over float16 parameters rounds to 0 in fp16 and "
                "divides by zero; use eps >= 1e-7 (e.g. 1e-4) or keep the parameters fp32",
            )


def _eps(model: FileModel, call: cst.Call) -> Optional[float]:
    """The eps an Adam call uses (1e-8 when omitted); None when it cannot be evaluated."""
    expr = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "eps"), None)
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return None
    if expr is None and len(positional) > _ADAM_EPS_POS:
        expr = positional[_ADAM_EPS_POS].value
    if expr is None:
        return 1e-8
    value = model.consts.value(expr)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@check("AMP206")
def fsdp1_with_plain_scaler(model: FileModel) -> Iterable[Finding]:
    wraps = [c for c in model.calls if model.callee(c) in _FSDP1 and not _unsharded(model, c)]
    if not wraps:
        return
    seen: set[int] = set()
    for scaler in model.bindings.of_kind("scaler"):
        if not plain_cuda_scaler(scaler.qualname) or scaler.enabled is False or id(scaler.node) in seen:
            continue
        if _replaced_by_sharded(model, scaler):
            continue
        owner = _owner(model, scaler.node)
        together = [
            w for w in wraps
            if (_owner(model, w) in (owner, None) or owner is None) and not model.exclusive_branches(scaler.node, w)
        ]  # (a plain scaler on the other side of `if engine == "fsdp":` is for the runs without FSDP)
        if together:
            seen.add(id(scaler.node))
            yield model.finding(
                "AMP206",
                scaler.node,
                "FullyShardedDataParallel (FSDP1) is used with a plain GradScaler; its inf checks see only the "
                "local shard, so ranks can disagree on skipping a step. Use "
                "torch.distributed.fsdp.sharded_grad_scaler.ShardedGradScaler",
            )


def _unsharded(model: FileModel, wrap: cst.Call) -> bool:
    """`FSDP(model, sharding_strategy=ShardingStrategy.NO_SHARD)`: every rank holds the whole
    all-reduced gradient, as under DDP, so a plain scaler's inf check agrees across ranks."""
    for arg in wrap.args:
        if arg.keyword is not None and arg.keyword.value == "sharding_strategy":
            return (model.qualname(arg.value) or dotted(arg.value) or "").endswith("ShardingStrategy.NO_SHARD")
    return False


def _replaced_by_sharded(model: FileModel, scaler: Binding) -> bool:
    """Whether a later assignment in the same scope puts a ShardedGradScaler in the plain
    scaler's place, outright or on one side of a conditional (FunASR's `scaler =
    ShardedGradScaler(...) if use_fsdp else scaler`), or it is built from a name that may
    also hold ShardedGradScaler (betty's `scaler_cls = GradScaler`, then `scaler_cls =
    ShardedGradScaler` under `if strategy == "fsdp":`): the sharded runs get the sharded
    scaler, and the plain one is what the runs without FSDP keep."""
    if isinstance(scaler.node, cst.Call) and any(sharded_scaler(q) for q in model.names.resolve(scaler.node.func)):
        return True
    scope = model.enclosing_function(scaler.node)
    for node in model.assigns:
        if not isinstance(node, cst.Assign) or node.value is None or not model.precedes(scaler.node, node):
            continue
        if model.enclosing_function(node) is not scope or not any(dotted(t.target) == scaler.key for t in node.targets):
            continue
        value = node.value
        choices = (value.body, value.orelse) if isinstance(value, cst.IfExp) else (value,)
        if any(isinstance(c, cst.Call) and sharded_scaler(model.callee(c)) for c in choices):
            return True
    return False


def _owner(model: FileModel, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """The unit that sets up one training run: the class (a Trainer), else the function,
    else None for the module body."""
    return model.enclosing_class(node) or model.enclosing_function(node)


@check("AMP207")
def low_precision_reduce_dtype(model: FileModel) -> Iterable[Finding]:
    """The static twin of the tracer's AMP511: a sharding policy written out with a
    reduce_dtype that is certainly float16/bfloat16. `reduce_dtype=None` is never reported
    (what it means changed between torch releases; `ampcheck trace` observes it), nor an
    expression whose value is not known."""
    for call in model.calls:
        if model.callee(call) not in _SHARDING_POLICIES:
            continue
        arg = _reduce_dtype_arg(call)
        dtype = model.consts.value(arg.value) if arg is not None else None
        if isinstance(dtype, TorchDtype) and dtype.name in _LOW_PRECISION:
            policy = model.callee(call).rpartition(".")[2]
            yield model.finding(
                "AMP207",
                arg,
                f"{policy}(reduce_dtype=torch.{dtype.name}) reduces gradients across ranks in {dtype.name}; the "
                "rounding error of the sum grows with the world size. Use reduce_dtype=torch.float32",
            )


def _reduce_dtype_arg(call: cst.Call) -> Optional[cst.Arg]:
    positional = 0
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value == "reduce_dtype":
                return arg
        elif arg.star:
            return None  # `*args`: which one is reduce_dtype is not known
        else:
            if positional == _REDUCE_DTYPE_POS:
                return arg
            positional += 1
    return None
