"""A notebook cell as the Python that IPython runs, line for line.

Jupyter hands every cell to IPython, which rewrites its own syntax before Python sees it
(IPython's `inputtransformer2`, then its prefilter): leading blank lines, the indentation
all lines share and `>>>`/`In [1]:` prompts are dropped; a first line `%%magic` makes the cell one
call (its body is Python only for the timing/capturing magics); a logical line that starts
with `!`, `!!`, `%`, `?`, `??`, `,`, `;` or `/` - at any indentation, with its `\\`
continuation lines - is a command; `x = !cmd` and `x = %magic` assign one; a logical line
ending in `name?` asks for help; and a cell of one line that starts with a magic's name
(`pip install x`, `ls ./dir`) runs that magic (automagic), though only when it is the whole
cell. Ruff reads notebooks the same way.

Here those lines become `pass` placeholders at the command's own indentation (continuation
lines too), so the cell keeps its line numbers and parses where IPython's rewrite would,
and a syntax error left over is one IPython would raise as well. A cell that IPython shifts
sideways (a leading indent, prompts) is transformed faithfully for the syntax check but not
linted, since its columns no longer match the notebook's.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import Optional

PLACEHOLDER = "pass  # ampcheck: ipython"

# Cell magics whose body is Python that runs in the kernel's namespace (or, for the script
# magics, in a Python subprocess); any other `%%magic` cell (bash, writefile, html...) is not
# Python. Ruff's list, plus memit and snakeviz.
TRANSPARENT_CELL_MAGICS = frozenset(
    {"time", "timeit", "capture", "prun", "debug", "ipytest", "memit", "snakeviz", "python", "python3", "pypy"}
)
# Line magics and shell aliases a default IPython kernel knows (on POSIX), so `name args`
# alone in a cell runs `%name args`.
LINE_MAGICS = frozenset(
    "alias alias_magic autoawait autocall automagic bookmark cat cd clear code_wrap colors conda "
    "config cp debug dhist dirs doctest_mode ed edit env gui hist history killbgscripts ldir less "
    "lf lk ll load load_ext loadpy logoff logon logstart logstate logstop ls lsmagic lx macro magic "
    "mamba man matplotlib micromamba mkdir more mv notebook page pastebin pdb pdef pdoc pfile pinfo "
    "pinfo2 pip popd pprint precision prun psearch psource pushd pwd pycat pylab quickref recall "
    "rehashx reload_ext rep rerun reset reset_selective rm rmdir run save sc set_env store sx system "
    "tb time timeit unalias unload_ext uv who who_ls whos xdel xmode".split()
)

_ESCAPES = "!?%,;/"
_NOT_ESCAPES = ("!=", "%=", "//", "/=")  # Python operators that start like an escape
_HELP_END = re.compile(r"(%{0,2}[A-Za-z_*][\w*]*(?:\.[A-Za-z_*][\w*]*)*)\?\??$")
_CLASSIC_FIRST = re.compile(r">>>( |$)")
_CLASSIC = re.compile(r"(>>>|\.\.\.)( |$)")
_IPYTHON_PROMPT = re.compile(r"(In \[\d+\]: |\s*\.{3,}: ?)")
_AUTOMAGIC = re.compile(r"\s*([\w.]+)(.*)", re.S)
_ASSIGNS = ("=", ",", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", ">>=", "<<=", "@=")
_MAGIC_HEAD = re.compile(r"%%(\w*)")


@dataclass(frozen=True)
class Transformed:
    python: Optional[str]  # the cell as Python, line for line; None: not Python at all
    replaced: tuple[str, ...]  # the original lines the placeholders stand for, in order
    lintable: bool  # positions match the notebook's (no indent or prompt was stripped)


def transform(text: str) -> Transformed:
    lines = text.splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return Transformed(text, (), True)
    shifted = _strip_indent(lines, first) | _strip_prompts(lines, first)
    replaced: list[str] = []
    magic = _MAGIC_HEAD.match(lines[first])
    if magic is not None and not re.match(r"%%\w+\?", lines[first]):
        if magic.group(1) not in TRANSPARENT_CELL_MAGICS:
            return Transformed(None, (), False)
        replaced.append(lines[first])
        lines[first] = _placeholder("", lines[first])
    elif first == len(lines) - 1 and _is_automagic(lines[first]):
        return Transformed(None, (), False)
    _replace_commands(lines, first, replaced)
    return Transformed("".join(lines), tuple(replaced), not shifted)


def _placeholder(indent: str, line: str) -> str:
    return indent + PLACEHOLDER + line[len(line.rstrip("\r\n")) :]


def _strip_indent(lines: list[str], first: int) -> bool:
    """IPython (9) drops the indentation all lines share, as `textwrap.dedent` does."""
    rest = "".join(lines[first:])
    dedented = textwrap.dedent(rest)
    if dedented == rest:
        return False
    lines[first:] = dedented.splitlines(keepends=True)
    return True


def _strip_prompts(lines: list[str], first: int) -> bool:
    """`>>> ` / `... ` or `In [1]: ` / `   ...: ` prompts, when the first two lines show them."""
    rest = lines[first:]
    for initial, prompt in ((_CLASSIC_FIRST, _CLASSIC), (_IPYTHON_PROMPT, _IPYTHON_PROMPT)):
        if initial.match(rest[0]) or (len(rest) > 1 and prompt.match(rest[1])):
            lines[first:] = [prompt.sub("", line, count=1) for line in rest]
            return True
    return False


def _is_automagic(line: str) -> bool:
    match = _AUTOMAGIC.match(line)
    if match is None or match.group(1) not in LINE_MAGICS:
        return False
    rest = match.group(2).strip()
    return not any(rest.startswith(op) and not rest.startswith("==") for op in _ASSIGNS)


def _replace_commands(lines: list[str], start: int, replaced: list[str]) -> None:
    """Replace, from `start` on, every escaped command, magic or shell assignment and help
    request with placeholders, reading the rest as Python to know where logical lines start."""
    i = start
    while i < len(lines):
        line = lines[i]
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)]
        if _is_escaped(body) or _assigns_command(line):
            end = _end_of_continued(lines, i)
        else:
            end, lexer = _end_of_logical(lines, i)
            if not _asks_help(lines, i, end, lexer):
                i = end + 1
                continue
        for j in range(i, end + 1):
            replaced.append(lines[j])
            lines[j] = _placeholder(indent, lines[j])
        i = end + 1


def _is_escaped(body: str) -> bool:
    return body[:1] != "" and body[:1] in _ESCAPES and not body.startswith(_NOT_ESCAPES)


def _end_of_continued(lines: list[str], i: int) -> int:
    while i + 1 < len(lines) and lines[i].endswith("\\\n"):
        i += 1
    return i


class _Lexer:
    """Just enough of Python's tokenizer to find where a logical line ends: brackets,
    strings (triple-quoted ones across lines), comments and backslash continuations."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""  # the open string's quote (', ", ''' or """), "" outside strings
        self.continued = False
        self.last = ""  # the last character of code (not string, comment or space) seen
        self.comment = False  # the line read last ends in a comment

    def read(self, line: str, stop_at_assign: bool = False) -> int:
        """Read one physical line; with `stop_at_assign`, return the index just after the first
        `=` outside brackets that is an assignment (else -1)."""
        self.continued, self.comment = False, False
        i, n = 0, len(line.rstrip("\r\n"))
        while i < n:
            c = line[i]
            if self.quote:
                if c == "\\":
                    i += 2
                    continue
                if line.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote, self.last = "", "'"
                    continue
                i += 1
                continue
            if c == "#":
                self.comment = True
                break
            if c in "\"'":
                self.quote = c * 3 if line.startswith(c * 3, i) else c
                i += len(self.quote)
                continue
            if c == "\\" and i == n - 1:
                self.continued = True
                break
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth = max(0, self.depth - 1)
            elif c == "=" and stop_at_assign and self.depth == 0 and _lone_equals(line, i):
                return i + 1
            if not c.isspace():
                self.last = c
            i += 1
        if len(self.quote) == 1 and not line[:n].endswith("\\"):
            self.quote = ""  # an unterminated one-line string ends with its line (an error)
        return -1

    @property
    def open(self) -> bool:
        return bool(self.depth or self.quote or self.continued)


def _lone_equals(line: str, i: int) -> bool:
    """An `=` token by itself, not part of `==`, `!=`, `<=`, `>=`, `+=`, `:=`, ..."""
    before = line[i - 1] if i else ""
    after = line[i + 1] if i + 1 < len(line) else ""
    return after != "=" and before not in "=!<>+-*/%&|^@:~"


def _assigns_command(line: str) -> bool:
    """`x = !cmd`, `x = !!cmd`, `x = %magic args` (IPython's SystemAssign and MagicAssign)."""
    if line.lstrip().startswith("="):
        return False
    after = _Lexer().read(line, stop_at_assign=True)
    if after < 0:
        return False
    rest = line[after:].lstrip(" \t")
    return rest.startswith("!") or re.match(r"%[A-Za-z_]", rest) is not None


def _end_of_logical(lines: list[str], i: int) -> tuple[int, _Lexer]:
    lexer = _Lexer()
    lexer.read(lines[i])
    while lexer.open and i + 1 < len(lines):
        i += 1
        lexer.read(lines[i])
    return i, lexer


def _asks_help(lines: list[str], start: int, end: int, lexer: _Lexer) -> bool:
    """A logical line whose last token is `?` and that ends in `name?` / `name??`."""
    if lexer.last != "?" or lexer.comment:
        return False
    content = "".join(lines[start : end + 1]).lstrip(" \t").rstrip("\r\n")
    return _HELP_END.search(content) is not None
