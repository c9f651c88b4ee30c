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

import ast
import dataclasses
import re
import typing
import warnings
from typing import Iterator, Mapping, Optional, Sequence, Union

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
    `parents` leads each node (but the module) to its parent. Given the `source` the module
    was parsed from, the lines before a statement are read from CPython's parse of it
    (`_CpythonLines`), a tenth of the cost of counting them in the tree."""

    def __init__(
        self, module: cst.Module, parents: Mapping[cst.CSTNode, cst.CSTNode], source: Optional[str] = None,
    ) -> None:
        self.module, self.parents = module, parents
        self._cpython = _CpythonLines(source) if source is not None else None
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
        stop = 1
        blocks: list[tuple[int, int]] = []  # (place in the path, index in its body) of each block entered
        for k in range(2, len(path) - 1):
            block = path[k]
            if isinstance(block, cst.IndentedBlock):
                i = _index(block.body, path[k + 1])
                if i is None:
                    break  # a line of the block's header or footer
                blocks.append((k, i))
                stop = k + 1
        counted = self._cpython.shift(path[: stop + 1], top, blocks) if self._cpython is not None else None
        if counted is not None:
            shift = counted
        else:
            shift = self._before(self.module.body, self.module.header)[top]
            for k, i in blocks:
                shift += self._before(path[k].body)[i]  # type: ignore[attr-defined]
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


# a statement of CPython's tree, or the statements of one of its bodies
_Counterpart = Union[ast.AST, list]


class _CpythonLines:
    """The lines before a statement, from the line numbers of CPython's parse of the source
    (parsed once, when a position is first asked for). libcst's statement `s` starts, with
    its leading comment and blank lines (one line each) and those before its first
    decorator, on the line of its first token less those lines; the first token is on the
    line CPython gives the statement (its first decorator's, for a decorated definition).
    Each libcst statement is found in CPython's tree by its place, a line of `a; b` standing
    for as many statements there. None wherever the two trees do not line up as expected
    (or CPython cannot parse the text): the tree is counted then."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._tree: Optional[ast.Module] = None
        self._failed = False
        self._lines: Optional[list[str]] = None

    def shift(self, path: Sequence[cst.CSTNode], top: int, blocks: Sequence[tuple[int, int]]) -> Optional[int]:
        """`_place`'s shift: the lines before the module-level statement `path[1]` (the
        `top`-th of the module), plus, for each indented block `path[k]` entered at its
        `i`-th statement, the lines from the block's first statement to that one."""
        tree = self._parsed()
        if tree is None:
            return None
        counterparts = self._counterparts(path, tree.body, top)
        if counterparts is None:
            return None
        start = self._start(path[1], counterparts[1])
        if start is None:
            return None
        shift = start - 1
        for k, i in blocks:
            body = path[k].body  # type: ignore[attr-defined]
            listed = counterparts[k]
            if not isinstance(listed, list) or not listed:
                return None
            first, here = self._start(body[0], listed[0]), self._start(path[k + 1], counterparts[k + 1])
            if first is None or here is None:
                return None
            shift += here - first
        return shift

    def _parsed(self) -> Optional[ast.Module]:
        if self._tree is None and not self._failed:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    self._tree = compile(  # (a notebook's text may await at the top level)
                        self.source, "<positions>", "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True,
                    )
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._failed = True
        return self._tree

    def _counterparts(self, path: Sequence[cst.CSTNode], body: list, top: int) -> Optional[list[Optional[_Counterpart]]]:
        """What stands in CPython's tree for each node of `path` (from the module-level
        statement on): a statement, or a body's list of statements."""
        found: list[Optional[_Counterpart]] = [None, _statement_at(path[0].body, body, top)]  # type: ignore[attr-defined]
        for parent, child in zip(path[1:], path[2:]):
            found.append(_counterpart(parent, found[-1], child))
            if found[-1] is None:
                return None
        return found if found[1] is not None else None

    def _start(self, statement: cst.CSTNode, node: Optional[_Counterpart]) -> Optional[int]:
        """The line libcst's code of `statement` starts on (its leading lines first)."""
        if not isinstance(node, ast.stmt):
            return None
        leading = len(statement.leading_lines)  # type: ignore[attr-defined]
        decorators = getattr(statement, "decorators", ())
        if decorators:
            listed = getattr(node, "decorator_list", None)
            if not listed:
                return None
            line = listed[0].lineno
            if not self._line(line).lstrip().startswith("@"):
                return None  # (`@(\n name)`: the expression starts on a later line)
            return line - leading - len(decorators[0].leading_lines)
        return node.lineno - leading

    def _line(self, number: int) -> str:
        if self._lines is None:
            self._lines = _NEWLINE.split(self.source)
        return self._lines[number - 1] if 0 < number <= len(self._lines) else ""


# libcst compound statement -> the CPython node types that stand for it
_COMPOUND: dict[type, tuple[type, ...]] = {
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
    cst.ClassDef: (ast.ClassDef,),
    cst.If: (ast.If,),
    cst.For: (ast.For, ast.AsyncFor),
    cst.While: (ast.While,),
    cst.With: (ast.With, ast.AsyncWith),
    cst.Try: (ast.Try,),
    cst.TryStar: (getattr(ast, "TryStar", ast.Try),),
    cst.Match: (ast.Match,),
}


def _statement_at(body: Sequence[cst.CSTNode], listed: list, i: int) -> Optional[ast.stmt]:
    """CPython's statement for the `i`-th statement of a libcst body (`listed`: CPython's
    statements of that body), checked to be of a kind that stands for it."""
    place = sum(len(s.body) if isinstance(s, cst.SimpleStatementLine) else 1 for s in body[:i])
    if place >= len(listed):
        return None
    node = listed[place]
    kinds = _COMPOUND.get(type(body[i]))
    if kinds is None:
        return node if isinstance(body[i], cst.SimpleStatementLine) and type(node) not in _COMPOUND_AST else None
    return node if isinstance(node, kinds) else None


_COMPOUND_AST = frozenset(t for kinds in _COMPOUND.values() for t in kinds)


def _counterpart(parent: cst.CSTNode, node: Optional[_Counterpart], child: cst.CSTNode) -> Optional[_Counterpart]:
    """What stands in CPython's tree for `child`, a child of `parent` (for which `node`
    stands) on the way down to a statement; None where the trees part."""
    if isinstance(node, list):
        if isinstance(parent, cst.IndentedBlock):
            i = _index(parent.body, child)
            return _statement_at(parent.body, node, i) if i is not None else None
        return node if isinstance(child, cst.IndentedBlock) else None  # (an `else:`'s block)
    if not isinstance(node, ast.AST):
        return None
    if isinstance(child, cst.IndentedBlock):
        return getattr(node, "body", None) if getattr(parent, "body", None) is child else None
    if isinstance(child, cst.Else):
        return getattr(node, "orelse", None)
    if isinstance(child, cst.Finally):
        return getattr(node, "finalbody", None)
    if isinstance(child, (cst.ExceptHandler, cst.ExceptStarHandler)):
        i = _index(getattr(parent, "handlers", ()), child)
        handlers = getattr(node, "handlers", [])
        return handlers[i] if i is not None and i < len(handlers) else None
    if isinstance(child, cst.MatchCase):
        i = _index(getattr(parent, "cases", ()), child)
        cases = getattr(node, "cases", [])
        return cases[i] if i is not None and i < len(cases) else None
    if isinstance(child, cst.If) and isinstance(parent, cst.If) and parent.orelse is child:
        orelse = getattr(node, "orelse", [])
        return orelse[0] if len(orelse) == 1 and isinstance(orelse[0], ast.If) else None  # (`elif`)
    return None


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
