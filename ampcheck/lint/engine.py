"""The lint pipeline: discover, read, pre-filter, parse, check, suppress, fix, cache - per file,
in parallel processes when there is enough work to pay for them.

`lint_paths` is the one entry point (the CLI and the tests use it). `analyse` is the
per-text core: syntax check for the project's Python (see syntax.py), the text pre-filter,
the libcst program model and the checks for the file's enabled codes, then the suppression
comments.
"""
from __future__ import annotations

import difflib
import gc
import os
import tempfile
from contextlib import contextmanager
from time import perf_counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Optional, Sequence

from ampcheck.config import SYNTAX_ERROR, UNUSED_SUPPRESSION, Settings, default_settings
from ampcheck.findings import Finding, Fix
from ampcheck.lint import notebook, prefilter, suppress
from ampcheck.lint.cache import Cache, implementation, key
from ampcheck.lint.digests import FileDigests, Reader, read_regular
from ampcheck.lint.discover import discover
from ampcheck.lint.project import project_root
from ampcheck.lint.source import SourceError, SourceFile, read_source, too_large, write_source
from ampcheck.lint.syntax import syntax_error
from ampcheck.lint.timings import RECORDER, Count, Phase, Timings
from ampcheck.targets import Targets

if TYPE_CHECKING:
    from ampcheck.lint.project import Project
    from ampcheck.lint.reparse import Reparser

MAX_FIX_ROUNDS = 10
# Below this many files a default run stays in-process: starting workers costs more.
PARALLEL_MIN_FILES = 16
# allocations between two collections of the youngest generation during a run
_COLLECT_EVERY = 20_000


@dataclass(frozen=True)
class Options:
    fix: bool = False
    diff: bool = False  # compute fixes and report them as a diff; write nothing
    unsafe_fixes: bool = False
    jobs: Optional[int] = None  # None: all cores, in-process for small runs
    cache: bool = True


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)
    fixed: int = 0
    diff: str = ""
    analysed: bool = False  # went through libcst (not replayed from the cache, not pre-filtered)
    deps: dict[str, str] = field(default_factory=dict)  # lint_text: the other files the analysis read
    timings: Timings = field(default_factory=Timings)  # what linting it cost, in its process


@dataclass
class LintResult:
    findings: list[Finding]
    problems: list[str]  # one line each: unreadable files, refused fixes, ...
    missing: list[str]  # paths named on the command line that do not exist
    internal_errors: list[str]
    fixed: int
    diffs: list[str]
    files: int
    analysed: int
    timings: Timings = field(default_factory=Timings)  # summed over the processes
    wall: float = 0.0
    processes: int = 1


@dataclass
class _Analysis:
    findings: list[Finding]
    analysed: bool = False
    deps: dict[str, str] = field(default_factory=dict)  # other files the analysis read -> their hashes
    problems: list[str] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)


def lint_paths(
    paths: Sequence[str], settings: Optional[Settings] = None, options: Options = Options()
) -> LintResult:
    start = perf_counter()
    settings = settings if settings is not None else default_settings()
    found = discover(list(paths), settings)
    root = str(project_root(settings.config_path, list(paths), Path.cwd()))
    _RUN.clear()  # a run reads files as they are now
    RECORDER.take()  # this run's figures only
    with _few_collections():
        results, processes = _run(found.files, settings, options, root)
    findings = sorted((f for r in results for f in r.findings), key=Finding.sort_key)
    timings = Timings()
    timings.count(Count.FOUND, len(found.files))
    for r in results:
        timings.add(r.timings)
    return LintResult(
        findings=findings,
        problems=found.problems + [p for r in results for p in r.problems],
        missing=found.missing,
        internal_errors=[e for r in results for e in r.internal_errors],
        fixed=sum(r.fixed for r in results),
        diffs=[r.diff for r in results if r.diff],
        files=len(found.files),
        analysed=sum(r.analysed for r in results),
        timings=timings,
        wall=perf_counter() - start,
        processes=processes,
    )


@contextmanager
def _collected_once() -> Iterator[None]:
    """Lint one file with the cyclic garbage collector off, then collect its young objects
    once and freeze what survives. A file's tree (hundreds of thousands of nodes) is freed
    by reference counting when the file is done (`FileModel.release`), so collections while
    it lives only walk it again and again: 12-20% of a run's CPU on icefall and DeepSpeed
    even at a threshold of 20,000 (`_few_collections`). What outlives a file (the summaries
    of the modules it read, kept for the run) is frozen, so no later collection walks it
    either; `_few_collections` unfreezes it when the run ends."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
            if gc.get_count()[0] > _COLLECT_EVERY:
                gc.collect(0)  # (the reference cycles the file's analysis left behind)
                gc.freeze()


@contextmanager
def _few_collections() -> Iterator[None]:
    """Run the cyclic garbage collector less often while linting (the workers fork with
    it): between files, and through a run the cache answers, the youngest generation is
    collected every 20,000 allocations instead of 700 (inside a file, `_collected_once`
    runs none). Before files were linted without collections, this threshold took a
    DeepSpeed run's collections from 16% of its CPU to 7%. When the run ends, what
    `_collected_once` froze is unfrozen, so a process that lints again (the test suite)
    collects it as usual."""
    before = gc.get_threshold()
    gc.set_threshold(_COLLECT_EVERY, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def _run(files: list[str], settings: Settings, options: Options, root: str) -> tuple[list[FileResult], int]:
    """Replay what the cache holds in this process; analyse the rest, in workers when enough
    files are left (or `--jobs` asks for them). Also: how many processes analysed."""
    done: dict[str, FileResult] = {}
    if options.cache:
        for path in files:
            replayed = lint_file(path, settings, options, root, replay_only=True)
            if replayed is not None:
                done[path] = replayed
    pending = [path for path in files if path not in done]
    jobs = options.jobs or _cores()
    many = options.jobs is not None or len(pending) >= PARALLEL_MIN_FILES
    workers = 1
    if jobs > 1 and len(pending) > 1 and many:
        from concurrent.futures import ProcessPoolExecutor  # ~15 ms: only runs that fork pay it

        from ampcheck.lint.checks import load_all

        load_all()  # import the checks once, before the workers fork
        workers = min(jobs, len(pending))
        # Largest files first, in small chunks: a run lasts as long as its busiest worker, and
        # file sizes vary a thousandfold (big contiguous chunks left one core idle for minutes).
        pending.sort(key=_size, reverse=True)
        chunk = max(1, min(16, len(pending) // (workers * 8)))
        # The workers share the summaries of project modules through the disk cache; a run
        # without one shares them through a folder of its own, gone when the run ends.
        with tempfile.TemporaryDirectory(prefix="ampcheck-") as scratch, ProcessPoolExecutor(max_workers=workers) as pool:
            n = len(pending)
            shared = None if options.cache else scratch
            mapped = pool.map(
                lint_file, pending, [settings] * n, [options] * n, [root] * n, [False] * n, [shared] * n, chunksize=chunk,
            )
            done.update(zip(pending, mapped))
    else:
        done.update((path, lint_file(path, settings, options, root)) for path in pending)
    return [done[path] for path in files], workers


class _Workspace:
    """What the files of one run share in one process: the hashes of the project's files
    (enough to replay cached results) and, once a file must be analysed, the project model,
    whose module summaries go to the findings cache or else to the run's `shared` folder."""

    def __init__(self, root: str, settings: Settings, cache: Optional[Cache], shared: Optional[str]) -> None:
        self.root, self.settings = root, settings
        self.summaries = cache if cache is not None else Cache(Path(shared)) if shared is not None else None
        self.digests = FileDigests()
        self._project: "Optional[Project]" = None

    def project(self) -> "Project":
        if self._project is None:
            self._project = open_project(self.root, self.settings, self.summaries, self.digests)
        return self._project

    def current(self, dependency: str) -> Optional[str]:
        """What a cached result's dependency reads now: a file's hash (by its absolute path),
        or a project-wide answer (`Project.answer`), for which alone the project model is built."""
        if os.path.isabs(dependency):
            return self.digests(dependency)
        return self.project().answer(dependency)


def open_project(
    root: str, settings: Settings, summaries: Optional[Cache], digests: FileDigests, read: Reader = read_regular
) -> "Project":
    """The project model of the files under `root`, its module summaries kept in `summaries`;
    `read` reads its files (a language server reads its open buffers first)."""
    from ampcheck.lint.project import Project

    return Project(
        Path(root), _summarize,
        summaries.get_json if summaries is not None else None, summaries.put_json if summaries is not None else None,
        implementation(), settings.max_file_size, settings.is_excluded, digests=digests, read=read,
    )


# the current run's workspaces, per root, caching and shared folder
_RUN: dict[tuple[str, bool, Optional[str]], _Workspace] = {}


def _workspace(root: str, settings: Settings, cache: Optional[Cache], shared: Optional[str]) -> _Workspace:
    k = (root, cache is not None, shared)
    found = _RUN.get(k)
    if found is None:
        found = _RUN[k] = _Workspace(root, settings, cache, shared)
    return found


def _summarize(path: str, text: str, module_name: str) -> Optional[dict]:
    from ampcheck.lint.model import summarize

    return summarize(path, text, module_name)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0  # reported when its worker reads it


def _cores() -> int:
    """The cores this process may run on (a container's CPU set, not the host's count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def lint_file(
    path: str, settings: Settings, options: Options, root: Optional[str] = None, replay_only: bool = False,
    shared: Optional[str] = None,
) -> Optional[FileResult]:
    """Everything for one file; every failure becomes a line in the result, never an exception.
    With `replay_only`, None unless the cache answers for the file (fixes included); `shared`:
    the folder a run without a cache shares module summaries through."""
    try:
        with _collected_once():
            result = _lint_file(path, settings, options, root or str(settings.root), replay_only, shared)
    except Exception as err:  # a bug must cost one file, not the run
        result = FileResult(path)
        result.internal_errors.append(f"{path}: internal error: {type(err).__name__}: {err}")
    timings = RECORDER.take()
    if result is not None:
        result.timings = timings
    return result


def _lint_file(
    path: str, settings: Settings, options: Options, root: str, replay_only: bool, shared: Optional[str]
) -> Optional[FileResult]:
    result = FileResult(path)
    with RECORDER.phase(Phase.READ):
        try:
            source = read_source(path)
        except SourceError as err:
            result.problems.append(str(err))
            return result
        read = _python_text(path, source.text, settings, result)
        if read is None:
            return result
    nb, text = read
    codes = settings.codes_for(Path(path))
    cache = Cache(settings.root) if options.cache else None
    lint = _Linter(
        path, "ipynb" if nb is not None else "py", codes, settings, cache, result, _workspace(root, settings, cache, shared)
    )
    if replay_only:
        replayed = lint.replay(text)
        if replayed is None or ((options.fix or options.diff) and _applicable(replayed, options)):
            return None
        findings = replayed
    else:
        findings = lint(text, on_disk=True)
    if options.fix or options.diff:
        fixed_text, remaining = _fix(text, findings, lint, options, result)
        if result.fixed and _emit(path, source, nb, fixed_text, options, result) and options.fix:
            findings = remaining  # what was fixed on disk is no longer reported
    result.findings = _in_file_coordinates(findings, nb, path, codes)
    return result


def _python_text(
    path: str, content: str, settings: Settings, result: FileResult
) -> Optional[tuple[Optional[notebook.Notebook], str]]:
    """(the notebook, if `path` is one, and the Python text to analyse) of a file's content;
    None, with the problem in `result`, for a notebook that cannot be read or a text over
    `max-file-size`."""
    nb: Optional[notebook.Notebook] = None
    if path.endswith(".ipynb"):
        try:
            nb = notebook.load(content, settings.targets.python)
        except notebook.NotebookError as err:
            result.problems.append(f"{path}: {err}")
            return None
    text = nb.source if nb is not None else content
    oversized = too_large(path, text, settings.max_file_size)
    if oversized is not None:
        result.problems.append(oversized)
        return None
    return nb, text


def _in_file_coordinates(
    findings: list[Finding], nb: Optional[notebook.Notebook], path: str, codes: frozenset[str]
) -> list[Finding]:
    """A notebook's findings located in their cells, with each invalid cell's AMP001."""
    if nb is None:
        return findings
    return [nb.locate(f) for f in findings] + (nb.syntax_errors(path) if SYNTAX_ERROR in codes else [])


class _Linter:
    """`analyse` for one file with its cache; collects problems into the file's result."""

    def __init__(
        self, path: str, kind: str, codes: frozenset[str], settings: Settings,
        cache: Optional[Cache], result: FileResult, workspace: "_Workspace",
    ) -> None:
        self.path, self.kind, self.codes, self.cache, self.result = path, kind, codes, cache, result
        self.warn_unused = settings.warn_unused_ignores
        self.targets = settings.targets
        self.fingerprint = settings.fingerprint(Path(path))
        self.workspace = workspace

    def replay(self, text: str) -> Optional[list[Finding]]:
        if self.cache is None:
            return None
        with RECORDER.phase(Phase.CACHE):
            found = self.cache.get(key(text, self.kind, self.fingerprint), self.path, self.workspace.current)
        if found is not None:
            RECORDER.count(Count.CACHE_HITS)
        return found

    def __call__(self, text: str, on_disk: bool = False) -> list[Finding]:
        """The findings of `text` (`on_disk`: the file's text as read, not a fix round's)."""
        cached = self.replay(text)
        if cached is not None:
            return cached
        k = key(text, self.kind, self.fingerprint)
        project = self.workspace.project() if self.kind == "py" else None
        analysis = analyse(
            text, self.path, self.codes, self.warn_unused, self.kind == "ipynb", project, self.targets, on_disk=on_disk
        )
        self.result.analysed |= analysis.analysed
        self.result.problems.extend(analysis.problems)
        self.result.internal_errors.extend(analysis.internal_errors)
        if self.cache is not None and not analysis.internal_errors and not analysis.problems:
            with RECORDER.phase(Phase.CACHE):
                self.cache.put(k, analysis.findings, analysis.deps)
        return analysis.findings


def analyse(
    text: str, path: str, codes: frozenset[str], warn_unused: bool = False, is_notebook: bool = False,
    project: "Optional[Project]" = None, targets: Targets = Targets(), reparser: "Optional[Reparser]" = None,
    on_disk: bool = False,
) -> _Analysis:
    """The findings of one source text (post-suppression, sorted), in the text's coordinates.
    With a project, calls into its other modules are followed (a notebook has no place in
    one: its imports are read, it is imported by nothing); when `text` is the file as it is
    on disk, the project keeps its summary for the files linted after it. `targets` are the
    oldest Python (for AMP001) and torch (for the fixes) the project supports. A reparser (a
    language server's, for one buffer) parses the text reusing its previous parse."""
    out = _Analysis([])
    if not codes:
        return out
    with RECORDER.phase(Phase.PREFILTER):
        passed = prefilter.may_have_findings(text)
    with RECORDER.phase(Phase.SYNTAX):
        # a buffer's re-parse knows which statements CPython already accepted (the text the
        # checks will parse anyway); the whole text is compiled only for what it does not know
        proven = passed and reparser is not None and reparser.parses(text)
        error = None if proven else syntax_error(text, path, is_notebook, targets.python)
    if error is not None:
        if SYNTAX_ERROR in codes:
            out.findings.append(error)
    elif passed:
        out.findings.extend(_run_checks(text, path, codes, out, project, targets, reparser, on_disk))
    else:
        RECORDER.count(Count.PREFILTERED)
    if not out.findings and not (warn_unused and suppress.may_report_unused(text)):
        return out
    with RECORDER.phase(Phase.SUPPRESS):
        wanted = 1 if warn_unused or not out.findings else min(f.line for f in out.findings)
        directives = suppress.parse(text, from_line=wanted)
        out.findings = directives.apply(out.findings)
        if warn_unused and UNUSED_SUPPRESSION in codes and error is None:  # no rule ran on a broken file
            out.findings.extend(directives.unused(path, codes))
    out.findings.sort(key=Finding.sort_key)
    return out


def _run_checks(
    text: str, path: str, codes: frozenset[str], out: _Analysis, project: "Optional[Project]", targets: Targets,
    reparser: "Optional[Reparser]", on_disk: bool,
) -> list[Finding]:
    with RECORDER.phase(Phase.IMPORTS):
        import libcst as cst  # only files that pass the pre-filter pay for libcst

        from ampcheck.lint.checks import load_all
        from ampcheck.lint.model import FileModel

    with RECORDER.phase(Phase.PARSE):
        try:
            if reparser is not None:
                model = FileModel(
                    path, text, reparser.parse(text), project, targets, reparser.positions, reparser.indexes, reparser.programs,
                )
            else:
                model = FileModel(path, text, project=project, targets=targets)
        except cst.ParserSyntaxError as err:
            out.problems.append(f"{path}: not analysed: libcst cannot parse it ({err.message}, line {err.raw_line})")
            return []
        except RecursionError:
            out.problems.append(f"{path}: not analysed: nested too deeply for libcst")
            return []
    RECORDER.count(Count.PARSED)
    out.analysed = True
    found: dict[tuple, Finding] = {}
    with RECORDER.phase(Phase.IMPORTS):
        checks = load_all()
    with model.project.record() as read, RECORDER.phase(Phase.CHECKS):
        for chk in checks:
            if not chk.codes & codes:
                continue
            try:
                for f in chk.run(model):
                    if f.code in codes:
                        found.setdefault((f.code, f.line, f.col, f.end_line, f.end_col), f)
            except Exception as err:  # a check bug must not cost the other files or checks
                name = getattr(chk.fn, "__qualname__", repr(chk.fn))
                out.internal_errors.append(
                    f"{path}: internal error in check {name}: {type(err).__name__}: {err}"
                )
    model.project.forget(path, keep_summary=on_disk)
    model.release()
    home = os.path.abspath(path)
    out.deps = {p: digest for p, digest in read.items() if p != home}
    return list(found.values())


def _fix(
    text: str, findings: list[Finding], lint: _Linter, options: Options, result: FileResult
) -> tuple[str, list[Finding]]:
    """Apply fixes round by round, re-linting each result, until nothing applicable is left."""
    from ampcheck.lint import fix as fixer

    for _ in range(MAX_FIX_ROUNDS):
        fixes = _applicable(findings, options)
        if not fixes:
            break
        try:
            new_text, applied = fixer.apply_fixes(text, fixes)
            if not applied:
                break
            fixer.verify(new_text, lint.path, text, applied)
        except fixer.FixError as err:
            result.problems.append(f"{lint.path}: fixes not applied: {err}")
            break
        text = new_text
        result.fixed += len(applied)
        findings = lint(text)
    return text, findings


def _applicable(findings: list[Finding], options: Options) -> list[Fix]:
    return [
        f.fix
        for f in findings
        if f.fix is not None and (f.fix.applicability == "safe" or options.unsafe_fixes)
    ]


def _emit(
    path: str, source: SourceFile, nb: Optional[notebook.Notebook], text: str,
    options: Options, result: FileResult,
) -> bool:
    """Write the fixed text (or, with --diff, describe it); False (and nothing fixed) when
    the notebook cannot take it back or the file cannot be written."""
    try:
        new_content = nb.render(text) if nb is not None else text
        if options.diff:
            result.diff = _unified_diff(path, source.text, new_content, nb, text)
        else:
            write_source(path, source, new_content)
        return True
    except (notebook.NotebookError, SourceError) as err:
        result.problems.append(str(err) if isinstance(err, SourceError) else f"{path}: {err}")
        result.fixed = 0
        return False


def _unified_diff(
    path: str, old: str, new: str, nb: Optional[notebook.Notebook], virtual: str
) -> str:
    if nb is None:
        return "".join(difflib.unified_diff(_lines(old), _lines(new), path, path))
    parts = []
    fixed = nb.cell_sources(virtual)
    for cell in nb.cells:
        if fixed[cell.index] != cell.text:
            label = f"{path}:cell {cell.index}"
            parts.extend(difflib.unified_diff(_lines(cell.text), _lines(fixed[cell.index]), label, label))
    return "".join(parts)


def _lines(text: str) -> list[str]:
    lines = text.splitlines(True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    return lines


# -- texts held in memory (the language server) ------------------------------------------------
def lint_text(
    path: str, content: str, settings: Settings, project: "Optional[Project]" = None, reparser: "Optional[Reparser]" = None
) -> FileResult:
    """What `lint_paths` reports for a file at `path` holding `content` (an editor's unsaved
    buffer: Python, or a notebook's JSON): the same codes, per-file ignores, suppressions
    and notebook reading, findings in the file's own coordinates. Nothing is read from
    `path`, nothing is cached and nothing is written; a Python file follows its calls
    through `project` and is parsed by `reparser` (the buffer's, reusing its last parse).
    Every failure is a line in the result, never an exception."""
    result = FileResult(path)
    try:
        read = _python_text(path, content, settings, result)
        if read is None:
            return result
        nb, text = read
        codes = settings.codes_for(Path(path))
        python = nb is None
        analysis = analyse(
            text, path, codes, settings.warn_unused_ignores, not python, project if python else None, settings.targets,
            reparser if python else None,
        )
        result.analysed = analysis.analysed
        result.problems.extend(analysis.problems)
        result.internal_errors.extend(analysis.internal_errors)
        result.findings = _in_file_coordinates(analysis.findings, nb, path, codes)
        result.deps = analysis.deps
    except Exception as err:  # a bug must cost one buffer, not the server
        result.internal_errors.append(f"{path}: internal error: {type(err).__name__}: {err}")
    return result


def fix_text(path: str, text: str, settings: Settings, project: "Optional[Project]" = None) -> FileResult:
    """The safe fixes of a Python text held in memory, applied round by round as `lint
    --fix` applies them: the result's `diff` is the fixed text ("" when nothing was fixed),
    `fixed` counts the fixes, `findings` are those left. Nothing is written."""
    result = FileResult(path)
    try:
        lint = _TextLinter(path, settings, project)
        fixed_text, result.findings = _fix(text, lint(text), lint, Options(fix=True), result)  # type: ignore[arg-type]
        result.diff = fixed_text if result.fixed else ""
    except Exception as err:  # a bug must cost one buffer, not the server
        result.internal_errors.append(f"{path}: internal error: {type(err).__name__}: {err}")
    return result


class _TextLinter:
    """What `_fix` re-lints each round with, for a text in memory: analysed anew, uncached."""

    def __init__(self, path: str, settings: Settings, project: "Optional[Project]") -> None:
        self.path, self.project, self.targets = path, project, settings.targets
        self.codes, self.warn_unused = settings.codes_for(Path(path)), settings.warn_unused_ignores

    def __call__(self, text: str) -> list[Finding]:
        return analyse(text, self.path, self.codes, self.warn_unused, False, self.project, self.targets).findings
