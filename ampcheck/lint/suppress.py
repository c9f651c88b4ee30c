"""Suppression comments: `# noqa`, `# noqa: AMP401,AMP402`, `# ampcheck: ignore[AMP401]`,
`# ampcheck: ignore` and the file-level `# ampcheck: ignore-file`.

A line directive suppresses findings that start on its line, as in Ruff and flake8; for
a finding inside a multi-line string or a backslash-continued line, Ruff's place - the
end of its last line - works too.
Comments are found with the tokenizer, so a `#` inside a string is never a directive.
Codes of other tools in a shared `# noqa: E501, AMP401` are left alone. With
`--warn-unused-ignores` a directive naming ampcheck codes that suppress nothing is
reported (AMP002) with a fix that removes it. A bare `# noqa` is never reported as
unused: other linters read it too.
"""
from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Iterable, Optional

from ampcheck.config import UNUSED_SUPPRESSION
from ampcheck.findings import Edit, Finding, Fix

_NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE
)
_IGNORE = re.compile(r"#\s*ampcheck:\s*ignore(?!-)(?:\[(?P<codes>[^\]]*)\])?")
_IGNORE_FILE = re.compile(r"#\s*ampcheck:\s*ignore-file\b")
_OURS = re.compile(r"AMP[0-9]{3}")
# What every directive's text contains (the patterns above, without their context)
_MAY_HOLD_DIRECTIVE = re.compile(r"(?i:noqa)|ampcheck:")
# What a directive that can be reported unused contains: one naming our codes (a bare
# `# noqa` never is, nor one naming only other tools' codes)
_MAY_NAME_OURS = re.compile(r"(?i:amp)[0-9]{3}|ampcheck:")


@dataclass
class Directive:
    line: int
    col: int  # 1-based column of the directive's `#`
    end_col: int
    text: str  # the directive as written
    codes: Optional[tuple[str, ...]]  # the ampcheck codes named; None: every code
    bare_noqa: bool
    whole_comment: bool  # the directive is the entire comment
    code_end: int  # 1-based column where the code before the comment ends (1: no code)
    used: set[str] = field(default_factory=set)

    def covers(self, code: str) -> bool:
        return self.codes is None or code in self.codes


@dataclass
class Suppressions:
    ignore_file: bool
    by_line: dict[int, list[Directive]]
    joined: dict[int, int]  # a line inside a multi-line string or continuation -> its last line

    def apply(self, findings: Iterable[Finding]) -> list[Finding]:
        """The findings no directive suppresses; records which directives were used."""
        kept = []
        for finding in findings:
            if self.ignore_file:
                continue
            lines = {finding.line, self.joined.get(finding.line, finding.line)}
            hit = [d for n in lines for d in self.by_line.get(n, ()) if d.covers(finding.code)]
            for d in hit:
                d.used.add(finding.code)
            if not hit:
                kept.append(finding)
        return kept

    def unused(self, path: str, enabled: frozenset[str]) -> list[Finding]:
        """AMP002 findings for directives (or codes in them) that suppressed nothing."""
        found = []
        for directives in self.by_line.values():
            for d in directives:
                if d.bare_noqa:
                    continue
                if d.codes is None:
                    if not d.used:
                        found.append(_unused(path, d, "unused suppression `" + d.text + "`", ()))
                    continue
                idle = [c for c in d.codes if c not in d.used]
                if not idle:
                    continue
                notes = [c if c in enabled else f"{c} (not enabled)" for c in idle]
                keep = tuple(c for c in d.codes if c in d.used)
                found.append(_unused(path, d, "unused suppression of " + ", ".join(notes), keep))
        return found


def _unused(path: str, d: Directive, message: str, keep: tuple[str, ...]) -> Finding:
    kept = _rewrite(d.text, keep) if d.codes is not None else None
    if kept is not None:
        fix = Fix("Remove the unused codes", (Edit(d.line, d.col, d.line, d.end_col, kept),))
    else:
        start = d.code_end if d.whole_comment else d.col
        fix = Fix("Remove the unused suppression", (Edit(d.line, start, d.line, d.end_col, ""),))
    return Finding(UNUSED_SUPPRESSION, message, path, d.line, d.col, d.line, d.end_col, fix=fix)


def _rewrite(text: str, keep: tuple[str, ...]) -> Optional[str]:
    """The directive naming only `keep` and any other tool's codes; None when nothing is left."""
    if _IGNORE.fullmatch(text):
        return f"# ampcheck: ignore[{', '.join(keep)}]" if keep else None
    match = _NOQA.fullmatch(text)
    assert match is not None and match.group("codes")
    named = [c for c in re.split(r"[\s,]+", match.group("codes")) if c]
    codes = [c for c in named if not _OURS.fullmatch(c.upper()) or c.upper() in keep]
    return f"# noqa: {', '.join(codes)}" if codes else None


def may_report_unused(source: str) -> bool:
    """Whether a file with no finding can hold a directive AMP002 reports: without one, a
    clean file skips the tokenizer (most `# noqa` comments are other linters')."""
    return _MAY_NAME_OURS.search(source) is not None


def parse(source: str, from_line: int = 1) -> Suppressions:
    """The directives of `source`. With `from_line`, only those that can suppress a finding
    starting on that line or later are needed: a directive suppresses findings that start on
    its line or on a line joined to it (always an earlier one), so a file whose directive-like
    comments all sit above `from_line` (icefall's `# noqa` on imports) skips the tokenizer."""
    last = None
    for last in _MAY_HOLD_DIRECTIVE.finditer(source):
        pass
    if last is None or (
        source.count("\n", 0, last.start()) + 1 < from_line and not _IGNORE_FILE.search(source)
    ):
        return Suppressions(False, {}, {})  # no comment can hold one that applies: skip the tokenizer
    directives: dict[int, list[Directive]] = {}
    ignore_file = False
    comments, joined = _scan(source)
    for (line, col), comment, code_end in comments:
        if _IGNORE_FILE.search(comment):
            ignore_file = True
            continue
        for match in (*_NOQA.finditer(comment), *_IGNORE.finditer(comment)):
            raw = match.group("codes")
            is_noqa = match.re is _NOQA
            if raw is None:
                codes: Optional[tuple[str, ...]] = None
            else:
                named = [c.strip() for c in re.split(r"[\s,]+", raw) if c.strip()]
                codes = tuple(c.upper() for c in named if _OURS.fullmatch(c.upper()))
                if is_noqa and not codes:
                    continue  # only other tools' codes
            d = Directive(
                line=line,
                col=col + 1 + match.start(),
                end_col=col + 1 + match.end(),
                text=match.group(0),
                codes=codes,
                bare_noqa=is_noqa and codes is None,
                whole_comment=match.group(0) == comment.rstrip(),
                code_end=code_end,
            )
            directives.setdefault(line, []).append(d)
    return Suppressions(ignore_file, directives, joined)


_BREAKS = (tokenize.NL, tokenize.NEWLINE)


def _scan(source: str) -> tuple[list[tuple[tuple[int, int], str, int]], dict[int, int]]:
    """The comments - (start, text, 1-based column where the code before it ends, or 1) -
    and the lines joined to a later one by a multi-line string or a backslash continuation
    (line -> the last line, where Ruff expects their directive). A file that does not
    tokenize keeps what was read before the error."""
    found = []
    joined: dict[int, int] = {}
    last_code_end: dict[int, int] = {}
    run: Optional[list[int]] = None  # [first line, last line] of tokens not separated by a line break
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                found.append((tok.start, tok.string, last_code_end.get(tok.start[0], 1)))
            elif tok.type in _BREAKS or tok.type == tokenize.ENDMARKER:
                if run is not None and run[1] > run[0]:
                    joined.update((line, run[1]) for line in range(run[0], run[1]))
                run = None
            elif tok.type not in (tokenize.INDENT, tokenize.DEDENT):
                last_code_end[tok.end[0]] = tok.end[1] + 1
                run = [tok.start[0], tok.end[0]] if run is None else [run[0], tok.end[0]]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return found, joined


def suppression_edit(source: str, line: int, code: str) -> Edit:
    """The edit that suppresses `code` on `line` (an editor's "ignore on this line"): the
    code merged into the `# noqa: ...` where the line's directives are read (one naming only
    other tools' codes too), else `  # noqa: CODE` at the end of that line. That line is the
    finding's own, or the last line of the multi-line string or continued line it is in."""
    comments, joined = _scan(source)
    target = joined.get(line, line)
    for (row, col), comment, _ in comments:
        match = _NOQA.search(comment) if row == target else None
        if match is not None and match.group("codes"):
            at = col + 1 + match.end("codes")
            return Edit(target, at, target, at, f", {code}")
    lines = source.splitlines()
    content = lines[target - 1] if 0 < target <= len(lines) else ""
    end = len(content.rstrip()) + 1
    return Edit(target, end, target, len(content) + 1, f"  # noqa: {code}")
