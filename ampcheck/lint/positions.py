"""Source positions of a parsed module, computed only for the statements that are asked about.

libcst's PositionProvider generates the code of the whole file, recording the range of every
node: twice the cost of the parse itself, for the few nodes a file's findings sit on. Here the
range of a node comes from the innermost statement of an indented block (or of the module)
that holds it: that statement is generated alone, inside copies of the statements around it
whose indented blocks hold only its line of descent (a method of a 3,000-line class, one
statement of a long training loop), and its lines are shifted by those of the statements
left out before it. What libcst's codegen writes for a statement depends only on the
indentation of the blocks around it (kept), and the lines left out before it shift it down
and nothing else; so each range is the one PositionProvider gives
(tests/lint/test_positions.py compares every node).
"""
from __future__ import annotations

import dataclasses
import re
import typing
from typing import Iterator, Mapping, Optional, Sequence

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from ampcheck.lint.timings import Phase, timed
from ampcheck.lint.walk import children

# what PositionProvider counts as a line break
_NEWLINE = re.compile(r"\r\n?|\n")

# where a range is computed: the statement generated alone, the nodes from the module-level
# statement down to it (outermost first), the lines before it
_Place = tuple[cst.BaseStatement, tuple[cst.CSTNode, ...], int]


class StatementPositions(Mapping[cst.CSTNode, CodeRange]):
    """What PositionProvider gives for `module`'s nodes, statement by statement on demand;
    `parents` leads each node (but the module) to its parent."""

    def __init__(self, module: cst.Module, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> None:
        self.module, self.parents = module, parents
        self._ranges: dict[int, tuple[dict[cst.CSTNode, CodeRange], int]] = {}  # id(statement) -> relative ranges, shift
        self._lines_before: dict[int, list[int]] = {}  # id(body) -> lines before each of its statements
        self._whole: Optional[dict[cst.CSTNode, CodeRange]] = None

    @timed(Phase.POSITIONS)
    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        place = self._place(node)
        if place is None:
            return self._all()[node]  # the module, or a line of its header or footer
        statement, outer, shift = place
        found = self._ranges.get(id(statement))
        if found is None:
            found = self._ranges[id(statement)] = (self._alone(statement, outer), shift)
        relative, shift = found
        r = relative[node]
        if not shift:
            return r
        return CodeRange(CodePosition(r.start.line + shift, r.start.column), CodePosition(r.end.line + shift, r.end.column))

    def __iter__(self) -> Iterator[cst.CSTNode]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def _place(self, node: cst.CSTNode) -> Optional[_Place]:
        """The innermost statement of an indented block (or the module body) that holds
        `node`, the nodes from the module-level statement down to it, and the lines before
        it; None for a node of no module-level statement."""
        path = [node]
        while path[-1] is not self.module:
            up = self.parents.get(path[-1])
            if up is None:
                raise KeyError(node)  # not a node of this module
            path.append(up)
        path.reverse()  # module, module-level statement, ..., node
        top = _index(self.module.body, path[1]) if len(path) > 1 else None
        if top is None:
            return None
        shift = self._before(self.module.body, self.module.header)[top]
        stop = 1
        for k in range(2, len(path) - 1):
            block = path[k]
            if isinstance(block, cst.IndentedBlock):
                i = _index(block.body, path[k + 1])
                if i is None:
                    break  # a line of the block's header or footer
                shift += self._before(block.body)[i]
                stop = k + 1
        statement = path[stop]
        assert isinstance(statement, cst.BaseStatement)
        return statement, tuple(path[1:stop]), shift

    def _before(self, body: Sequence[cst.BaseStatement], header: Sequence[cst.EmptyLine] = ()) -> list[int]:
        """The lines before each statement of a body, counted from the body's first line."""
        found = self._lines_before.get(id(body))
        if found is None:
            line = sum(line_breaks(h) for h in header)
            found = []
            for s in body:
                found.append(line)
                line += line_breaks(s)
            self._lines_before[id(body)] = found
        return found

    def _alone(self, statement: cst.BaseStatement, outer: tuple[cst.CSTNode, ...]) -> dict[cst.CSTNode, CodeRange]:
        """The ranges of a statement's nodes, generated inside copies of the nodes around it
        whose indented blocks hold only the statement's line of descent."""
        line = (*outer, statement)
        inner: cst.CSTNode = statement
        for owner, child in zip(reversed(outer), reversed(line[1:])):
            inner = owner.with_changes(body=[inner]) if isinstance(owner, cst.IndentedBlock) else _replaced(owner, child, inner)
        alone = self.module.with_changes(body=[inner], header=(), footer=(), has_trailing_newline=True)
        return dict(MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider))

    @timed(Phase.POSITIONS)
    def _all(self) -> dict[cst.CSTNode, CodeRange]:
        if self._whole is None:
            self._whole = dict(MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider))
        return self._whole


def _replaced(parent: cst.CSTNode, child: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    """`parent` with `child` (a field of it, or in a sequence field) replaced by `new`."""
    for f in dataclasses.fields(parent):
        value = getattr(parent, f.name)
        if value is child:
            return parent.with_changes(**{f.name: new})
        if isinstance(value, (tuple, list)) and any(v is child for v in value):
            return parent.with_changes(**{f.name: [new if v is child else v for v in value]})
    raise KeyError(child)


def _index(body: Sequence[cst.CSTNode], node: cst.CSTNode) -> Optional[int]:
    """The place of `node` itself (not of an equal node) in a body."""
    return next((i for i, s in enumerate(body) if s is node), None)


def line_breaks(node: cst.CSTNode) -> int:
    """The line breaks in `module.code_for_node(node)`, counted from the tree without
    generating the code (which costs twice as much): each `Newline` node writes one, and
    tokens written as they are (strings, whitespace with a backslash continuation) write
    those they hold; an indented block with no statement gets a `pass` line."""
    count = 0
    pending = [node]
    texts = _TEXT_FIELDS
    while pending:
        n = pending.pop()
        kind = type(n)
        if kind is cst.Newline:
            count += 1
            continue
        for name in texts[kind] if kind in texts else _text_fields(kind):
            value = getattr(n, name)
            if "\n" in value or "\r" in value:
                count += len(_NEWLINE.findall(value))
        if kind is cst.IndentedBlock and not n.body:
            count += 1
        pending.extend(children(n))
    return count


# node class -> its fields written into the code as they are (str-typed)
_TEXT_FIELDS: dict[type, tuple[str, ...]] = {}


def _text_fields(kind: type) -> tuple[str, ...]:
    hints = typing.get_type_hints(kind)
    found = _TEXT_FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind) if hints.get(f.name) is str)
    return found
