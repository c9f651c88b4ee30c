"""A buffer re-parsed after an edit (ampcheck/lint/reparse.py) is the module a full parse
gives, with the same positions, whatever the edit: the reuse is an optimisation only."""
from __future__ import annotations

import functools

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from ampcheck.lint.reparse import Reparser
from ampcheck.lint.syntax import parses
from ampcheck.lint.tree import SourceTree
from tests.paths import FIXTURES

SOURCE = (FIXTURES / "server" / "project" / "train.py").read_text()

EDITS = [
    ("a literal in a function", "lr=2e-4", "lr=3e-4"),
    ("a statement typed into a loop", "            optimizer.zero_grad()\n", "            optimizer.zero_grad()\n            seen = 1\n"),
    ("a comment line between functions", "\n\nif __name__", "\n\n# run it\nif __name__"),
    ("a blank line before a function", "\n\ndef main", "\n\n\ndef main"),
    ("a comment at the top of the file", "import torch\n", "# header\nimport torch\n"),
    ("a line at the end of the file", '    main([], 10)\n', '    main([], 10)\nprint("done")\n'),
    ("a trailing comment at the end of the file", '    main([], 10)\n', '    main([], 10)\n# the end\n'),
    ("a function removed", "\n\nif __name__ == \"__main__\":\n    main([], 10)\n", "\n"),
    ("an import joined to the next line", "import torch\nfrom torch", "import torch; from torch"),
    ("a decorator added", "\n\ndef main", "\n\n@torch.no_grad()\ndef main"),
    ("the indentation of a block", '    main([], 10)\n', '  main([], 10)\n'),
]


def positions(module: cst.Module) -> dict:
    return dict(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))


@pytest.mark.parametrize("old,new", [(o, n) for _, o, n in EDITS], ids=[name for name, _, _ in EDITS])
def test_a_reparse_after_an_edit_is_the_full_parse_with_its_positions(old: str, new: str) -> None:
    reparser = Reparser()
    reparser.parse(SOURCE)
    edited = SOURCE.replace(old, new, 1)
    assert edited != SOURCE
    module = reparser.parse(edited)
    full = cst.parse_module(edited)
    assert module.code == edited
    assert module.deep_equals(full)
    tree = SourceTree("train.py", edited, module)
    got = reparser.positions(tree.parents)
    expected = positions(full)
    nodes = [n for n in tree.parents]  # every node but the module, in source order
    full_nodes = [n for n in SourceTree("train.py", edited, full).parents]
    assert [got[n] for n in nodes] == [expected[n] for n in full_nodes]


def test_unchanged_statements_are_the_previous_parse_s_nodes() -> None:
    reparser = Reparser()
    before = reparser.parse(SOURCE)
    after = reparser.parse(SOURCE.replace("lr=2e-4", "lr=3e-4"))
    kept = [a is b for a, b in zip(before.body, after.body)]
    assert kept.count(False) == 1 and len(kept) == len(before.body)


def test_a_text_that_does_not_parse_raises_as_parse_module_does_and_the_next_one_recovers() -> None:
    reparser = Reparser()
    reparser.parse(SOURCE)
    with pytest.raises(cst.ParserSyntaxError):
        reparser.parse(SOURCE.replace("scaler.update()", "scaler.update("))
    fixed = SOURCE.replace("lr=2e-4", "lr=1e-4")
    assert reparser.parse(fixed).deep_equals(cst.parse_module(fixed))


def index_of(tree: SourceTree) -> tuple:
    """Everything the tree's traversal recorded, in order."""
    lists = tuple(list(getattr(tree, kind)) for kind in ("calls", "functions", "classes", "withs", "assigns", "loops", "attributes", "imports", "returns"))
    names = {k: sorted(tree.names.resolve(cst.Name(k))) for k in tree.names.bound_names()}
    return list(tree.parents.items()), lists, tree.name_nodes, names, tree.function_of, tree.class_of


def test_a_tree_indexed_statement_by_statement_across_edits_is_the_tree_indexed_whole_with_its_code_and_order() -> None:
    reparser = Reparser()
    text = SOURCE
    for _, old, new in [(None, SOURCE, SOURCE)] + EDITS:
        text = text.replace(old, new, 1)
        module = reparser.parse(text)
        kept = SourceTree("pkg/train.py", text, module, "pkg.train", indexes=reparser.indexes)
        whole = SourceTree("pkg/train.py", text, module, "pkg.train")
        assert index_of(kept) == index_of(whole)
        nodes = list(whole.parents)  # source order
        in_order = functools.cmp_to_key(lambda a, b: -1 if kept.precedes(a, b) else 1)
        assert sorted(reversed(nodes), key=in_order) == nodes
        assert not kept.precedes(nodes[0], module) and kept.precedes(module, nodes[0])
        code = (cst.BaseExpression, cst.BaseStatement)  # nodes whose code stands alone
        assert [kept.code_for(n) for n in kept.parents if isinstance(n, code)] == [
            whole.code_for(n) for n in whole.parents if isinstance(n, code)
        ]


# edits after which CPython's parser may reject what libcst accepts
SYNTAX_EDITS = EDITS + [
    ("a statement only a newer Python parses", "\n\ndef main", "\n\ntype Batch = list[int]\n\n\ndef main"),
    ("a null byte in a trailing comment", '    main([], 10)\n', '    main([], 10)\n# \0\n'),
    ("a null byte in a leading comment", "import torch\n", "# \0\nimport torch\n"),
    ("a call typed half", "scaler.update()", "scaler.update("),
]


@pytest.mark.parametrize("old,new", [(o, n) for _, o, n in SYNTAX_EDITS], ids=[name for name, _, _ in SYNTAX_EDITS])
def test_cpython_parses_a_text_checked_statement_by_statement_exactly_when_it_parses_it_whole(old: str, new: str) -> None:
    reparser = Reparser()
    assert reparser.parses(SOURCE)
    edited = SOURCE.replace(old, new, 1)
    assert reparser.parses(edited) == parses(edited)
    assert reparser.parses(SOURCE)
