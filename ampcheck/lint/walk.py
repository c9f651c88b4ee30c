"""Drive a libcst visitor over a tree in libcst's own order, without libcst's cost.

`CSTNode.visit` rebuilds every node it passes (each `_visit_and_replace_children` constructs
and validates a new node, even for a read-only visitor), which makes the one indexing
traversal of the program model several times slower than reading the tree. Here each node
class's child fields are listed once, in the order libcst visits them (recorded from one
`_visit_and_replace_children` call with a visitor that does not descend), and the walk reads
those fields directly. A class that visits a node-bearing field only conditionally (an
f-string expression's format spec) cannot be listed from an instance that lacks it; nodes of
such a class ask libcst for their `children`, which is exact.
"""
from __future__ import annotations

import dataclasses
import typing
from typing import Any, Optional

import libcst as cst

# node class -> its child fields in visiting order, or None: ask libcst for each node
_FIELDS: dict[type, Optional[tuple[str, ...]]] = {}


class _FieldRecorder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.names.append(attribute)


def _bears_nodes(annotation: Any) -> bool:
    if isinstance(annotation, type):
        return issubclass(annotation, cst.CSTNode)
    return any(_bears_nodes(arg) for arg in typing.get_args(annotation))


def _fields(node: cst.CSTNode) -> Optional[tuple[str, ...]]:
    cls = type(node)
    recorder = _FieldRecorder()
    node._visit_and_replace_children(recorder)
    names = tuple(dict.fromkeys(recorder.names))
    hints = typing.get_type_hints(cls)
    node_fields = {f.name for f in dataclasses.fields(cls) if _bears_nodes(hints.get(f.name))}
    order = names if node_fields <= set(names) else None
    _FIELDS[cls] = order
    return order


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """Call `visitor.on_visit` / `on_leave` for every node, exactly as `node.visit(visitor)`
    would for a visitor that always descends (the return value of on_visit is ignored)."""
    visitor.on_visit(node)
    cls = type(node)
    names = _FIELDS[cls] if cls in _FIELDS else _fields(node)
    if names is None:
        for child in node.children:
            walk(child, visitor)
    else:
        for name in names:
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                walk(value, visitor)
            elif isinstance(value, (tuple, list)):
                for item in value:
                    if isinstance(item, cst.CSTNode):
                        walk(item, visitor)
    visitor.on_leave(node)
