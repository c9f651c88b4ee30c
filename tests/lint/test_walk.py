"""The fast walk drives a visitor exactly as libcst's own `visit` would, on real files."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from ampcheck.lint.walk import walk
from tests.paths import FIXTURES

# Every construct whose children libcst visits in an order other than its fields' order,
# or only conditionally: decorators before the name, `a if test else b`, f-string format
# specs (nested ones too), match statements, walrus, lambdas, star-args, type parameters.
MIXED = '''
import torch as t

@t.no_grad()
@staticmethod
def f[T](a, /, b: int = 1, *c, d, **e) -> "T":
    x = a if b else d
    y = f"{x!r:>{b}} {x=} {x}"
    z = lambda q, *r, s=1: q
    if (n := len(c)) > 1:
        pass
    match x:
        case [1, *rest] if rest:
            return rest
        case {"k": v, **kw}:
            return v
        case Point(x=0) | None:
            return None
    class C(Base, metaclass=M):
        k: int = 1
    return [i async for i in y if i] + {k: v for k, v in e.items()}
'''


class Recorder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.events: list[tuple[str, int]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("visit", id(node)))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.events.append(("leave", id(original_node)))


def same_order(module: cst.Module) -> bool:
    by_libcst, by_walk = Recorder(), Recorder()
    module.visit(by_libcst)
    walk(module, by_walk)
    return by_libcst.events == by_walk.events


def test_walk_matches_libcst_on_every_construct_with_an_unusual_child_order() -> None:
    assert same_order(cst.parse_module(MIXED))


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.py")), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_walk_matches_libcst_on_fixture(path: Path) -> None:
    try:
        module = cst.parse_module(path.read_bytes())
    except (cst.ParserSyntaxError, SyntaxError):
        pytest.skip("a fixture of a file libcst cannot read (syntax error, undeclared encoding)")
    assert same_order(module)
