"""The project model: every module of the linted project, as step-program summaries, and the
names that lead from one module to another.

Real training code spreads the GradScaler protocol over trainer classes, base classes in
other modules and helpers; all of that is inside the project, so it is read, not assumed.
The project is the folder of the config file, else the git root above the linted paths, else
the folder the run starts in. A module of the project is any `.py` file under it that an
import can name: `a/b.py` is `a.b` from the root, from a `src/` folder, from the folder
the packaging maps a package to (`package_dir`), beside the importing file (how a script run
as `python tools/train.py` imports `tools/utils.py`), or from a folder above it (where the
scripts that import its package run).
Anything else (installed packages, frameworks) stays outside: opaque, assumed right.

A module's summary is built from its tree once and cached on disk by its text, so a run that
lints one file (a pre-commit hook) reads the modules it imports without parsing them. Every
module a file's analysis consulted is recorded with the hash of its text, so a cached result
is replayed only while those files are unchanged.
"""
from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Optional, TypeVar

from ampcheck.declared import package_dirs
from ampcheck.lint import kinds
from ampcheck.lint.digests import FileDigests, Reader, file_hash, read_regular
from ampcheck.lint.source import SourceError, decode_source, too_large
from ampcheck.lint.timings import RECORDER, Count, Phase, timed

if TYPE_CHECKING:  # the program model needs libcst; finding the root must not
    from ampcheck.lint.program import ClassInfo, FunctionProgram, ModuleSummary

_MAX_EXPORT_HOPS = 8
_T = TypeVar("_T")
# folders that hold installed code or build output, never the project's own modules
_NEVER_PROJECT = frozenset({"__pycache__", "node_modules", "site-packages", "build", "dist", "venv", "env"})
_PROJECT_MARKERS = (".git", ".hg")
# what makes a folder below the root a project of its own, run and imported from there
_SUBPROJECT_FILES = ("setup.py", "pyproject.toml", "setup.cfg")


def _dotted_from(path: Path, base: Path) -> Optional[str]:
    """The dotted name of the module at `path` imported from the folder `base` (a package's
    `__init__.py` by the package's name), or None when it is not below `base` or a part of
    its path is no identifier."""
    try:
        rel = path.relative_to(base)
    except ValueError:
        return None
    parts = list(rel.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) if parts and all(p.isidentifier() for p in parts) else None


def _taken_from(packages: tuple[str, ...], defined: Iterable[str]) -> Optional[re.Pattern[str]]:
    """`from pkg import (..., Name, ...)` (also relatively, `from ..pkg import Name`) or
    `pkg.Name` for a package and a name of `defined`."""
    names = sorted(set(defined))
    if not packages or not names:
        return None
    pkg = "|".join(re.escape(p) for p in sorted(packages))
    last = "|".join(sorted({re.escape(p.rpartition(".")[2]) for p in packages}))
    name = "|".join(re.escape(n) for n in names)
    return re.compile(
        rf"from\s+(?:{pkg}|\.+(?:{last}))\s+import\s+(?:\([^)]*?|[^\n]*?)\b(?:{name})\b|\b(?:{pkg})\.(?:{name})\b"
    )


_CLASS_STATEMENT = re.compile(r"^[ \t]*class\s+(\w+)\s*\(([^)]*)\)", re.M)
# The key under which an analysis that asked whether the project is free of GradScalers
# records the answer among the files it read (no file's absolute path looks like it): a cached
# result is replayed only while the project answers the same, files created since included.
SCALER_FREE = "<project>:no GradScaler"
_UNSCALE = re.compile(r"\bunscale_\b")  # (not DeepSpeed's `unscale_and_clip_grads`)
_SCALE_CALL = re.compile(r"\.scale\s*\(")
_STEP_OF_SOMETHING = re.compile(r"\.step\(\s*[^)\s]")
_BARE_UPDATE = re.compile(r"\.update\(\s*\)")


def project_root(config_path: Optional[Path], paths: list[str], cwd: Path) -> Path:
    """The folder of the config file, else the repository root above the paths, else `cwd`."""
    if config_path is not None:
        return config_path.parent
    absolute = [os.path.abspath(cwd / p) for p in paths] or [str(cwd)]
    start = Path(os.path.commonpath(absolute))
    if not start.is_dir():
        start = start.parent
    for folder in (start, *start.parents):
        if any((folder / m).exists() for m in _PROJECT_MARKERS):
            return folder
    return cwd


@dataclass(frozen=True)
class Symbol:
    """What a qualified name leads to in the project."""

    module: "ModuleSummary"
    function: "Optional[FunctionProgram]" = None
    cls: "Optional[ClassInfo]" = None


@dataclass
class _Loaded:
    """A module's summary (None: none can be had) and the digest of the text it is of. A
    summary kept in its disk form (`encoded`: a linted file's, once its tree is dropped) is
    decoded when first asked for: most linted files (a recipe's `train.py`) are never read by
    another."""

    decoded: "Optional[ModuleSummary]"
    digest: str
    encoded: Optional[dict] = None

    @property
    def summary(self) -> "Optional[ModuleSummary]":
        if self.decoded is None and self.encoded is not None:
            from ampcheck.lint.program import ModuleSummary

            self.decoded, self.encoded = ModuleSummary.from_json(self.encoded), None
        return self.decoded

    @property
    def available(self) -> bool:
        return self.decoded is not None or self.encoded is not None


# builds the summary of a module's text in its disk form (what the cache holds, with no tree
# node in it): (path, text, module name) -> JSON dict, or None when it cannot be parsed
SummaryBuilder = Callable[[str, str, str], Optional[dict]]
# the disk cache of summaries: (key) -> JSON dict or None, (key, JSON dict) -> None
CacheGet = Callable[[str], Optional[dict]]
CachePut = Callable[[str, dict], None]


@dataclass
class Project:
    root: Path
    build: SummaryBuilder
    cache_get: Optional[CacheGet] = None
    cache_put: Optional[CachePut] = None
    implementation: str = ""
    max_file_size: Optional[int] = None
    excluded: Optional[Callable[[Path, bool], bool]] = None  # the run's excludes
    reads: bool = True  # False: a view that knows only the modules added to it
    _by_path: dict[str, _Loaded] = field(default_factory=dict)
    _modules: dict[tuple[str, str], Optional[str]] = field(default_factory=dict)  # (name, importer dir) -> path
    _recorded: Optional[dict[str, str]] = None
    digests: FileDigests = field(default_factory=FileDigests)
    _texts: Optional[dict[str, str]] = None
    # base name -> (file, class) of each `class X(... base ...)` statement in the project's texts
    _class_statements: Optional[dict[str, list[tuple[str, str]]]] = None
    # whether no file of the project can make or work a GradScaler (`scaler_free`), once asked
    _scaler_free: Optional[bool] = None
    # answers of lookups and class hierarchies, until a module's summary is added or dropped
    _answers: dict[tuple, tuple] = field(default_factory=dict)
    # project folder -> where its packaging puts package names (`_mapped`)
    _package_dirs: dict[Path, list[tuple[str, Path]]] = field(default_factory=dict)
    # how the project's files are read: from disk, or (a language server) its buffers first
    read: Reader = read_regular

    # -- modules ---------------------------------------------------------------------------------
    def module_name(self, path: str) -> str:
        """The dotted name the project imports `path` by: from a folder its packaging maps a
        package to (`package_dir={"vsrlab": "src"}`), from the root, or from `src/`."""
        absolute = Path(os.path.abspath(path))
        for package, folder in self._mapped(self.root):
            name = "" if package and absolute == folder / "__init__.py" else _dotted_from(absolute, folder)
            if name is not None:
                return ".".join(p for p in (package, name) if p)
        for base in (self.root / "src", self.root):
            name = _dotted_from(absolute, base)
            if name is not None:
                return name
        return absolute.stem

    def _mapped(self, top: Path) -> list[tuple[str, Path]]:
        """The folders the packaging of the project at `top` maps package names to, the
        longest folder first (`""`: the folder of the top-level packages)."""
        found = self._package_dirs.get(top)
        if found is None:
            dirs = package_dirs(top)
            found = self._package_dirs[top] = sorted(
                ((package, top / folder) for package, folder in dirs.items() if package != folder),
                key=lambda pf: -len(pf[1].parts),
            )
        return found

    def import_names(self, path: str, own: Optional[Path] = None) -> tuple[str, ...]:
        """The dotted names code may import `path` by: its module name, and, in a repository
        of several projects (a folder below the root with its own setup.py, pyproject.toml or
        setup.cfg, run from there: `own`, else looked up), its name from that folder
        (`fairseq.ddp_trainer` in `PyTorch/Translation/Transformer`)."""
        name = self.module_name(path)
        own = own if own is not None else self.subproject(path)
        there = _dotted_from(Path(os.path.abspath(path)), own) if own != self.root else None
        return (name,) if there is None or "." not in there else (name, there)  # (a bare stem says too little)

    def script_import_names(self, path: str) -> tuple[str, ...]:
        """The dotted names a script in a folder above `path`'s own imports it by, that folder
        being the script's `sys.path[0]` (`logic.training` from `examples/text/train.py`, run
        as `python train.py`): nearest first, below the root (whose name is `module_name`)."""
        absolute = Path(os.path.abspath(path))
        out: list[str] = []
        for folder in self._folders_up_from(absolute.parent.parent):
            name = _dotted_from(absolute, folder)
            if name is None:
                break
            out.append(name)
        return tuple(out)

    def reexported_by(self, path: str) -> tuple[str, ...]:
        """The packages whose `__init__.py` imports from the module at `path` (`from .base
        import *`, `from .base import Trainer`), and the packages above that re-export those in
        turn: `from efficientvit.apps.trainer import Trainer` reaches `...trainer.base`. Each
        by every name code imports it by, a script's in a folder above it included (`from
        torchkit.task import BaseTask` in `recognition/train.py`)."""
        return self._reexported_by(Path(os.path.abspath(path)), self.import_names(path))

    def _reexported_by(self, path: Path, names: tuple[str, ...]) -> tuple[str, ...]:
        out: list[str] = []
        while True:
            module = path.parent if path.name == "__init__.py" else path
            init = module.parent / "__init__.py"
            if module.parent == self.root or not _inside(module.parent, self.root):
                break
            text = self._project_texts().get(str(init))
            stem = module.stem if module is path else module.name
            if text is None or not re.search(
                rf"^\s*from\s+(\.\s*{stem}\b|\.\s+import\b[^\n]*\b{stem}\b|({'|'.join(map(re.escape, names))})\s+import\b)",
                text, re.M,
            ):
                break
            names = (self.module_name(str(init)), *self.script_import_names(str(init)))
            out.extend(names)
            path = init
        return tuple(out)

    def subproject(self, path: str) -> Path:
        """The nearest folder above `path`, up to the root, holding a project file of its own:
        the project a file of a repository of several is written for."""
        for folder in self._folders_up_from(Path(os.path.abspath(path)).parent):
            if any((folder / f).is_file() for f in _SUBPROJECT_FILES):
                return folder
        return self.root

    def _folders_up_from(self, folder: Path) -> Iterator[Path]:
        """`folder` and the folders above it, nearest first, below the root."""
        while folder != self.root and _inside(folder, self.root):
            yield folder
            folder = folder.parent

    def display(self, path: str) -> str:
        """`path` as a message shows it: relative to the root when inside it."""
        try:
            return Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return path

    def add(self, path: str, summary: ModuleSummary) -> None:
        """The summary of a file this run has parsed anyway (a linted file, with its tree)."""
        self._answers.clear()
        key = os.path.abspath(path)
        self._by_path[key] = _Loaded(summary, self.digests(key) or "")

    def forget(self, path: str, keep_summary: bool) -> None:
        """Drop the tree a linted file's summary holds on to once its checks are done. With
        `keep_summary` (the summary is of the file as it is on disk), the summary itself stays,
        detached from the tree, so a later file that reads the module does not parse it again;
        else a later file reads it from the disk cache or parses it."""
        self._answers.clear()
        key = os.path.abspath(path)
        loaded = self._by_path.pop(key, None)
        if keep_summary and loaded is not None and loaded.summary is not None and loaded.digest:
            data = loaded.summary.to_json()
            self._by_path[key] = _Loaded(None, loaded.digest, encoded=data)
            if self.cache_put is not None:  # for the other worker processes, and the next run
                self.cache_put(self._cache_key(key, loaded.digest), data)

    def summary(self, path: str) -> Optional[ModuleSummary]:
        """The summary of the module at `path`: in memory, else from the disk cache, else
        parsed; None for a file that cannot be read or parsed."""
        key = os.path.abspath(path)
        loaded = self._by_path.get(key)
        if loaded is None:
            loaded = self._by_path[key] = self._load(key)
        if self._recorded is not None and loaded.digest:
            self._recorded[key] = loaded.digest
        return loaded.summary

    def alone(self) -> "Project":
        """A view of this project that reads no module besides those added to it: for the
        events of a file as written, where nothing is followed."""
        view = Project(self.root, self.build, reads=False, digests=self.digests)
        view._by_path = {p: loaded for p, loaded in self._by_path.items() if loaded.available}
        return view

    @timed(Phase.SUMMARIES)
    def _load(self, path: str) -> _Loaded:
        if not self.reads:
            return _Loaded(None, "")
        data = self.read(path)
        if data is None:
            return _Loaded(None, "")
        digest = self.digests.remember(path, data)
        try:
            text = decode_source(data, path).text
        except SourceError:
            return _Loaded(None, digest)
        if too_large(path, text, self.max_file_size) is not None:
            return _Loaded(None, digest)
        cache_key = self._cache_key(path, digest)
        from ampcheck.lint.program import ModuleSummary

        if self.cache_get is not None:
            cached = self.cache_get(cache_key)
            if cached is not None:
                try:
                    loaded = _Loaded(ModuleSummary.from_json(cached), digest)
                    RECORDER.count(Count.SUMMARY_CACHED)
                    return loaded
                except (KeyError, TypeError, ValueError, IndexError):
                    pass
        RECORDER.count(Count.SUMMARY_PARSED)
        built = self.build(path, text, self.module_name(path))
        if built is None:
            return _Loaded(None, digest)
        if self.cache_put is not None:
            self.cache_put(cache_key, built)
        return _Loaded(ModuleSummary.from_json(built), digest)

    def changed(self, path: str, created_or_deleted: bool = False) -> None:
        """A file of the project changed (a buffer edited in an editor, a file saved):
        forget what was read of it, so the next analysis reads it anew. A file created or
        deleted may change where any import leads."""
        self._answers.clear()
        key = os.path.abspath(path)
        self._by_path.pop(key, None)
        self.digests.forget(key)
        self._scaler_free = None
        if self._texts is not None and key.endswith(".py"):
            self._class_statements = None
            self._texts.pop(key, None)
            text = self._searchable(key)
            if text is not None:
                self._texts[key] = text
        if created_or_deleted:
            self._modules.clear()

    def _cache_key(self, path: str, digest: str) -> str:
        """A summary's key in the disk cache: what it is built from."""
        name = self.module_name(path)
        return file_hash(f"{self.implementation}\0{path}\0{name}\0{digest}".encode("utf-8", "surrogatepass"))

    # -- searching the project -----------------------------------------------------------------
    @timed(Phase.CALLERS)
    def files_mentioning(
        self, modules: tuple[str, ...], names: Iterable[str], packages: tuple[str, ...] = (), defined: Iterable[str] = (),
        home: Optional[str] = None,
    ) -> list[str]:
        """The project's Python files (absolute paths) that name a module by one of the dotted
        names `modules` (its import names), or relatively by its last part, or that take one
        of the names it `defined` from a package re-exporting it (`packages`: `from pkg import
        Trainer`, `pkg.Trainer`), and any of `names`: where the callers of those functions may
        be. With the module's own path `home` in a folder that is no package (a folder of
        scripts, each script's `sys.path[0]`: a project's own folder in a repository of
        several), the files beside it that import it by its bare name count too (`from
        steps_lib import train_step`). Every file is read once per run."""
        stem = modules[0].rpartition(".")[2]
        named = re.compile("|".join(rf"\b{re.escape(n)}\b" for n in sorted(names)))
        relative = re.compile(rf"from\s+\.+\s*import\s+[^\n]*\b{re.escape(stem)}\b|from\s+\.+{re.escape(stem)}\b")
        # `from logic import evaluate, training`: the module taken from its package by name
        from_package = _taken_from(tuple(sorted({m.rpartition(".")[0] for m in modules if "." in m})), (stem,))
        taken = _taken_from(packages, defined)
        folder = os.path.dirname(os.path.abspath(home)) if home is not None else None
        if folder is not None and os.path.isfile(os.path.join(folder, "__init__.py")):
            folder = None  # (a package's modules are imported by their dotted names)
        bare = re.compile(rf"^[ \t]*(?:from[ \t]+{re.escape(stem)}[ \t]+import\b|import[ \t]+{re.escape(stem)}\b)", re.M)
        return [
            path for path, text in self._project_texts().items()
            if (
                (stem in text and (
                    any(m in text for m in modules) or relative.search(text)
                    or (from_package is not None and from_package.search(text))
                    or (folder is not None and os.path.dirname(path) == folder and bare.search(text))
                ))
                or (taken is not None and any(p.rpartition(".")[2] in text for p in packages) and taken.search(text))
            )
            and named.search(text)
        ]

    def subclasses_named(self, bases: Iterable[str], module_names: tuple[str, ...]) -> dict[str, list[str]]:
        """The project's files that write `class X(... Base ...)` for one of `bases` and name
        the module that defines them (the last part of one of `module_names` appears in the
        file): each with the classes `X` it so defines. One index of the project's class
        statements, built once per run, answers every module's question."""
        if self._class_statements is None:
            self._class_statements = {}
            for path, text in self._project_texts().items():
                for match in _CLASS_STATEMENT.finditer(text):
                    for base in set(re.findall(r"\w+", match.group(2))):
                        self._class_statements.setdefault(base, []).append((path, match.group(1)))
        texts = self._project_texts()
        stems = {m.rpartition(".")[2] for m in module_names}
        out: dict[str, list[str]] = {}
        for base in bases:
            for path, cls in self._class_statements.get(base, ()):
                if any(stem in texts.get(path, "") for stem in stems):
                    out.setdefault(path, []).append(cls)
        return out

    def files_matching(self, pattern: re.Pattern[str], near: str) -> list[str]:
        """The Python files (absolute paths) that can hold objects of the module `near`
        (`_texts_near`) whose text `pattern` matches: where code that reaches an object
        through a given attribute may be."""
        return [path for path, text in self._texts_near(near) if pattern.search(text)]

    def lines_matching(self, pattern: re.Pattern[str], near: str) -> Iterator[tuple[str, str, int, int]]:
        """Each place `pattern` matches in the Python files that can hold objects of the
        module `near` (`_texts_near`): the file (absolute path), the line it is on, and where
        the match starts and ends in that line."""
        for path, text in self._texts_near(near):
            for match in pattern.finditer(text):
                start = text.rfind("\n", 0, match.start()) + 1
                end = text.find("\n", match.end())
                line = text[start:] if end < 0 else text[start:end]
                yield path, line, match.start() - start, match.end() - start

    @timed(Phase.CALLERS)
    def quoted_beyond_dict_keys(self, word: str, near: str, text: str = "") -> bool:
        """Whether `text` (a notebook's, which the search of `.py` files leaves out) or a
        Python file that can hold objects of the module `near` (`_texts_near`) quotes `word`
        other than as the key of a dict display (`"word": ...`): a subscript, a `.get`, a
        tuple of names looped over, anything that may read back what a checkpoint saved under
        that key. The files that decided are recorded (the one that quotes it, else every one
        that spells it only as a key): a cached result is replayed only while they are
        unchanged."""
        quoted = re.compile(rf"""(["']){re.escape(word)}\1(\s*:(?!=))?""")  # group 2: a dict display's key
        spelled: list[str] = []
        for path, t in itertools.chain((("", text),), self._texts_near(near)):
            if word not in t:
                continue
            if any(m.group(2) is None for m in quoted.finditer(t)):
                self._record_text(path)
                return True
            spelled.append(path)
        for path in spelled:
            self._record_text(path)
        return False

    @timed(Phase.CALLERS)
    def scaler_free(self) -> bool:
        """Whether no file of the project makes, names or works a GradScaler (`_works_a_scaler`):
        then no caller can hand one to a function of the project, and a backward there is
        nobody's to scale (DeepSpeed's engine, with its own loss scalers, replays no caller of
        its hundreds of plain backwards). A view that reads no file cannot tell (False). The
        answer is recorded under `SCALER_FREE`, for `answer` to check before a cached result
        that depends on it is replayed."""
        if self._scaler_free is None:
            texts = self._texts.values() if self._texts is not None else (t for _, t in self._read_project())
            self._scaler_free = self.reads and not any(_works_a_scaler(t) for t in texts)
        if self._recorded is not None:
            self._recorded[SCALER_FREE] = str(self._scaler_free)
        return self._scaler_free

    def answer(self, key: str) -> Optional[str]:
        """The project-wide answer a cached result recorded under `key`, as it reads now
        (`SCALER_FREE`); None for a key it does not know, which no cached result then matches."""
        return str(self.scaler_free()) if key == SCALER_FREE else None

    def _record_text(self, path: str) -> None:
        """Record a file whose text (not its summary) an analysis read; "" for none."""
        if path and self._recorded is not None:
            digest = self.digests(path)
            if digest is not None:
                self._recorded[os.path.abspath(path)] = digest

    def _texts_near(self, near: str) -> Iterator[tuple[str, str]]:
        """The project's files that can hold objects of the module `near`: all of them, but in
        a repository of several projects, those of its own project and those that name it."""
        own = self.subproject(near) if near else self.root
        if own == self.root:
            yield from self._project_texts().items()
            return
        names = (*self.import_names(near, own), *self.reexported_by(near))
        for path, text in self._project_texts().items():
            if _inside(Path(path), own) or any(n in text for n in names):
                yield path, text

    def _project_texts(self) -> dict[str, str]:
        if self._texts is None:
            self._texts = dict(self._read_project())
        return self._texts

    def _read_project(self) -> Iterator[tuple[str, str]]:
        """Each Python file of the project with its text, read as it is reached (a search that
        stops at its first match, as `scaler_free` in a project with a GradScaler, reads few)."""
        for folder, dirs, files in os.walk(self.root):
            here = Path(folder)
            dirs[:] = sorted(d for d in dirs if not self._skip(here / d))
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    text = self._searchable(path)
                    if text is not None:
                        yield path, text

    def _searchable(self, path: str) -> Optional[str]:
        """A file's text for the search for callers, or None (unreadable, or too large)."""
        data = self.read(path)
        if data is None or (self.max_file_size is not None and len(data) > self.max_file_size):
            return None
        return data.decode("utf-8", "replace")

    def _skip(self, folder: Path) -> bool:
        """Folders not searched for callers: hidden ones, installed or built code, excludes.
        (Files are not matched against the excludes one by one: a caller the excludes hide
        still calls.)"""
        if folder.name.startswith(".") or folder.name in _NEVER_PROJECT:
            return True
        return self.excluded is not None and self.excluded(folder, True)

    # -- what an analysis read ----------------------------------------------------------------------
    def record(self) -> "Recording":
        """Collect the files (and the hashes of their texts) read while the recording is open."""
        return Recording(self)

    def _remembered(self, key: tuple, holds: tuple, compute: Callable[[], _T]) -> _T:
        """`compute()`, once per key while the modules read stay as they are (a step replay
        asks the same names and classes tens of thousands of times): the answer is kept with
        the files it read, recorded again at each use, so a cached result depends on them
        as if it had been computed anew. `holds`: the objects the key names by id, kept so
        that no other object can take their id."""
        hit = self._answers.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], holds)):
            if self._recorded is not None:
                self._recorded.update(hit[2])
            return hit[1]
        outer, self._recorded = self._recorded, {}
        try:
            found = compute()
        finally:
            reads, self._recorded = self._recorded, outer
        if outer is not None:
            outer.update(reads)
        self._answers[key] = (holds, found, reads)
        return found

    # -- names ----------------------------------------------------------------------------------------
    def lookup(self, qualname: str, importer: ModuleSummary, hops: int = 0) -> Optional[Symbol]:
        """The function, class or method a qualified name denotes in the project, following
        re-exports (`from .engine import train_one_epoch` in a package's `__init__`)."""
        if hops > _MAX_EXPORT_HOPS:
            return None
        return self._remembered(("lookup", qualname, id(importer), hops), (importer,), lambda: self._lookup(qualname, importer, hops))

    def _lookup(self, qualname: str, importer: ModuleSummary, hops: int) -> Optional[Symbol]:
        parts = qualname.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = self._module(".".join(parts[:i]), importer)
            if module is None:
                continue
            found = self._member(module, parts[i:], hops)
            if found is not None:
                return found
        if importer.star_imports:  # a name the module neither defines nor imports by name (`TrainCB`)
            return self._star_member(importer, parts, hops, {importer.name})
        return None

    def _member(self, module: ModuleSummary, rest: list[str], hops: int, visited: Optional[set[str]] = None) -> Optional[Symbol]:
        head, key = rest[0], ".".join(rest)
        if key in module.functions and module.functions[key].cls is None:
            return Symbol(module, function=module.functions[key])  # a function, nested ones included
        if head in module.classes:
            cls = module.classes[head]
            if len(rest) == 1:
                return Symbol(module, cls=cls)
            if len(rest) == 2 and rest[1] in cls.methods:
                return Symbol(module, function=module.functions.get(cls.methods[rest[1]]), cls=cls)
            return None
        if head in module.exports and module.exports[head] != f"{module.name}.{head}":
            return self.lookup(".".join([module.exports[head], *rest[1:]]), module, hops + 1)
        if not module.star_imports:
            return None
        return self._star_member(module, rest, hops, visited if visited is not None else {module.name})

    def _star_member(self, module: ModuleSummary, rest: list[str], hops: int, visited: set[str]) -> Optional[Symbol]:
        """`rest` as a name `from <m> import *` binds in `module` (public names only; the last
        such import that defines it wins). Each module is read once per question: packages
        that star-import each other do not make the search grow."""
        if rest[0].startswith("_"):
            return None
        for star in reversed(module.star_imports):
            target = self._module(star, module)
            if target is None or target.name in visited:
                continue
            visited.add(target.name)
            found = self._member(target, rest, hops + 1, visited)
            if found is not None:
                return found
        return None

    def _module(self, name: str, importer: ModuleSummary) -> Optional[ModuleSummary]:
        if name == importer.name:
            return importer
        here = os.path.dirname(os.path.abspath(importer.path)) if importer.path else str(self.root)
        key = (name, here)
        if key not in self._modules:
            self._modules[key] = self._find(name, here)
        path = self._modules[key]
        return self.summary(path) if path is not None else None

    def _find(self, name: str, here: str) -> Optional[str]:
        """The file `import name` loads from a module in the folder `here`. A folder that is
        not a package holds scripts, run as `python <folder>/train.py`: their folder is
        `sys.path[0]`, ahead of the root, so `import utils` there is the `utils.py` beside
        them (a copied DINO in a repository with a `utils` package of its own). In a
        repository of several projects, a project's own folder comes before the root: each is
        run and imported from there (`from strategies.update import SGDUpdate` in
        `projects/cl/strategies/detection.py` is `projects/cl/strategies/update.py`). A name
        none of those hold is looked up in the folders above the importer, nearest first: a
        module of a package below the root imports its siblings' packages by the names the
        scripts beside that package see (`from utils.util_optim import clip_grad_norm_` in
        `K-Radar/pipelines/pipeline.py`, run by `K-Radar/main_train.py`), and nowhere else
        would the import work."""
        rel = Path(*name.split("."))
        own = self.subproject(os.path.join(here, "__init__.py"))
        tops = (own, own / "src", self.root, self.root / "src") if own != self.root else (self.root, self.root / "src")
        bases = (*tops, Path(here))
        if not (Path(here) / "__init__.py").is_file():
            bases = (Path(here), *tops)
        mapped = [(package, folder) for top in dict.fromkeys((own, self.root)) for package, folder in self._mapped(top)]
        places = itertools.chain(
            # a package the packaging puts in a folder of another name: what an install imports
            (folder / Path(*name.split(".")[package.count(".") + 1:]) for package, folder in mapped
             if package and (name == package or name.startswith(package + "."))),
            # the import roots, the packaging's top-level folder after the root's `src/`, then the
            # folders above, nearest first: scripts run from one put it on sys.path
            (base / rel for base in itertools.chain(
                bases, (folder for package, folder in mapped if not package), self._folders_up_from(Path(here).parent),
            )),
        )
        for place in places:
            for candidate in (place.with_suffix(".py"), place / "__init__.py"):
                if _inside(candidate, self.root) and candidate.is_file():
                    return str(candidate)
        return None

    def holds(self, qualname: str, importer: ModuleSummary) -> bool:
        """Whether a module of the project is where `qualname` lives (some prefix of it names
        one): what is not is code outside the project, installed frameworks."""
        parts = qualname.split(".")
        return any(self._module(".".join(parts[:i]), importer) is not None for i in range(len(parts) - 1, 0, -1))

    def canonical(self, qualname: str, importer: "ModuleSummary", hops: int = 0) -> str:
        """The qualified name a project re-export stands for outside the project
        (`dinov2.fsdp.ShardedGradScaler` -> `torch.distributed.fsdp...ShardedGradScaler`)."""
        parts = qualname.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = self._module(".".join(parts[:i]), importer)
            if module is None:
                continue
            target = module.exports.get(parts[i])
            if target is None or target == qualname or hops > _MAX_EXPORT_HOPS:
                return qualname
            return self.canonical(".".join([target, *parts[i + 1:]]), module, hops + 1)
        return qualname

    def find_class(self, qualname: str, importer: ModuleSummary) -> Optional[tuple[ModuleSummary, ClassInfo]]:
        local = self._local_class(qualname, importer)
        if local is not None:
            return importer, local
        found = self.lookup(qualname, importer)
        if found is None or found.cls is None or found.function is not None:
            return None
        return found.module, found.cls

    @staticmethod
    def _local_class(qualname: str, module: ModuleSummary) -> Optional[ClassInfo]:
        prefix = module.name + "."
        return module.classes.get(qualname[len(prefix):]) if qualname.startswith(prefix) else None

    # -- classes --------------------------------------------------------------------------------------
    def mro(self, module: ModuleSummary, cls: ClassInfo) -> Iterator[tuple[ModuleSummary, ClassInfo]]:
        """A class, then its project base classes, depth first, each once."""
        return iter(self._remembered(("mro", id(module), id(cls)), (module, cls), lambda: list(self._mro(module, cls))))

    def _mro(self, module: ModuleSummary, cls: ClassInfo) -> Iterator[tuple[ModuleSummary, ClassInfo]]:
        seen: set[int] = set()
        todo = [(module, cls)]
        while todo:
            m, c = todo.pop(0)
            if id(c) in seen:
                continue
            seen.add(id(c))
            yield m, c
            bases = [self.find_class(b, m) for b in c.bases]
            todo = [b for b in bases if b is not None] + todo

    def base_kind(self, module: ModuleSummary, cls: ClassInfo) -> Optional[str]:
        """"model", "optimizer" or "scaler" for a subclass of nn.Module, Optimizer, GradScaler;
        None for a GradScaler subclass whose protocol is its own (`_own_protocol`)."""
        for m, c in self.mro(module, cls):
            for base in c.bases:
                kind = kinds.base_kind(base)
                if kind is not None:
                    return None if kind == "scaler" and self._own_protocol(module, cls) else kind
        return None

    def _own_protocol(self, module: ModuleSummary, cls: ClassInfo) -> bool:
        """A GradScaler subclass that redefines `step` or `unscale_` to take no optimizer, without
        handing on to torch's (physics-informed training's derivative scaler: `step()` raises,
        `update()` reads the inf checks its own `unscale_deriv` recorded): torch's per-optimizer
        state machine, and the errors it raises, are not what its calls do."""
        for name in ("step", "unscale_"):
            found = self.method(module, cls, name)
            if found is not None and len(found[2].params) <= 1 and not found[2].kwonly and not found[2].calls_super(name):
                return True
        return False

    def method(self, module: ModuleSummary, cls: ClassInfo, name: str, after: bool = False) -> Optional[tuple[ModuleSummary, ClassInfo, FunctionProgram]]:
        """`name` as the class resolves it (its own, else a base's); with `after`, skipping the
        class itself (what `super().name` calls)."""
        for m, c in self.mro(module, cls):
            if after and c is cls:
                continue
            key = c.methods.get(name)
            if key is not None and key in m.functions:
                return m, c, m.functions[key]
        return None


class Recording:
    """`with project.record() as files:` -> {path: hash of its text} read inside the block."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.files: dict[str, str] = {}

    def __enter__(self) -> dict[str, str]:
        self.project._recorded = self.files
        return self.files

    def __exit__(self, *exc: object) -> None:
        self.project._recorded = None


def _works_a_scaler(text: str) -> bool:
    """Whether a file's text makes, names or works a GradScaler: it spells the class
    (constructed, imported, or a project subclass's base), `unscale_` or a `.scale(` call, or
    both a `.step(x)` and an `.update()` (one a framework made, stepped and updated here). The
    plain substring tests come first: most files of a project fail them all."""
    return (
        "GradScaler" in text
        or ("unscale_" in text and _UNSCALE.search(text) is not None)
        or (".scale" in text and _SCALE_CALL.search(text) is not None)
        or (".step(" in text and ".update(" in text and _STEP_OF_SOMETHING.search(text) is not None and _BARE_UPDATE.search(text) is not None)
    )


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False
