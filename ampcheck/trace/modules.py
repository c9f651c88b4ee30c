"""Module attribution: which `nn.Module` (by state_dict-style name) each op ran in.

Forward: global module forward pre/post hooks keep a stack of module names.

Backward: autograd numbers the nodes it creates with a per-thread, increasing sequence
number, so each forward module call owns the interval of sequence numbers created between
its pre and post hooks. The tracker keeps these intervals (in call order, with their parent)
and attributes a backward op through the node now running
(`torch._C._current_autograd_node()`): the innermost interval containing its number. A
gradient-accumulation node (AccumulateGrad) is attributed to the module owning its
parameter. This costs O(1) per module call, with no graph walk. The intervals are dropped
when a new top-level forward starts after a backward ran (so gradient accumulation and GAN
steps keep theirs until their backward), and are only kept while grad mode is on.

Recompute: a module entered while the autograd engine runs (activation checkpointing
re-running forward) is recompute; its ops are attributed through the stack.

Names: a module first seen at the top of the stack is a root, named by its class (`MLP`;
the second root of the same class `Linear#2`, and so on); its
descendants get their state_dict names relative to it (`encoder.layers.3.attn`), and
`classes` keeps each name's class for the report (`lm_head (Linear)`). No tensors
are held: modules and parameters are known by weak reference.
"""
from __future__ import annotations

import bisect
import sys
import weakref
from typing import Any, Callable, Optional

import torch
from torch.nn.modules import module as nn_module

_graph_task_id = torch._C._current_graph_task_id
_sequence_nr = torch._C._autograd._get_sequence_nr
_grad_enabled = torch.is_grad_enabled
_compiling = torch.compiler.is_compiling
ACCUMULATE_GRAD_SEQ = 2**64 - 1  # AccumulateGrad nodes carry UINT64_MAX
MAX_INTERVALS = 1_000_000  # forward calls kept without any backward (grad on, no backward)


class ModuleTracker:
    """Keeps the current module stack; the tracer reads `current`, `recompute_depth`."""

    def __init__(self, on_compiled: Callable[[], None]) -> None:
        self._on_compiled = on_compiled
        # entries: (name, entered_in_backward, interval index or -1)
        self.stack: list[tuple[str, bool, int]] = []
        self.current: Optional[str] = None  # the innermost module now running forward
        self.recompute_depth = 0
        # id(module) -> (weak reference, name): no weakref is created per call, and a dead
        # module's reused id is caught by the reference check
        self._names: dict[int, tuple[weakref.ref, str]] = {}
        self._params: dict[int, tuple[weakref.ref, str]] = {}  # id(parameter) -> (weak ref, name)
        self.roots: list[str] = []
        self.classes: dict[str, str] = {}  # module name -> class name, for the report's rows
        self.compiled: set[str] = set()  # names of torch.compile'd modules: compiled regions
        self._handles: list[Any] = []
        # intervals of autograd sequence numbers per forward module call, in call order
        self._starts: list[int] = []
        self._intervals: list[list] = []  # [end (exclusive) or None while open, name, parent index]
        self.backward_ran = False

    def start(self) -> None:
        self._handles = [
            nn_module.register_module_forward_pre_hook(self._pre),
            nn_module.register_module_forward_hook(self._post, always_call=True),
        ]

    def stop(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []

    @property
    def hooked(self) -> bool:
        """Whether the module hooks are registered now."""
        return bool(self._handles)

    def add_root(self, root: torch.nn.Module) -> None:
        """Name `root` and all its descendants; their parameters become identifiable weights."""
        if self._known(root) is not None:
            return
        root_name = type(compiled_module(root) or root).__name__
        taken = self.roots.count(root_name) + sum(r.startswith(f"{root_name}#") for r in self.roots)
        if taken:  # several roots of one class (standalone layers): tell them apart
            root_name = f"{root_name}#{taken + 1}"
        self.roots.append(root_name)
        for name, mod in root.named_modules(remove_duplicate=False):
            if self._known(mod) is None:
                self._remember(mod, name or root_name)
        for name, param in root.named_parameters(remove_duplicate=False):
            # a root's own parameters are named after it, as the root module is
            if self.param_name(param) is None:
                self._params[id(param)] = (weakref.ref(param), name if "." in name else f"{root_name}.{name}")

    def param_name(self, param: Any) -> Optional[str]:
        """State_dict name of a parameter of a known root, else None (checked by weak
        reference, so a dead parameter's reused id names nothing)."""
        entry = self._params.get(id(param))
        return entry[1] if entry is not None and entry[0]() is param else None

    def named_modules(self) -> list[tuple[str, torch.nn.Module]]:
        """Every module named so far that is still alive, with its name (for observers that
        read module configuration when the trace stops: FSDP policies, float8 linears)."""
        alive = ((name, ref()) for ref, name in self._names.values())
        return [(name, mod) for name, mod in alive if mod is not None]

    def name_of(self, mod: torch.nn.Module) -> str:
        """The module's name; a module not seen before is named as `_pre` names it."""
        return self._name(mod)

    def _known(self, mod: torch.nn.Module) -> Optional[str]:
        entry = self._names.get(id(mod))
        return entry[1] if entry is not None and entry[0]() is mod else None

    def _name(self, mod: torch.nn.Module) -> str:
        name = self._known(mod)
        if name is not None:
            return name
        if self.stack:  # created on the fly inside a known module's forward
            name = f"{self.stack[-1][0]}.{type(compiled_module(mod) or mod).__name__}"
            self._remember(mod, name)
            return name
        self.add_root(mod)
        return self._names[id(mod)][1]

    def _remember(self, mod: torch.nn.Module, name: str) -> None:
        """Name `mod`; a torch.compile'd module is named, and classed, as the module it compiles."""
        self._names[id(mod)] = (weakref.ref(mod), name)
        inner = compiled_module(mod)
        self.classes.setdefault(name, type(inner or mod).__name__)
        if inner is not None:
            self.compiled.add(name)
            self._on_compiled()

    def _pre(self, mod: torch.nn.Module, args: Any) -> None:
        if _compiling():  # inlined by Dynamo into a graph it compiles: leave no trace there
            return
        in_backward = _graph_task_id() != -1
        if in_backward:
            self.recompute_depth += 1
        elif not self.stack and (self.backward_ran or len(self._starts) > MAX_INTERVALS):
            self._starts.clear()
            self._intervals.clear()
            self.backward_ran = False
        entry = self._names.get(id(mod))  # inlined `_known`: this runs on every module call
        name = entry[1] if entry is not None and entry[0]() is mod else self._name(mod)
        index = -1
        if _grad_enabled():
            index = len(self._intervals)
            self._starts.append(_sequence_nr())
            self._intervals.append([None, name, self.stack[-1][2] if self.stack else -1])
        self.stack.append((name, in_backward, index))
        self.current = name

    def _post(self, mod: torch.nn.Module, args: Any, output: Any) -> None:
        if _compiling():
            return
        stack = self.stack
        if not stack:
            return
        _, in_backward, index = stack.pop()
        self.current = stack[-1][0] if stack else None
        if in_backward:
            self.recompute_depth -= 1
        if index >= 0:
            self._intervals[index][0] = _sequence_nr()

    def module_of(self, node: Any) -> Optional[str]:
        """The module whose forward created `node` (the autograd node running backward).
        The caller sets `backward_ran` (inlined on the tracer's hot path)."""
        seq = node._sequence_nr()
        if seq == ACCUMULATE_GRAD_SEQ:
            name = self.param_name(getattr(node, "variable", None))
            return name.rpartition(".")[0] if name else None
        i = bisect.bisect_right(self._starts, seq) - 1
        intervals = self._intervals
        while i >= 0:
            end, name, parent = intervals[i]
            if end is None or seq < end:
                return name
            i = parent
        return None


def compiled_module(mod: torch.nn.Module) -> Optional[torch.nn.Module]:
    """The module a `torch.compile(module)` wrapper compiles; None for any other module.
    Without torch._dynamo imported nothing has been compiled, so it is not imported here."""
    eval_frame = sys.modules.get("torch._dynamo.eval_frame")
    if eval_frame is not None and isinstance(mod, eval_frame.OptimizedModule):
        return mod._orig_mod
    return None
