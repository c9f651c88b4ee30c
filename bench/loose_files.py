"""Precision and mutation recall on loose training files: a file or a few of a public
repository, read without the rest of it (where a whole snapshot cannot be had, as when a
session's fetch budget is spent, but single files can be read).

Each folder `ROOT/<group>/<owner>+<name>/` holds the files of one repository at their paths in
it, and is linted as a project of its own: every AMP1/AMP2/AMP3 finding with every rule is
listed, to be read and judged, and each file is mutated one mutation at a time as
bench/mutation_recall.py mutates a pinned repository (the same mutations, the same counting).
A loose file is read without the project modules it imports, so a helper it calls (a VITS
`commons.clip_grad_value_`, a `utils.clip_gradients`) is out of sight: misses there say what
the file alone shows, not what ampcheck finds in the whole project.

    python bench/loose_files.py /tmp/heldout
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import mutation_recall  # noqa: E402
from mutation_recall import KINDS  # noqa: E402


def findings(root: Path) -> list[str]:
    """Every AMP1/AMP2/AMP3 finding with every rule: `ampcheck lint --no-cache --select ALL .`
    from the folder, as bench/precision_sweep.py lints a repository."""
    command = [sys.executable, "-m", "ampcheck", "lint", "--no-cache", "--select", "ALL", "--exit-zero", "--output-format", "json", "."]
    out = subprocess.run(command, cwd=root, capture_output=True, text=True, check=True).stdout
    return [
        f"{root.name} {Path(f['filename']).resolve().relative_to(root)}:{f['location']['row']}: {f['code']} {f['message']}"
        for f in json.loads(out) if f["code"][:4] in ("AMP1", "AMP2", "AMP3")
    ]


def mutate(root: Path) -> tuple[Counter[str], Counter[str], list[str]]:
    """(mutants, reported, missed lines) of the folder's files, equivalents left out; each
    mutant linted from the folder, naming the mutated file by its path there."""
    here = os.getcwd()
    os.chdir(root)
    try:
        return _mutate(root)
    finally:
        os.chdir(here)


def _mutate(root: Path) -> tuple[Counter[str], Counter[str], list[str]]:
    total: Counter[str] = Counter()
    hits: Counter[str] = Counter()
    missed: list[str] = []
    for file, original, sites in mutation_recall.files_to_mutate(root.name, root):
        rel = file.relative_to(root).as_posix()
        known = {(c, line) for c, line, _ in mutation_recall.amp1(root, rel)}
        for m in sites:
            if mutation_recall.equivalent(root.name, m, original):
                continue
            hit, _ = mutation_recall.lint_mutant(root, file, original, m, known)
            total[m.kind] += 1
            hits[m.kind] += hit
            if not hit:
                missed.append(f"{root.name} {rel}:{m.first} {m.kind}")
    return total, hits, missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="folder of <group>/<owner>+<name>/ folders of loose files")
    args = parser.parse_args()
    total: Counter[str] = Counter()
    hits: Counter[str] = Counter()
    found: list[str] = []
    missed: list[str] = []
    folders = sorted(p.resolve() for p in args.root.glob("*/*") if p.is_dir())
    for root in folders:
        found += findings(root)
        t, h, m = mutate(root)
        total += t
        hits += h
        missed += m
    print(f"{len(folders)} folders; AMP1/AMP2/AMP3 findings ({len(found)}):")
    print("\n".join("  " + line for line in found))
    print(f"\n{'mutation':<20} {'reported':>9} {'mutants':>8} {'recall':>7}")
    for kind in (*KINDS, "all"):
        h, n = (sum(hits.values()), sum(total.values())) if kind == "all" else (hits[kind], total[kind])
        print(f"{kind:<20} {h:>9} {n:>8} {h / n if n else 0:>7.2f}")
    print(f"\nmissed ({len(missed)}):")
    print("\n".join("  " + line for line in missed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
