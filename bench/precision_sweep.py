"""Precision sweep: `ampcheck lint` with every rule over each whole pinned repository, and
every AMP1xx/AMP2xx/AMP3xx finding listed with the code around it, to be read and judged.

Each repository of the corpus (bench/corpus_repos.py) is written at its pinned commit into a
scratch folder that is a git folder of its own, so it is its own project root (its Python
files, notebooks, and the project files that declare its Python and torch: pyproject.toml,
setup.cfg, requirements.txt), and linted there the way a user runs it from the repository
root: `ampcheck lint --no-cache --select ALL .` in a subprocess. The ampcheck that runs is the
one whose source folder `--ampcheck` names (default: this checkout), so another branch's code
is measured with the same script.

Every finding read is judged in bench/precision_verdicts.json, keyed by repository, file,
line and rule (the commits are pinned, so the key names the same code on every run): true (the
code has the bug the rule describes, by torch's GradScaler semantics), false, or debatable
(counted as false where a maintainer of that code would call it correct). The script prints
the totals per rule from those verdicts and lists every finding no verdict covers.

    python bench/precision_sweep.py --mirror /work/.mirror
    python bench/precision_sweep.py --mirror /work/.mirror --repo k2-fsa/icefall --out /tmp/sweep
    python bench/precision_sweep.py --mirror /work/.mirror --ampcheck /work/wt/proto --out /tmp/sweep-proto
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path
from typing import Optional

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from corpus_repos import Repo, git_dir, materialise, selected  # noqa: E402

VERDICTS = BENCH / "precision_verdicts.json"
JUDGED = ("AMP1", "AMP2", "AMP3")  # the rules about numerics and the scaler protocol; AMP0/AMP4 are syntax and deprecations
SUFFIXES = (".py", ".pyi", ".ipynb")
CONTEXT = 5  # lines either side of a finding in its excerpt


class Verdict(Enum):
    TRUE = "true"
    FALSE = "false"
    DEBATABLE = "debatable"


@dataclass(frozen=True)
class Finding:
    repo: str
    path: str  # relative to the repository root
    line: int
    code: str
    message: str
    excerpt: str  # the numbered lines around `line`

    @property
    def key(self) -> str:
        return f"{self.repo} {self.path}:{self.line} {self.code}"


def excerpt(text: str, line: int, context: int = CONTEXT) -> str:
    lines = text.splitlines()
    first, last = max(1, line - context), min(len(lines), line + context)
    return "\n".join(f"{n:>5}{'>' if n == line else ' '} {lines[n - 1]}" for n in range(first, last + 1))


def lint_repo(repo: Repo, git: Path, ampcheck_src: Path, jobs: int) -> tuple[list[Finding], int, float]:
    """The judged findings of `ampcheck lint` over the whole repository, the files written,
    and the seconds the lint took."""
    with tempfile.TemporaryDirectory(prefix="ampcheck-sweep-") as tmp:
        root = Path(tmp)
        files = materialise(git, repo.commit, root, SUFFIXES, project_files=True)
        env = {**os.environ, "PYTHONPATH": str(ampcheck_src)}
        command = [sys.executable, "-m", "ampcheck", "lint", "--no-cache", "--select", "ALL", "--exit-zero",
                   "--output-format", "json", "--jobs", str(jobs), "."]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"{repo.name}: ampcheck exited {done.returncode}: {done.stderr.strip()[-500:]}")
        findings = []
        for item in json.loads(done.stdout or "[]"):
            if not item["code"].startswith(JUDGED):
                continue
            path = Path(item["filename"]).resolve().relative_to(root.resolve()).as_posix()
            line = item["location"]["row"]
            text = (root / path).read_text(encoding="utf-8", errors="replace")
            where = excerpt(text, line) if item.get("cell") is None else f"(notebook cell {item['cell']})"
            findings.append(Finding(repo.name, path, line, item["code"], item["message"], where))
    return findings, files, seconds


def load_verdicts(path: Path) -> dict[str, tuple[Verdict, str]]:
    if not path.is_file():
        return {}
    return {
        f"{v['repo']} {v['path']}:{v['line']} {v['code']}": (Verdict(v["verdict"]), v["why"])
        for v in json.loads(path.read_text())
    }


def ampcheck_commit(src: Path) -> str:
    done = subprocess.run(["git", "-C", str(src), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def _one(repo: Repo, mirror: Path, ampcheck_src: Path, out: Optional[Path], jobs: int, kept_only: bool) -> Optional[tuple[list[Finding], int, float]]:
    """One repository's findings, files and lint seconds (reused from `out` when an earlier run
    kept them); None when it has no snapshot (or, with `kept_only`, no kept result)."""
    saved = out / (repo.name.replace("/", "+") + ".json") if out else None
    if saved is not None and saved.is_file():
        data = json.loads(saved.read_text())
        return [Finding(**f) for f in data["findings"]], data["files"], data["seconds"]
    git = git_dir(mirror, repo.name)
    if git is None or kept_only:
        return None
    got, files, seconds = lint_repo(repo, git, ampcheck_src, jobs)
    if saved is not None:
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps({"commit": repo.commit, "files": files, "seconds": seconds,
                                     "findings": [asdict(f) for f in got]}, indent=1))
    print(f"{repo.name}@{repo.commit[:8]}: {files} files, {len(got)} findings, {seconds:.1f} s", flush=True)
    return got, files, seconds


def sweep(repos: list[Repo], mirror: Path, ampcheck_src: Path, out: Optional[Path], jobs: int, parallel: int, kept_only: bool = False) -> tuple[list[Finding], list[str], dict[str, tuple[int, float]]]:
    """Lint each repository, `parallel` at a time; returns the findings in corpus order, the
    repositories without a snapshot, and per repository the files written and the lint's seconds."""
    with ThreadPoolExecutor(max_workers=parallel) as pool:  # each lint is its own subprocess
        results = list(pool.map(lambda r: _one(r, mirror, ampcheck_src, out, jobs, kept_only), repos))
    findings: list[Finding] = []
    missing: list[str] = []
    sizes: dict[str, tuple[int, float]] = {}
    for repo, result in zip(repos, results):
        if result is None:
            missing.append(repo.name)
            continue
        findings += result[0]
        sizes[repo.name] = result[1:]
    return findings, missing, sizes


def report(findings: list[Finding], verdicts: dict[str, tuple[Verdict, str]], show: bool) -> None:
    per_rule: dict[str, Counter] = defaultdict(Counter)
    unjudged = []
    for f in findings:
        judged = verdicts.get(f.key)
        per_rule[f.code][judged[0].value if judged else "unjudged"] += 1
        if judged is None:
            unjudged.append(f)
    columns = [v.value for v in Verdict] + ["unjudged"]
    print(f"\n| rule | findings | {' | '.join(columns)} |")
    print("|---|---|" + "---|" * len(columns))
    for code in sorted(per_rule):
        counts = per_rule[code]
        print(f"| {code} | {sum(counts.values())} | " + " | ".join(str(counts[c]) for c in columns) + " |")
    totals = Counter()
    for counts in per_rule.values():
        totals.update(counts)
    print(f"| all | {sum(totals.values())} | " + " | ".join(str(totals[c]) for c in columns) + " |")
    if show:
        for f in findings:
            judged = verdicts.get(f.key)
            label = f"{judged[0].value}: {judged[1]}" if judged else "UNJUDGED"
            print(f"\n{f.key}  [{label}]\n  {f.message}\n{f.excerpt}")
    elif unjudged:
        print(f"\n{len(unjudged)} findings without a verdict (see -v):")
        for f in unjudged:
            print(f"  {f.key}: {f.message[:120]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, required=True, help="folder holding the repositories' git directories")
    parser.add_argument("--repo", action="append", help="only this owner/name (repeatable)")
    parser.add_argument("--ampcheck", type=Path, default=BENCH.parent, help="the ampcheck source folder to run (default: this checkout)")
    parser.add_argument("--out", type=Path, help="keep each repository's findings here and reuse them on the next run")
    parser.add_argument("--verdicts", type=Path, default=VERDICTS, help="the judged findings (default: bench/precision_verdicts.json)")
    parser.add_argument("--json", type=Path, help="write every finding, with its verdict, here")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="ampcheck worker processes per repository")
    parser.add_argument("--kept-only", action="store_true", help="lint nothing: report the results kept in --out (the rest count as missing)")
    parser.add_argument("-p", "--parallel", type=int, default=1, help="repositories linted at once")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every finding with its excerpt and verdict")
    args = parser.parse_args()
    repos = selected(args.repo)
    print(f"ampcheck {ampcheck_commit(args.ampcheck)} from {args.ampcheck}", flush=True)
    findings, missing, sizes = sweep(repos, args.mirror, args.ampcheck, args.out, args.jobs, args.parallel, args.kept_only)
    files = sum(n for n, _ in sizes.values())
    seconds = sum(s for _, s in sizes.values())
    print(f"\n{len(sizes)} repositories, {files} files, {len(findings)} AMP1/AMP2/AMP3 findings, lint {seconds:.0f} s")
    verdicts = load_verdicts(args.verdicts)
    report(findings, verdicts, args.verbose)
    if missing:
        print(f"\nnot linted (no snapshot{', or no kept result' if args.kept_only else ''}): {', '.join(missing)}")
    if args.json:
        rows = []
        for f in findings:
            judged = verdicts.get(f.key)
            rows.append({**asdict(f), "verdict": judged[0].value if judged else None, "why": judged[1] if judged else None})
        args.json.write_text(json.dumps({"findings": rows, "missing": missing}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
