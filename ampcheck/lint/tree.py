"""The bottom layer of a file's model: its tree, parsed once and indexed in one traversal.

Every facet above (constants, bindings, autocast regions, casts, the step programs) and
every check asks its tree questions here (parents, enclosing scopes, calls by kind, names
through the import table, positions), so nothing walks the tree twice.
"""
from __future__ import annotations

import enum
from functools import cached_property
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence, Union

import libcst as cst
from libcst.metadata import CodeRange

from ampcheck.lint.cstparse import parse_module
from ampcheck.lint.literals import literal
from ampcheck.lint.names import ImportTable, dotted
from ampcheck.lint.positions import StatementPositions
from ampcheck.lint.walk import code_children

Scope = Union[cst.Module, cst.FunctionDef, cst.ClassDef, cst.Lambda]
# node positions computed elsewhere (a re-parse that kept most statements' positions), from
# the parents index: what libcst's PositionProvider would give
Positions = Callable[["dict[cst.CSTNode, cst.CSTNode]"], "Mapping[cst.CSTNode, CodeRange]"]


class _Indexes:
    """What the indexing traversal records: the parent of each node, the nodes of the kinds
    checks ask about (in source order) and the import table's operations."""

    def __init__(self, names: "Union[ImportTable, _NameOps]") -> None:
        self.names = names
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self.calls: list[cst.Call] = []
        self.functions: list[cst.FunctionDef] = []
        self.classes: list[cst.ClassDef] = []
        self.withs: list[cst.With] = []
        self.assigns: list[Union[cst.Assign, cst.AnnAssign, cst.AugAssign]] = []
        self.loops: list[Union[cst.For, cst.While]] = []
        self.attributes: list[cst.Attribute] = []
        self.imports: list[Union[cst.Import, cst.ImportFrom]] = []
        self.returns: list[cst.Return] = []  # those returning a value
        # Every Name node by its text: references, targets, attribute and keyword names alike
        # (callers tell them apart by parent), so a rewrite can find all uses of a binding.
        self.name_nodes: dict[str, list[cst.Name]] = {}
        # Each node's nearest enclosing function and class (strict ancestors; None: none):
        # the facets ask this of most nodes, so the traversal records it as it goes.
        self.function_of: dict[cst.CSTNode, Optional[cst.FunctionDef]] = {}
        self.class_of: dict[cst.CSTNode, Optional[cst.ClassDef]] = {}
        self._numbered: Optional[tuple[int, dict[cst.CSTNode, int]]] = None  # (place, numbers) of `numbers`

    def numbers(self, top: cst.CSTNode, place: int) -> dict[cst.CSTNode, int]:
        """Source-order numbers of `top` (the module's `place`-th child, traversed into these
        indexes) and of the nodes under it: `place` in the high bits, the node's pre-order
        rank under `top` in the low ones, so the numbers of the module's children, put
        together, order every node as the whole tree's pre-order does. Kept while the
        statement keeps its place."""
        if self._numbered is None or self._numbered[0] != place:
            base = place << 32
            found = {top: base}
            found.update(zip(self.parents, range(base + 1, base + 1 + len(self.parents))))
            self._numbered = place, found
        return self._numbered[1]


class _NameOps:
    """A statement's import-table operations in order, replayed into the file's table: the
    table's state depends on every statement, what one statement does to it does not."""

    def __init__(self) -> None:
        self.ops: list[tuple[Callable[[ImportTable, Any], None], Any]] = []

    def add_import(self, node: cst.Import) -> None:
        self.ops.append((ImportTable.add_import, node))

    def add_import_from(self, node: cst.ImportFrom) -> None:
        self.ops.append((ImportTable.add_import_from, node))

    def shadow(self, local: str) -> None:
        self.ops.append((ImportTable.shadow, local))


class StatementIndexes:
    """The indexes of a buffer's top-level statements, kept from one analysis to the next
    (a language server's, with its re-parse): a statement node the re-parse kept is the same
    object, and what the traversal records under it depends on nothing outside it, so only
    the statements an edit touched are traversed again."""

    def __init__(self) -> None:
        self._by_statement: dict[cst.CSTNode, _Indexes] = {}
        # the code of the nodes asked for, kept for those still in the buffer: a node's code
        # depends on the node and the module's indentation and newline, which a re-parse
        # that keeps nodes keeps too
        self.codes: dict[cst.CSTNode, str] = {}

    def of(self, statement: cst.CSTNode) -> _Indexes:
        found = self._by_statement.get(statement)
        if found is None:
            found = self._by_statement[statement] = _traversed(statement)
        return found

    def keep_only(self, tree: "SourceTree") -> None:
        """Forget the statements (and the code of nodes) no longer in the buffer."""
        statements = tree.module.body
        self._by_statement = {s: self._by_statement[s] for s in statements if s in self._by_statement}
        self.codes = {n: code for n, code in self.codes.items() if n in tree.parents}


def _traversed(top: cst.CSTNode) -> _Indexes:
    """The indexes of one child of the module, traversed now."""
    found = _Indexes(_NameOps())
    _index(found, top)
    return found


def _index(m: _Indexes, top: cst.CSTNode) -> None:
    """The one traversal, in libcst's visiting order (pre-order: the parents index is filled
    in source order): each node's parent and enclosing function and class, and the nodes of
    the kinds checks ask about. One loop over an explicit stack, with each node type's role
    looked up once: the traversal touches every node of every file analysed."""
    parents, function_of, class_of = m.parents, m.function_of, m.class_of
    roles = _ROLES
    stack: list[tuple[cst.CSTNode, Optional[cst.CSTNode], Optional[cst.FunctionDef], Optional[cst.ClassDef]]]
    stack = [(top, None, None, None)]
    pop, push = stack.pop, stack.append
    while stack:
        node, parent, fn, cls = pop()
        if parent is not None:
            parents[node] = parent
        function_of[node] = fn
        class_of[node] = cls
        kind = type(node)
        role = roles[kind] if kind in roles else _role(kind)
        if role is not _Role.NONE:
            _record(m, role, node)
            if role is _Role.FUNCTION:
                fn = node  # type: ignore[assignment]
            elif role is _Role.CLASS:
                cls = node  # type: ignore[assignment]
        kids = code_children(node)
        for i in range(len(kids) - 1, -1, -1):
            push((kids[i], node, fn, cls))


class _Role(enum.Enum):
    """What the indexer records of a node of one type."""

    NONE = enum.auto()
    CALL = enum.auto()
    IMPORT = enum.auto()
    IMPORT_FROM = enum.auto()
    FUNCTION = enum.auto()
    CLASS = enum.auto()
    WITH = enum.auto()
    ASSIGN = enum.auto()
    LOOP = enum.auto()
    RETURN = enum.auto()
    ATTRIBUTE = enum.auto()
    NAME = enum.auto()


# node type -> its role (compared by exact type: libcst's classes are ABCs, whose isinstance
# is slow, so each type is classified once)
_ROLES: dict[type, _Role] = {}
_ROLE_OF: tuple[tuple[Union[type, tuple[type, ...]], _Role], ...] = (
    (cst.Call, _Role.CALL),
    (cst.Import, _Role.IMPORT),
    (cst.ImportFrom, _Role.IMPORT_FROM),
    (cst.FunctionDef, _Role.FUNCTION),
    (cst.ClassDef, _Role.CLASS),
    (cst.With, _Role.WITH),
    ((cst.Assign, cst.AnnAssign, cst.AugAssign), _Role.ASSIGN),
    ((cst.For, cst.While), _Role.LOOP),
    (cst.Return, _Role.RETURN),
    (cst.Attribute, _Role.ATTRIBUTE),
    (cst.Name, _Role.NAME),
)


def _role(kind: type) -> _Role:
    found = _ROLES[kind] = next((role for types, role in _ROLE_OF if issubclass(kind, types)), _Role.NONE)
    return found


def _record(m: _Indexes, role: _Role, node: Any) -> None:
    if role is _Role.CALL:
        m.calls.append(node)
    elif role is _Role.NAME:
        m.name_nodes.setdefault(node.value, []).append(node)
    elif role is _Role.ATTRIBUTE:
        m.attributes.append(node)
    elif role is _Role.ASSIGN:
        m.assigns.append(node)
    elif role is _Role.IMPORT:
        m.imports.append(node)
        m.names.add_import(node)
    elif role is _Role.IMPORT_FROM:
        m.imports.append(node)
        m.names.add_import_from(node)
    elif role is _Role.FUNCTION:
        m.functions.append(node)
        for p in _params(node.params):
            m.names.shadow(p)
    elif role is _Role.CLASS:
        m.classes.append(node)
    elif role is _Role.WITH:
        m.withs.append(node)
    elif role is _Role.LOOP:
        m.loops.append(node)
    elif role is _Role.RETURN and node.value is not None:
        m.returns.append(node)


def _params(params: cst.Parameters) -> Iterator[str]:
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        yield p.name.value
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            yield star.name.value


# the node lists of _Indexes, concatenated statement by statement
_KINDS = ("calls", "functions", "classes", "withs", "assigns", "loops", "attributes", "imports", "returns")


class SourceTree(_Indexes):
    """One parsed file and the indexes of its one traversal."""

    def __init__(
        self, path: str, source: str, module: Optional[cst.Module] = None, module_name: Optional[str] = None,
        positions: Optional[Positions] = None, indexes: Optional[StatementIndexes] = None,
    ) -> None:
        self.path = path
        self.source = source
        self.module = module if module is not None else parse_module(source)
        self._position_source = positions
        # The dotted name the project imports this file by (its stem when it is on its own).
        self.module_name = module_name if module_name is not None else _stem(path)
        super().__init__(ImportTable(package_of(self.module_name, path)))
        self.names: ImportTable
        self._codes: dict[cst.CSTNode, str] = {}  # node -> its code, for the nodes asked for
        # each child of the module with its own indexes, when indexed statement by statement
        self._statements: list[tuple[cst.CSTNode, _Indexes]] = []
        if indexes is None:
            _index(self, self.module)
        else:
            self._index_by_statement(indexes)
        self._resolve_aliases()

    def _index_by_statement(self, indexes: StatementIndexes) -> None:
        """The one traversal's indexes, assembled from each top-level statement's (kept, or
        traversed now) in source order: the same dicts and lists, in the same order."""
        module = self.module
        tops = code_children(module)  # its statements (its header and footer lines are layout)
        parts = [indexes.of(top) for top in tops]
        self.function_of[module] = self.class_of[module] = None
        for child, part in zip(tops, parts):
            self.parents[child] = module
            self.parents.update(part.parents)
            self.function_of.update(part.function_of)
            self.class_of.update(part.class_of)
            for kind in _KINDS:
                getattr(self, kind).extend(getattr(part, kind))
            for text, nodes in part.name_nodes.items():
                self.name_nodes.setdefault(text, []).extend(nodes)
            assert isinstance(part.names, _NameOps)
            for op, arg in part.names.ops:
                op(self.names, arg)
        self._statements = list(zip(tops, parts))
        indexes.keep_only(self)
        self._codes = indexes.codes

    def indexes_of(self, top: cst.CSTNode) -> Optional[_Indexes]:
        """What the traversal recorded under one child of the module alone (its calls,
        attributes, ... in source order), when the tree was indexed statement by statement."""
        return self._by_top.get(top)

    @cached_property
    def _by_top(self) -> dict[cst.CSTNode, _Indexes]:
        return dict(self._statements)

    def _resolve_aliases(self) -> None:
        """`amp = torch.cuda.amp` extends the import table; any other rebinding of an
        imported name shadows it, so it no longer resolves (precision before recall)."""
        for node in self.assigns:
            if not isinstance(node, cst.Assign):
                continue
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    name = target.target.value
                    if self.import_fallback(node, name):
                        continue  # what runs whenever the import works is the import
                    if dotted(node.value) is None or not self.names.add_alias(name, node.value):
                        self.names.shadow(name)

    def import_fallback(self, node: cst.CSTNode, name: str) -> bool:
        """Whether `node` binds `name` as a stand-in for a name imported from torch:
        `try: from torch.cuda.amp import GradScaler` / `except ImportError: GradScaler =
        nullcontext` (or a `class GradScaler:` of its own there) is bound only when the import
        from torch in the `try` fails (torch before the name existed); the name is torch's
        wherever it exists. An optional package's stand-in (`amp = None` when apex is missing)
        is what runs wherever the package is not installed, so it shadows."""
        handler = next((a for a in self.ancestors(node) if isinstance(a, (cst.ExceptHandler, cst.FunctionDef, cst.ClassDef))), None)
        attempt = self.parent(handler) if isinstance(handler, cst.ExceptHandler) else None
        if not isinstance(attempt, cst.Try):
            return False
        for stmt in attempt.body.body:
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar) \
                        and small.module is not None and not small.relative \
                        and (dotted(small.module) or "").split(".")[0] == "torch":
                    for alias in small.names:
                        bound = alias.asname.name if alias.asname is not None else alias.name
                        if isinstance(bound, cst.Name) and bound.value == name:
                            return True
        return False

    # -- name questions -------------------------------------------------------------------
    def qualname(self, expr: cst.BaseExpression) -> Optional[str]:
        return self.names.qualname(expr)

    def callee(self, call: cst.Call) -> Optional[str]:
        """Qualified name of what a call calls, when it is certain."""
        return self.names.qualname(call.func)

    # -- value questions -------------------------------------------------------------------
    @cached_property
    def _assigned(self) -> "dict[tuple[Optional[cst.CSTNode], str], list[cst.BaseExpression]]":
        """(scope, target text) -> values assigned. Names are keyed by their function (None
        for the module); `self.x` by its class, since any method may set it."""
        out: dict[tuple[Optional[cst.CSTNode], str], list[cst.BaseExpression]] = {}
        for node in self.assigns:
            if isinstance(node, cst.Assign):
                targets = [t.target for t in node.targets]
            elif isinstance(node, cst.AnnAssign) and node.value is not None:
                targets = [node.target]
            else:
                continue
            for t in targets:
                text = dotted(t)
                if text is None:
                    continue
                if isinstance(t, cst.Name):
                    key = (self.enclosing_function(node), text)
                elif text.startswith("self.") and text.count(".") == 1:
                    key = (self.enclosing_class(node), text)
                else:
                    continue
                out.setdefault(key, []).append(node.value)  # type: ignore[arg-type]
        return out

    def name_assignments(self, scope: Optional[cst.CSTNode], name: str) -> list[cst.Assign]:
        """The `name = ...` statements (plain `=`, `name` one of its targets) of a function's
        own body (`scope` None: the module's), in source order: where a local is rebound."""
        return self._name_assignments.get((scope, name), [])

    @cached_property
    def _name_assignments(self) -> "dict[tuple[Optional[cst.CSTNode], str], list[cst.Assign]]":
        out: dict[tuple[Optional[cst.CSTNode], str], list[cst.Assign]] = {}
        for node in self.assigns:
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    if isinstance(t.target, cst.Name):
                        out.setdefault((self.enclosing_function(node), t.target.value), []).append(node)
        return out

    def only_value(self, name: cst.Name) -> Optional[cst.BaseExpression]:
        """The one value a local of a function ever holds: it is assigned once (`accum_idx = i
        % accum`, `scale: float = 1.0`) and bound no other way in the function (no `+=`, loop
        target, parameter, `as`, walrus, unpacking or `del` of it); None for any other name."""
        fn = self.enclosing_function(name)
        values = self._assigned.get((fn, name.value)) if fn is not None else None
        if values is None or len(values) != 1:
            return None
        targets = self._bindings(fn, name.value)
        return values[0] if len(targets) == 1 and isinstance(self.parent(targets[0]), (cst.AssignTarget, cst.AnnAssign)) else None

    def binds(self, fn: cst.FunctionDef, name: str) -> bool:
        """Whether `fn`'s own body binds `name` in any way, which makes it a local there."""
        return bool(self._bindings(fn, name))

    def _bindings(self, fn: Optional[cst.CSTNode], name: str) -> list[cst.Name]:
        by_scope = self._bound_by_scope.get(name)
        if by_scope is None:  # (worked out once per name: the constant evaluator asks again and again)
            by_scope = self._bound_by_scope[name] = {}
            for n in self.name_nodes.get(name, ()):
                if self.is_target(n):
                    by_scope.setdefault(self.enclosing_function(n), []).append(n)
        return by_scope.get(fn, [])

    @cached_property
    def _bound_by_scope(self) -> "dict[str, dict[Optional[cst.CSTNode], list[cst.Name]]]":
        """name -> its function (None for the module) -> the places there that bind it."""
        return {}

    def is_target(self, node: cst.CSTNode) -> bool:
        """Whether `node` (a name, or an item or attribute stored into) is what a statement
        binds or stores into where it stands: a target itself, or inside a tuple or list
        (starred or not) that is one (`a, (b, *c) = ...`, `d[k], e[k] = ...`, `del d[k]`)."""
        parent = self.parent(node)
        while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
            node, parent = parent, self.parent(parent)
        return _binds(node, parent)

    def values_of(self, expr: cst.BaseExpression) -> list[cst.BaseExpression]:
        """Every value assigned to a name (in the function that uses it, else the module) or
        to a `self.` attribute (anywhere in its class): flow-insensitive, so a caller sees all
        the alternatives a name may hold."""
        text = dotted(expr)
        if text is None:
            return []
        if isinstance(expr, cst.Name):
            local = self._assigned.get((self.enclosing_function(expr), text))
            return local if local is not None else self._assigned.get((None, text), [])
        if text.startswith("self.") and text.count(".") == 1:
            for cls in self._class_and_bases(self.enclosing_class(expr)):
                found = self._assigned.get((cls, text))
                if found:
                    return found
        return []

    def _class_and_bases(self, cls: Optional[cst.ClassDef]) -> Iterator[cst.ClassDef]:
        """A class, then its base classes defined in this file (by name), nearest first."""
        by_name = {c.name.value: c for c in self.classes}
        seen: set[str] = set()
        todo = [cls] if cls is not None else []
        while todo:
            cur = todo.pop(0)
            if cur.name.value in seen:
                continue
            seen.add(cur.name.value)
            yield cur
            todo += [by_name[b.value.value] for b in cur.bases if isinstance(b.value, cst.Name) and b.value.value in by_name]

    # -- tree questions --------------------------------------------------------------------
    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        cur = self.parents.get(node)
        while cur is not None:
            yield cur
            cur = self.parents.get(cur)

    def within(self, node: cst.CSTNode, container: cst.CSTNode) -> bool:
        """Whether `node` is `container` or lies inside it."""
        return node is container or any(a is container for a in self.ancestors(node))

    def enclosing_function(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        return self.function_of.get(node)

    def enclosing_class(self, node: cst.CSTNode) -> Optional[cst.ClassDef]:
        return self.class_of.get(node)

    def exclusive_branches(self, a: cst.CSTNode, b: cst.CSTNode) -> bool:
        """Whether `a` and `b` sit on opposite sides of one condition, so they never run in
        the same pass: the two branches of one `if`, or of two `if`s with the same test in
        one function (ConvNeXt's `if use_amp: <autocast> ... if use_amp: ... else:
        loss.backward()`), `if not x:` against `if x:`, or an `assert not x` that `a` runs
        after against an `if x:` around `b` (open_lm's `assert not args.fsdp` before its
        GradScaler)."""
        sides = dict(self._branch_sides(a))
        return any(key in sides and sides[key] != side for key, side in self._branch_sides(b))

    def known(self, node: cst.CSTNode, test: cst.BaseExpression) -> Optional[bool]:
        """Whether `test` (an expression of the function `node` is in) holds where `node` runs,
        as the `if`s and `assert`s around it say (`loss.backward()` in the else of `if
        args.amp:` runs with `args.amp` false); None when they say nothing of it."""
        key, side = _holds(self, test, test, True)
        return next((s == side for k, s in self._branch_sides(node) if k == key), None)

    def known_text(self, node: cst.CSTNode, fn: cst.FunctionDef, text: str) -> Optional[bool]:
        """`known` for a test of `fn` given by its canonical text (no `not` in front): one
        the caller of `fn` wrote, read in the terms of `fn`'s parameters."""
        return next((s for k, s in self._branch_sides(node) if k == (fn, text)), None)

    def _branch_sides(self, node: cst.CSTNode) -> Iterator[tuple[tuple[Optional[cst.CSTNode], str], bool]]:
        """(function, test text) -> whether the test holds where `node` runs: True in the body
        of an enclosing `if`, False in its else (a `not` flips it), True after an `assert` of
        it earlier in an enclosing block of the same function."""
        child, scope = node, True
        for anc in self.ancestors(node):
            if isinstance(anc, cst.If) and child is not anc.test:
                yield _holds(self, anc, anc.test, child is anc.body)
            elif scope and isinstance(anc, (cst.IndentedBlock, cst.Module)):
                for stmt in anc.body:
                    if stmt is child:
                        break
                    for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                        if isinstance(small, cst.Assert):
                            yield _holds(self, small, small.test, True)
            scope = scope and not isinstance(anc, (cst.FunctionDef, cst.ClassDef))
            child = anc

    def returns_of(self, fn: cst.FunctionDef) -> list[cst.Return]:
        """The `return value` statements of `fn` itself (not of functions nested in it)."""
        return [r for r in self.returns if self.enclosing_function(r) is fn]

    def owns(self, node: cst.CSTNode) -> bool:
        """Whether `node` is a node of this tree (not of another module's)."""
        return node is self.module or node in self.parents

    def precedes(self, a: cst.CSTNode, b: cst.CSTNode) -> bool:
        """Whether `a` starts before `b` in the source."""
        order = self._order
        return order.get(a, -1) < order.get(b, -1)

    @cached_property
    def _order(self) -> dict[cst.CSTNode, int]:
        # The parent links were recorded in one pre-order traversal, so their insertion order
        # is source order: no second pass over the file, no source positions. Indexed
        # statement by statement, each statement numbers its own nodes (once, while it keeps
        # its place), and the dicts are merged without hashing a node again.
        if self._statements:
            order: dict[cst.CSTNode, int] = {}
            for place, (top, part) in enumerate(self._statements):
                order.update(part.numbers(top, place))
            return order
        return {node: i for i, node in enumerate(self.parents)}

    def condition_text(self, test: cst.BaseExpression, truthy: frozenset[cst.CSTNode] = frozenset()) -> str:
        """A condition's source in one canonical spelling, so two tests written with other
        quotes, spacing, parentheses or line breaks (`== 'fsdp'`, `== "fsdp"`) read as the same
        test: printed from the tree, strings by their value. The comparisons in `truthy`
        (`x is not None`) are printed as the value they compare (`x`)."""
        return _Canonical(self, truthy).text(test)

    def children(self, node: cst.CSTNode) -> Sequence[cst.CSTNode]:
        """`node.children` less layout (whitespace, comments, punctuation), in the same order,
        read from the node's fields: libcst's own `children` rebuilds the node to list them,
        which dominates any walk of a large file."""
        return code_children(node)

    # -- positions -----------------------------------------------------------------------------------
    @cached_property
    def _positions(self) -> "Mapping[cst.CSTNode, CodeRange]":
        if self._position_source is not None:
            return self._position_source(self.parents)
        return StatementPositions(self.module, self.parents, self.source)

    def range(self, node: cst.CSTNode) -> CodeRange:
        return self._positions[node]

    def code_for(self, node: cst.CSTNode) -> str:
        found = self._codes.get(node)
        if found is None:
            found = self._codes[node] = _plain_chain(node) or self.module.code_for_node(node)
        return found


def _plain_chain(node: cst.CSTNode) -> Optional[str]:
    """The source of a name or attribute chain written with no parentheses and no space
    around its dots (`self.scaler.step`), read off the nodes; None for anything else, which
    libcst prints (its printer is most of what spelling a call's target costs)."""
    parts: list[str] = []
    while type(node) is cst.Attribute:
        dot = node.dot
        if node.lpar or not isinstance(dot, cst.Dot) or not (_no_space(dot.whitespace_before) and _no_space(dot.whitespace_after)):  # type: ignore[union-attr]
            return None
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name or node.lpar:  # type: ignore[union-attr]
        return None
    parts.append(node.value)  # type: ignore[attr-defined]
    return ".".join(reversed(parts))


def _no_space(ws: cst.BaseParenthesizableWhitespace) -> bool:
    return type(ws) is cst.SimpleWhitespace and not ws.value


class _Canonical:
    """One spelling of an expression: names, attributes, calls, operators and literals
    printed from the tree (parentheses kept only around operations, so `(a and b)` and
    `a and (b)` differ only where they mean different things); anything else by its source
    with its whitespace collapsed."""

    def __init__(self, tree: SourceTree, truthy: frozenset[cst.CSTNode] = frozenset()) -> None:
        self.tree = tree
        self.truthy = truthy

    def text(self, node: cst.CSTNode, depth: int = 0) -> str:
        if depth > 50:
            return self._source(node)
        t = type(node)
        sub = lambda n: self.text(n, depth + 1)  # noqa: E731
        if t is cst.Name:
            return node.value  # type: ignore[attr-defined]
        if t is cst.Attribute:
            return f"{sub(node.value)}.{node.attr.value}"  # type: ignore[attr-defined]
        if t in (cst.Integer, cst.Float, cst.Imaginary):
            return node.value  # type: ignore[attr-defined]
        if t is cst.SimpleString:
            return repr(literal(node))  # type: ignore[arg-type]
        if t is cst.Call:
            return f"{sub(node.func)}({', '.join(self._arg(a, depth) for a in node.args)})"  # type: ignore[attr-defined]
        if t is cst.Comparison:
            if node in self.truthy:
                return sub(node.left)  # type: ignore[attr-defined]
            rest = "".join(f" {self._source(c.operator)} {sub(c.comparator)}" for c in node.comparisons)  # type: ignore[attr-defined]
            return f"({sub(node.left)}{rest})"  # type: ignore[attr-defined]
        if t in (cst.BooleanOperation, cst.BinaryOperation):
            return f"({sub(node.left)} {self._source(node.operator)} {sub(node.right)})"  # type: ignore[attr-defined]
        if t is cst.UnaryOperation:
            op = self._source(node.operator)  # type: ignore[attr-defined]
            return f"({op}{' ' if op == 'not' else ''}{sub(node.expression)})"  # type: ignore[attr-defined]
        if t is cst.Subscript:
            return f"{sub(node.value)}[{', '.join(self._source(e) for e in node.slice)}]"  # type: ignore[attr-defined]
        if t in (cst.Tuple, cst.List):
            inner = ", ".join(sub(e.value) for e in node.elements)  # type: ignore[attr-defined]
            return f"({inner})" if t is cst.Tuple else f"[{inner}]"
        return self._source(node)

    def _arg(self, a: cst.Arg, depth: int) -> str:
        value = self.text(a.value, depth + 1)
        if a.keyword is not None:
            return f"{a.keyword.value}={value}"
        return f"{a.star}{value}"

    def _source(self, node: cst.CSTNode) -> str:
        return " ".join(self.tree.code_for(node).split())


_BINDERS = (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.Param, cst.AsName, cst.NamedExpr, cst.CompFor, cst.NameItem, cst.Del)


def _binds(node: cst.CSTNode, parent: Optional[cst.CSTNode]) -> bool:
    """Whether `node` (a name, an item or attribute stored into, or a tuple or list holding
    one) is what its parent binds."""
    if isinstance(parent, (cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr, cst.CompFor)):
        return parent.target is node
    if isinstance(parent, cst.Param):
        return parent.name is node
    return isinstance(parent, _BINDERS)


def _stem(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] if "." in name else name


def package_of(module_name: str, path: str) -> str:
    """The package a module's relative imports start from: itself for an `__init__.py`."""
    if path.replace("\\", "/").endswith("/__init__.py") or path == "__init__.py":
        return module_name
    return module_name.rpartition(".")[0]


def _holds(tree: SourceTree, at: cst.CSTNode, test: cst.BaseExpression, side: bool) -> tuple[tuple[Optional[cst.CSTNode], str], bool]:
    """A test's key (where it means one thing, its canonical text with any `not` taken off)
    and whether it holds (`side`, flipped by each `not`). A test of the object's own state
    (`self.fsdp is not None`) means one thing in every method of its class, as a trainer sets
    it up in `__init__` and wraps the model by it in another method; any other, in its function."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, side = test.expression, not side
    fn = tree.enclosing_function(at)
    cls = tree.enclosing_class(fn) if fn is not None else None
    where = cls if cls is not None and fn is not None and _reads_only_own_state(fn, test) else fn
    return (where, tree.condition_text(test)), side


class _OwnState(cst.CSTVisitor):
    """Whether an expression reads nothing but attributes of `self` (by name: a static
    method's first parameter is no receiver)."""

    def __init__(self) -> None:
        self.own = False  # reads `self` at all
        self.other = False  # reads any other name

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        base = node.value
        while isinstance(base, cst.Attribute):
            base = base.value
        if isinstance(base, cst.Name) and base.value == "self":
            self.own = True
            return False
        return True

    def visit_Name(self, node: cst.Name) -> None:
        if node.value not in ("None", "True", "False"):
            self.other = True

    def visit_Call(self, node: cst.Call) -> None:
        self.other = True  # a call may read anything


def _reads_only_own_state(fn: cst.FunctionDef, test: cst.BaseExpression) -> bool:
    params = fn.params.params
    if not params or params[0].name.value != "self":
        return False
    seen = _OwnState()
    test.visit(seen)
    return seen.own and not seen.other
