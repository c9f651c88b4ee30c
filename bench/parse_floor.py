"""The floor for any libcst-based linter: read and `libcst.parse_module` every .py file
under the given paths, in one process, and do nothing else.

    python bench/parse_floor.py PATH...   # prints {"files", "lines", "failures", "seconds"}
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import libcst


def python_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        files.extend(sorted(p.rglob("*.py")) if p.is_dir() else [p])
    return files


def main(argv: list[str]) -> int:
    files = python_files([Path(a) for a in argv])
    start = time.perf_counter()
    lines = failures = 0
    for f in files:
        source = f.read_bytes()
        lines += source.count(b"\n")
        try:
            libcst.parse_module(source)
        except libcst.ParserSyntaxError:
            failures += 1
    seconds = time.perf_counter() - start
    print(json.dumps({"files": len(files), "lines": lines, "failures": failures, "seconds": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
