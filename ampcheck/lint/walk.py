"""A node's children in libcst's own order, without libcst's cost.

`CSTNode.children` and `CSTNode.visit` rebuild every node they pass (each
`_visit_and_replace_children` constructs and validates a new node, even for a read-only
visitor), which would make the one indexing traversal of the program model several times
slower than reading the tree. Here each node class's child fields are listed once, in the
order libcst visits them (recorded from one `_visit_and_replace_children` call with a visitor
that does not descend), and `children` reads those fields directly. A class that visits a
node-bearing field only conditionally (an f-string expression's format spec) cannot be listed
from an instance that lacks it; nodes of such a class ask libcst for their `children`, which
is exact.
"""
from __future__ import annotations

import dataclasses
import typing
from typing import Any, Iterator, Optional, Sequence

import libcst as cst

# node class -> its child fields in visiting order, or None: ask libcst for each node
_FIELDS: dict[type, Optional[tuple[str, ...]]] = {}
# type of a field's value -> whether it is a node (libcst's classes are ABCs, whose
# isinstance is slow; a field holds a node, a sequence of them, None or MaybeSentinel)
_IS_NODE: dict[type, bool] = {}


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


def _is_node(kind: type) -> bool:
    found = _IS_NODE.get(kind)
    if found is None:
        found = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return found


def children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """`node.children`: the same nodes in the same order, read from the node's fields."""
    cls = type(node)
    names = _FIELDS[cls] if cls in _FIELDS else _fields(node)
    if names is None:
        return node.children
    out: list[cst.CSTNode] = []
    is_node = _IS_NODE
    for name in names:
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            for item in value:
                k = type(item)
                if is_node[k] if k in is_node else _is_node(k):
                    out.append(item)
        elif is_node[kind] if kind in is_node else _is_node(kind):
            out.append(value)
    return out


def preorder(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node under it, each before its children, in libcst's visiting order."""
    pending = [node]
    while pending:
        cur = pending.pop()
        yield cur
        pending.extend(reversed(children(cur)))
