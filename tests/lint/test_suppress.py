"""Reading suppression comments: a text that cannot hold a directive skips the tokenizer,
which must never hide a directive, whatever its spelling."""
from __future__ import annotations

import pytest

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
