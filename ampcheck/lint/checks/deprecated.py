"""AMP401-AMP405: deprecated AMP entry points, with exact fixes for the torch ones.

`torch.cuda.amp.*` and `torch.cpu.amp.*` only forward to `torch.amp.*` with the device
filled in, so each fix names the new API and passes that device: the callee text is
replaced and the device argument inserted, and nothing else in the call is touched.

Imports are fixed only when that is provably equivalent: `from torch.cuda.amp import
autocast` becomes `from torch.amp import autocast` only if every use of every name that
import binds is a call or decorator this module rewrites in the same fix. Otherwise the
import stays and the call is spelled through a module-level `import torch`, or no fix is
offered. Because one fix then carries the edits for all those uses, every finding in the
group carries the same edits, and applying any of them applies all.

The fixes are safe, with one exception: the old autocast always passed its dtype and
cache setting, the new one inherits them when they are not given. Where the file shows
they may differ (an enclosing autocast region, torch.set_autocast_*), the fix is unsafe.

A use is rewritten only where its name can mean one thing: a name with more than one
binding its use can reach (NeMo's `autocast = torch.cuda.amp.autocast` in one branch, a
no-op `def autocast()` in the other) is reported without a fix, since rewriting the use
would turn AMP on where the other binding had it off.

An import of a deprecated name that no call site reports (the name only annotates, is
re-exported, or is unused) is reported at the import: it breaks when torch removes the
module. Moving it to torch.amp is safe when the names it binds only annotate; otherwise
(a value use, a possible re-export) the fix is unsafe.

Deprecated spellings inside a version guard or an `except ImportError:` fallback are
compatibility shims for old PyTorch releases and are not reported.

The oldest torch the project supports (`torch-version`, else its torch requirements) decides
what a fix may spell: a deprecated spelling whose torch.amp replacement that release lacks
(GradScaler before 2.3, custom_fwd/custom_bwd before 2.4, autocast before 1.12) is the right
code for the project and is not reported, nor moved by an import rewrite, as Ruff's
pyupgrade rules stay silent where `target-version` lacks the new syntax. Undeclared: every
torch.amp spelling is assumed available.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Optional, Sequence

import libcst as cst
from libcst.metadata import CodePosition

from ampcheck.findings import Applicability, Edit, Finding, Fix
from ampcheck.lint.checks import check
from ampcheck.lint.literals import literal
from ampcheck.lint.model import FileModel
from ampcheck.lint.names import dotted, import_key
from ampcheck.lint.scopes import UNKNOWN, Scopes
from ampcheck.targets import MinorVersion


@dataclass(frozen=True)
class Deprecated:
    code: str
    module: str  # the deprecated module, e.g. torch.cuda.amp
    name: str  # the same name exists in torch.amp
    device: str
    old_since: MinorVersion  # the first torch release with the deprecated spelling
    new_since: MinorVersion  # the first torch release with the torch.amp spelling

    def replaceable_on(self, oldest_torch: Optional[MinorVersion]) -> bool:
        """Whether the project's oldest torch (None: undeclared) has the new spelling, or
        lacks the old one too (then the rewrite breaks nothing that worked there). Where it
        has only the old one, the old spelling is the right code for that project: not
        reported, as Ruff's pyupgrade rules are not for a `target-version` without the
        new syntax."""
        return oldest_torch is None or not self.old_since <= oldest_torch < self.new_since

    @property
    def takes_device_type(self) -> bool:
        return self.name in ("custom_fwd", "custom_bwd")

    def message(self) -> str:
        if self.takes_device_type:
            new = f'torch.amp.{self.name}(device_type="{self.device}")'
            return f"`{self.module}.{self.name}` is deprecated; use `{new}`"
        new = f'torch.amp.{self.name}("{self.device}", ...)'
        return f"`{self.module}.{self.name}(...)` is deprecated; use `{new}`"


# The torch releases that brought each spelling (the rule docs cite the sources): torch.cuda.amp
# came in 1.6, torch.cpu.amp.autocast in 1.10; the torch.amp namespace with autocast in 1.12,
# torch.amp.GradScaler (and torch.cpu.amp.GradScaler with it) in 2.3, torch.amp.custom_fwd
# and custom_bwd with their device_type in 2.4.
DEPRECATED: dict[str, Deprecated] = {}
for _code, _module, _name, _device, _submodule, _old, _new in (
    ("AMP401", "torch.cuda.amp", "autocast", "cuda", "autocast_mode", (1, 6), (1, 12)),
    ("AMP402", "torch.cuda.amp", "GradScaler", "cuda", "grad_scaler", (1, 6), (2, 3)),
    ("AMP403", "torch.cuda.amp", "custom_fwd", "cuda", "autocast_mode", (1, 6), (2, 4)),
    ("AMP403", "torch.cuda.amp", "custom_bwd", "cuda", "autocast_mode", (1, 6), (2, 4)),
    ("AMP404", "torch.cpu.amp", "autocast", "cpu", "autocast_mode", (1, 10), (1, 12)),
    ("AMP404", "torch.cpu.amp", "GradScaler", "cpu", "grad_scaler", (2, 3), (2, 3)),
):
    _d = Deprecated(_code, _module, _name, _device, MinorVersion(*_old), MinorVersion(*_new))
    DEPRECATED[f"{_module}.{_name}"] = DEPRECATED[f"{_module}.{_submodule}.{_name}"] = _d


def movable(module: Optional[str], oldest_torch: Optional[MinorVersion]) -> frozenset[str]:
    """The names a deprecated module shares with torch.amp that an import may move over
    for a project whose oldest torch is `oldest_torch`."""
    return frozenset(
        d.name for d in DEPRECATED.values() if d.module == module and d.replaceable_on(oldest_torch)
    )

# The old autocast took (enabled, dtype, cache_enabled); torch.amp.autocast takes
# (device_type, dtype, enabled, cache_enabled), so positional arguments get their names.
OLD_AUTOCAST_PARAMS = ("enabled", "dtype", "cache_enabled")

# The old autocast always passed dtype and cache_enabled; torch.amp.autocast reads the
# current thread's setting when they are not given, which an enclosing autocast region or
# these calls change.
AMBIENT_SETTERS = frozenset(
    f"torch.{name}"
    for name in (
        "set_autocast_dtype",
        "set_autocast_gpu_dtype",
        "set_autocast_cpu_dtype",
        "set_autocast_cache_enabled",
    )
)

# A version test: the word "version", a torch flag with a version in its name
# (_TORCH_GE_2_4, torch_2_4_plus), is_torch_greater_or_equal(...), or hasattr/getattr on
# torch or amp.
_VERSION_TEST = re.compile(
    r"(?i:version)|(?i:torch)\w*?_(?:GE|GT|LE|LT|GREATER|LESS|NEWER|OLDER|AT_LEAST)(?![A-Za-z])"
    r"|(?i:torch)_\w*?[0-9]|is_torch_(?:greater|less)|(?:has|get)attr\(\s*(?:torch|amp)\b"
)
_FALLBACK_EXCEPT = re.compile(r"\b(?:ImportError|ModuleNotFoundError|AttributeError)\b")


# -- where the old APIs are used ---------------------------------------------------------------
@dataclass(frozen=True)
class Use:
    node: cst.CSTNode  # what the finding points at
    ref: cst.BaseExpression  # the Name/Attribute chain naming the old API
    old: Deprecated
    call: Optional[cst.Call]  # the call applying it; None for a bare decorator or a base class
    skip: int = 0  # arguments of `call` before the old API's own (1 for functools.partial)
    fixable: bool = True  # False for a base class: its super().__init__ would need the device


def _uses(model: FileModel) -> Iterator[Use]:
    for call in model.calls:
        callee = model.callee(call)
        old = DEPRECATED.get(callee or "")
        if old is not None:
            yield Use(call, call.func, old, call)
        elif callee == "functools.partial" and call.args and not call.args[0].keyword:
            old = DEPRECATED.get(model.qualname(call.args[0].value) or "")
            if old is not None and not call.args[0].star:
                yield Use(call, call.args[0].value, old, call, skip=1)
    for fn in model.functions:
        for deco in fn.decorators:
            if isinstance(deco.decorator, (cst.Name, cst.Attribute)):
                old = DEPRECATED.get(model.qualname(deco.decorator) or "")
                if old is not None:
                    yield Use(deco.decorator, deco.decorator, old, None)
    for cls in model.classes:
        for base in cls.bases:
            old = DEPRECATED.get(model.qualname(base.value) or "")
            if old is not None:
                yield Use(base.value, base.value, old, None, fixable=False)


def _head(expr: cst.BaseExpression) -> cst.Name:
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    assert isinstance(expr, cst.Name)  # refs are dotted chains: the import table resolved them
    return expr


# -- compatibility shims -----------------------------------------------------------------------
def _is_guard(model: FileModel, test: cst.BaseExpression) -> bool:
    if _VERSION_TEST.search(model.code_for(test)):
        return True
    inner = test.expression if isinstance(test, cst.UnaryOperation) else test
    return isinstance(inner, cst.Name) and any(
        _VERSION_TEST.search(model.code_for(v)) for v in model.values_of(inner)
    )


def _exits(block: cst.BaseSuite) -> bool:
    body = getattr(block, "body", ())
    last = body[-1] if isinstance(body, Sequence) and body else None
    if isinstance(last, cst.SimpleStatementLine):
        return isinstance(last.body[-1], (cst.Return, cst.Raise))
    return isinstance(last, (cst.Return, cst.Raise))


def _in_shim(model: FileModel, node: cst.CSTNode) -> bool:
    """Inside either branch of a version test, after `if <version test>: return ...`, or in
    an `except ImportError/AttributeError:` fallback."""
    child = node
    for anc in model.ancestors(node):
        if isinstance(anc, (cst.If, cst.IfExp)) and child is not anc.test:
            if _is_guard(model, anc.test):
                return True
        elif isinstance(anc, cst.ExceptHandler):
            if anc.type is not None and _FALLBACK_EXCEPT.search(model.code_for(anc.type)):
                return True
        elif isinstance(anc, (cst.IndentedBlock, cst.Module)):
            for stmt in anc.body:
                if stmt is child:
                    break
                if isinstance(stmt, cst.If) and _is_guard(model, stmt.test) and _exits(stmt.body):
                    return True
        child = anc
    return False


# -- edits ------------------------------------------------------------------------------------
Span = tuple[CodePosition, CodePosition, str]


def _insert(at: CodePosition, text: str) -> Span:
    return (at, at, text)


def _replace(model: FileModel, node: cst.CSTNode, text: str) -> Span:
    r = model.range(node)
    return (r.start, r.end, text)


def _after_open(model: FileModel, call: cst.Call) -> CodePosition:
    """Right after the call's "(": where the first argument goes when there is none. Counted
    from the call's start (inside its own parentheses) over the callee and the whitespace
    after it: layout nodes have no place in the program model's index."""
    before = model.code_for(call.func) + model.code_for(call.whitespace_after_func) + "("
    start = model.range(call).start
    lines = before.split("\n")
    if len(lines) == 1:
        return CodePosition(start.line, start.column + len(before))
    return CodePosition(start.line + len(lines) - 1, len(lines[-1]))


def _argument_edits(model: FileModel, use: Use) -> Optional[list[Span]]:
    """The edits that pass the device, or None when no exact rewrite exists."""
    old = use.old
    if not use.fixable:
        return None
    if use.call is None:  # bare decorator
        if not old.takes_device_type:
            return None
        return [_insert(model.range(use.ref).end, f'(device_type="{old.device}")')]
    args = use.call.args[use.skip :]
    if use.skip:  # partial(old, ...): with no further arguments, add after the old API
        empty = (model.range(use.call.args[0]).end, ", ")
    else:
        empty = (_after_open(model, use.call), "")
    if old.takes_device_type:
        keyword = f'device_type="{old.device}"'
        named = [a for a in args if a.keyword is not None or a.star == "**"]
        if named:
            return [_insert(model.range(named[0]).start, f"{keyword}, ")]
        if args:
            return [_insert(model.range(args[-1]).end, f", {keyword}")]
        return [_insert(empty[0], empty[1] + keyword)]
    device = f'"{old.device}"'
    edits = [_insert(model.range(args[0]).start, f"{device}, ")] if args else [
        _insert(empty[0], empty[1] + device)
    ]
    if old.name == "autocast":
        positional = [a for a in args if a.keyword is None and not a.star]
        if any(a.star == "*" for a in args) or len(positional) > len(OLD_AUTOCAST_PARAMS):
            return None
        for param, arg in zip(OLD_AUTOCAST_PARAMS, positional):
            edits.append(_insert(model.range(arg).start, f"{param}="))
    return edits


def _reads_ambient_state(model: FileModel, use: Use, defaults_changed: bool) -> bool:
    """Whether the rewritten autocast may pick up a dtype or cache setting the old one did
    not: it leaves one of them to the default and the file visibly changes that default
    (a call nested in another autocast region, or torch.set_autocast_* somewhere). A region
    that only switches autocast off (`enabled=False`, YOLOX's float32 sub-region) casts
    nothing, so its dtype and cache do not matter."""
    if use.old.name != "autocast" or use.call is None:
        return False
    args = use.call.args[use.skip :]
    positional = [a for a in args if a.keyword is None and not a.star]
    given = {a.keyword.value: a.value for a in args if a.keyword is not None}
    given.update(zip(OLD_AUTOCAST_PARAMS, (a.value for a in positional)))
    enabled = given.get("enabled")
    if isinstance(enabled, cst.Name) and enabled.value == "False":
        return False
    if {"dtype", "cache_enabled"} <= given.keys():
        return False
    return defaults_changed or model.regions.enclosing(use.node) is not None


def _to_edits(spans: list[Span]) -> tuple[Edit, ...]:
    """1-based Edits; edits that touch (an insertion right after a replacement, two
    insertions at one point) become one, in the order they were made."""
    merged: list[list] = []
    for start, end, text in sorted(spans, key=lambda s: (s[0].line, s[0].column)):
        if merged and (merged[-1][1].line, merged[-1][1].column) == (start.line, start.column):
            merged[-1][1] = end
            merged[-1][2] += text
        else:
            merged.append([start, end, text])
    return tuple(
        Edit(s.line, s.column + 1, e.line, e.column + 1, text) for s, e, text in merged
    )


# -- import rewrites ---------------------------------------------------------------------------
@dataclass
class _Site:
    """An import statement binding deprecated names, and the edit moving it to torch.amp."""

    locals: list[str]
    edit: Span
    ok: bool  # the edit is valid for every name the statement binds


_MODULES = frozenset(d.module for d in DEPRECATED.values())


def _local(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return dotted(alias.name) or ""


def _sites(model: FileModel) -> Iterator[_Site]:
    """The imports of deprecated modules; an edit is valid only where every name the new
    module must provide is there on the project's oldest torch."""
    for stmt in model.imports:
        if isinstance(stmt, cst.Import):
            for alias in stmt.names:
                if alias.asname is not None and dotted(alias.name) in _MODULES:
                    yield _Site([_local(alias)], _replace(model, alias.name, "torch.amp"), True)
            continue
        if stmt.relative or stmt.module is None or isinstance(stmt.names, cst.ImportStar):
            continue
        module = dotted(stmt.module)
        names = list(stmt.names)
        if module in _MODULES:
            ok = all(dotted(a.name) in movable(module, model.targets.torch) for a in names)
            yield _Site([_local(a) for a in names], _replace(model, stmt.module, "torch.amp"), ok)
        elif module in ("torch.cuda", "torch.cpu"):
            amp = [a for a in names if dotted(a.name) == "amp"]
            if amp:
                ok = len(names) == 1
                yield _Site([_local(a) for a in amp], _replace(model, stmt.module, "torch"), ok)


def _is_reference(model: FileModel, name: cst.Name) -> bool:
    parent = model.parent(name)
    if isinstance(parent, cst.Attribute) and parent.attr is name:
        return False
    if isinstance(parent, cst.Arg) and parent.keyword is name:
        return False
    for anc in model.ancestors(name):
        if isinstance(anc, (cst.Import, cst.ImportFrom)):
            return False
        if isinstance(anc, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            break
    return True


def _groups(sites: list[_Site]) -> list[tuple[set[str], list[_Site]]]:
    """Names tied together by the statements that import them: one rewrite unit each."""
    groups: list[tuple[set[str], list[_Site]]] = []
    for site in sites:
        joined = [g for g in groups if g[0] & set(site.locals)]
        names, members = set(site.locals), [site]
        for g in joined:
            groups.remove(g)
            names |= g[0]
            members += g[1]
        groups.append((names, members))
    return groups


def _import_rewrites(
    model: FileModel,
    scopes: Scopes,
    uses: list[Use],
    tails: dict[int, Optional[list[Span]]],
    shim: set[int],
    defaults_changed: bool,
) -> dict[int, tuple[tuple[Edit, ...], Applicability]]:
    """For each use covered by an equivalent import rewrite: the whole group's edits, unsafe
    if any use in the group is."""
    by_head = {id(_head(u.ref)): i for i, u in enumerate(uses)}
    out: dict[int, tuple[tuple[Edit, ...], Applicability]] = {}
    for names, sites in _groups(list(_sites(model))):
        if not all(s.ok for s in sites):
            continue
        members: list[int] = []
        for local in names:
            if len(model.names.resolve(cst.Name(local))) != 1:
                break
            refs = _references(model, local)
            if not all(_one_binding(scopes, n) for n in refs):
                break
            idx = [by_head.get(id(n)) for n in refs]
            if any(i is None or i in shim or tails[i] is None for i in idx):
                break
            members += idx  # type: ignore[arg-type]
        else:
            spans = [s.edit for s in sites] + [e for i in members for e in tails[i] or ()]
            unsafe = any(_reads_ambient_state(model, uses[i], defaults_changed) for i in members)
            fix = (_to_edits(spans), "unsafe" if unsafe else "safe")
            out.update((i, fix) for i in members)
    return out


@dataclass(frozen=True)
class _TorchImport:
    local: str  # the name `import torch` binds at module level
    statement: cst.Import


def _module_torch(model: FileModel) -> Optional[_TorchImport]:
    """The first module-level `import torch`: its name works in every function of the file,
    and at module level below it."""
    for stmt in model.imports:
        if not isinstance(stmt, cst.Import) or model.enclosing_function(stmt):
            continue
        if model.enclosing_class(stmt):
            continue
        for alias in stmt.names:
            name = dotted(alias.name) or ""
            if alias.asname is None and name.split(".")[0] == "torch":
                local = "torch"
            elif name == "torch":
                local = _local(alias)
            else:
                continue
            if model.names.qualname(cst.Name(local)) == "torch":
                return _TorchImport(local, stmt)
    return None


def _runs_at_import(model: FileModel, node: cst.CSTNode) -> bool:
    """Outside any function or lambda body (a decorator runs where its function is defined)."""
    child = node
    for anc in model.ancestors(node):
        if isinstance(anc, (cst.FunctionDef, cst.Lambda)) and child is anc.body:
            return False
        child = anc
    return True


def _torch_name(
    model: FileModel, scopes: Scopes, use: Use, module_torch: Optional[_TorchImport]
) -> Optional[str]:
    """How the fixed call names torch: through its own head when that is torch, else through
    a module-level `import torch` that has run by the time the call does and that nothing
    else named like it hides there."""
    head = _head(use.ref)
    if model.qualname(head) == "torch":
        return head.value
    if module_torch is None:
        return None
    if _runs_at_import(model, use.node) and not model.precedes(module_torch.statement, use.node):
        return None
    if scopes.reaching(module_torch.local, use.node) != {"torch"}:
        return None
    return module_torch.local


def _one_binding(scopes: Scopes, name: cst.Name) -> bool:
    """Whether a use of `name` can reach one binding only: a use that may mean two things is
    never rewritten, nor one whose name is declared `global` or `nonlocal` somewhere."""
    found = scopes.reaching(name.value, name)
    return len(found) == 1 and UNKNOWN not in found


def _references(model: FileModel, local: str) -> list[cst.Name]:
    return [n for n in model.name_nodes.get(local, []) if _is_reference(model, n)]


def _fixes(model: FileModel, scopes: Scopes, uses: list[Use], shim: set[int]) -> dict[int, Fix]:
    tails = {i: _argument_edits(model, u) for i, u in enumerate(uses)}
    defaults_changed = any(model.callee(c) in AMBIENT_SETTERS for c in model.calls)
    grouped = _import_rewrites(model, scopes, uses, tails, shim, defaults_changed)
    module_torch = _module_torch(model)
    fixes: dict[int, Fix] = {}
    for i, use in enumerate(uses):
        tail = tails[i]
        if i in shim or tail is None or not _one_binding(scopes, _head(use.ref)):
            continue
        applicability: Applicability
        if i in grouped:
            edits, applicability = grouped[i]
        else:
            torch_name = _torch_name(model, scopes, use, module_torch)
            if torch_name is None:
                continue
            callee = _replace(model, use.ref, f"{torch_name}.amp.{use.old.name}")
            edits = _to_edits([callee, *tail])
            unsafe = _reads_ambient_state(model, use, defaults_changed)
            applicability = "unsafe" if unsafe else "safe"
        fixes[i] = Fix(_fix_message(use.old), edits, applicability)
    return fixes


def _fix_message(old: Deprecated) -> str:
    if old.takes_device_type:
        return f'Use `torch.amp.{old.name}(device_type="{old.device}")`'
    return f'Use `torch.amp.{old.name}("{old.device}", ...)`'


@check("AMP401", "AMP402", "AMP403", "AMP404")
def deprecated_torch_amp(model: FileModel) -> Iterator[Finding]:
    every = list(_uses(model))
    uses = [u for u in every if u.old.replaceable_on(model.targets.torch)]
    scopes = Scopes(model)
    shim = {i for i, u in enumerate(uses) if _in_shim(model, u.node)}
    fixes = _fixes(model, scopes, uses, shim)
    for i, use in enumerate(uses):
        if i not in shim:
            yield model.finding(use.old.code, use.node, use.old.message(), fixes.get(i))
    yield from _unused_imports(model, scopes, {id(_head(u.ref)) for u in every})


# -- imports no call site reports ----------------------------------------------------------------
def _unused_imports(model: FileModel, scopes: Scopes, used: set[int]) -> Iterator[Finding]:
    """AMP40x at `from torch.cuda.amp import X` when no reference of X is a call site (X only
    annotates, is re-exported, or is unused), outside compatibility shims."""
    for stmt in model.imports:
        if not isinstance(stmt, cst.ImportFrom) or stmt.relative or stmt.module is None:
            continue
        if isinstance(stmt.names, cst.ImportStar) or _in_shim(model, stmt):
            continue
        module = dotted(stmt.module)
        bound = [(a, _local(a), DEPRECATED.get(f"{module}.{dotted(a.name)}")) for a in stmt.names]
        if not any(old is not None and old.replaceable_on(model.targets.torch) for _, _, old in bound):
            continue  # nothing it imports could be reported: its references need not be found
        refs = {local: _reaching_references(model, scopes, a, stmt) for a, local, _ in bound}
        called = {local for local, names in refs.items() if any(id(n) in used for n in names)}
        fix = _import_move(model, scopes, stmt, refs) if not called else None
        for alias, local, old in bound:
            if old is not None and old.replaceable_on(model.targets.torch) and local not in called:
                message = f"`{old.module}.{old.name}` is deprecated; import `torch.amp.{old.name}` instead"
                yield model.finding(old.code, alias, message, fix)


def _reaching_references(
    model: FileModel, scopes: Scopes, alias: cst.ImportAlias, stmt: cst.ImportFrom
) -> list[cst.Name]:
    """The uses of the name an import binds that can reach that import."""
    local, key = _local(alias), import_key(alias, stmt)
    return [
        n for n in _references(model, local) if not scopes.binds(n) and key in scopes.reaching(local, n)
    ]


def _import_move(
    model: FileModel, scopes: Scopes, stmt: cst.ImportFrom, refs: dict[str, list[cst.Name]]
) -> Optional[Fix]:
    """`from torch.cuda.amp import X` -> `from torch.amp import X`: offered when every name the
    statement binds exists in torch.amp and each reference can only mean this import; safe
    only when every name is used, in annotations alone, and not exported."""
    module = dotted(stmt.module) if stmt.module is not None else None
    names = stmt.names if not isinstance(stmt.names, cst.ImportStar) else ()
    if module not in _MODULES or not all(dotted(a.name) in movable(module, model.targets.torch) for a in names):
        return None
    if not all(_one_binding(scopes, n) for found in refs.values() for n in found):
        return None
    exported = _exports(model) & set(refs) or model.path.endswith("__init__.py") or any(
        a.asname is not None and dotted(a.name) == _local(a) for a in names
    )
    annotations_only = all(found and all(_in_annotation(model, n) for n in found) for found in refs.values())
    applicability: Applicability = "safe" if annotations_only and not exported else "unsafe"
    edit = _to_edits([_replace(model, stmt.module, "torch.amp")])  # type: ignore[arg-type]
    return Fix(f"Import from `torch.amp` instead of `{module}`", edit, applicability)


def _in_annotation(model: FileModel, name: cst.Name) -> bool:
    return any(isinstance(anc, cst.Annotation) for anc in model.ancestors(name))


def _exports(model: FileModel) -> set[str]:
    """The names a module-level `__all__` lists."""
    out: set[str] = set()
    for node in model.assigns:
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        value = node.value
        if any(isinstance(t, cst.Name) and t.value == "__all__" for t in targets) and isinstance(
            value, (cst.List, cst.Tuple, cst.Set)
        ):
            out.update(literal(e.value) for e in value.elements if isinstance(e.value, cst.SimpleString))
    return out


# -- AMP405 -----------------------------------------------------------------------------------
@check("AMP405")
def apex_amp(model: FileModel) -> Iterator[Finding]:
    targets: list[tuple[cst.CSTNode, Optional[str]]] = [(c, model.callee(c)) for c in model.calls]
    targets += [
        (d.decorator, model.qualname(d.decorator)) for fn in model.functions for d in fn.decorators
    ]
    for node, name in targets:
        if name is not None and name.startswith("apex.amp.") and not _in_shim(model, node):
            yield model.finding(
                "AMP405",
                node,
                f"`{name}` is NVIDIA Apex AMP, deprecated in favour of native "
                "`torch.autocast` with `torch.amp.GradScaler`",
            )
