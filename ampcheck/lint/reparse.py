"""Parsing a buffer again after an edit, reusing what the edit did not touch.

An editor sends small edits to large files. libcst parses a 1,000-line file in about 0.1 s
and computes its positions in about 0.2 s: most of a re-analysis. Both are done here per
top-level statement: the statements before and after the edited span are the previous
parse's nodes, whose positions are already known up to a shift of lines, and only the
statements the edit touches are parsed again (and get positions when a check asks).

The result is the module a full parse gives: the re-parsed span must stand on its own (the
module's indentation and newline, no trailing comment lines of its own, a final newline),
its leading blank and comment lines go where a full parse puts them, and anything else
(an edit of the module's header or footer, a span that parses differently alone) parses
the whole text. tests/lint/test_reparse.py compares the two over many edits.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Mapping, Optional

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from ampcheck.lint.cstparse import parse_module
from ampcheck.lint.program import StatementPrograms
from ampcheck.lint.syntax import parses
from ampcheck.lint.tree import StatementIndexes


@dataclass
class _Statement:
    """A top-level statement of the current module, with what is known of it."""

    node: cst.BaseStatement
    length: int  # characters of its code, its leading blank and comment lines included
    lines: int  # lines of its code
    relative: Optional[dict[cst.CSTNode, CodeRange]] = None  # positions from its first line
    parses: Optional[bool] = None  # whether CPython's parser accepts its code alone, once asked


class Reparser:
    """The parse of one buffer, kept for its next text. Not thread-safe: one per buffer,
    used by one thread at a time."""

    def __init__(self) -> None:
        self.module: Optional[cst.Module] = None
        self._text = ""
        self._statements: list[_Statement] = []
        self._index: dict[cst.CSTNode, int] = {}  # statement node -> its place in the body
        self._starts: list[int] = []  # each statement's first line
        self._full: Optional[dict[cst.CSTNode, CodeRange]] = None  # header/footer nodes' positions
        self.indexes = StatementIndexes()  # the tree index of each statement, kept with its node
        self.programs = StatementPrograms()  # the step programs of each definition, kept likewise

    def parse(self, text: str) -> cst.Module:
        """The module of `text`; raises libcst's ParserSyntaxError as `parse_module` does."""
        if text == self._text and self.module is not None:
            return self.module
        reused = self._reuse(text) if self.module is not None else None
        if reused is None:
            module = parse_module(text)
            reused = module, [self._measure(module, s) for s in module.body]
        self.module, statements = reused
        self._text = text
        self._statements = statements
        self._index = {s.node: i for i, s in enumerate(statements)}
        self._starts = []
        line = 1 + len(self.module.header)
        for s in statements:
            self._starts.append(line)
            line += s.lines
        self._full = None
        return self.module

    def parses(self, text: str) -> bool:
        """Whether CPython's parser accepts `text`, answered statement by statement: only the
        top-level statements not asked about before are parsed (syntax.py's `parses` says
        why that is the answer for the whole text). False also when libcst cannot parse it:
        the caller then asks CPython about the whole text, for its error."""
        try:
            self.parse(text)
        except (cst.ParserSyntaxError, RecursionError, ValueError):
            return False
        spans = list(self._spans())
        end = spans[-1][1] if spans else _header_length(self.module)
        if not parses(text[: _header_length(self.module)] + text[end:]):  # the comment lines around
            return False
        for s, (start, stop) in zip(self._statements, spans):
            if s.parses is None:
                s.parses = parses(text[start:stop])
            if not s.parses:
                return False
        return True

    def positions(self, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> "Positions":
        """Positions of the current module's nodes, `parents` leading each to its statement."""
        return Positions(self, parents)

    # -- reuse -------------------------------------------------------------------------------------
    def _reuse(self, text: str) -> Optional[tuple[cst.Module, list[_Statement]]]:
        old, module = self._text, self.module
        assert module is not None
        if not module.has_trailing_newline:
            return None  # the last statement's code is not a slice of the text
        head = _common_prefix(old, text)
        tail = _common_prefix(old[head:][::-1], text[head:][::-1])
        lo, hi = head, len(old) - tail  # the edited span of the old text
        spans = list(self._spans())
        touched = [i for i, (start, end) in enumerate(spans) if start <= hi and end >= lo]
        if not touched or lo < _header_length(module) or hi > spans[-1][1]:
            return None  # the header or the footer changed: parse it all
        first, last = touched[0], touched[-1]
        start, end = spans[first][0], spans[last][1] + len(text) - len(old)
        try:
            part = parse_module(text[start:end])
        except cst.ParserSyntaxError:
            return None  # let the full parse report it (or parse what the span could not)
        if (
            part.footer or not part.body or not part.has_trailing_newline
            or part.default_indent != module.default_indent or part.default_newline != module.default_newline
            or (first == 0 and part.header)
        ):
            return None
        body = list(part.body)
        if part.header:  # blank and comment lines before a statement are its leading lines
            body[0] = body[0].with_changes(leading_lines=(*part.header, *body[0].leading_lines))
        fresh = [self._measure(module, node) for node in body]
        statements = self._statements[:first] + fresh + self._statements[last + 1:]
        return module.with_changes(body=[s.node for s in statements]), statements

    def _spans(self) -> Iterator[tuple[int, int]]:
        """Each statement's (start, end) character offsets in the current text."""
        at = _header_length(self.module) if self.module is not None else 0
        for s in self._statements:
            yield at, at + s.length
            at += s.length

    @staticmethod
    def _measure(module: cst.Module, node: cst.BaseStatement) -> _Statement:
        code = module.code_for_node(node)
        return _Statement(node, len(code), len(code.splitlines()))

    # -- positions -----------------------------------------------------------------------------------
    def _relative(self, i: int) -> dict[cst.CSTNode, CodeRange]:
        s = self._statements[i]
        if s.relative is None:
            assert self.module is not None
            alone = self.module.with_changes(body=[s.node], header=(), footer=(), has_trailing_newline=True)
            s.relative = dict(MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider))
        return s.relative

    def _whole(self) -> dict[cst.CSTNode, CodeRange]:
        if self._full is None:
            assert self.module is not None
            self._full = dict(MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider))
        return self._full


class Positions(Mapping[cst.CSTNode, CodeRange]):
    """What libcst's PositionProvider gives for a module, computed per statement on demand."""

    def __init__(self, reparser: Reparser, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> None:
        self.reparser, self.parents = reparser, parents

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        r = self.reparser
        top = node
        while top not in r._index:
            up = self.parents.get(top)
            if up is None:
                return r._whole()[node]  # the module, or a line of its header or footer
            top = up
        i = r._index[top]
        found = r._relative(i)[node]
        shift = r._starts[i] - 1
        return CodeRange(
            CodePosition(found.start.line + shift, found.start.column),
            CodePosition(found.end.line + shift, found.end.column),
        )

    def __iter__(self) -> Iterator[cst.CSTNode]:
        return iter(self.reparser._whole())

    def __len__(self) -> int:
        return len(self.reparser._whole())


def _header_length(module: Optional[cst.Module]) -> int:
    return sum(len(module.code_for_node(line)) for line in module.header) if module is not None else 0


def _common_prefix(a: str, b: str) -> int:
    """The length of the common prefix, by halving (string comparisons run in C)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo
