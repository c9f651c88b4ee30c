"""Notebook cells read the way IPython reads them: what Jupyter runs is never a syntax error,
what it rejects still is, and every cell keeps its line numbers."""
from __future__ import annotations

import ast

import pytest

from ampcheck.lint.ipython import PLACEHOLDER, transform


def verdict(cell: str) -> str:
    t = transform(cell)
    if t.python is None:
        return "not python"
    try:
        compile(t.python, "cell", "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError:
        return "invalid"
    return "valid"


# Each verdict is what IPython 9 gives (transform_cell, then compile); "not python": the
# cell runs as a magic (automagic, a non-Python cell magic), which Python never parses.
@pytest.mark.parametrize(
    "cell, expected",
    [
        ("!pip install torch \\\n    torchaudio \\\n  soundfile\n", "valid"),  # continuation lines
        ("if fresh:\n    !wget -q https://example.org/x.tgz\n    %cd data\n", "valid"),  # indented escapes
        ("for i in range(2):\n    !echo $i \\\n        done\n    y = i\n", "valid"),
        ("%env CUDA_VISIBLE_DEVICES=0\n%run -i helpers.py\n", "valid"),
        ("pip install peft", "not python"),  # automagic: a one-line cell
        ("ls ./checkpoints\n", "not python"),
        ("pip install peft\nimport peft\n", "invalid"),  # automagic works in one-line cells only
        ("env = 3\n", "valid"),  # an assignment, not the %env magic
        ("%%bash\nnvidia-smi\n", "not python"),
        ("\n\n%%writefile run.sh\necho hi\n", "not python"),
        ("%%time\nx = 1\n", "valid"),  # a timing magic's body is Python
        ("%%time\nx = (\n", "invalid"),
        ("x = 1\n%%time\n", "valid"),  # `%%` below the first line is a line magic
        ("model.forward?\nmodel??\n%timeit?\n", "valid"),
        ("x = a?\n", "valid"),
        ("f(x)?\n", "invalid"),  # help needs a name before the `?`
        ("model?  # what is it\n", "invalid"),
        ("files = !ls\nout = %sx ls\nn: int = !!wc -l\n", "valid"),
        ("a, b = 1, !x\n", "invalid"),  # a command is only assigned as the whole right side
        ("x = [1,\n!ls\n]\n", "invalid"),  # an escape only starts a logical line
        ("s = '''\n!ls\n'''\n", "valid"),
        ("x != 1\na //= 2\n", "valid"),
        ("/print a b\n,print a b\n;print a b\n", "valid"),
        ("  x = 1\n  y = 2\n", "valid"),  # the indent all lines share is dropped
        ("\t!ls\nx = 1\n", "invalid"),
        (">>> x = 1\n... y = 2\n", "valid"),
        ("In [1]: x = 1\n", "valid"),
        ("await asyncio.sleep(0)\n", "valid"),
        ("batch = proc(\n    text=texts,\n    images=imgs\n    padding=True,\n)\n", "invalid"),  # a missing comma
    ],
)
def test_a_cell_is_valid_exactly_when_ipython_runs_it(cell, expected):
    assert verdict(cell) == expected


def test_commands_become_placeholders_at_their_own_indentation_line_for_line():
    cell = "if fresh:\n    !pip install a \\\n        b\n    x = 1\n"
    t = transform(cell)
    assert t.python == f"if fresh:\n    {PLACEHOLDER}\n    {PLACEHOLDER}\n    x = 1\n"
    assert t.replaced == ("    !pip install a \\\n", "        b\n")
    assert t.lintable


def test_a_cell_ipython_shifts_sideways_is_checked_but_not_linted():
    assert transform("  x = 1\n").lintable is False
    assert transform("x = 1\n").lintable is True
