"""Source positions computed statement by statement (ampcheck/lint/positions.py) are the ones
libcst's PositionProvider gives for the whole module, for every node: computing fewer of them
is an optimisation only."""
from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from ampcheck.lint.positions import StatementPositions
from ampcheck.lint.tree import SourceTree
from tests.paths import FIXTURES

# what a statement's code can hold that moves the lines after it, or the columns inside it
LAYOUTS = {
    "header comments, decorators, nested classes and functions, block footers": (
        "# a header\n\n"
        "import torch\n\n\n"
        "@torch.no_grad()\n"
        "# between the decorator and the def\n"
        "def f(x,\n      y):  # a trailing comment\n"
        "    class Inner:\n"
        "        def m(self): return 1\n"
        "        def n(self):\n"
        "            '''a docstring\n            of two lines'''\n"
        "            return [1,\n"
        "                    2]\n"
        "        # a comment closing the class body\n"
        "    return x + \\\n        y\n"
        "# a comment closing the function\n\n"
        "class C(torch.nn.Module):\n"
        "    a = 1; b = 2\n"
        "    async def g(self):\n"
        "        async with x:\n"
        "            await y\n"
        "if True: pass\n"
        "# the footer\n"
    ),
    "compound statements": (
        "def f(xs):\n"
        "    for x in xs:\n"
        "        if x:\n"
        "            a = 1\n"
        "        elif x > 1:  # why\n"
        "            b = 2\n"
        "\n"
        "            c = 3\n"
        "        else:\n"
        "            d = 4\n"
        "    else:\n"
        "        pass\n"
        "    while xs:\n"
        "        with open(p) as fh, lock:\n"
        "            try:\n"
        "                e = 5\n"
        "            except (ValueError, KeyError) as err:\n"
        "                raise\n"
        "            except OSError:\n"
        "                g = 7\n"
        "            else:\n"
        "                h = 8\n"
        "            finally:\n"
        "                i = 9\n"
        "    match xs:\n"
        "        case [1, *rest]:\n"
        "            j = 10\n"
        "        case _:\n"
        "            k = 11\n"
        "    return (a,\n"
        "            b)\n"
    ),
    "carriage-return newlines": "def f():\r\n    x = 1\r\n\r\n    return x\r\n\r\nclass C:\r\n    def m(self):\r\n        pass\r\n",
    "tab indentation": "class C:\n\tdef m(self):\n\t\tif x:\n\t\t\treturn 1\n\ndef f():\n\treturn 2\n",
    "line separators inside strings": "def f():\n    s = 'a\\x0cb'\n    t = '''x\x0cy\u2028z'''\n    return s\n\ndef g():\n    return 3\n",
    "no final newline": "def f():\n    return 1\n\ndef g():\n    return 2",
    "an empty module": "",
    "a module of comments only": "# one\n# two\n",
}


def _whole(module: cst.Module) -> dict:
    return dict(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))


def _assert_every_node_matches(path: str, text: str) -> None:
    tree = SourceTree(path, text)
    expected = _whole(tree.module)
    nodes = [tree.module, *tree.parents]
    for lazy in (StatementPositions(tree.module, tree.parents), StatementPositions(tree.module, tree.parents, text)):
        assert [lazy[n] for n in nodes] == [expected[n] for n in nodes]


@pytest.mark.parametrize("text", list(LAYOUTS.values()), ids=list(LAYOUTS))
def test_every_node_of_a_layout_has_the_position_of_the_whole_module_s_codegen(text: str) -> None:
    _assert_every_node_matches("layout.py", text)


@pytest.mark.parametrize("folder", ["amp1xx", "amp2xx", "projects", "deprecated"])
def test_every_node_of_every_fixture_has_the_position_of_the_whole_module_s_codegen(folder: str) -> None:
    paths = sorted((FIXTURES / folder).rglob("*.py"))
    assert paths
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
            cst.parse_module(text)
        except (UnicodeDecodeError, cst.ParserSyntaxError):
            continue  # fixtures of unreadable or broken files
        _assert_every_node_matches(str(path), text)


def test_a_node_of_another_module_is_not_found() -> None:
    tree = SourceTree("a.py", "x = 1\n")
    other = cst.parse_module("y = 2\n")
    with pytest.raises(KeyError):
        StatementPositions(tree.module, tree.parents)[other.body[0]]

