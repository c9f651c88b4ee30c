"""`ampcheck lint --fix --unsafe-fixes` over every fixture at once: each result still parses,
a second run changes nothing, files with nothing to fix stay byte-identical, and the fix
verifier never had to refuse a round (no rewritten use could mean two bindings)."""
from __future__ import annotations

import json
import shutil

from tests.paths import FIXTURES
from tests.shell.helpers import run


def test_fixing_every_fixture_is_safe_and_idempotent(project):
    for path in FIXTURES.rglob("*"):
        if path.suffix in (".py", ".ipynb"):
            target = project / "fx" / path.relative_to(FIXTURES)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    before = {p: p.read_bytes() for p in (project / "fx").rglob("*") if p.is_file()}
    would_change = run(["fx"], cache=False, diff=True, unsafe_fixes=True).diffs
    first = run(["fx"], cache=False, fix=True, unsafe_fixes=True)
    assert first.fixed > 0
    assert not [p for p in first.problems if "fixes not applied" in p]
    changed = {p for p, data in before.items() if p.read_bytes() != data}
    assert len(changed) == len(would_change)  # only the files --diff named were touched
    for path in changed:
        if path.suffix == ".py":
            compile(path.read_bytes(), str(path), "exec")  # honours the coding cookie
        else:
            for cell in json.loads(path.read_text())["cells"]:
                assert isinstance(cell["source"], (list, str))
    after = {p: p.read_bytes() for p in before}
    assert run(["fx"], cache=False, fix=True, unsafe_fixes=True).fixed == 0
    assert {p: p.read_bytes() for p in before} == after
