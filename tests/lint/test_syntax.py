"""AMP001 is the parser's verdict (ampcheck/lint/syntax.py): compiling first is only a faster
way to say that a text parses."""
from __future__ import annotations

from ampcheck.lint.syntax import syntax_error


def test_what_only_the_compiler_rejects_is_no_syntax_error() -> None:
    for text in ("return 1\n", "nonlocal x\n", "def f():\n    yield 1\n    return 2\nawait g()\n", "break\n"):
        assert syntax_error(text, "a.py") is None, text


def test_a_text_the_parser_rejects_is_reported_where_the_parser_stops() -> None:
    found = syntax_error("x = 1\ndef f(:\n    pass\n", "a.py")
    assert found is not None
    assert (found.code, found.line, found.col) == ("AMP001", 2, 7)


def test_top_level_await_is_accepted_in_a_notebook_only() -> None:
    text = "import asyncio\nawait asyncio.sleep(0)\n"
    assert syntax_error(text, "a.ipynb", is_notebook=True) is None
    assert syntax_error(text, "a.py") is None  # parsed, then rejected only by the compiler
