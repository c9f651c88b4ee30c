"""What a `torch.save` writes: whether it is a checkpoint that holds optimizer state but not
the GradScaler's (AMP109). Answered where the program model is built, so a save in a helper of
another module (`save_checkpoint(model, optimizer, ...)` in utils.py) is judged from its
module's summary like one written in the training file."""
from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from ampcheck.lint.bindings import Bindings
from ampcheck.lint.consteval import UNKNOWN
from ampcheck.lint.names import compared_to_none, dotted
from ampcheck.lint.tree import SourceTree

_SCALER_STATE = re.compile(r"scaler|amp|scale", re.I)


def checkpoint_without_scaler(tree: SourceTree, bindings: Bindings, call: cst.Call) -> Optional[cst.Dict]:
    """The dict literal a `torch.save` call writes when the whole of it is visible, it holds
    optimizer state, and nothing in it names the scaler's state; else None."""
    if not call.args:
        return None
    d = _saved_dict(tree, call.args[0].value, call)
    if d is None or not _has_optimizer_state(bindings, d) or _mentions_scaler(tree, bindings, d):
        return None
    if _scaler_saved_beside(tree, bindings, call) or _saved_where_its_scaler_is_none(tree, call):
        return None
    return d


def _saved_where_its_scaler_is_none(tree: SourceTree, call: cst.Call) -> bool:
    """Whether this save runs only where a scaler is None whose state the same function
    saves, under a key naming it, on its other side (`if loss_scaler is not None: ...
    {"scaler": loss_scaler.state_dict()} ... else: torch.save({"model": ..., "optimizer":
    ...})`): without a scaler there is no scale to keep. The tested object must be the one
    saved as the scaler: a save on the None side of an EMA model (`if model_ema is not None:`)
    still leaves a scaler out."""
    fn = tree.enclosing_function(call)
    child: cst.CSTNode = call
    for anc in tree.ancestors(call):
        if anc is fn:
            return False
        if isinstance(anc, cst.If) and child is not anc.test:
            tested = _none_side(anc.test, child is anc.body)
            if tested is not None and _saved_as_scaler(tree, fn, tested):
                return True
        child = anc
    return False


def _none_side(test: cst.BaseExpression, body: bool) -> Optional[str]:
    """The object a branch of `if <test>:` runs only while it is None (or falsy): the body of
    `if x is None:` or `if not x:`, the else of `if x is not None:` or `if x:`."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, body = test.expression, not body
    op = compared_to_none(test)
    if op is not None:
        none_when = body if isinstance(op, cst.Is) else not body if isinstance(op, cst.IsNot) else None
        return dotted(test.left) if none_when else None  # type: ignore[attr-defined]
    return None if body else dotted(test)


def _saved_as_scaler(tree: SourceTree, fn: Optional[cst.FunctionDef], obj: str) -> bool:
    """Whether `fn` writes `obj.state_dict()` into a checkpoint under a key naming the
    scaler: `{"scaler": obj.state_dict()}` or `ckpt["scaler"] = obj.state_dict()`."""
    for c in tree.calls:
        if not _state_dict_call(c) or dotted(c.func.value) != obj or tree.enclosing_function(c) is not fn:  # type: ignore[attr-defined]
            continue
        holder = tree.parents.get(c)
        if isinstance(holder, cst.DictElement) and holder.value is c:
            key: Optional[cst.CSTNode] = holder.key
        elif isinstance(holder, cst.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0].target, cst.Subscript):
            key = holder.targets[0].target.slice[0]
        else:
            key = None
        if key is not None and _SCALER_STATE.search(tree.code_for(key)):
            return True
    return False


def _scaler_saved_beside(tree: SourceTree, bindings: Bindings, call: cst.Call) -> bool:
    """Whether the function that writes this checkpoint (its outermost enclosing function, nested
    helpers included) also saves the scaler's state in another file: the optimizer in one file
    and the rest of the training state in another, or the scaler's `state_dict()` in a file of
    its own (`torch.save(self.scaler.state_dict(), os.path.join(d, "scaler.pt"))`, as
    Hugging Face's trainer writes it). A script's body is one such writer: its best model
    without the scaler, its resume checkpoint with it."""
    top = tree.enclosing_function(call)
    while top is not None and (outer := tree.enclosing_function(top)) is not None:
        top = outer
    for other in tree.calls:
        if other is call or not other.args or tree.callee(other) != "torch.save":
            continue
        if (top not in tree.ancestors(other)) if top is not None else tree.enclosing_function(other) is not None:
            continue
        value = other.args[0].value
        if _scaler_state(bindings, value) or (_state_dict_call(value) and _SCALER_STATE.search(tree.code_for(value.func.value))):  # type: ignore[attr-defined]
            return True
        saved = _saved_dict(tree, value, other)
        if saved is not None and _mentions_scaler(tree, bindings, saved):
            return True
    return False


def _saved_dict(tree: SourceTree, expr: cst.BaseExpression, at: cst.CSTNode) -> Optional[cst.Dict]:
    """The dict literal a `torch.save` at `at` writes, when the whole of it is visible: written
    in the call, or the value of the assignment to the name that most recently precedes it,
    with nothing between them adding to it (`ckpt[key] = ...`, `ckpt.update(...)`) or handing
    it to code that might (`callback.on_save(ckpt)`)."""
    if isinstance(expr, cst.Dict):
        return expr if all(isinstance(el, cst.DictElement) for el in expr.elements) else None
    if not isinstance(expr, cst.Name):
        return None
    fn = tree.enclosing_function(expr)
    name = expr.value
    order = tree.precedes
    latest: Optional[cst.Assign] = None
    for node in tree.assigns:
        if isinstance(node, cst.Assign) and tree.enclosing_function(node) is fn and order(node, at):
            if any(isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets):
                latest = node
    if latest is None or not isinstance(latest.value, cst.Dict):
        return None

    def between(node: cst.CSTNode) -> bool:
        return tree.enclosing_function(node) is fn and order(latest, node) and order(node, at)

    for node in tree.assigns:
        targets = node.targets if isinstance(node, cst.Assign) else []
        if between(node) and any(isinstance(t.target, cst.Subscript) and dotted(t.target.value) == name for t in targets):
            return None
    for c in tree.calls:
        if not between(c) or tree.callee(c) == "torch.save":
            continue
        if isinstance(c.func, cst.Attribute) and dotted(c.func.value) == name:
            return None
        if any(isinstance(a.value, cst.Name) and a.value.value == name for a in c.args):
            return None
    return _saved_dict(tree, latest.value, at)


def _mentions_scaler(tree: SourceTree, bindings: Bindings, d: cst.Dict) -> bool:
    """Whether a checkpoint dict may hold the scaler's state: the `state_dict()` of an object
    bound to a GradScaler, whatever it is called (NVAE's `grad_scalar.state_dict()`), a key or
    value naming it (`"amp_state": amp_state`), or a value assigned from something that does."""
    if _SCALER_STATE.search(tree.code_for(d)):
        return True
    for el in d.elements:
        if not isinstance(el, cst.DictElement):
            continue
        values = tree.values_of(el.value) if isinstance(el.value, (cst.Name, cst.Attribute)) else []
        if any(_scaler_state(bindings, v) for v in (el.value, *values)):
            return True
        if any(_SCALER_STATE.search(tree.code_for(v)) for v in values):
            return True
    return False


def _scaler_state(bindings: Bindings, v: cst.BaseExpression) -> bool:
    """`x.state_dict()` where `x` is bound to a GradScaler."""
    if not _state_dict_call(v):
        return False
    b = bindings.lookup(v.func.value, v)  # type: ignore[attr-defined]
    return b is not None and b.kind == "scaler"


def saved_state_keys(bindings: Bindings, d: cst.Dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The keys under which a checkpoint dict holds optimizer state, when each is a string
    constant (() when one is not: where a computed key is read back cannot be searched for),
    and the string-constant keys under which it holds the `state_dict()` of something else
    (the model, an EMA copy, a scheduler)."""
    optimizer: list[object] = []
    others: list[str] = []
    for el in d.elements:
        if not isinstance(el, cst.DictElement):
            continue
        key = bindings.consts.value(el.key)
        if _optimizer_state(bindings, el):
            optimizer.append(key)
        elif _state_dict_call(el.value) and isinstance(key, str):
            others.append(key)
    keys = tuple(k for k in optimizer if isinstance(k, str))
    return (keys if len(keys) == len(optimizer) else ()), tuple(others)


def _state_dict_call(v: cst.BaseExpression) -> bool:
    return isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and v.func.attr.value == "state_dict"


def _has_optimizer_state(bindings: Bindings, d: cst.Dict) -> bool:
    return any(isinstance(el, cst.DictElement) and _optimizer_state(bindings, el) for el in d.elements)


def _optimizer_state(bindings: Bindings, el: cst.DictElement) -> bool:
    """An optimizer's `state_dict()`, or a value under an "optimizer" key that is not a
    constant placeholder (yolov5's `"optimizer": None` marks a weights-only checkpoint)."""
    key = bindings.consts.value(el.key)
    v = el.value
    if isinstance(key, str) and "optim" in key.lower() and bindings.consts.value(v) is UNKNOWN:
        return True
    return (
        _state_dict_call(v) and isinstance(v.func.value, (cst.Name, cst.Attribute))  # type: ignore[attr-defined]
        and bindings.is_optimizer(v.func.value, v)  # type: ignore[attr-defined]
    )
