"""Lint benchmark: ampcheck against the libcst parse floor and against its peers.

Two tables, each measured in one session with interleaved rounds (the order rotates every
round so no case always runs on a cooler or hotter machine), reporting the median wall time
with its range, CPU time (the command and all its workers) and peak RSS of the largest
process:

- `ampcheck` on the whole corpus: the bare `libcst.parse_module` loop in one process (the
  floor for any libcst-based linter), ampcheck cold (`--no-cache`, default jobs), warm (cache
  filled, nothing changed; its findings must equal cold's), one changed file (what a
  pre-commit hook sees) and `ampcheck --version` (start-up).
- `peers` on a subset (default: timm), because TorchFix and Fixit take tens of minutes per
  pass over the whole corpus on a 2-core machine: the floor and ampcheck cold on the same
  subset, TorchFix standalone and as the flake8 plugin, Fixit and Ruff, each with its
  defaults, from the bench-only venv (see requirements-bench.txt).
- `dense` on AMP-dense repositories (pinned by commit in DENSE, where most files are
  training code: the torch/transformers corpus is mostly code without AMP, which hides
  what the project model costs): each repository's Python files at the commit, written
  from the snapshot under --mirror into bench/dense/ (as bench/mutation_recall.py writes
  them), and on each the floor, ampcheck cold, warm and one edited training file, and
  `ruff check --select ALL` when the peers venv has Ruff.

    python bench/make_corpus.py
    python bench/lint_bench.py --rounds 3 --results bench/RESULTS.md
    python bench/lint_bench.py --tables dense --mirror /work/.mirror --rounds 1 --results bench/RESULTS.md
    python bench/lint_bench.py --tiny      # seconds; what the test suite runs

The Markdown tables are printed and, with --results, spliced into that file between
`<!-- bench:TABLE -->` markers (added at the end the first time).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import make_corpus  # noqa: E402  (bench scripts are run as files, not as a package)
import mutation_recall  # noqa: E402
from procstats import CommandFailed, Sample, load_average, machine, measure, median  # noqa: E402
from results_md import splice  # noqa: E402

PEERS_BIN = BENCH / ".venv-peers" / "bin"
CHANGED_FILE = "torch/amp/grad_scaler.py"
PEER_SUBSET = "timm"
DENSE_DEST = BENCH / "dense"
# AMP-dense repositories: owner/name -> (commit, the training file the one-edited-file case
# edits). A recipe-style speech toolkit (hundreds of recipes, ~170 files with GradScaler or
# autocast) and a training framework (fp16/bf16 engines, optimizers and loss scalers).
DENSE = {
    "k2-fsa/icefall": ("36e0420c7e3e849a25b3d24dbf913c424f3d23c9", "egs/librispeech/ASR/zipformer/train.py"),
    "microsoft/DeepSpeed": ("38327e07f6cd39b63418f60cedd1651b0be3e7c3", "deepspeed/runtime/engine.py"),
}
# Written into the corpus root: it makes the corpus a project of its own, so tools that
# honour the enclosing repository's .gitignore (which ignores bench/corpus/) do not skip it
# and none picks up the repository's own settings. Every tool runs with its defaults.
CORPUS_PYPROJECT = """\
# Written by bench/lint_bench.py: the corpus is a project of its own; every tool runs its defaults.
[project]
name = "ampcheck-bench-corpus"
version = "0"

[tool.ampcheck]

[tool.fixit]
root = true

[tool.ruff]
"""


@dataclass
class Case:
    name: str
    argv: list[str]
    cwd: Path
    ok_codes: tuple[int, ...] = (0, 1)  # linters exit 1 when they report something
    capture: bool = False  # keep stdout of the last round (findings to compare)
    before: Optional[Callable[[int], None]] = None
    after: Optional[Callable[[], None]] = None
    skip: Optional[str] = None
    samples: list[Sample] = field(default_factory=list)
    stdout: Optional[Path] = None


def run_rounds(cases: list[Case], rounds: int, scratch: Path) -> None:
    live = [c for c in cases if c.skip is None]
    for r in range(rounds):
        shift = r % len(live)
        for case in live[shift:] + live[:shift]:
            out = scratch / f"{len(case.samples)}-{abs(hash(case.name))}.out" if case.capture else None
            if case.before:
                case.before(r)
            try:
                case.samples.append(measure(case.argv, cwd=case.cwd, stdout=out, ok_codes=case.ok_codes))
            finally:
                if case.after:
                    case.after()
            case.stdout = out
            print(f"  round {r + 1}/{rounds}  {case.name:44} {case.samples[-1].wall_s:8.2f} s", file=sys.stderr)


def wall(case: Case) -> float:
    return median([s.wall_s for s in case.samples])


def row(case: Case, ratio: str) -> str:
    if case.skip is not None:
        return f"| {case.name} | — | — | — | skipped: {case.skip} |"
    walls = [s.wall_s for s in case.samples]
    spread = f" ({min(walls):.2f}–{max(walls):.2f})" if len(walls) > 1 else ""
    cpu = median([s.cpu_s for s in case.samples])
    rss = max(s.rss_mb for s in case.samples)
    return f"| {case.name} | {wall(case):.3f}{spread} | {cpu:.2f} | {rss:.0f} | {ratio} |"


HEADER = "| case | wall s, median (min–max) | CPU s | peak RSS MB | ratio |\n|---|---|---|---|---|"


def ampcheck_exe() -> str:
    """The console script users run, from the same environment as this Python."""
    beside = Path(sys.executable).parent / "ampcheck"
    found = str(beside) if beside.exists() else shutil.which("ampcheck")
    if found is None:
        raise SystemExit("lint_bench: no `ampcheck` console script beside this Python or on PATH")
    _compile_ampcheck()
    return found


def _compile_ampcheck() -> None:
    """Write the bytecode of the ampcheck package being measured, as `pip install` does for
    an installed copy: from an editable install on a machine that sets
    PYTHONDONTWRITEBYTECODE=1 (this one does), every run would compile its ~50 modules
    again, some 0.15 s that no installed copy pays."""
    import compileall

    import ampcheck

    compileall.compile_dir(str(Path(ampcheck.__file__).parent), quiet=1)


def floor_case(name: str, target: str, corpus: Path) -> Case:
    return Case(name, [sys.executable, str(BENCH / "parse_floor.py"), target], corpus, ok_codes=(0,))


def findings_of(case: Case) -> list[str]:
    data = json.loads(case.stdout.read_text()) if case.stdout else []
    return sorted(json.dumps(item, sort_keys=True) for item in data)


class ChangedFile:
    """Edit one file before a run (as a commit would) and put it back afterwards, so the
    warm cache stays valid for every other case."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.original = path.read_bytes()
        self.lines = self.original.count(b"\n")

    def edit(self, round_no: int) -> None:
        # a text no earlier run saw (the round alone repeats across runs, and the findings
        # cache would replay the last run's result for it)
        self.path.write_bytes(self.original + f"# lint_bench edit {round_no} {uuid.uuid4().hex}\n".encode())

    def restore(self) -> None:
        self.path.write_bytes(self.original)


def ampcheck_cases(exe: str, root: Path, changed_rel: str) -> tuple[Case, Case, Case, Case]:
    """The floor, ampcheck cold, warm and one changed file on `root`, with its cache filled
    afresh (never replaying an older build's findings)."""
    shutil.rmtree(root / ".ampcheck_cache", ignore_errors=True)
    measure([exe, "lint", "--exit-zero", "."], cwd=root)  # fill the cache
    changed = ChangedFile(root / changed_rel)
    floor = floor_case("libcst parse loop, 1 process (floor)", ".", root)
    cold = Case("ampcheck cold (`--no-cache`)", [exe, "lint", "--no-cache", "--output-format", "json", "."], root, capture=True)
    warm = Case("ampcheck warm (cache filled, nothing changed)", [exe, "lint", "--output-format", "json", "."], root, capture=True)
    one = Case(
        f"ampcheck one changed file (`{changed_rel}`, {changed.lines} lines)",
        [exe, "lint", changed_rel], root, before=changed.edit, after=changed.restore,
    )
    return floor, cold, warm, one


def dense_checkout(mirror: Path, repo: str, commit: str) -> Optional[Path]:
    """bench/dense/<owner>+<name>: the repository's Python files at `commit` (written once;
    a stamp records the commit); None when the mirror has no snapshot of it."""
    dest = DENSE_DEST / repo.replace("/", "+")
    stamp = dest / ".ampcheck-bench-commit"
    if stamp.is_file() and stamp.read_text().strip() == commit:
        _own_root(dest)
        return dest
    git = mutation_recall.git_dir(mirror, repo)
    if git is None:
        return None
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    mutation_recall.materialise(git, commit, dest)
    _own_root(dest)
    stamp.write_text(commit + "\n")
    return dest


def _own_root(dest: Path) -> None:
    """Make the checkout the root of its own project, as a clone of the repository is: under
    bench/ it sits in this repository, whose pyproject.toml (the nearest ampcheck config above
    it) would otherwise make this repository the root and the checkout one project of several.
    Stops before 34 measured that way, and no absolute import of the checkout's own packages
    resolved there (DeepSpeed: 82 modules read for summaries instead of ~150)."""
    config = dest / "pyproject.toml"
    if not config.exists():
        config.write_text("[tool.ampcheck]\n")


def dense_table(mirror: Path, rounds: int, peers_bin: Path, scratch: Path) -> str:
    exe = ampcheck_exe()
    sections = []
    for repo, (commit, changed_rel) in DENSE.items():
        root = dense_checkout(mirror, repo, commit)
        if root is None:
            sections.append(f"`{repo}`: no snapshot under {mirror}; skipped.")
            continue
        files, lines = make_corpus.count(root)
        floor, cold, warm, one = ampcheck_cases(exe, root, changed_rel)
        ruff = Case(
            "Ruff (`ruff check --no-cache --select ALL`)", [str(peers_bin / "ruff"), "check", "--no-cache", "--select", "ALL", "."],
            root, skip=peer_missing(peers_bin, "ruff"),
        )
        cases = [floor, cold, warm, one, ruff]
        print(f"{repo}@{commit[:10]}: {files} files", file=sys.stderr)
        run_rounds(cases, rounds, scratch)
        identical = findings_of(cold) == findings_of(warm)
        base = wall(floor)
        cold_ratio = wall(cold) / base
        sections.append("\n".join([
            f"`{repo}` at `{commit}`: {files} files, {lines} lines; {rounds} interleaved round(s).",
            "",
            HEADER,
            row(floor, "1.00× floor"),
            row(cold, f"{cold_ratio:.2f}× floor"),
            row(warm, f"{wall(warm) / wall(cold):.3f}× cold"),
            row(one, "—"),
            row(ruff, f"{wall(ruff) / base:.2f}× floor" if ruff.samples else "—"),
            "",
            "| target | measured | met |\n|---|---|---|",
            f"| cold ≤ 0.5× floor | {cold_ratio:.2f}× | {_met(cold_ratio <= 0.5)} |",
            f"| warm ≤ 0.5 s, findings identical to cold's | {wall(warm):.3f} s, "
            f"{'identical' if identical else 'DIFFERENT'} ({len(findings_of(cold))} findings) | {_met(wall(warm) <= 0.5 and identical)} |",
            f"| one edited file ≤ 1 s | {wall(one):.3f} s | {_met(wall(one) <= 1.0)} |",
        ]))
    return "\n\n".join(sections)


def ampcheck_table(corpus: Path, rounds: int, changed_rel: str, scratch: Path) -> tuple[str, bool]:
    exe = ampcheck_exe()
    floor, cold, warm, one = ampcheck_cases(exe, corpus, changed_rel)
    version = Case("`ampcheck --version` (start-up)", [exe, "--version"], corpus, ok_codes=(0,))
    cases = [floor, cold, warm, one, version]
    run_rounds(cases, rounds, scratch)

    cold_findings, warm_findings = findings_of(cold), findings_of(warm)
    identical = cold_findings == warm_findings
    cold_ratio = wall(cold) / wall(floor)
    warm_ratio = wall(warm) / wall(cold)
    lines = [
        HEADER,
        row(floor, "1.00× floor"),
        row(cold, f"{cold_ratio:.2f}× floor"),
        row(warm, f"{warm_ratio:.3f}× cold"),
        row(one, "—"),
        row(version, "—"),
        "",
        "| target | measured | met |\n|---|---|---|",
        f"| cold ≤ 0.5× floor | {cold_ratio:.2f}× | {_met(cold_ratio <= 0.5)} |",
        f"| warm ≤ 0.05× cold, identical findings | {warm_ratio:.3f}×, "
        f"{'identical' if identical else 'DIFFERENT'} ({len(cold_findings)} findings) | {_met(warm_ratio <= 0.05 and identical)} |",
        f"| one changed file (a pre-commit run; the project modules it reads come from the summary cache) ≤ 0.5 s | {wall(one):.3f} s | {_met(wall(one) <= 0.5)} |",
        f"| start-up < 0.15 s | {wall(version):.3f} s | {_met(wall(version) < 0.15)} |",
    ]
    return "\n".join(lines), identical


# name -> (table label, arguments before the path); each runs with its own defaults.
PEERS = {
    "torchfix": ("TorchFix (`torchfix`)", ["torchfix"]),
    "flake8": ("TorchFix as flake8 plugin (`flake8 --select TOR`)", ["flake8", "--select", "TOR"]),
    "fixit": ("Fixit (`fixit lint`)", ["fixit", "lint"]),
    "ruff": ("Ruff (`ruff check --no-cache`)", ["ruff", "check", "--no-cache"]),
}


def peer_missing(peers_bin: Path, name: str) -> Optional[str]:
    """Why a peer cannot run, or None when it is installed."""
    exe = peers_bin / PEERS[name][1][0]
    return None if exe.exists() else f"not installed ({exe}; see bench/requirements-bench.txt)"


def peers_table(corpus: Path, subset: str, rounds: int, peers_bin: Path, peers: list[str], scratch: Path) -> str:
    floor = floor_case(f"libcst parse loop, 1 process (floor) on `{subset}`", subset, corpus)
    cases = [floor, Case(f"ampcheck cold (`--no-cache`) on `{subset}`", [ampcheck_exe(), "lint", "--no-cache", subset], corpus)]
    for name in peers:
        label, (tool, *args) = PEERS[name]
        cases.append(Case(label, [str(peers_bin / tool), *args, subset], corpus, skip=peer_missing(peers_bin, name)))
    run_rounds(cases, rounds, scratch)
    base = wall(floor)
    return "\n".join([HEADER] + [row(c, f"{wall(c) / base:.2f}× floor" if c.samples else "—") for c in cases])


def _met(ok: bool) -> str:
    return "yes" if ok else "**no**"


def preamble(corpus: Path, rounds: int, subset: Optional[str]) -> str:
    manifest = json.loads((corpus / make_corpus.MANIFEST).read_text())
    packages = ", ".join(f"{n} {p['version']} ({p['files']} files, {p['lines']} lines)" for n, p in manifest["packages"].items())
    scope = f"`{subset}` of the corpus" if subset else f"the corpus: {manifest['files']} files, {manifest['lines']} lines"
    return f"Measured on {scope} — {packages}; {rounds} interleaved round(s)."


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="default: bench/corpus (with --tiny: a temporary folder)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tables", default="ampcheck,peers", help="comma-separated: ampcheck, peers, dense")
    parser.add_argument("--mirror", type=Path, help="folder of repository snapshots, for the dense table (see mutation_recall.py)")
    parser.add_argument("--peer-subset", default=PEER_SUBSET, help="folder of the corpus the peers run on")
    parser.add_argument("--changed-file", default=CHANGED_FILE, help="corpus file the pre-commit case edits")
    parser.add_argument("--peers-bin", type=Path, default=PEERS_BIN)
    parser.add_argument("--peers", default=",".join(PEERS), help=f"comma-separated subset of: {', '.join(PEERS)}")
    parser.add_argument("--results", type=Path, help="Markdown file to splice the tables into")
    parser.add_argument("--tiny", action="store_true", help="a few torch AMP files, one round (smoke test)")
    args = parser.parse_args(argv)
    unknown = set(args.peers.split(",")) - set(PEERS)
    if unknown:
        parser.error(f"unknown peer(s): {', '.join(sorted(unknown))}")
    if "dense" in args.tables and args.mirror is None:
        parser.error("the dense table needs --mirror")

    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        corpus = args.corpus or (scratch / "corpus" if args.tiny else make_corpus.DEFAULT_DEST)
        rounds, subset = (1, ".") if args.tiny else (args.rounds, args.peer_subset)
        if "ampcheck" in args.tables or "peers" in args.tables:
            try:
                make_corpus.build(corpus, tiny=args.tiny)
            except make_corpus.CorpusError as exc:
                print(f"lint_bench: {exc}", file=sys.stderr)
                return 2
            (corpus / "pyproject.toml").write_text(CORPUS_PYPROJECT)
        load_before = load_average()
        sections: dict[str, str] = {}
        identical = True
        try:
            if "ampcheck" in args.tables:
                table, identical = ampcheck_table(corpus, rounds, args.changed_file, scratch)
                sections["ampcheck"] = f"{preamble(corpus, rounds, None)}\n\n{table}"
            if "peers" in args.tables:
                table = peers_table(corpus, subset, rounds, args.peers_bin, args.peers.split(","), scratch)
                sections["peers"] = f"{preamble(corpus, rounds, subset)}\n\n{table}"
            if "dense" in args.tables:
                sections["dense"] = dense_table(args.mirror, rounds, args.peers_bin, scratch)
        except CommandFailed as exc:
            print(f"lint_bench: {exc}", file=sys.stderr)
            return 2
        footer = f"Load average (1/5/15 min) before {load_before}, after {load_average()}; {machine()}."
        for name, text in sections.items():
            text = f"{text}\n\n{footer}"
            print(f"\n### lint_bench: {name}\n\n{text}")
            if args.results:
                splice(args.results, name, text)
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
