"""Notebooks: findings at `cell N:line:col`, IPython syntax set aside, fixes written back
into the notebook JSON without disturbing its formatting."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ampcheck.lint import notebook
from tests.shell.helpers import SHELL, run


def test_findings_point_at_cell_line_and_column(copy_fixture):
    copy_fixture("finetune.ipynb")
    result = run(["finetune.ipynb"], cache=False)
    assert [(f.code, f.cell, f.line, f.col) for f in result.findings] == [
        ("AMP402", 3, 4, 10),
        ("AMP401", 5, 4, 10),
    ]
    assert result.findings[0].location == "finetune.ipynb:cell 3:4:10"


def test_a_message_names_the_lines_it_cites_within_their_cell(copy_fixture):
    copy_fixture("backward_in_autocast.ipynb")
    [finding] = run(["backward_in_autocast.ipynb"], cache=False).findings
    assert (finding.code, finding.cell, finding.line) == ("AMP301", 3, 6)
    assert "the autocast region opened on line 4 of cell 3" in finding.message


def test_magics_shell_escapes_and_help_are_neutralised_not_reported():
    nb = notebook.load((SHELL / "finetune.ipynb").read_text())
    lines = nb.source.splitlines()
    assert "%matplotlib inline" not in nb.source and "!pip" not in nb.source
    assert "model?" not in nb.source and "files = !ls" not in nb.source
    assert lines.count(notebook.PLACEHOLDER) == 5  # %matplotlib, !pip, model?, %%time, files = !ls
    assert "nvidia-smi" not in nb.source  # a %%bash cell is not Python at all
    compile(nb.source, "finetune.ipynb", "exec")


def test_an_unchanged_notebook_renders_byte_for_byte():
    text = (SHELL / "finetune.ipynb").read_text()
    assert notebook.load(text).render(notebook.load(text).source) == text


def test_a_syntax_error_is_located_in_its_cell_and_the_other_cells_are_still_linted(copy_fixture):
    copy_fixture("broken_cell.ipynb")
    findings = run(["broken_cell.ipynb"], cache=False).findings
    [error] = [f for f in findings if f.code == "AMP001"]
    broken = "".join(json.loads((SHELL / "broken_cell.ipynb").read_text())["cells"][2]["source"])
    with pytest.raises(SyntaxError) as expected:
        compile(broken, "cell 3", "exec")  # what Jupyter reports for that cell alone
    assert (error.cell, error.line, error.col) == (3, expected.value.lineno, expected.value.offset)
    assert [(f.code, f.cell) for f in findings if f.code != "AMP001"] == [("AMP401", 5)]


def test_fix_rewrites_cells_and_keeps_magics_and_formatting(copy_fixture):
    path = copy_fixture("finetune.ipynb")
    before = path.read_text()
    result = run(["finetune.ipynb"], cache=False, fix=True)
    assert result.fixed == 2 and result.findings == []
    after = path.read_text()
    old, new = json.loads(before), json.loads(after)
    assert "".join(new["cells"][2]["source"]).splitlines()[3] == 'scaler = torch.amp.GradScaler("cuda")'
    assert "".join(new["cells"][4]["source"]).startswith("%%time\n")
    assert new["cells"][1]["source"] == old["cells"][1]["source"]  # magics untouched
    assert new["cells"][2]["outputs"] == old["cells"][2]["outputs"]
    # Only the two fixed source lines differ; indentation, key order and final newline stay.
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
    assert len(changed) == 2 and len(before.splitlines()) == len(after.splitlines())
    assert after.endswith("}\n")
    assert run(["finetune.ipynb"], cache=False, fix=True).fixed == 0


def test_diff_shows_cells_and_changes_nothing(copy_fixture):
    path = copy_fixture("finetune.ipynb")
    before = path.read_bytes()
    result = run(["finetune.ipynb"], cache=False, diff=True)
    assert path.read_bytes() == before
    [diff] = result.diffs
    assert "--- finetune.ipynb:cell 3\n+++ finetune.ipynb:cell 3\n" in diff
    assert '+    with torch.amp.autocast("cuda"):\n' in diff


def test_a_notebook_that_is_not_json_is_one_line(project):
    (project / "bad.ipynb").write_text("{ not json")
    result = run(["bad.ipynb"], cache=False)
    assert result.findings == []
    assert result.problems == ["bad.ipynb: not valid notebook JSON (Expecting property name enclosed in double quotes at line 1)"]


def test_an_error_at_the_end_of_the_last_cell_stays_inside_it(project):
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": ["x = [1,\n", "     2"]}]
    (project / "eof.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    [error] = run(["eof.ipynb"], cache=False).findings
    assert error.code == "AMP001" and error.cell == 1 and error.line in (1, 2)


def test_a_malformed_cell_is_one_line(project):
    cells = [{"cell_type": "code", "metadata": {}, "source": None}]
    (project / "odd.ipynb").write_text(json.dumps({"cells": cells, "metadata": [], "nbformat": 4}))
    result = run(["odd.ipynb"], cache=False)
    assert result.problems == ["odd.ipynb: cell 1 has a malformed 'source'"] and result.internal_errors == []


def test_a_notebook_writer_that_escapes_non_ascii_is_matched():
    data = json.loads((SHELL / "finetune.ipynb").read_text())
    data["cells"][0]["source"].append("\nCafé ☕")
    for ensure_ascii in (True, False):
        text = json.dumps(data, indent=2, ensure_ascii=ensure_ascii)
        nb = notebook.load(text)
        assert nb.render(nb.source) == text


_LINES = [
    "import torch\n", "x = 1\n", "if x:\n", "    y = x\n", "    !echo hi\n", "%time f()\n", "obj?\n",
    "files = !ls\n", "# a comment\n", "\n", "print('?')\n", "!pip install \\\n", "    torch\n",
]


@settings(max_examples=60, deadline=None)
@given(
    cells=st.lists(
        st.tuples(st.lists(st.sampled_from(_LINES), max_size=6), st.booleans(), st.booleans(), st.sampled_from(["code", "markdown"])),
        min_size=1, max_size=5,
    )
)
def test_notebook_sources_survive_the_virtual_round_trip(cells):
    raw = []
    for lines, as_list, strip_last, kind in cells:
        text = "".join(lines)
        if strip_last:
            text = text.rstrip("\n")
        raw.append({"cell_type": kind, "metadata": {}, "source": text.splitlines(True) if as_list else text})
    original = json.dumps({"cells": raw, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    nb = notebook.load(original)
    assert nb.render(nb.source) == original
    for number, (cell, line) in enumerate(nb.line_map, start=1):
        assert 1 <= cell <= len(raw) and line >= 1


def test_ipython_syntax_jupyter_runs_is_never_a_syntax_error(copy_fixture):
    copy_fixture("ipython_syntax.ipynb")
    findings = run(["ipython_syntax.ipynb"], cache=False).findings
    assert [(f.code, f.cell, f.line) for f in findings] == [("AMP401", 11, 5)]  # the training cell is linted


def test_a_cell_ipython_rejects_too_is_reported(copy_fixture):
    copy_fixture("missing_comma.ipynb")
    [error] = run(["missing_comma.ipynb"], cache=False).findings
    assert (error.code, error.cell, error.line) == ("AMP001", 2, 5)
    assert error.message == "SyntaxError: invalid syntax. Perhaps you forgot a comma?"


def test_fixing_a_notebook_with_ipython_syntax_restores_every_command(copy_fixture):
    path = copy_fixture("ipython_syntax.ipynb")
    before = json.loads(path.read_text())
    assert run(["ipython_syntax.ipynb"], cache=False, fix=True).fixed == 1
    after = json.loads(path.read_text())
    changed = [i for i, (a, b) in enumerate(zip(before["cells"], after["cells"])) if a != b]
    assert changed == [10]
    assert "".join(after["cells"][10]["source"]).endswith("        %time torch.cuda.synchronize()")
