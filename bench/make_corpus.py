"""Build the lint-benchmark corpus from pinned packages so anyone can rebuild it.

The corpus is the Python sources of the installed torch (pinned in constraints.txt) plus
timm and transformers at the versions pinned in bench/requirements-bench.txt, installed
with `pip install --no-deps --target` (their dependencies are irrelevant: only the sources
are read). Only `.py` files are kept, so every tool is measured on exactly the same files.
Re-running is cheap: a package whose recorded version matches is left alone. The file and
line counts land in MANIFEST.json beside the packages, for the results table.

    python bench/make_corpus.py            # bench/corpus/{torch,timm,transformers}
    python bench/make_corpus.py --tiny D   # a few torch AMP files in D (for the smoke test)
"""
from __future__ import annotations

import argparse
import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
DEFAULT_DEST = BENCH / "corpus"
MANIFEST = "MANIFEST.json"
STAMP = ".version"
# The tiny corpus: torch's own AMP modules, which include the deprecated spellings.
TINY_TORCH_DIRS = ("amp", "cuda/amp", "cpu/amp")


class CorpusError(Exception):
    """A one-line reason the corpus cannot be built."""


def corpus_pins() -> dict[str, str]:
    """name -> version for the requirements-bench.txt lines marked `extra == "corpus"`."""
    pins = {}
    for line in (BENCH / "requirements-bench.txt").read_text().splitlines():
        m = re.match(r"\s*([A-Za-z0-9_.-]+)==([^;\s]+)\s*;\s*extra\s*==\s*['\"]corpus['\"]", line)
        if m:
            pins[m.group(1)] = m.group(2)
    return pins


def torch_pin() -> str:
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        m = re.match(r"\s*torch==(\S+)", line)
        if m:
            return m.group(1)
    raise CorpusError("constraints.txt pins no torch version")


def installed_torch_dir() -> tuple[Path, str]:
    """The installed torch package directory, found without importing torch."""
    try:
        dist = importlib.metadata.distribution("torch")
    except importlib.metadata.PackageNotFoundError:
        raise CorpusError("torch is not installed in this Python; install ampcheck[trace] with -c constraints.txt")
    pinned = torch_pin()
    if dist.version.split("+")[0] != pinned:
        raise CorpusError(f"installed torch is {dist.version}, constraints.txt pins {pinned}")
    return Path(str(dist.locate_file("torch"))), dist.version


def copy_py(src: Path, dest: Path) -> None:
    """Copy the .py files under src into dest, keeping the layout."""
    for f in sorted(src.rglob("*.py")):
        if "__pycache__" in f.parts:
            continue
        target = dest / f.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)


def is_current(pkg_dir: Path, version: str) -> bool:
    stamp = pkg_dir / STAMP
    return stamp.is_file() and stamp.read_text().strip() == version


def replace_dir(pkg_dir: Path, fill, version: str) -> None:
    """Build a package directory beside its final place, then swap it in (so an interrupted
    run never leaves a half-copied package that looks current)."""
    staging = pkg_dir.with_name(pkg_dir.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    fill(staging)
    (staging / STAMP).write_text(version + "\n")
    shutil.rmtree(pkg_dir, ignore_errors=True)
    staging.rename(pkg_dir)


def add_torch(dest: Path, subdirs: tuple[str, ...] = ()) -> None:
    src, version = installed_torch_dir()
    pkg_dir = dest / "torch"
    if is_current(pkg_dir, version):
        return

    def fill(staging: Path) -> None:
        for sub in subdirs or (".",):
            copy_py(src / sub, staging / sub)

    replace_dir(pkg_dir, fill, version)


def add_pinned(dest: Path, name: str, version: str) -> None:
    pkg_dir = dest / name
    if is_current(pkg_dir, version):
        return

    def fill(staging: Path) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile",
                   "--target", tmp, f"{name}=={version}"]
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["pip failed"])[-1]
                raise CorpusError(f"pip could not install {name}=={version}: {last}")
            for top in Path(tmp).iterdir():
                if top.is_dir() and not top.name.endswith(".dist-info") and top.name != "bin":
                    copy_py(top, staging / top.name)

    replace_dir(pkg_dir, fill, version)


def count(pkg_dir: Path) -> tuple[int, int]:
    files = lines = 0
    for f in pkg_dir.rglob("*.py"):
        files += 1
        lines += f.read_bytes().count(b"\n")
    return files, lines


def write_manifest(dest: Path) -> dict:
    packages = {}
    for pkg_dir in sorted(p for p in dest.iterdir() if (p / STAMP).is_file()):
        files, lines = count(pkg_dir)
        packages[pkg_dir.name] = {
            "version": (pkg_dir / STAMP).read_text().strip(),
            "files": files,
            "lines": lines,
        }
    manifest = {
        "packages": packages,
        "files": sum(p["files"] for p in packages.values()),
        "lines": sum(p["lines"] for p in packages.values()),
    }
    (dest / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def build(dest: Path, tiny: bool) -> dict:
    dest.mkdir(parents=True, exist_ok=True)
    if tiny:
        add_torch(dest, TINY_TORCH_DIRS)
    else:
        add_torch(dest)
        for name, version in corpus_pins().items():
            add_pinned(dest, name, version)
    return write_manifest(dest)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", nargs="?", type=Path, default=DEFAULT_DEST)
    parser.add_argument("--tiny", action="store_true", help="only torch's AMP modules (seconds, offline)")
    args = parser.parse_args(argv)
    try:
        manifest = build(args.dest, args.tiny)
    except CorpusError as exc:
        print(f"make_corpus: {exc}", file=sys.stderr)
        return 2
    for name, p in manifest["packages"].items():
        print(f"{name:14} {p['version']:14} {p['files']:6} files {p['lines']:9} lines")
    print(f"{'total':29} {manifest['files']:6} files {manifest['lines']:9} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
