"""Reading suppression comments: a text that cannot hold a directive skips the tokenizer,
which must never hide a directive, whatever its spelling."""
from __future__ import annotations

import pytest

from ampcheck.findings import Finding
from ampcheck.lint import suppress

SPELLINGS = ["# noqa", "# NOQA: AMP401", "#noqa:amp401", "# NoQa: E501, AMP401", "#ampcheck: ignore", "# ampcheck:ignore[AMP401]"]


@pytest.mark.parametrize("comment", SPELLINGS)
def test_every_directive_spelling_is_read(comment: str) -> None:
    found = suppress.parse(f"x = 1\ny = torch.cuda.amp.autocast()  {comment}\n")
    assert [d.line for d in found.by_line.get(2, [])] == [2]


def test_an_ignore_file_directive_is_read() -> None:
    assert suppress.parse("# ampcheck: ignore-file\nx = 1\n").ignore_file


def test_a_text_without_directives_has_none() -> None:
    found = suppress.parse('x = 1  # a comment\ns = """\nnoq a\n"""\n')
    assert not found.by_line and not found.ignore_file


def test_directives_read_from_a_line_include_one_on_that_line() -> None:
    found = suppress.parse("import apex  # noqa\nx = 1\ny = torch.cuda.amp.autocast()  # noqa: AMP401\n", from_line=3)
    assert list(found.by_line) == [1, 3]


def test_directives_all_above_the_first_finding_are_not_read() -> None:
    found = suppress.parse("import apex  # noqa\nx = 1\ny = torch.cuda.amp.autocast()\n", from_line=3)
    assert not found.by_line and not found.ignore_file


def test_an_ignore_file_directive_above_the_first_finding_is_read() -> None:
    assert suppress.parse("# ampcheck: ignore-file\nx = 1\ny = torch.cuda.amp.autocast()\n", from_line=3).ignore_file


def test_a_directive_that_ends_a_continued_line_below_the_first_finding_is_read() -> None:
    found = suppress.parse("y = torch.cuda.amp.autocast() + \\\n    1  # noqa: AMP401\n", from_line=1)
    assert found.apply([Finding("AMP401", "deprecated", "x.py", 1, 5, 1, 30)]) == []
