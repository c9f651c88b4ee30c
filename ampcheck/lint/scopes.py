"""Which bindings a name may refer to where it is used, by Python's scoping rules.

A fix that rewrites a use of a name (`autocast()` -> `autocast("cuda")`) is only correct when
that name can mean one thing there. NeMo binds `autocast` to `torch.cuda.amp.autocast` in one
branch and to a no-op context manager in the other; rewriting the use to
`torch.amp.autocast("cuda")` turned AMP on where the user had turned it off. The import
table (names.py) is flow- and scope-insensitive and knows imports and aliases only; this
module counts every binding a use can reach.

Reaching is flow-insensitive within a scope, like libcst's ScopeProvider and pyflakes: a use
reaches every binding of its name in the scope the name resolves to (function, lambda,
class body, comprehension, module; class bodies are skipped by nested functions). It works
from the program model's name index and parent map, so asking about a few names costs a
few dictionary look-ups, not the 3-4x-a-parse that ScopeProvider costs (measured on
torch's distributed_test.py: 5.9 s against a 2.1 s parse). `global`/`nonlocal` anywhere
makes a name unknown: precision before recall.
"""
from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from ampcheck.lint.model import FileModel
from ampcheck.lint.names import import_key

ScopeNode = Union[cst.Module, cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.BaseComp]

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_UNPACKING = (cst.Tuple, cst.List, cst.Element, cst.StarredElement)
# What a name declared `global` or `nonlocal` anywhere may refer to: not worked out.
UNKNOWN = "<declared global or nonlocal>"


class Scopes:
    """The bindings of names in one file, by scope; built per name on first question."""

    def __init__(self, model: FileModel) -> None:
        self.model = model
        self._by_name: dict[str, dict[Optional[cst.CSTNode], list[tuple[object, cst.CSTNode]]]] = {}
        self._declared: set[str] = set()  # names declared global or nonlocal somewhere

    def reaching(self, name: str, at: cst.CSTNode) -> frozenset[object]:
        """The distinct bindings `name` may refer to at `at`: import keys (str) for imports,
        binding nodes otherwise. Empty for a builtin or a name bound nowhere in the file."""
        bindings = self._bindings(name)
        if name in self._declared:
            return frozenset({UNKNOWN})
        scope: Optional[cst.CSTNode] = self.scope_of(at)
        first = True
        found: set[object] = set()
        while True:
            if (first or not isinstance(scope, cst.ClassDef)) and scope in bindings:
                found |= {key for key, _ in bindings[scope]}
                if not self._all_after(bindings[scope], at, scope):
                    return frozenset(found)
            if isinstance(scope, cst.Module) or scope is None:
                return frozenset(found)
            scope = self.scope_of(scope)
            first = False

    def _all_after(self, local: list[tuple[object, cst.CSTNode]], at: cst.CSTNode, scope: object) -> bool:
        """Whether a function's every binding of a name comes after a use of it. Python still
        calls the name local there (the use fails), but libcst, which the fix verifier asks,
        reads such a use as the enclosing scope's: counting both keeps the two in agreement,
        on the side of fewer fixes."""
        if not isinstance(scope, (cst.FunctionDef, cst.Lambda)):
            return False
        # tree order is source order (the parent index was filled in one pre-order walk), and
        # needs no positions, which would cost a full code generation of the file
        return all(self.model.precedes(at, node) for _, node in local)

    def binds(self, node: cst.Name) -> bool:
        """Whether `node` is where its name is bound (or declared global/nonlocal)."""
        return self._binding(node) is not None

    def _bindings(self, name: str) -> dict[Optional[cst.CSTNode], list[tuple[object, cst.CSTNode]]]:
        found = self._by_name.get(name)
        if found is None:
            found = {}
            for node in self.model.name_nodes.get(name, ()):
                binding = self._binding(node)
                if binding is UNKNOWN:
                    self._declared.add(name)
                elif binding is not None:
                    scope, key = binding
                    found.setdefault(scope, []).append((key, node))
            self._by_name[name] = found
        return found

    def _binding(self, node: cst.Name) -> Union[None, str, tuple[Optional[cst.CSTNode], object]]:
        """(scope, key) when `node` binds its name, UNKNOWN for a global/nonlocal declaration,
        else None."""
        parent = self.model.parent(node)
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node:
            return self.scope_of(parent), parent
        if isinstance(parent, cst.Param) and parent.name is node:
            return self.scope_of(node), parent
        if isinstance(parent, cst.NameItem):  # global / nonlocal
            return UNKNOWN
        if isinstance(parent, (cst.MatchAs, cst.MatchStar)) and parent.name is node:
            return self.scope_of(node), parent
        if isinstance(parent, cst.MatchMapping) and parent.rest is node:
            return self.scope_of(node), parent
        if isinstance(parent, cst.TypeAlias) and parent.name is node:
            return self.scope_of(node), parent
        imported = self._import(node)
        if imported is not None:
            return imported
        target = self._target(node)
        if target is None:
            return None
        if isinstance(target, cst.NamedExpr):  # binds in the nearest enclosing non-comprehension
            scope = self.scope_of(node)
            while isinstance(scope, cst.BaseComp):
                scope = self.scope_of(scope)
            return scope, target
        return self.scope_of(node), target

    def _import(self, node: cst.Name) -> Optional[tuple[Optional[cst.CSTNode], object]]:
        child: cst.CSTNode = node
        parent = self.model.parent(node)
        if isinstance(parent, cst.AsName) and isinstance(self.model.parent(parent), cst.ImportAlias):
            child, parent = parent, self.model.parent(parent)
        else:
            while isinstance(parent, cst.Attribute) and parent.value is child:  # `import a.b`: binds a
                child, parent = parent, self.model.parent(parent)
        if not isinstance(parent, cst.ImportAlias):
            return None
        if child is parent.name and parent.asname is not None:
            return None  # `import a.b as c` binds c, not a
        statement = self.model.parent(parent)
        while not isinstance(statement, (cst.Import, cst.ImportFrom)):
            statement = self.model.parent(statement)  # type: ignore[arg-type]
        return self.scope_of(statement), import_key(parent, statement)

    def _target(self, node: cst.Name) -> Optional[cst.CSTNode]:
        """The statement or expression that assigns to `node`, when it is a target."""
        child: cst.CSTNode = node
        parent = self.model.parent(node)
        while isinstance(parent, _UNPACKING):
            child, parent = parent, self.model.parent(parent)
        if isinstance(parent, cst.AssignTarget) and parent.target is child:
            return self.model.parent(parent)
        if isinstance(parent, (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr)):
            return parent if parent.target is child else None
        if isinstance(parent, cst.Del) and parent.target is child:
            return parent
        if isinstance(parent, cst.AsName) and parent.name is child:  # with ... as x, except E as x
            return self.model.parent(parent)
        return None

    def scope_of(self, node: cst.CSTNode) -> Optional[ScopeNode]:
        """The scope whose namespace a name at `node` lives in. A function's decorators,
        defaults and annotations belong to the enclosing scope, and so do a class's bases; a
        comprehension's first iterable is evaluated outside it."""
        path: list[cst.CSTNode] = [node]
        for anc in self.model.ancestors(node):
            child = path[-1]
            if isinstance(anc, (cst.FunctionDef, cst.Lambda)):
                if child is anc.body or (child is anc.params and self._in_param_name(path)):
                    return anc
            elif isinstance(anc, cst.ClassDef):
                if child is anc.body:
                    return anc
            elif isinstance(anc, _COMPREHENSIONS):
                first = anc.for_in
                if not (child is first and len(path) > 1 and path[-2] is first.iter):
                    return anc
            elif isinstance(anc, cst.Module):
                return anc
            path.append(anc)
        return None

    @staticmethod
    def _in_param_name(path: list[cst.CSTNode]) -> bool:
        """Whether the walk up from a node inside a function's parameters passed through a
        parameter's name (the function's scope) rather than its default or annotation."""
        for inner, outer in zip(path, path[1:]):
            if isinstance(outer, cst.Param):
                return outer.name is inner
        return False
