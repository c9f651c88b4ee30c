"""AMP3xx: what must not happen inside an autocast region, and autocast calls that cannot work."""
from __future__ import annotations

from typing import Callable, Iterable, Iterator, Optional

import libcst as cst

from ampcheck.findings import Edit, Finding, Fix
from ampcheck.lint.assertions import assertions_after, reads_dtype
from ampcheck.lint.checks import check
from ampcheck.lint.casts import Cast
from ampcheck.lint.model import FileModel
from ampcheck.lint.names import dotted
from ampcheck.lint.regions import AUTOCAST_SPELLINGS, AutocastRegion
from ampcheck.lint.steps import EventKind

_BCE = frozenset({"torch.nn.functional.binary_cross_entropy", "torch.binary_cross_entropy"})
_BCE_LOSS = frozenset({"torch.nn.BCELoss", "torch.nn.modules.loss.BCELoss"})
_FUNCTION_BASES = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
_AMP_DECORATORS = {
    "forward": frozenset({"torch.amp.custom_fwd", "torch.amp.autocast_mode.custom_fwd"}),
    "backward": frozenset({"torch.amp.custom_bwd", "torch.amp.autocast_mode.custom_bwd"}),
}
_WRAPPER = {"forward": "custom_fwd", "backward": "custom_bwd"}
_DEPRECATED_DECORATORS = frozenset(
    {"torch.cuda.amp.custom_fwd", "torch.cuda.amp.custom_bwd", "torch.cuda.amp.autocast_mode.custom_fwd", "torch.cuda.amp.autocast_mode.custom_bwd"}
)


# ops that accept mixed dtypes (elementwise arithmetic promotes) and that autocast does not
# lower: layout, copies, creation like an input, elementwise math
_NEUTRAL_OPS = frozenset(
    {
        "view", "view_as", "reshape", "reshape_as", "permute", "transpose", "t", "flip", "fliplr", "flipud",
        "rot90", "roll", "flatten", "unflatten", "contiguous", "clone", "detach", "squeeze", "unsqueeze",
        "expand", "expand_as", "repeat", "narrow", "select", "cat", "concat", "stack", "split", "chunk",
        "unbind", "new_empty", "new_zeros", "new_ones", "new_full", "empty_like", "zeros_like", "ones_like",
        "full_like", "empty", "zeros", "ones", "full", "size", "dim", "numel", "stride", "neg", "abs", "sign", "add", "sub", "mul", "div",
        "clamp", "clamp_min", "clamp_max", "sum", "mean", "sigmoid", "tanh", "relu", "where", "masked_fill",
        "maximum", "minimum",
    }
)
# torch.distributed's collectives and the queries that size them
_COLLECTIVES = frozenset(
    {
        "all_gather", "all_gather_into_tensor", "all_reduce", "all_to_all", "all_to_all_single", "broadcast",
        "gather", "scatter", "reduce", "reduce_scatter", "reduce_scatter_tensor", "barrier", "get_rank",
        "get_world_size", "is_available", "is_initialized",
    }
)
# waits on the handle an async collective returns (`work.wait()`), on a CUDA event or stream
_WAITS = frozenset({"wait", "synchronize"})
# Triton's integer helpers for a launch grid, on the host
_TRITON_HOST_MATH = frozenset({"triton.cdiv", "triton.next_power_of_2"})
_CTX_METHODS = frozenset({"save_for_backward", "save_for_forward", "mark_dirty", "mark_non_differentiable", "set_materialize_grads"})
_NEUTRAL_BUILTINS = frozenset(
    {"len", "int", "float", "bool", "range", "tuple", "list", "isinstance", "getattr", "hasattr", "zip", "enumerate", "min", "max"}
)


BACKWARD_KINDS = frozenset({EventKind.BACKWARD, EventKind.SCALED_BACKWARD, EventKind.AUTOGRAD_GRAD, EventKind.SCALED_AUTOGRAD_GRAD})
STEP_KINDS = frozenset({EventKind.OPT_STEP, EventKind.SCALER_STEP})


def where(region: AutocastRegion, model: FileModel) -> str:
    """How a message names the region: its line, and the call site for an entered function."""
    text = f"the autocast region opened on {model.line_name(region.anchor)}"
    if region.via:
        text += f" (entered through the call on {model.line_name(region.via[0])})"
    return text


def maybe(region: AutocastRegion) -> str:
    return " when autocast is enabled" if region.enabled is None else ""


@check("AMP301", in_tests=False)
def backward_in_autocast(model: FileModel) -> Iterable[Finding]:
    if not model.regions.all:
        return
    for event in model.steps.events:
        backward = event.kind in BACKWARD_KINDS or event.framework_backward
        region = model.regions.active(event.node) if backward else None
        if region is not None and region.lowers_precision and model.trains(event):
            yield model.finding(
                "AMP301",
                event.node,
                f"backward runs inside {where(region, model)}{maybe(region)}; "
                "leave the autocast block before calling backward (backward ops already use the forward's dtypes)",
            )


@check("AMP302")
def unsafe_op_in_autocast(model: FileModel) -> Iterable[Finding]:
    if not model.regions.all:
        return
    for call in model.calls:
        if not _is_bce(model, call):
            continue
        region = model.regions.active(call)
        if region is None or region.device not in ("cuda", None):
            continue
        yield model.finding(
            "AMP302",
            call,
            f"binary_cross_entropy is unsafe to autocast and raises inside {where(region, model)}"
            f"{maybe(region)}; use binary_cross_entropy_with_logits / BCEWithLogitsLoss on logits, "
            "or compute it under autocast(enabled=False) on .float() inputs",
        )


def _is_bce(model: FileModel, call: cst.Call) -> bool:
    if model.callee(call) in _BCE:
        return True
    func = call.func
    if isinstance(func, cst.Call):  # nn.BCELoss()(pred, target)
        return model.callee(func) in _BCE_LOSS
    if not isinstance(func, (cst.Name, cst.Attribute)) or model.names.resolve(func):
        return False
    values = model.values_of(func)
    return bool(values) and all(isinstance(v, cst.Call) and model.callee(v) in _BCE_LOSS for v in values)


@check("AMP303", in_tests=False)
def manual_cast_in_autocast(model: FileModel) -> Iterable[Finding]:
    if not model.regions.all:
        return
    for cast in model.casts.all:
        if cast.dtype not in ("float16", "bfloat16") or cast.model_key is not None:
            continue
        region = model.regions.active(cast.call)
        if region is None or not region.lowers_precision or model.casts.in_custom_fwd(cast.call) or _inference(model, region, cast):
            continue
        if region.dtype in (cast.dtype, None) and _handed_to_a_call(model, cast):
            continue  # (a region whose dtype is not known, `autocast(device_type=device.type)`, may run in this one)
        if any(reads_dtype(a) for a in assertions_after(model, cast.call)):
            continue  # the dtype is what the code checks: a test of half inputs under autocast
        if isinstance(cast.receiver, (cst.Name, cst.Attribute)):
            b = model.bindings.lookup(cast.receiver, cast.call)
            if b is not None and b.kind in ("model", "loss"):
                continue
        yield model.finding(
            "AMP303",
            cast.call,
            f"manual cast to {cast.dtype} inside {where(region, model)}{maybe(region)} overrides autocast's "
            "per-op policy for the ops it does not list (elementwise arithmetic, reductions and residual sums "
            "downstream then run in low precision); let autocast choose the dtype",
        )


def _handed_to_a_call(model: FileModel, cast: Cast) -> bool:
    """Whether the cast value is an input handed straight to a model or project function
    (`self.transformer(hidden_states=x.to(dtype))`, or a value of the kwargs dict it is called
    with): cast to the dtype autocast already runs in, its first ops see what autocast would
    give them (lower-precision ops that dtype, fp32-listed ops their fp32 inputs, arithmetic with
    fp32 weights promoted back). A torch function fed the cast (`torch.tanh(x.half())`) runs
    in it whatever autocast's policy says, and stays reported."""
    value = _after_moves(model, cast.call)
    return _handed_over(model, value) or _stored_to_hand_over(model, value)


_MOVES = frozenset({"to", "cuda", "contiguous", "pin_memory"})


def _after_moves(model: FileModel, cast: cst.Call) -> cst.Call:
    """The value a cast becomes through the moves chained on it (`x.to(torch.bfloat16)
    .to(device_id)`, `.cuda()`, `.contiguous()`): a device move keeps the dtype, and a further
    `.to(...)` that casts again leaves the first cast's dtype to no op."""
    value = cast
    while True:
        attr = model.parent(value)
        call = model.parent(attr) if isinstance(attr, cst.Attribute) and attr.value is value else None
        if not (isinstance(call, cst.Call) and call.func is attr and attr.attr.value in _MOVES):  # type: ignore[union-attr]
            return value
        value = call


def _stored_to_hand_over(model: FileModel, cast: cst.Call) -> bool:
    """Whether the cast is stored in a local name (`desc = desc.half()`, or one side of a
    conditional value: `x16 = x.half() if x.dtype == torch.float32 else x`) that every read it
    reaches hands straight to a model or project function (`pad(desc, n)`, then
    `desc = self.input_proj(desc)`): no torch op computes with it in between."""
    stored: cst.BaseExpression = cast
    assign = model.parent(cast)
    while isinstance(assign, cst.IfExp) and assign.test is not stored:
        stored, assign = assign, model.parent(assign)
    if not (isinstance(assign, cst.Assign) and assign.value is stored and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
        return False
    reads = model.bindings.reads_of(assign, assign.targets[0].target.value)
    return bool(reads) and all(_handed_over(model, r) for r in reads)


def _handed_over(model: FileModel, value: cst.BaseExpression) -> bool:
    """Whether `value` is an argument of a call of something other than torch (a model, a
    project function), or a value of the kwargs dict such a call unpacks."""
    parent = model.parent(value)
    if isinstance(parent, cst.Arg) and parent.value is value and not parent.star:
        call = model.parent(parent)
    elif isinstance(parent, cst.DictElement) and parent.value is value:
        call = _called_with(model, model.parent(parent))
    else:
        return False
    if not isinstance(call, cst.Call) or call.func is value:
        return False
    return not any(q.startswith("torch.") for q in model.names.resolve(call.func))


def _called_with(model: FileModel, kwargs: Optional[cst.CSTNode], depth: int = 0) -> Optional[cst.Call]:
    """The call in the same function that a dict literal, assigned to a name, is unpacked into
    (`kwargs = {...}` then `model(**kwargs)`, or through another dict that spreads it:
    `pos = {**kwargs, "mask": m}` then `model(**pos)`)."""
    assign = model.parent(kwargs) if kwargs is not None else None
    if depth > 3 or not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
        return None
    name = assign.targets[0].target.value
    scope = model.enclosing_function(assign)
    for node in model.name_nodes.get(name, ()):
        parent = model.parent(node)
        if model.enclosing_function(node) is not scope:
            continue
        if isinstance(parent, cst.Arg) and parent.star == "**":
            return model.parent(parent)  # type: ignore[return-value]
        if isinstance(parent, cst.StarredDictElement):
            found = _called_with(model, model.parent(parent), depth + 1)
            if found is not None:
                return found
    return None


def _inference(model: FileModel, region: AutocastRegion, cast: Cast) -> bool:
    """Autocast used for inference (grad disabled around the cast, the region, or every call
    that enters it): there a manual cast usually feeds a kernel or engine on purpose."""
    return cast.no_grad or model.runs_without_grad(region)


@check("AMP304")
def custom_function_without_amp_decorators(model: FileModel) -> Iterable[Finding]:
    if not model.regions.enters_autocast:
        return
    for cls in model.classes:
        if not any(model.qualname(b.value) in _FUNCTION_BASES for b in cls.bases):
            continue
        own = _methods(model, cls)
        methods = {name: f for name, f in own.items() if name in _AMP_DECORATORS}
        forward = methods.get("forward")
        if forward is None or _used_only_by_tests(model, cls) or _forward_called_as_a_plain_method(model, cls) \
                or _applied_outside_this_files_autocast(model, cls, methods.values(), _static_helpers(model, own)):
            continue
        if all(_autocast_neutral(model, fn, _ctx_name(fn), set()) for fn in methods.values()):
            continue
        if "backward" in methods and (
            _restores_forward_autocast(model, forward, methods["backward"]) or _same_fixed_autocast(model, forward, methods["backward"])
        ):
            continue
        decorated = {name: _decorators(model, fn) for name, fn in methods.items()}
        if any(d & _DEPRECATED_DECORATORS for d in decorated.values()):
            continue  # the deprecated spelling is AMP403's to fix
        missing = [_WRAPPER[name] for name in methods if not _has_amp_decorator(decorated[name], name)]
        if missing:
            yield model.finding(
                "AMP304",
                forward.name,
                f"autograd.Function {cls.name.value} has no torch.amp.{' / '.join(sorted(missing))} in a file that uses "
                "autocast; its backward then runs under a different autocast state than its forward",
            )


def _autocast_neutral(model: FileModel, fn: cst.FunctionDef, ctx: Optional[str], seen: set[int]) -> bool:
    """Whether a function does nothing whose result autocast decides or whose inputs must
    share a dtype: only moves, reshapes and elementwise arithmetic (which promotes mixed
    dtypes), Python builtins, calls on `ctx`, and same-file functions of the same kind
    (VMamba's cross-scan permutes, a gradient-reversal layer's `grad.neg() * alpha`). Such a
    Function gives the same result under any autocast state, as does the launch of a Triton
    kernel of the file (Triton code never goes through autocast); a matmul, a convolution, an
    indexed store through a tensor index, or a call into code the file does not hold (an
    extension op) can meet a half gradient and a float saved tensor, which is what AMP304 is
    about."""
    if id(fn) in seen:
        return True
    seen.add(id(fn))
    pending: list[cst.CSTNode] = [fn.body]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
            return False
        target = getattr(node, "target", None) if isinstance(node, (cst.AugAssign, cst.AssignTarget)) else None
        if isinstance(target, cst.Subscript) and not _basic_indexing(target) and not _stores_its_own_values(model, fn, node, target):
            return False  # an indexed store (index_put_) wants one dtype on both sides
        if isinstance(node, cst.Call) and not _neutral_call(model, node, ctx, seen):
            return False
        pending.extend(model.children(node))
    return True


def _stores_its_own_values(model: FileModel, fn: cst.FunctionDef, node: cst.CSTNode, target: cst.Subscript) -> bool:
    """Whether an indexed store writes into a tensor values computed from that tensor alone
    and numbers (`t[t.abs() < eps] = t[t.abs() < eps].sign() * eps`): both sides have its dtype
    whatever the autocast state. A name counts as a number where the function only ever
    compares it or does arithmetic with it (never indexes it, calls it, or reads an attribute
    of it)."""
    value = node.value if isinstance(node, cst.AugAssign) else getattr(model.parent(node), "value", None)
    own = target.value
    while isinstance(own, cst.Subscript):
        own = own.value
    if value is None or not isinstance(own, cst.Name):
        return False
    return _computed_from(model, fn, value, own.value, 0)


def _computed_from(model: FileModel, fn: cst.FunctionDef, value: cst.CSTNode, own: str, depth: int) -> bool:
    """Whether `value` reads only the tensor `own`, numbers, and locals computed from those
    (`small = t.abs() < eps`)."""
    if depth > 3:
        return False
    for name in {n.value for n in _read_names(model, value)} - {own}:
        if _only_arithmetic(model, fn, name):
            continue
        values = [
            a.value for a in model.assigns
            if isinstance(a, cst.Assign) and model.enclosing_function(a) is fn
            and any(isinstance(t.target, cst.Name) and t.target.value == name for t in a.targets)
        ]
        if not values or not all(_computed_from(model, fn, v, own, depth + 1) for v in values):
            return False
    return True


def _read_names(model: FileModel, expr: cst.CSTNode) -> Iterator[cst.Name]:
    """The names an expression reads (not the attribute names after a dot, not keywords)."""
    pending = [expr]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.Name):
            yield node
        elif isinstance(node, cst.Attribute):
            pending.append(node.value)
        elif isinstance(node, cst.Arg):
            pending.append(node.value)
        else:
            pending.extend(model.children(node))


def _only_arithmetic(model: FileModel, fn: cst.FunctionDef, name: str) -> bool:
    """Whether every read of `name` in `fn` is an operand of arithmetic or of a comparison."""
    reads = [n for n in model.name_nodes.get(name, ()) if model.within(n, fn.body)]
    return bool(reads) and all(
        isinstance(model.parent(n), (cst.BinaryOperation, cst.ComparisonTarget, cst.Comparison, cst.UnaryOperation)) for n in reads
    )


def _basic_indexing(target: cst.Subscript) -> bool:
    """A store through slices and integer constants only (`y[:, 0] = x`): a view's `copy_`,
    which converts the dtype, unlike an index_put_ through a tensor index."""
    def basic(el: cst.SubscriptElement) -> bool:
        s = el.slice
        if isinstance(s, cst.Slice):
            return all(p is None or isinstance(p, (cst.Integer, cst.UnaryOperation, cst.Name)) for p in (s.lower, s.upper, s.step))
        v = s.value
        return isinstance(v, (cst.Integer, cst.Ellipsis)) or (isinstance(v, cst.UnaryOperation) and isinstance(v.expression, cst.Integer))

    return all(basic(el) for el in target.slice)


def _neutral_call(model: FileModel, call: cst.Call, ctx: Optional[str], seen: set[int]) -> bool:
    func = call.func
    if isinstance(func, cst.Attribute):
        if ctx is not None and dotted(func.value) == ctx:
            return func.attr.value in _CTX_METHODS  # not a function stored on ctx (`ctx.fn(x)`)
        qualname = model.qualname(func)
        if qualname in _TRITON_HOST_MATH or _collective(qualname):
            return True
        if func.attr.value in _WAITS and not call.args:
            return True  # (a gather layer's backward waits on its `reduce(..., async_op=True)`)
        return func.attr.value in _NEUTRAL_OPS and (qualname or "torch.").startswith("torch.")
    if isinstance(func, cst.Subscript):
        return _triton_kernel(model, func.value)  # `kernel[grid](...)`
    if not isinstance(func, cst.Name):
        return False
    qualname = model.qualname(func)
    if qualname is None or not qualname.startswith("torch."):
        fn = model.enclosing_function(call)
        if fn is not None and all(not a.star and _about_tensors(model, a.value, fn, 0) for a in call.args):
            return True  # handed only shapes, devices, dtypes and numbers: no tensor of the Function meets autocast there
    if qualname is not None:
        return _collective(qualname) or (qualname.startswith("torch.") and qualname.rsplit(".", 1)[-1] in _NEUTRAL_OPS)
    if func.value in _NEUTRAL_BUILTINS:
        return True
    targets = [f for f in model.functions if f.name.value == func.value and model.enclosing_class(f) is None]
    if not targets:
        targets = [
            f for value in model.values_of(func)
            for name in ([value.body, value.orelse] if isinstance(value, cst.IfExp) else [value])
            if isinstance(name, cst.Name)
            for f in model.functions if f.name.value == name.value and model.enclosing_class(f) is None
        ]
    return bool(targets) and all(_autocast_neutral(model, f, None, seen) for f in targets)


_TENSOR_FACTS = frozenset({"shape", "device", "dtype", "ndim", "is_cuda", "requires_grad"})
_TENSOR_FACT_METHODS = frozenset({"size", "stride", "dim", "numel", "element_size", "get_device"})


def _about_tensors(model: FileModel, expr: cst.BaseExpression, fn: cst.FunctionDef, depth: int) -> bool:
    """Whether `expr` holds only facts about tensors and plain numbers (`X.shape[-1]`,
    `dY.device`, `n_cols` from `n_rows, n_cols = X.shape`, `eps`-like literals): a helper
    handed only such values (`calculate_settings(n_cols)`, `torch_gpu_device(device)`) sees
    no tensor of the Function, so no autocast state changes what the Function computes."""
    if depth > 4:
        return False
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(expr, cst.Attribute):
        return expr.attr.value in _TENSOR_FACTS
    if isinstance(expr, cst.Subscript):
        return _about_tensors(model, expr.value, fn, depth + 1)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        return expr.func.attr.value in _TENSOR_FACT_METHODS
    if isinstance(expr, cst.BinaryOperation):
        return _about_tensors(model, expr.left, fn, depth + 1) and _about_tensors(model, expr.right, fn, depth + 1)
    if isinstance(expr, cst.UnaryOperation):
        return _about_tensors(model, expr.expression, fn, depth + 1)
    if isinstance(expr, cst.Name):
        if expr.value in ("None", "True", "False"):
            return True
        values = [
            node.value for node in model.assigns
            if isinstance(node, cst.Assign) and model.enclosing_function(node) is fn
            and any(_binds(t.target, expr.value) for t in node.targets)
        ]
        return bool(values) and all(_about_tensors(model, v, fn, depth + 1) for v in values)
    return False


def _binds(target: cst.BaseExpression, name: str) -> bool:
    """Whether an assignment target binds `name` (itself, or an element of a tuple unpacked)."""
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(isinstance(e, cst.Element) and _binds(e.value, name) for e in target.elements)
    return False


def _collective(qualname: Optional[str]) -> bool:
    """A torch.distributed collective or query: it moves tensors between ranks as they are
    (autocast lists none of them), so a gather layer's backward all-reduces whatever dtype
    its gradients have."""
    return qualname is not None and qualname.startswith("torch.distributed.") and qualname.rsplit(".", 1)[-1] in _COLLECTIVES


def _triton_kernel(model: FileModel, kernel: cst.BaseExpression, depth: int = 0) -> bool:
    """A Triton kernel of this file launched on a grid (`kernel[grid](...)`): Triton code runs
    outside torch's dispatcher, so no autocast state changes what it computes; the dtypes it
    meets are those of the tensors it is handed, custom_bwd or not."""
    if not isinstance(kernel, cst.Name) or depth > 3:
        return False
    values = model.values_of(kernel)
    if values and all(_triton_value(model, v, depth) for v in values):
        return True  # wrapped at module level (`k = triton.jit(k)`), or a local picking one of two kernels
    found = [f for f in model.functions if f.name.value == kernel.value and model.enclosing_class(f) is None]
    return bool(found) and all(any(_is_triton(model, d.decorator) for d in f.decorators) for f in found)


def _triton_value(model: FileModel, value: cst.BaseExpression, depth: int) -> bool:
    """A value that is a Triton kernel: `triton.jit(f)`, `triton.heuristics(...)(f)`, a kernel's
    name, or a choice between two (`a if gemma else b`)."""
    if isinstance(value, cst.IfExp):
        return _triton_value(model, value.body, depth) and _triton_value(model, value.orelse, depth)
    if isinstance(value, cst.Name):
        return _triton_kernel(model, value, depth + 1)
    if isinstance(value, cst.Call):
        func = value.func.func if isinstance(value.func, cst.Call) else value.func
        return (model.qualname(func) or "").startswith("triton.")
    return False


def _is_triton(model: FileModel, decorator: cst.BaseExpression) -> bool:
    func = decorator.func if isinstance(decorator, cst.Call) else decorator
    return (model.qualname(func) or "").startswith("triton.")


def _ctx_name(method: cst.FunctionDef) -> Optional[str]:
    """The name a Function's static `forward`/`backward` gives its context (first) parameter."""
    return method.params.params[0].name.value if method.params.params else None


def _methods(model: FileModel, cls: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    """The functions written in the body of `cls`, by name."""
    return {f.name.value: f for f in model.functions if model.parent(model.parent(f)) is cls}


def _applied_outside_this_files_autocast(
    model: FileModel, cls: cst.ClassDef, methods: Iterable[cst.FunctionDef], helpers: frozenset[str],
) -> bool:
    """Every `Cls.apply(...)` of the file runs where none of the file's own autocast regions
    reaches (`model.reach`), and the class is named nowhere else (not handed on, aliased or
    stored): its forward and backward then run in the state its callers' files choose, which
    this file's use of autocast says nothing of. Applied under `autocast(enabled=False)` (apex
    casts the inputs itself, then applies the Function with autocast off), forward and backward
    agree; applied after the one region of the method closes (insightface's
    `DistCrossEntropyFunc`, through `PartialFC.forward`), the region never runs it. A call of
    one of the class's static `helpers` names it without handing it on."""
    name = cls.name.value
    applies = [
        c for c in model.calls
        if isinstance(c.func, cst.Attribute) and c.func.attr.value == "apply" and dotted(c.func.value) == name
    ]
    named = [n for n in model.name_nodes.get(name, []) if n is not cls.name and not _calls_one_of(model, n, helpers)]
    if len(named) != len(applies) or any(model.regions.active(fn.body) is not None for fn in methods):
        return False  # handed on, or a method runs under autocast whoever applies it
    return not any(model.reach.may_run_under(c) for c in applies)


def _static_helpers(model: FileModel, own: dict[str, cst.FunctionDef]) -> frozenset[str]:
    """The static methods of a Function class (`own`: its methods) besides `forward` and
    `backward` (Long-LRM's `GaussianRenderer.render`, which both passes call per view): calling
    one runs plain code, applies no Function and hands the class to no one."""
    return frozenset(
        name for name, f in own.items() if name not in _AMP_DECORATORS and "staticmethod" in _decorators(model, f)
    )


def _calls_one_of(model: FileModel, name: cst.CSTNode, methods: frozenset[str]) -> bool:
    """Whether `name` is the class in a call `Cls.<method>(...)` of one of `methods`."""
    attr = model.parent(name)
    return isinstance(attr, cst.Attribute) and attr.value is name and attr.attr.value in methods \
        and isinstance(model.parent(attr), cst.Call) and model.parent(attr).func is attr


def _forward_called_as_a_plain_method(model: FileModel, cls: cst.ClassDef) -> bool:
    """Every use of the class in the file calls `forward` on a new instance (`DiceCoeff().forward(a,
    b)`, the legacy metric of many segmentation repositories): a plain method call, so autograd
    records the operations inside `forward` and never the Function, and its `backward` never
    runs, under any autocast state."""
    named = [n for n in model.name_nodes.get(cls.name.value, []) if n is not cls.name]
    return bool(named) and all(_forward_of_a_new_instance(model, n) for n in named)


def _forward_of_a_new_instance(model: FileModel, name: cst.CSTNode) -> bool:
    made = model.parent(name)
    method = model.parent(made) if isinstance(made, cst.Call) and made.func is name else None
    call = model.parent(method) if isinstance(method, cst.Attribute) and method.attr.value == "forward" else None
    return isinstance(call, cst.Call) and call.func is method


def _used_only_by_tests(model: FileModel, cls: cst.ClassDef) -> bool:
    """In test code, a Function private to its module (`_Sp24X`) that only pytest's test
    functions use, outside any autocast region there, or one a test function defines for
    itself and never enters autocast in: pytest calls a test with autocast off, so forward
    and backward run in the same state (another test of the file that enters autocast never
    runs the Function)."""
    name = cls.name.value
    if not model.is_test:
        return False
    home = model.enclosing_function(cls)
    if home is not None:  # defined in a function: only that function's code can apply it
        while (outer := model.enclosing_function(home)) is not None:
            home = outer
        return home.name.value.startswith("test") and not any(model.within(r.node, home) for r in model.regions.all)
    if not name.startswith("_"):
        return False
    refs = [n for n in model.name_nodes.get(name, []) if n is not cls.name]
    return bool(refs) and all(
        (fn := model.enclosing_function(n)) is not None and fn.name.value.startswith("test")
        and model.regions.enclosing(n) is None
        for n in refs
    )


def _same_fixed_autocast(model: FileModel, forward: cst.FunctionDef, backward: cst.FunctionDef) -> bool:
    """Whether forward and backward are both decorated with one autocast state (`@autocast()`
    on each: esvit's sliding-chunk attention): each runs under it whatever state it is called
    in, so the backward meets what its forward ran under."""
    f, b = model.regions.enclosing(forward.body), model.regions.enclosing(backward.body)
    return f is not None and b is not None and f.enabled is True and (f.device, f.dtype, f.enabled) == (b.device, b.dtype, b.enabled)


def _restores_forward_autocast(model: FileModel, forward: cst.FunctionDef, backward: cst.FunctionDef) -> bool:
    """Whether `backward` re-enters, by hand, the autocast state its forward saved on `ctx`: it
    hands `ctx` state (`ctx.x`, or a local read from it) to an autocast call or to a same-file
    function that opens autocast (`with torch.autocast(**ctx.autocast_kwargs):`, `with
    autocast(ctx.had_autocast_in_fwd):`, `sfb1d(..., ctx.use_amp)` whose convolution runs
    under `autocast()` when told to): what custom_bwd does, written out (torch.utils.checkpoint's,
    fairscale's and LDM's CheckpointFunction, pytorch_wavelets' filter banks)."""
    params = backward.params.params
    if not params:
        return False
    ctx = params[0].name.value
    if any(
        model.enclosing_function(call) is backward and _reads(model, call, ctx) and _opens_autocast(model, call)
        for call in model.calls
    ):
        return True
    # or it enters a context its forward saved on ctx, where the forward builds autocast
    # contexts from the state it ran under (TransformerEngine's and Megatron's checkpointing)
    enters_saved = any(
        model.enclosing_function(w) is backward and (dotted(item.item) or "").startswith(f"{ctx}.")
        for w in model.withs for item in w.items
    )
    return enters_saved and any(
        model.enclosing_function(call) is forward and _makes_autocast(model, call) for call in model.calls
    )


def _makes_autocast(model: FileModel, call: cst.Call) -> bool:
    """An autocast call, or a call of a same-file function that builds one (and returns it)."""
    return model.regions.config(call) is not None or _calls_function_that(
        model, call, lambda fn: any(model.enclosing_function(c) is fn and model.regions.config(c) is not None for c in model.calls)
    )


def _calls_function_that(model: FileModel, call: cst.Call, holds: Callable[[cst.FunctionDef], bool]) -> bool:
    """Whether `call` names (bare) a function of this file for which `holds` is true."""
    name = call.func.value if isinstance(call.func, cst.Name) else None
    return name is not None and any(fn.name.value == name and holds(fn) for fn in model.functions)


def _reads(model: FileModel, call: cst.Call, ctx: str) -> bool:
    """Whether an argument of `call` is state saved on `ctx` (`ctx.x`, `**ctx.kwargs`, or a
    name assigned from one)."""
    def saved(expr: cst.BaseExpression) -> bool:
        return (dotted(expr) or "").startswith(f"{ctx}.")

    return any(
        saved(a.value) or (isinstance(a.value, cst.Name) and any(saved(v) for v in model.values_of(a.value)))
        for a in call.args
    )


def _opens_autocast(model: FileModel, call: cst.Call) -> bool:
    """An autocast call in any spelling, or a call of a function of this file that opens an
    autocast region (a version-compatible `@contextmanager` wrapper)."""
    return model.regions.config(call) is not None or _calls_function_that(
        model, call, lambda fn: any(model.enclosing_function(r.node) is fn for r in model.regions.all)
    )


def _has_amp_decorator(names: frozenset[str], method: str) -> bool:
    """torch.amp's decorator, or a project's own wrapper of it imported under the same name
    (mamba's `mamba_ssm.utils.torch.custom_fwd` picks the spelling by torch version)."""
    return bool(names & _AMP_DECORATORS[method]) or any(q.rsplit(".", 1)[-1] == _WRAPPER[method] for q in names)


def _decorators(model: FileModel, fn: cst.FunctionDef) -> frozenset[str]:
    out: set[str] = set()
    for d in fn.decorators:
        expr = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        out.update(model.names.resolve(expr) or {dotted(expr) or ""})
    return frozenset(out)


@check("AMP305", in_tests=False)
def optimizer_step_in_autocast(model: FileModel) -> Iterable[Finding]:
    if not model.regions.all:
        return
    for event in model.steps.events:
        region = model.regions.active(event.node) if event.kind in STEP_KINDS else None
        if region is not None and region.lowers_precision:
            yield model.finding(
                "AMP305",
                event.node,
                f"the optimizer step runs inside {where(region, model)}{maybe(region)}; "
                "step the optimizer after leaving the autocast block",
            )


@check("AMP306")
def invalid_autocast_device(model: FileModel) -> Iterable[Finding]:
    for call in model.calls:
        found = model.names.resolve(call.func)
        if not found or any(AUTOCAST_SPELLINGS.get(q, "") is not None for q in found):
            continue  # only the device-first spellings take a device
        device = _device_arg(call)
        if device is None:
            continue
        problem, fix = _device_problem(model, device)
        if problem is not None:
            yield model.finding("AMP306", device, problem, fix=fix)


def _device_arg(call: cst.Call) -> Optional[cst.BaseExpression]:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "device_type":
            return a.value
    first = call.args[0] if call.args else None
    return first.value if first is not None and first.keyword is None and not first.star else None


def _device_problem(model: FileModel, expr: cst.BaseExpression) -> tuple[Optional[str], Optional[Fix]]:
    if _is_device_object(model, expr):
        return "autocast takes a device type string such as \"cuda\", not a torch.device; pass `device.type`", None
    if isinstance(expr, cst.Attribute) and expr.attr.value != "type" and _is_device_object(model, expr.value):
        return f"autocast takes the device type (`.type`) of a torch.device, not its `.{expr.attr.value}`", None
    value = model.consts.value(expr)
    if not isinstance(value, str) or ":" not in value:
        return None, None
    kind = value.split(":", 1)[0]
    message = f"autocast device_type {value!r} carries a device index; autocast takes the device type only ({kind!r})"
    if isinstance(expr, cst.SimpleString):
        r = model.range(expr)
        quote = expr.quote
        fixed = f"{expr.prefix}{quote}{kind}{quote}"
        edit = Edit(r.start.line, r.start.column + 1, r.end.line, r.end.column + 1, fixed)
        return message, Fix(f"Replace {value!r} with {kind!r}", (edit,), "safe")
    return message, None


def _is_device_object(model: FileModel, expr: cst.BaseExpression) -> bool:
    """`torch.device(...)`, a name only ever bound to one, or the `.device` of a model or of a
    call's result (`next(model.parameters()).device`)."""
    if isinstance(expr, cst.Call):
        return model.callee(expr) == "torch.device"
    if isinstance(expr, cst.Attribute) and expr.attr.value == "device":
        if isinstance(expr.value, cst.Call):
            return True
        b = model.bindings.lookup(expr.value, expr) if isinstance(expr.value, (cst.Name, cst.Attribute)) else None
        return b is not None and b.kind == "model"
    if isinstance(expr, (cst.Name, cst.Attribute)) and not model.names.resolve(expr):
        values = model.values_of(expr)
        return bool(values) and all(isinstance(v, cst.Call) and model.callee(v) == "torch.device" for v in values)
    return False
