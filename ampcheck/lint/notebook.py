"""Jupyter notebooks as one virtual Python source, and back.

The code cells are joined, each after a marker comment line, into one source that the
program model parses like any file, so a scaler made in cell 2 and stepped in cell 5 is
seen as one program. A line map turns virtual positions back into `cell N:line:col`
(N counts every cell, 1-based, as Jupyter shows them). Each cell is first read the way
IPython reads it (ipython.py): its commands, magics and help requests become `pass`
placeholders with the same indentation, and cells that are not Python (`%%bash`, an
automagic `pip install x`, a cell another language owns in VS Code) are left out. A cell
that is still not valid Python is invalid for IPython too: it is reported (AMP001, per
cell, as Jupyter would fail it) and left out, so the other cells are still linted. After
fixes the virtual source is split at the markers and the original lines are put back, and
the notebook JSON is re-serialised in its own indentation, key order and final newline.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any, Optional

from ampcheck.findings import Edit, Finding
from ampcheck.lint import ipython
from ampcheck.lint.ipython import PLACEHOLDER
from ampcheck.lint.syntax import syntax_error
from ampcheck.targets import MinorVersion

MARKER = "# ampcheck: cell {}"

_MARKER_LINE = re.compile(r"^# ampcheck: cell (\d+)\n?$")


class NotebookError(Exception):
    """A notebook that cannot be read as nbformat JSON; str() is one line."""


@dataclass
class _Cell:
    index: int  # 1-based among all cells
    text: str  # the cell's source, as one string
    as_list: bool  # the JSON stored the source as a list of lines
    replaced: tuple[str, ...]  # original lines the placeholders stand for, in order
    python: str  # the cell as IPython runs it, line for line


@dataclass
class Notebook:
    data: dict[str, Any]
    indent: Optional[int]
    ascii_only: bool  # the file escapes non-ASCII characters (`\u00e9`) rather than writing them
    trailing_newline: bool
    cells: list[_Cell]
    source: str  # the virtual Python source
    line_map: list[tuple[int, int]]  # virtual line (0-based index) -> (cell, line in cell)
    invalid: list[Finding]  # AMP001 of each cell that is not valid even for IPython

    def syntax_errors(self, path: str) -> list[Finding]:
        """AMP001 for each invalid cell, at its own line and column."""
        return [replace(f, path=path) for f in self.invalid]

    def _at(self, line: int) -> tuple[int, int]:
        """(cell, line in cell) of a virtual line; a position past the end (CPython's
        "unexpected EOF") belongs to the last line."""
        return self.line_map[min(max(line, 1), len(self.line_map)) - 1]

    def locate(self, finding: Finding) -> Finding:
        """The finding with its line numbers counted within its cell."""
        cell, line = self._at(finding.line)
        end_cell, end_line = self._at(finding.end_line)
        end_col = finding.end_col
        if end_cell != cell:  # a range running into the next cell's marker: stop at the line end
            end_line, end_col = line, finding.col
        fix = finding.fix
        if fix is not None:
            fix = replace(fix, edits=tuple(self._locate_edit(e) for e in fix.edits))
        return replace(finding, line=line, end_line=end_line, end_col=end_col, cell=cell, fix=fix)

    def _locate_edit(self, edit: Edit) -> Edit:
        """An edit in its cell's coordinates (rows within the cell, as Ruff reports them)."""
        _, row = self._at(edit.row)
        _, end_row = self._at(edit.end_row)
        return replace(edit, row=row, end_row=max(row, end_row))

    def cell_sources(self, virtual: str) -> dict[int, str]:
        """Each code cell's text (IPython lines restored) cut from `virtual`, a fixed copy of
        `self.source`; raises NotebookError when the cell markers no longer line up."""
        texts = split_cells(virtual)
        if sorted(texts) != sorted(c.index for c in self.cells):
            raise NotebookError("the fixed source lost a cell marker; notebook left unchanged")
        return {cell.index: _restore(cell, texts[cell.index]) for cell in self.cells}

    def render(self, virtual: str) -> str:
        """The notebook JSON with its code cells taken from `virtual`."""
        sources = self.cell_sources(virtual)
        raw_cells = self.data["cells"]
        for cell in self.cells:
            text = sources[cell.index]
            raw_cells[cell.index - 1]["source"] = text.splitlines(keepends=True) if cell.as_list else text
        text = json.dumps(self.data, indent=self.indent, ensure_ascii=self.ascii_only)
        return text + "\n" if self.trailing_newline else text


def load(text: str, python: Optional[MinorVersion] = None) -> Notebook:
    """The notebook's code cells; a cell that `python` (the project's oldest Python, None:
    this interpreter) cannot parse is kept as its AMP001 and left out of the virtual source."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise NotebookError(f"not valid notebook JSON ({err.msg} at line {err.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError("not a Jupyter notebook (no 'cells' list)")
    metadata = data.get("metadata")
    info = metadata.get("language_info") if isinstance(metadata, dict) else None
    language = info.get("name", "python") if isinstance(info, dict) else "python"
    if language != "python":
        raise NotebookError(f"notebook language is {language!r}, not Python")
    cells = []
    invalid = []
    for index, raw in enumerate(data["cells"], start=1):
        if not isinstance(raw, dict) or raw.get("cell_type") != "code" or not _is_python(raw):
            continue
        source = raw.get("source", "")
        if not isinstance(source, str) and not (
            isinstance(source, list) and all(isinstance(line, str) for line in source)
        ):
            raise NotebookError(f"cell {index} has a malformed 'source'")
        as_list = isinstance(source, list)
        cell_text = "".join(source) if as_list else str(source)
        cell = ipython.transform(cell_text)
        if cell.python is None:
            continue
        error = syntax_error(cell.python, "", is_notebook=True, python=python)
        if error is not None:
            invalid.append(replace(error, cell=index))
        elif cell.lintable:
            cells.append(_Cell(index, cell_text, as_list, cell.replaced, cell.python))
    virtual, line_map = _join(cells)
    return Notebook(
        data, _indent_of(text), text.isascii(), text.endswith("\n"), cells, virtual, line_map, invalid
    )


def _is_python(cell: dict[str, Any]) -> bool:
    """False for a code cell that VS Code runs in another language (`metadata.vscode.languageId`)."""
    metadata = cell.get("metadata")
    vscode = metadata.get("vscode") if isinstance(metadata, dict) else None
    language = vscode.get("languageId", "python") if isinstance(vscode, dict) else "python"
    return language == "python"


def _indent_of(text: str) -> Optional[int]:
    match = re.match(r"\{\s*?\n( *)\S", text)
    if match is None:
        return None
    return len(match.group(1))


def _join(cells: list[_Cell]) -> tuple[str, list[tuple[int, int]]]:
    lines: list[str] = []
    line_map: list[tuple[int, int]] = []
    for cell in cells:
        lines.append(MARKER.format(cell.index) + "\n")
        line_map.append((cell.index, 1))
        body = cell.python.splitlines(keepends=True)
        for number, line in enumerate(body, start=1):
            lines.append(line if line.endswith("\n") else line + "\n")
            line_map.append((cell.index, number))
    return "".join(lines), line_map


def cell_line(virtual: str, line: int) -> Optional[tuple[int, int]]:
    """(cell, line within it) of a 1-based line of a notebook's virtual source, as a finding
    there is shown; None for a line before any cell marker."""
    found = None
    for number, text in enumerate(virtual.splitlines(keepends=True)[:line], start=1):
        marker = _MARKER_LINE.match(text)
        if marker:
            found = (int(marker.group(1)), number)
    return None if found is None else (found[0], max(line - found[1], 1))


def split_cells(virtual: str) -> dict[int, str]:
    """Cell index -> its text, cut at the marker lines of a (possibly fixed) virtual source."""
    texts: dict[int, list[str]] = {}
    current: Optional[list[str]] = None
    for line in virtual.splitlines(keepends=True):
        marker = _MARKER_LINE.match(line)
        if marker:
            current = texts.setdefault(int(marker.group(1)), [])
        elif current is not None:
            current.append(line)
    return {index: "".join(lines) for index, lines in texts.items()}


def _restore(cell: _Cell, python: str) -> str:
    """A cell's fixed text with its IPython lines put back and its original final newline."""
    originals = iter(cell.replaced)
    lines = []
    for line in python.splitlines(keepends=True):
        if line.strip() == PLACEHOLDER:
            line = next(originals, line)
        lines.append(line)
    text = "".join(lines)
    if not cell.text.endswith("\n") and text.endswith("\n"):
        text = text[:-1]
    return text
