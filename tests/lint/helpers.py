"""Run the registered checks on source text, without the engine: the rules' own tests use it."""
from __future__ import annotations

from pathlib import Path
from typing import Union

from ampcheck.findings import Finding
from ampcheck.lint.checks import load_all
from ampcheck.lint.model import FileModel
from ampcheck.targets import Targets


def lint_source(
    source: str, select: str = "AMP", path: str = "<test>.py", targets: Targets = Targets()
) -> list[Finding]:
    """Every finding whose code starts with `select`, from every registered check, sorted."""
    model = FileModel(path, source, targets=targets)
    found = {
        (f.code, f.line, f.col): f
        for chk in load_all()
        if any(c.startswith(select) for c in chk.codes)
        for f in chk.run(model)
        if f.code.startswith(select)
    }
    return sorted(found.values(), key=Finding.sort_key)


def lint_file(path: Union[str, Path], select: str = "AMP", targets: Targets = Targets()) -> list[Finding]:
    path = Path(path)
    return lint_source(path.read_text(encoding="utf-8"), select, str(path), targets)


def codes(findings: list[Finding]) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in findings]


def expected(path: Union[str, Path], select: str = "AMP") -> list[tuple[str, int]]:
    """The findings a fixture declares with `# expect: AMP301` (comma-separated for several)
    on the line each finding points at, for codes starting with `select`."""
    out = []
    for line_no, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        _, marker, rest = line.partition("# expect:")
        if marker:
            out += [(c.strip(), line_no) for c in rest.split(",") if c.strip().startswith(select)]
    return sorted(out, key=lambda cl: (cl[1], cl[0]))
