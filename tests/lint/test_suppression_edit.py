"""The edit behind an editor's "Ignore AMPxxx on this line": it must suppress the finding
the way `ampcheck lint` reads suppressions, and keep what the line already says."""
from __future__ import annotations

from ampcheck.findings import Finding, Fix
from ampcheck.lint import fix, suppress


def ignored(source: str, line: int, code: str) -> str:
    text, _ = fix.apply_fixes(source, [Fix("ignore", (suppress.suppression_edit(source, line, code),))])
    return text


def finding(code: str, line: int) -> Finding:
    return Finding(code, "m", "t.py", line, 1, line, 2)


def test_a_line_without_a_comment_gets_a_noqa_at_its_end() -> None:
    source = "x = torch.cuda.amp.autocast()   \ny = 1\n"
    assert ignored(source, 1, "AMP401") == "x = torch.cuda.amp.autocast()  # noqa: AMP401\ny = 1\n"


def test_the_code_is_merged_into_a_noqa_of_another_tool() -> None:
    source = "x = f()  # noqa: E501\n"
    text = ignored(source, 1, "AMP401")
    assert text == "x = f()  # noqa: E501, AMP401\n"
    assert suppress.parse(text).apply([finding("AMP401", 1)]) == []


def test_the_code_is_merged_into_a_noqa_naming_other_ampcheck_codes() -> None:
    assert ignored("x = f()  # noqa: AMP101\n", 1, "AMP401") == "x = f()  # noqa: AMP101, AMP401\n"


def test_a_finding_inside_a_multi_line_string_is_ignored_at_its_last_line() -> None:
    source = 'f("""a\nb""")\n'
    text = ignored(source, 1, "AMP401")
    assert text == 'f("""a\nb""")  # noqa: AMP401\n'
    assert suppress.parse(text).apply([finding("AMP401", 1)]) == []


def test_another_comment_on_the_line_is_kept() -> None:
    text = ignored("x = f()  # type: ignore\n", 1, "AMP401")
    assert text == "x = f()  # type: ignore  # noqa: AMP401\n"
    assert suppress.parse(text).apply([finding("AMP401", 1)]) == []
