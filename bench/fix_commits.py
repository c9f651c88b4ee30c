"""Fix commits: does ampcheck tell the buggy side from the fixed side of real AMP fixes?

Mutation recall (bench/mutation_recall.py) injects bugs of our own making. This bench takes
bugs that people actually wrote and then fixed: commits in public repositories whose diff
repairs a mixed-precision mistake in training code (mostly the GradScaler protocol, AMP1xx,
and a few AMP2xx/AMP3xx). Each one was read by hand and is listed in FIXES with the rule the
bug corresponds to. Deprecated-API renames (AMP40x) are listed in DEPRECATED and reported
apart; they do not count toward the totals.

For every commit whose snapshot is present, the script writes the repository's Python files at
`commit^` (the buggy side) and at `commit` (the fixed side) into two scratch folders, each a
git folder of its own so that it is its own project root, and lints the files the fix touches
on each side, in-process, the way a pre-commit hook lints them: only those files are named,
the rest of the project is read for what it defines. A commit counts as told apart when a
finding of the expected rule on the buggy side is gone on the fixed side. Findings are matched
across the two sides by (rule, file, text of the flagged line), so code that merely moved
does not count as gone. The last column lists findings of any rule (AMP40x aside) that only the
fixed side has: a fix that ampcheck reads as a new bug.

Snapshots are read from git directories laid out as `MIRROR/<owner>+<name>/repo` (what the
search tool's fetch writes) or `MIRROR/<owner>/<name>/.git` (a plain clone); a repository or
commit the snapshots lack is listed as missing, not fatal. Nothing fetched is written outside
the scratch folders, and nothing fetched belongs in this repository: the script only names
repositories and commits.

    python bench/fix_commits.py --mirror /work/.mirror
    python bench/fix_commits.py --mirror /work/.mirror --repo neosr-project/neosr -v
    python bench/fix_commits.py --mirror /work/.mirror --json fix_commits.json
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.append(str(BENCH.parent))  # after PYTHONPATH, so `PYTHONPATH=<another checkout>` measures that ampcheck

from corpus_repos import git_dir, materialise  # noqa: E402

from ampcheck.config import default_settings  # noqa: E402
from ampcheck.lint.engine import Options, lint_paths  # noqa: E402


@dataclass(frozen=True)
class Fix:
    repo: str  # owner/name
    commit: str  # the fix; its first parent is the buggy side
    files: tuple[str, ...]  # the training files the fix touches (linted on both sides)
    rules: tuple[str, ...]  # the rule the bug corresponds to; more than one where the catalog's rules overlap
    what: str


# Read by hand: each diff repairs the bug named, in the file(s) named.
FIXES: tuple[Fix, ...] = (
    Fix("milesial/Pytorch-UNet", "52b4f14e91cb2e82ba62a4f39c7030d209ca8277", ("train.py",), ("AMP104",),
        "clip_grad_norm_ on scaled grads; adds grad_scaler.unscale_(optimizer) before the clip (PR #470, issue #468)"),
    Fix("Deci-AI/super-gradients", "e40cbb971e7988234397f6d1dd72b45e7d2ea928",
        ("src/super_gradients/training/sg_trainer/sg_trainer.py",), ("AMP104",),
        "Trainer clipped scaled grads every micro-batch; moves the clip to the step boundary after scaler.unscale_ (PR #653)"),
    Fix("NCAR/miles-credit", "cec6e07614d5b84ae07b7adf11dba40fdd219e89",
        ("credit/trainers/trainerERA5_multistep_grad_accum.py", "credit/trainers/trainerERA5_v2.py"), ("AMP104",),
        "two Trainer classes clip scaled grads; adds scaler.unscale_(optimizer) before clip_grad_norm_ (PR #141)"),
    Fix("rwth-i6/returnn", "68848749f579e99ee2952c91c7ab8b78d1eb219b", ("returnn/torch/updater.py",), ("AMP104",),
        "Updater.step adds gradient noise and clips while the grads are scaled; unscale_ first (PR #1595)"),
    Fix("speechbrain/speechbrain", "656e8b8c70972d53c86909d9aaf4e2f3e2d3d91c", ("speechbrain/core.py",), ("AMP104",),
        "Brain.fit_batch: check_gradients() clips scaled grads; adds scaler.unscale_ (and moves backward out of autocast)"),
    Fix("salesforce/LAVIS", "8eacc6281759063d2da58391089250138cd98022", ("lavis/tasks/base_task.py",), ("AMP101",),
        "train loop scaler.scale(loss).backward() then optimizer.step(); now scaler.step + scaler.update ('fix amp scaler')"),
    Fix("ultralytics/yolov5", "3feecfaeb7f52f27e7280265a2fca7e00c88fdf3", ("classifier.py",), ("AMP101",),
        "classifier scaled the loss but stepped the optimizer directly; 'Improve stability by disabling AMP' drops the scaler"),
    Fix("Azure/MS-AMP", "61b601a4cb4b94d96fa63bc44bf2b90606760ed7", ("examples/mnist.py", "examples/mnist_ddp.py"),
        ("AMP102",), "scaler.step without scaler.update: 'step() has already been called since the last update()' (PR #45)"),
    Fix("coqui-ai/Trainer", "7fe6c921647df99427f4f2215a8a925d346617c3", ("trainer/trainer.py",), ("AMP103",),
        "optimize() called once per optimizer (GAN) ran scaler.update() each time; update after the last optimizer only"),
    Fix("neosr-project/neosr", "39f9a4a28c538c600dcef1a4725c8ecc95357145", ("neosr/models/default.py",), ("AMP103",),
        "scaler.update() after the generator step and again after the discriminator step; once per iteration"),
    Fix("neosr-project/neosr", "338710aa05cdbe53017994c84e319afe2c9d1d34", ("neosr/models/default.py",), ("AMP103",),
        "shared scaler updated after each of two optimizers' steps; one update at the end ('fix scaler.update()')"),
    Fix("neosr-project/neosr", "6f77b1731ed0cb01aebafd49c6804e01acc2b999", ("neosr/models/default.py",), ("AMP103",),
        "update per optimizer again, under the accumulation boundary; one update at the boundary after both steps"),
    Fix("Haian-Jin/LVSM", "cda96b9267ddae1c51edac2200396ae98263f7be", ("train.py",), ("AMP107", "AMP106"),
        "unscale_ then a grad-norm skip branch that skipped step AND update: next unscale_ raises (PR #19)"),
    Fix("huggingface/pytorch-image-models", "4cd7fb88b296cc6e7c9599ebe65289e78b8bdd15", ("timm/utils/cuda.py",),
        ("AMP106", "AMP107"), "NativeScaler.__call__ unscale_+clip on every micro-batch, step only when need_update"),
    Fix("neosr-project/neosr", "646c9efb97e1fdf4ea17fddb7e4a5fec37aeef9b", ("neosr/models/default.py",), ("AMP108",),
        "GradScaler constructed in optimize_parameters(), i.e. every iteration; moved to the model's setup ('GradScaler Fix')"),
    Fix("maxencewynen/ConfLUNet", "bbc4544100da337daf315b3e3571f314d7a7c8b2", ("conflunet/training/trainer.py",),
        ("AMP109",), "checkpoint dict saved model/optimizer/scheduler but not the scaler; saves and restores it"),
    Fix("IAHispano/Applio", "3f05548d4eebdbf6719e24843f112663d10ec641", ("rvc/train/train.py", "rvc/train/utils.py"),
        ("AMP109",), "save_checkpoint() (utils.py) omitted scaler.state_dict() for fp16 training; saved and loaded now"),
    Fix("mlfoundations/open_clip", "62980cb03547a691d767c1eff294a9bb6f89847a", ("src/training/main.py",), ("AMP206",),
        "FSDP (FullyShardedDataParallel) trained with a plain GradScaler; ShardedGradScaler for fsdp"),
    Fix("Open-Superintelligence-Lab/5-dollar-llm", "dc8bb754c36f0cb1683eb952a1c548d5902119d9", ("training/trainer.py",),
        ("AMP202",), "GradScaler beside autocast(dtype=torch.bfloat16); scaler removed (PR #23, issue #21)"),
    Fix("neosr-project/neosr", "9c79dde3006ebabf2d805d6ced64261278e3a76d", ("neosr/models/default.py",), ("AMP301",),
        "generator's scaled backward (and step/update) inside the autocast block; moved out"),
)

# Deprecated-API renames (torch.cuda.amp -> torch.amp): reported apart, not counted.
DEPRECATED: tuple[Fix, ...] = (
    Fix("karpathy/nanoGPT", "58c0fe16227216e7088d6c50f83004b46679812a", ("train.py",), ("AMP402",),
        "torch.cuda.amp.GradScaler -> torch.amp.GradScaler(device_type, ...) (fork network)"),
    Fix("open-mmlab/mmengine", "4f62c98d93d1b0899218f200d74246c2b98945ad",
        ("mmengine/optim/optimizer/amp_optimizer_wrapper.py",), ("AMP402",),
        "from torch.cuda.amp import GradScaler -> partial(torch.amp.GradScaler, device='cuda')"),
    Fix("facebookresearch/detectron2", "4572b5ac21a1942067c4b0cec290fea04480f2f7", ("detectron2/engine/train_loop.py",),
        ("AMP401", "AMP402"), "torch.cuda.amp autocast/GradScaler -> torch.amp, old spelling kept as a version fallback"),
)


@dataclass
class Outcome:
    repo: str
    commit: str
    rules: list[str]
    what: str
    deprecated: bool
    files: list[str]
    before: list[str] = field(default_factory=list)  # every finding on the buggy side: "path:line CODE message"
    after: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)  # findings of the expected rules on the buggy side, gone after
    new: list[str] = field(default_factory=list)  # findings (any rule but AMP40x) on the fixed side only
    told: bool = False
    problems: list[str] = field(default_factory=list)  # files missing on a side, internal errors

    def count(self, side: str) -> int:
        return sum(1 for f in getattr(self, side) if f.split()[1] in self.rules)


def _has(git: Path, rev: str) -> bool:
    probe = subprocess.run(["git", f"--git-dir={git}", "cat-file", "-e", f"{rev}^{{commit}}"], capture_output=True)
    return probe.returncode == 0


def _lint(root: Path, files: tuple[str, ...], problems: list[str], side: str) -> list[tuple[str, int, str, str]]:
    """(code, line, message, flagged line's text) for each finding in `files` under `root`."""
    present = [root / f for f in files if (root / f).is_file()]
    problems += [f"{side}: {f} absent" for f in files if not (root / f).is_file()]
    if not present:
        return []
    result = lint_paths([str(p) for p in present], default_settings(root), Options(jobs=1, cache=False))
    problems += [f"{side}: {e}" for e in result.internal_errors + result.problems]
    found = []
    lines: dict[str, list[str]] = {}
    for f in result.findings:
        rel = Path(f.path).resolve().relative_to(root.resolve()).as_posix()
        if rel not in lines:
            lines[rel] = (root / rel).read_text(encoding="utf-8", errors="replace").splitlines()
        text = lines[rel][f.line - 1].strip() if 0 < f.line <= len(lines[rel]) else ""
        found.append((f.code, f.line, f.message, f"{rel}\0{text}"))
    return found


def run_fix(fix: Fix, git: Path, deprecated: bool) -> Outcome:
    out = Outcome(fix.repo, fix.commit, list(fix.rules), fix.what, deprecated, list(fix.files))
    with tempfile.TemporaryDirectory(prefix="ampcheck-fix-") as tmp:
        sides = {}
        for side, rev in (("before", f"{fix.commit}^"), ("after", fix.commit)):
            root = Path(tmp) / side
            root.mkdir()
            materialise(git, rev, root)
            sides[side] = _lint(root, fix.files, out.problems, side)
    for side, found in sides.items():
        setattr(out, side, [f"{key.split(chr(0))[0]}:{line} {code} {msg}" for code, line, msg, key in found])
    after_keys = Counter((code, key) for code, _, _, key in sides["after"])
    for code, line, msg, key in sides["before"]:
        if code not in fix.rules:
            continue
        if after_keys[(code, key)] > 0:
            after_keys[(code, key)] -= 1
        else:
            out.gone.append(f"{key.split(chr(0))[0]}:{line} {code}")
    out.told = bool(out.gone)
    before_keys = Counter((code, key) for code, _, _, key in sides["before"])
    for code, line, msg, key in sides["after"]:
        if before_keys[(code, key)] > 0:
            before_keys[(code, key)] -= 1
        elif not code.startswith("AMP40"):
            out.new.append(f"{key.split(chr(0))[0]}:{line} {code}")
    return out


def _table(title: str, outcomes: list[Outcome]) -> None:
    print(f"\n{title}")
    print(f"{'repository':<40} {'commit':<10} {'rule':<13} {'before':>6} {'after':>5}  {'told apart':<10}  new on fixed side")
    for o in outcomes:
        rule = "/".join(o.rules)
        print(f"{o.repo:<40} {o.commit[:10]:<10} {rule:<13} {o.count('before'):>6} {o.count('after'):>5}  "
              f"{'yes' if o.told else 'NO':<10}  {' '.join(o.new)}".rstrip())
    told = sum(o.told for o in outcomes)
    print(f"{'total':<40} {len(outcomes):<10} {'':<13} {'':>6} {'':>5}  {told}/{len(outcomes)}"
          + (f" = {told / len(outcomes):.2f}" if outcomes else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, required=True, help="folder holding the repositories' git directories")
    parser.add_argument("--repo", action="append", help="only this owner/name (repeatable)")
    parser.add_argument("--commit", action="append", help="only commits starting with this (repeatable)")
    parser.add_argument("--json", type=Path, help="write every outcome, with all findings on both sides, here")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the findings of each side")
    args = parser.parse_args()
    outcomes: list[Outcome] = []
    missing: list[str] = []
    for deprecated, fixes in ((False, FIXES), (True, DEPRECATED)):
        for fix in fixes:
            if args.repo and fix.repo not in args.repo:
                continue
            if args.commit and not any(fix.commit.startswith(c) for c in args.commit):
                continue
            git = git_dir(args.mirror, fix.repo)
            if git is None:
                missing.append(f"{fix.repo} (no snapshot)")
                continue
            if not _has(git, fix.commit) or not _has(git, f"{fix.commit}^"):
                missing.append(f"{fix.repo}@{fix.commit[:10]} (commit or parent not in the snapshot)")
                continue
            print(f"{fix.repo}@{fix.commit[:10]}", flush=True)
            o = run_fix(fix, git, deprecated)
            outcomes.append(o)
            if args.verbose:
                for side in ("before", "after"):
                    for line in getattr(o, side):
                        print(f"  {side:<6} {line}")
                for line in o.problems:
                    print(f"  problem {line}")
    _table("AMP fix commits (findings of the expected rule in the changed files):", [o for o in outcomes if not o.deprecated])
    renames = [o for o in outcomes if o.deprecated]
    if renames:
        _table("Deprecated-API renames (not counted above):", renames)
    for o in outcomes:
        if o.problems:
            print(f"\n{o.repo}@{o.commit[:10]}: " + "; ".join(o.problems))
    if missing:
        print("\nmissing: " + ", ".join(missing))
    if args.json:
        args.json.write_text(json.dumps({"outcomes": [asdict(o) for o in outcomes], "missing": missing}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
