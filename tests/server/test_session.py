"""The server's lint session over many edits: whatever is typed, an analysis is the CLI's
(the re-parse that reuses the previous parse never changes a finding), half-typed code gives
at most one AMP001, and nothing raises."""
from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ampcheck.config import SYNTAX_ERROR, load_settings
from ampcheck.lint.digests import FileDigests
from ampcheck.lint.engine import lint_text, open_project
from ampcheck.server.session import Session
from tests.server.lsp import PROJECT

TRAIN = PROJECT / "train.py"
SOURCE = TRAIN.read_text()
SNIPPETS = ["\n", "    ", "x = (", ")", "scaler.step(optimizer)\n", "# note\n", "def f():\n    pass\n", "torch.cuda.amp.autocast()", ":", "\n\n"]

edit = st.tuples(st.integers(0, len(SOURCE)), st.integers(0, 40), st.sampled_from(SNIPPETS))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(edit, min_size=1, max_size=6))
def test_every_edit_is_analysed_as_the_cli_would_and_never_raises(edits: list[tuple[int, int, str]]) -> None:
    session = Session([str(PROJECT)])
    path = str(TRAIN)
    expected_settings = load_settings([path], cwd=Path(PROJECT))
    text = SOURCE
    session.open(path, text)
    session.check(path, text)
    for at, cut, snippet in edits:
        at = min(at, len(text))
        text = text[:at] + snippet + text[at + cut:]
        session.edit(path, text)
        checked = session.check(path, text)
        project = open_project(str(PROJECT), expected_settings, None, FileDigests(session.read), session.read)
        fresh = lint_text(path, text, expected_settings, project)  # parsed whole, project read anew
        assert checked.findings == fresh.findings
        assert [f.code for f in checked.findings].count(SYNTAX_ERROR) <= 1
        assert not [p for p in checked.problems if "internal error" in p]
