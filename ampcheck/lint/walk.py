"""A node's children in libcst's own order, without libcst's cost; and its code children,
without the layout nodes (whitespace, comments, punctuation) that make most of a tree.

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
from typing import Any, Callable, Iterator, Optional, Sequence

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
    return _read(node, names, _IS_NODE, _is_node)


def _read(node: cst.CSTNode, names: tuple[str, ...], known: dict[type, bool], kept: Callable[[type], bool]) -> list[cst.CSTNode]:
    """The nodes the fields `names` of `node` hold (each field a node, a sequence of them,
    None or MaybeSentinel) whose type `kept` accepts (`known`: its answers so far)."""
    out: list[cst.CSTNode] = []
    for name in names:
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            for item in value:
                k = type(item)
                if known[k] if k in known else kept(k):
                    out.append(item)
        elif known[kind] if kind in known else kept(kind):
            out.append(value)
    return out


# Nodes that hold only layout: whitespace, comments, newlines and punctuation. They are two
# thirds of a tree's nodes, and no program fact is read from them (the source positions
# count their line breaks, walking `children`).
_TRIVIA: tuple[type, ...] = (
    cst.BaseParenthesizableWhitespace, cst.TrailingWhitespace, cst.Newline, cst.EmptyLine, cst.Comment,
    cst.Comma, cst.Dot, cst.AssignEqual, cst.Colon, cst.Semicolon, cst.LeftParen, cst.RightParen,
    cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
)
# node class -> its child fields that may hold a node other than layout, in visiting order
# (None: ask libcst for each node's children, then drop the layout)
_CODE_FIELDS: dict[type, Optional[tuple[str, ...]]] = {}
_IS_CODE: dict[type, bool] = {}


def _bears_code(annotation: Any) -> bool:
    if isinstance(annotation, type):
        return issubclass(annotation, cst.CSTNode) and not issubclass(annotation, _TRIVIA)
    return any(_bears_code(arg) for arg in typing.get_args(annotation))


def _code_fields(node: cst.CSTNode) -> Optional[tuple[str, ...]]:
    cls = type(node)
    names = _FIELDS[cls] if cls in _FIELDS else _fields(node)
    found = None
    if names is not None:
        hints = typing.get_type_hints(cls)
        found = tuple(name for name in names if _bears_code(hints.get(name)))
    _CODE_FIELDS[cls] = found
    return found


def _is_code(kind: type) -> bool:
    found = _IS_CODE.get(kind)
    if found is None:
        found = _IS_CODE[kind] = issubclass(kind, cst.CSTNode) and not issubclass(kind, _TRIVIA)
    return found


def code_children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """`children(node)` less the layout nodes: what a walk for the program's facts enters."""
    cls = type(node)
    names = _CODE_FIELDS[cls] if cls in _CODE_FIELDS else _code_fields(node)
    if names is None:
        return [c for c in node.children if _is_code(type(c))]
    return _read(node, names, _IS_CODE, _is_code)


def preorder(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node under it but layout, each before its children, in libcst's
    visiting order."""
    pending = [node]
    while pending:
        cur = pending.pop()
        yield cur
        pending.extend(reversed(code_children(cur)))
