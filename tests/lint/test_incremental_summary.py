"""A buffer's summary built after an edit, reusing the programs of the definitions the edit
did not touch (program.py, `StatementPrograms`), is the summary built whole, and its
findings are those of the text analysed from scratch: whatever the edit changes that a
reused definition reads (a module global, an import, a base class's attributes, a module
function, a global inferred to be a scaler), the reuse is an optimisation only."""
from __future__ import annotations

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ampcheck.config import load_settings
from ampcheck.lint.digests import FileDigests, read_regular
from ampcheck.lint.engine import lint_text, open_project
from ampcheck.lint.model import FileModel
from ampcheck.lint.reparse import Reparser
from tests.paths import FIXTURES

PROJECT = FIXTURES / "server" / "incremental"
TRAIN = PROJECT / "train.py"
SOURCE = TRAIN.read_text()

# (what the edit does, the text it replaces, the text it puts there)
EDITS = [
    ("a statement typed into a function", "        optimizer.zero_grad()\n    torch.save", "        optimizer.zero_grad()\n        seen = 1\n    torch.save"),
    ("a module constant a function reads", "USE_AMP = True", "USE_AMP = False"),
    ("a module scaler rebound", 'shared_scaler = torch.amp.GradScaler("cuda", enabled=USE_AMP)', "shared_scaler = None"),
    ("an import removed", "from torch.cuda.amp import autocast\n", ""),
    ("an imported name dropped", "import backward_and_step, plain_step, save_state", "import backward_and_step, save_state"),
    ("a module function named like an imported one", '\n\nif __name__', "\n\ndef plain_step(loss, optimizer):\n    optimizer.zero_grad()\n\n\nif __name__"),
    ("a base class's attribute", 'self.scaler = torch.amp.GradScaler("cuda")', "self.scaler = None"),
    ("a base class made a module", "class Trainer:", "class Trainer(nn.Module):"),
    ("a base class renamed", "class Trainer", "class BaseTrainer"),
    ("a scaler construction in a function", 'GradScaler("cuda", enabled=True)', 'GradScaler("cuda", enabled=False)'),
    ("a use that makes a global a scaler", "    shared_scaler.update()\n", "    shared_scaler.update()\n    gs.update()\n"),
    ("a checkpoint saved in a new function", "\n\nif __name__", '\n\ndef save_again(model, optimizer):\n    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, "again.pt")\n\n\nif __name__'),
    ("a function removed", "def step_global(optimizer):\n    gs.step(optimizer)\n\n\n", ""),
    ("a local shadowing an import", "    model, optimizer = build()\n    scaler = torch.amp.GradScaler(\"cuda\")\n", "    model, optimizer = build()\n    torch = None\n    scaler = torch.amp.GradScaler(\"cuda\")\n"),
    ("a method added to the base class", "    def save(self, path):", "    def step(self, x, y):\n        self.optimizer.step()\n\n    def save(self, path):"),
    ("a syntax error mid-edit", "        scaler.update()\n        optimizer.zero_grad()", "        scaler.update(\n        optimizer.zero_grad()"),
]


EDIT = {name: (old, new) for name, old, new in EDITS}


def edited(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def summaries(reparser: Reparser, text: str) -> tuple[dict, dict]:
    """The summary built with the buffer's kept programs, and the summary of the same tree
    built whole (one tree, so node identities in the two agree)."""
    module = reparser.parse(text)
    kept = FileModel(str(TRAIN), text, module, positions=reparser.positions, indexes=reparser.indexes, programs=reparser.programs)
    whole = FileModel(str(TRAIN), text, module)
    return kept.summary.to_json(), whole.summary.to_json()


@pytest.mark.parametrize("old,new", [(o, n) for _, o, n in EDITS[:-1]], ids=[name for name, _, _ in EDITS[:-1]])
def test_a_summary_reusing_untouched_definitions_is_the_summary_built_whole(old: str, new: str) -> None:
    reparser = Reparser()
    got, expected = summaries(reparser, SOURCE)
    assert got == expected
    got, expected = summaries(reparser, edited(SOURCE, old, new))
    assert got == expected
    got, expected = summaries(reparser, SOURCE)  # and back
    assert got == expected


def test_an_edit_inside_one_function_reuses_every_other_definition() -> None:
    reparser = Reparser()
    summaries(reparser, SOURCE)
    old, new = EDIT["a statement typed into a function"]
    summaries(reparser, edited(SOURCE, old, new))
    definitions = SOURCE.count("\ndef ") + SOURCE.count("\nclass ")
    assert reparser.programs.reused == definitions - 1


def test_an_edit_outside_any_definition_that_they_may_read_reuses_none() -> None:
    reparser = Reparser()
    summaries(reparser, SOURCE)
    old, new = EDIT["a module constant a function reads"]
    summaries(reparser, edited(SOURCE, old, new))
    assert reparser.programs.reused == 0


def test_a_subclass_is_built_anew_with_its_base_class() -> None:
    reparser = Reparser()
    summaries(reparser, SOURCE)
    old, new = EDIT["a base class's attribute"]
    summaries(reparser, edited(SOURCE, old, new))
    definitions = SOURCE.count("\ndef ") + SOURCE.count("\nclass ")
    assert reparser.programs.reused == definitions - 2  # Trainer, and AmpTrainer(Trainer)


def test_findings_after_any_sequence_of_edits_are_those_of_the_text_analysed_from_scratch() -> None:
    settings = load_settings([str(TRAIN)], cwd=PROJECT)
    project = open_project(str(PROJECT), settings, None, FileDigests(), read_regular)
    reparser = Reparser()
    text = SOURCE
    seen = set()
    for _, old, new in [(None, SOURCE, SOURCE), *EDITS, (None, "scaler.update(\n", "scaler.update()\n")]:
        text = edited(text, old, new)
        kept = lint_text(str(TRAIN), text, settings, project, reparser)
        fresh = lint_text(str(TRAIN), text, settings, open_project(str(PROJECT), settings, None, FileDigests(), read_regular))
        assert kept.findings == fresh.findings
        assert kept.internal_errors == fresh.internal_errors == []
        seen.add(tuple((f.code, f.line, f.message) for f in kept.findings))
    assert len(seen) > len(EDITS) // 2  # the edits change what is reported



# what people type, where it may change what a definition elsewhere reads
SNIPPETS = [
    "\n", "    ", "x = (", ")", ":", "# note\n", "USE_AMP = False\n", "shared_scaler = None\n", "gs = object()\n",
    "import torch.cuda.amp as amp\n", "from helpers import build\n", "torch = None\n", "def build():\n    pass\n",
    "class Trainer(nn.Module):\n    pass\n", "        self.scaler = None\n", "    gs.update()\n", "    return Trainer(1, 2)\n",
    "    global EPOCHS\n", "exec('x')\n",
]
edit = st.tuples(st.integers(0, len(SOURCE)), st.integers(0, 30), st.sampled_from(SNIPPETS))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(edit, min_size=1, max_size=5))
def test_after_any_edits_a_summary_reusing_definitions_is_the_summary_built_whole(edits: list[tuple[int, int, str]]) -> None:
    reparser = Reparser()
    summaries(reparser, SOURCE)
    text = SOURCE
    for at, cut, snippet in edits:
        at = min(at, len(text))
        text = text[:at] + snippet + text[at + cut:]
        try:
            got, expected = summaries(reparser, text)
        except cst.ParserSyntaxError:
            continue
        assert got == expected
