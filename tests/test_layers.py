"""ampcheck's packages are layers: no import cycle at any depth, no private name across modules.

Read from the source with `ast`, so an import inside a function counts as much as one at the top
of a module (a cycle held together by function-level imports is still a cycle). An edge goes to
the module an import names: `from ampcheck.trace import flops` to `ampcheck.trace.flops` when
that is a module, else to the package. The parent packages Python initialises on the way are not
edges: a package may expose its submodules, and submodules import their siblings, not their
package.
"""
from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import ROOT

PACKAGE = ROOT / "ampcheck"
LAYERED = ("ampcheck.trace", "ampcheck.lint")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, ast.Module]:
    return {module_name(p): ast.parse(p.read_text(encoding="utf-8"), str(p)) for p in PACKAGE.rglob("*.py")}


def resolve(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The absolute module a `from ... import` names (relative imports included)."""
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports(name: str, tree: ast.Module, known: set[str], is_package: bool) -> list[tuple[str, ast.AST, str]]:
    """(imported ampcheck module, node, imported name or "") for every import in the module."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node, "") for alias in node.names if alias.name in known]
        elif isinstance(node, ast.ImportFrom):
            source = resolve(node, name, is_package)
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in known:
                    found.append((submodule, node, ""))
                elif source in known:
                    found.append((source, node, alias.name))
    return found


def graph() -> tuple[dict[str, set[str]], list[str]]:
    trees = modules()
    known = set(trees)
    packages = {module_name(p) for p in PACKAGE.rglob("__init__.py")}
    edges: dict[str, set[str]] = {name: set() for name in trees}
    private: list[str] = []
    for name, tree in trees.items():
        for target, node, imported in imports(name, tree, known, name in packages):
            if target != name:
                edges[name].add(target)
            if imported.startswith("_") and not imported.startswith("__") and target != name:
                private.append(f"{name}:{node.lineno} imports {target}.{imported}")
    return edges, private


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def touches_layered(component: list[str]) -> bool:
    return any(m == p or m.startswith(p + ".") for m in component for p in LAYERED)


def test_no_import_cycle_runs_through_the_trace_or_lint_package():
    edges, _ = graph()
    assert [c for c in cycles(edges) if touches_layered(c)] == []


def test_no_module_imports_another_modules_private_name():
    _, private = graph()
    assert private == []


def test_the_cycle_finder_sees_a_cycle_closed_by_an_import_inside_a_function():
    a = ast.parse("import ampcheck.b\n")
    b = ast.parse("def f():\n    from ampcheck import a\n")
    known = {"ampcheck.a", "ampcheck.b", "ampcheck"}
    edges = {n: {t for t, _, _ in imports(n, tree, known, False)} for n, tree in (("ampcheck.a", a), ("ampcheck.b", b))}
    assert cycles({**edges, "ampcheck": set()}) == [["ampcheck.a", "ampcheck.b"]]
