"""A node's children read from its fields are libcst's own `children`, in order, on real files;
its code children are those less the layout nodes (whitespace, comments, punctuation)."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from ampcheck.lint.walk import children, code_children
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


def same_children(module: cst.Module) -> bool:
    """Whether every node's children, read from its fields, are libcst's own, in order."""
    pending: list[cst.CSTNode] = [module]
    while pending:
        node = pending.pop()
        expected = node.children
        if [id(c) for c in children(node)] != [id(c) for c in expected]:
            return False
        pending.extend(expected)
    return True


def test_children_match_libcst_on_every_construct_with_an_unusual_child_order() -> None:
    assert same_children(cst.parse_module(MIXED))


LAYOUT = (
    cst.BaseParenthesizableWhitespace, cst.TrailingWhitespace, cst.Newline, cst.EmptyLine, cst.Comment, cst.Comma,
    cst.Dot, cst.AssignEqual, cst.Colon, cst.Semicolon, cst.LeftParen, cst.RightParen, cst.LeftSquareBracket,
    cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
)


def test_code_children_are_the_children_less_layout_in_order() -> None:
    pending: list[cst.CSTNode] = [cst.parse_module(MIXED + "# a comment\nx = (1,  # note\n     2)\n")]
    while pending:
        node = pending.pop()
        expected = [c for c in node.children if not isinstance(c, LAYOUT)]
        assert [id(c) for c in code_children(node)] == [id(c) for c in expected]
        pending.extend(node.children)


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.py")), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_children_match_libcst_on_fixture(path: Path) -> None:
    try:
        module = cst.parse_module(path.read_bytes())
    except (cst.ParserSyntaxError, SyntaxError):
        pytest.skip("a fixture of a file libcst cannot read (syntax error, undeclared encoding)")
    assert same_children(module)
