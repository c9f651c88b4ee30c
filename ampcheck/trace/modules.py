"""Module attribution: which `nn.Module` (by state_dict-style name) each op ran in.

Forward: global module forward pre/post hooks keep a stack of module names. Backward: when a
module's forward returns, the autograd nodes it created (those with a sequence number at or
above the one current when it was entered) are tagged with its name in `node.metadata`; a
backward op is then attributed through `torch._C._current_autograd_node()`. Inner modules tag
first, so every node carries its innermost module. Recompute: a module entered while the
autograd engine is running (activation checkpointing re-running forward) is recompute.

Names: a module first seen at the top of the stack is a root, named by its class (`MLP`);
its descendants get their state_dict names relative to it (`encoder.layers.3.attn`). No
tensors are held: names live in a WeakKeyDictionary keyed by module, and parameters are
known by `id()` for as long as their root module lives.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, Optional

import torch
from torch.nn.modules import module as nn_module

# key in autograd Node.metadata naming the module that created the node
NODE_KEY = "ampcheck.module"

_graph_task_id = torch._C._current_graph_task_id
_sequence_nr = torch._C._autograd._get_sequence_nr


class ModuleTracker:
    """Keeps the current module stack; the tracer reads `stack`, `recompute_depth`."""

    def __init__(self, on_compiled: Callable[[], None]) -> None:
        self._on_compiled = on_compiled
        # entries: (name, entered_in_backward, first sequence number)
        self.stack: list[tuple[str, bool, int]] = []
        self.recompute_depth = 0
        self._names: "weakref.WeakKeyDictionary[torch.nn.Module, str]" = weakref.WeakKeyDictionary()
        self.param_names: dict[int, str] = {}
        self.roots: list[str] = []
        self._handles: list[Any] = []

    def start(self) -> None:
        self._handles = [
            nn_module.register_module_forward_pre_hook(self._pre),
            nn_module.register_module_forward_hook(self._post, always_call=True),
        ]

    def stop(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def current(self) -> Optional[str]:
        return self.stack[-1][0] if self.stack else None

    def add_root(self, root: torch.nn.Module) -> None:
        """Name `root` and all its descendants; their parameters become identifiable weights."""
        if root in self._names:
            return
        root_name = type(root).__name__
        self.roots.append(root_name)
        for name, mod in root.named_modules(remove_duplicate=False):
            self._names.setdefault(mod, name or root_name)
        for name, param in root.named_parameters(remove_duplicate=False):
            self.param_names.setdefault(id(param), name)

    def _name(self, mod: torch.nn.Module) -> str:
        name = self._names.get(mod)
        if name is not None:
            return name
        if type(mod).__name__ == "OptimizedModule":
            self._on_compiled()
        if self.stack:  # created on the fly inside a known module's forward
            name = f"{self.stack[-1][0]}.{type(mod).__name__}"
            self._names[mod] = name
            return name
        self.add_root(mod)
        return self._names[mod]

    def _pre(self, mod: torch.nn.Module, args: Any) -> None:
        in_backward = _graph_task_id() != -1
        if in_backward:
            self.recompute_depth += 1
        self.stack.append((self._name(mod), in_backward, _sequence_nr()))

    def _post(self, mod: torch.nn.Module, args: Any, output: Any) -> None:
        if not self.stack:
            return
        name, in_backward, first_seq = self.stack.pop()
        if in_backward:
            self.recompute_depth -= 1
        elif torch.is_grad_enabled():
            _tag_nodes(output, name, first_seq)


def backward_module() -> Optional[str]:
    """The module whose forward created the autograd node now running backward."""
    node = torch._C._current_autograd_node()
    if node is None:
        return None
    return node.metadata.get(NODE_KEY)


def _tag_nodes(output: Any, name: str, first_seq: int) -> None:
    todo = [t.grad_fn for t in _tensors(output) if t.grad_fn is not None]
    seen: dict[int, Any] = {}  # holds the nodes so their ids stay unique during the walk
    while todo:
        node = todo.pop()
        if id(node) in seen or node._sequence_nr() < first_seq:
            continue
        seen[id(node)] = node
        node.metadata.setdefault(NODE_KEY, name)
        todo.extend(nxt for nxt, _ in node.next_functions if nxt is not None)


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _tensors(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors(item)]
    return []
