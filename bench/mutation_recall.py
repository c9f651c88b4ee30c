"""Mutation recall: inject one GradScaler-protocol bug at a time into real training code and
count how many ampcheck reports.

For every pinned public repository (REPOS) whose snapshot is present, the script writes the
repository's Python files at the pinned commit into a scratch project (a git folder of its
own, so it is its own project root), finds the files that call a GradScaler (a receiver whose
name says "scaler" calling `scale`/`unscale_`/`step`/`update`), and, one mutation at a time:

- `drop_update`        `scaler.update()` removed
- `step_to_opt`        `scaler.step(opt)` -> `opt.step()`
- `drop_unscale`       the `scaler.unscale_(opt)` before a gradient clip removed
- `unscale_after_clip` that `unscale_` moved after the clip
- `drop_scale`         `scaler.scale(loss)` -> `loss`

Each mutant is linted the way a pre-commit hook lints it: only the mutated file is named, the
rest of the project is read for what it defines. A mutant counts as reported when an AMP1xx
finding the original file does not have lies within 3 lines of the mutation. The originals
are linted too, and every AMP1xx finding on them is listed, to be read and judged.

Snapshots are read from git directories laid out as `MIRROR/<owner>+<name>/repo` (what the
search tool's fetch writes) or `MIRROR/<owner>/<name>/.git` (a plain clone); a repository
without one is listed as missing. Nothing fetched is written outside the scratch folder.

    python bench/mutation_recall.py --mirror /work/.mirror
    python bench/mutation_recall.py --mirror /work/.mirror --repo facebookresearch/mae -v
    python bench/mutation_recall.py --mirror /work/.mirror --json recall.json
"""
from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator, Optional

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))

from ampcheck.config import default_settings  # noqa: E402
from ampcheck.lint.engine import Options, lint_paths  # noqa: E402

# owner/name -> commit. Public training code that uses torch.amp.GradScaler, chosen for the
# shapes it takes: scripts, trainer classes, loss-scaler helper classes, base classes in
# other modules, helpers imported from the project.
REPOS: dict[str, str] = {
    "Haian-Jin/LVSM": "2fea9242a941072c6263b96eb1b52f2a80503ce3",
    "MCG-NJU/VideoMAE": "14ef8d856287c94ef1f985fe30f958eb4ec2c55d",
    "Megvii-BaseDetection/YOLOX": "6ddff4824372906469a7fae2dc3206c7aa4bbaee",
    "WongKinYiu/yolov7": "a207844b1ce82d204ab36d87d496728d3d2348e7",
    "WongKinYiu/yolov9": "5b1ea9a8b3f0ffe4fe0e203ec6232d788bb3fcff",
    "apple/ml-cvnets": "77717569ab4a852614dae01f010b32b820cb33bb",
    "ashawkey/stable-dreamfusion": "5550b91862a3af7842bb04875b7f1211e5095a63",
    "ashawkey/torch-ngp": "b6e080468925f0bb44827b4f8f0ed08291dcf8a9",
    "coqui-ai/Trainer": "7704b0f3fdeac1d967a11b728e4cd125f5fa322f",
    "facebookresearch/ConvNeXt": "048efcea897d999aed302f2639b6270aedf8d4c8",
    "facebookresearch/SlowFast": "287ec0076846560f44a9327e931a5a2360240533",
    "facebookresearch/audiocraft": "896ec7c47f5e5d1e5aa1e4b260c4405328bf009d",
    "facebookresearch/detectron2": "02b5c4e295e990042a714712c21dc79b731e8833",
    "facebookresearch/dino": "7c446df5b9f45747937fb0d72314eb9f7b66930a",
    "facebookresearch/dinov2": "b8931f7bf91576930313be2c6d6af376033b35f0",
    "facebookresearch/ijepa": "52c1ae95d05f743e000e8f10a1f3a79b10cff048",
    "facebookresearch/mae": "efb2a8062c206524e35e47d04501ed4f544c0ae8",
    "facebookresearch/moco-v3": "c349e6e24f40d3fedb22d973f92defa4cedf37a7",
    "facebookresearch/pycls": "5719de641657c251f807c20a1fcf8ef6f4b60144",
    "facebookresearch/sam2": "2b90b9f5ceec907a1c18123530e92e794ad901a4",
    "hkchengrex/XMem": "f3b841d50df058910bbf690229ddc15fb1aef7d6",
    "huggingface/pytorch-image-models": "aa4b5850c1543fa488abf260f18390eda46cf85d",
    "jaywalnut310/vits": "2e561ba58618d021b5b8323d3765880f7e0ecfdb",
    "karpathy/nanoGPT": "3adf61e154c3fe3fca428ad6bc3818b27a3b8291",
    "microsoft/Swin-Transformer": "f82860bfb5225915aca09c3227159ee9e1df874d",
    "milesial/Pytorch-UNet": "21d7850f2af30a9695bbeea75f3136aa538cfc4a",
    "mindee/doctr": "8a88feaf7ff5140e5f4c5c860cb9414dda128656",
    "mlfoundations/open_clip": "89fb801f1e6087880e951fc8354b8a2077b79c6d",
    "nerfstudio-project/nerfstudio": "50e0e3c70c775e89333256213363badbf074f29d",
    "open-mmlab/mmengine": "254342938d9bde1775c39ea7d5181c5d294026c4",
    "princeton-vl/RAFT": "2888e15a51fa41140771d3f498ed8023cff098d1",
    "pytorch/examples": "77f55b912142e11fcfdf5b530231fb9c52f181e8",
    "salesforce/LAVIS": "506965b9c4a18c1e565bd32acaccabe0198433f7",
    "speechbrain/speechbrain": "9c826ef3937bac885c8a6ca86c6889a30f256fb5",
    "ultralytics/yolov5": "5081342f04fb287fc2e5f2b5a4e06752b7937b1c",
}
KINDS = ("drop_update", "step_to_opt", "drop_unscale", "unscale_after_clip", "drop_scale")
NEAR = 3  # lines


@dataclass(frozen=True)
class Mutant:
    kind: str
    path: str  # relative to the repository
    first: int  # the lines the mutation touches, 1-based, in the mutant
    last: int
    text: str


@dataclass
class Outcome:
    repo: str
    path: str
    kind: str
    line: int
    reported: bool
    findings: list[str] = field(default_factory=list)  # new AMP1xx findings anywhere in the file


# -- snapshots ------------------------------------------------------------------------------------
def git_dir(mirror: Path, repo: str) -> Optional[Path]:
    owner, name = repo.split("/")
    for candidate in (mirror / f"{owner}+{name}" / "repo", mirror / owner / name / ".git"):
        if candidate.is_dir():
            return candidate
    return None


def materialise(git: Path, commit: str, dest: Path) -> int:
    """Write the .py files of `commit` under `dest`; blobs the snapshot lacks are skipped."""
    listing = subprocess.run(
        ["git", f"--git-dir={git}", "ls-tree", "-r", "-z", commit], capture_output=True, check=True
    ).stdout.split(b"\0")
    entries = []
    for entry in listing:
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode != b"120000" and path.endswith(b".py"):
            entries.append((sha, path.decode("utf-8", "surrogateescape")))
    cat = subprocess.Popen(["git", f"--git-dir={git}", "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert cat.stdin is not None and cat.stdout is not None
    written = 0
    for sha, path in entries:
        cat.stdin.write(sha + b"\n")
        cat.stdin.flush()
        header = cat.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            continue
        data = cat.stdout.read(int(header[2]))
        cat.stdout.read(1)
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written += 1
    cat.stdin.close()
    cat.wait()
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    return written


# -- mutation sites -------------------------------------------------------------------------------
def _is_scaler(expr: ast.expr, source: str) -> bool:
    text = ast.get_source_segment(source, expr) or ""
    return "scaler" in text.lower()


def _method_call(node: ast.AST, method: str) -> Optional[ast.Call]:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method:
        return node
    return None


def _is_clip(stmt: ast.stmt) -> bool:
    for sub in ast.walk(stmt):
        if isinstance(sub, ast.Call):
            f = sub.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if "clip_grad" in name:
                return True
    return False


class _Lines:
    """Edits by ast position (columns are UTF-8 byte offsets, as ast reports them)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True)

    def _offset(self, line: int, col: int) -> int:
        before = sum(len(x) for x in self.lines[: line - 1])
        return before + len(self.lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self._offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            self._offset(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )

    def replace(self, node: ast.AST, new: str) -> str:
        text = "".join(self.lines)
        start, end = self.span(node)
        return text[:start] + new + text[end:]


def _statement_pass(node: ast.stmt) -> str:
    """`pass` plus the newlines of the statement it replaces, so no line number moves."""
    return "pass" + "\n" * (node.end_lineno - node.lineno)  # type: ignore[operator]


def _blocks(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block
        for handler in getattr(node, "handlers", []) or []:
            yield handler.body


def mutants(path: str, source: str) -> Iterator[Mutant]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    edit = _Lines(source)
    for block in _blocks(tree):
        for i, stmt in enumerate(block):
            if not isinstance(stmt, ast.Expr):
                continue
            call = stmt.value
            upd = _method_call(call, "update")
            if upd is not None and not upd.args and not upd.keywords and _is_scaler(upd.func.value, source):  # type: ignore[attr-defined]
                yield Mutant("drop_update", path, stmt.lineno, stmt.lineno, edit.replace(stmt, _statement_pass(stmt)))
            uns = _method_call(call, "unscale_")
            if uns is not None and _is_scaler(uns.func.value, source):  # type: ignore[attr-defined]
                clip = next((j for j in range(i + 1, min(len(block), i + 4)) if _is_clip(block[j])), None)
                if clip is not None:
                    yield Mutant("drop_unscale", path, stmt.lineno, stmt.lineno, edit.replace(stmt, _statement_pass(stmt)))
                    yield _moved_after(path, source, block, i, clip)
    for node in ast.walk(tree):
        st = _method_call(node, "step")
        if st is not None and len(st.args) == 1 and not st.keywords and _is_scaler(st.func.value, source):  # type: ignore[attr-defined]
            opt = ast.get_source_segment(source, st.args[0])
            if opt is not None and st.lineno == st.end_lineno and isinstance(st.args[0], (ast.Name, ast.Attribute, ast.Subscript)):
                yield Mutant("step_to_opt", path, st.lineno, st.lineno, edit.replace(st, f"{opt}.step()"))
        sc = _method_call(node, "scale")
        if sc is not None and len(sc.args) == 1 and not sc.keywords and _is_scaler(sc.func.value, source):  # type: ignore[attr-defined]
            loss = ast.get_source_segment(source, sc.args[0])
            if loss is not None and sc.lineno == sc.end_lineno:
                simple = isinstance(sc.args[0], (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
                yield Mutant("drop_scale", path, sc.lineno, sc.lineno, edit.replace(sc, loss if simple else f"({loss})"))


def _moved_after(path: str, source: str, block: list[ast.stmt], i: int, clip: int) -> Mutant:
    """The unscale_ statement at block[i] moved to just after the clip statement block[clip]."""
    lines = source.splitlines(keepends=True)
    uns, target = block[i], block[clip]
    uns_lines = lines[uns.lineno - 1 : uns.end_lineno]  # type: ignore[misc]
    indent_uns = len(uns_lines[0]) - len(uns_lines[0].lstrip())
    indent_target = len(lines[target.lineno - 1]) - len(lines[target.lineno - 1].lstrip())
    moved = [" " * indent_target + line[indent_uns:] if line.strip() else line for line in uns_lines]
    head = lines[: uns.lineno - 1]
    middle = lines[uns.end_lineno : target.end_lineno]  # type: ignore[misc]
    tail = lines[target.end_lineno :]  # type: ignore[misc]
    first = uns.lineno
    last = len(head) + len(middle) + len(moved)
    return Mutant("unscale_after_clip", path, first, last, "".join(head + middle + moved + tail))


# -- linting --------------------------------------------------------------------------------------
def amp1(root: Path, path: Path) -> list[tuple[str, int, str]]:
    result = lint_paths([str(path)], default_settings(root), Options(jobs=1))
    return [(f.code, f.line, f.message) for f in result.findings if f.code.startswith("AMP1")]


def run_repo(repo: str, git: Path, commit: str, verbose: bool) -> tuple[list[Outcome], list[str]]:
    outcomes: list[Outcome] = []
    flagged: list[str] = []
    with tempfile.TemporaryDirectory(prefix="ampcheck-mut-") as tmp:
        root = Path(tmp)
        materialise(git, commit, root)
        for file in sorted(root.rglob("*.py")):
            rel = file.relative_to(root).as_posix()
            original = file.read_text(encoding="utf-8", errors="surrogateescape")
            sites = list(mutants(rel, original))
            if not sites:
                continue
            before = amp1(root, file)
            for code, line, message in before:
                flagged.append(f"{repo} {rel}:{line}: {code} {message}")
            known = {(c, line) for c, line, _ in before}
            for m in sites:
                file.write_text(m.text, encoding="utf-8", errors="surrogateescape")
                try:
                    after = amp1(root, file)
                finally:
                    file.write_text(original, encoding="utf-8", errors="surrogateescape")
                new = [(c, line, msg) for c, line, msg in after if (c, line) not in known]
                hit = any(m.first - NEAR <= line <= m.last + NEAR for _, line, _ in new)
                outcomes.append(Outcome(repo, rel, m.kind, m.first, hit, [f"{c}:{line}" for c, line, _ in new]))
                if verbose:
                    print(f"  {'HIT ' if hit else 'MISS'} {m.kind:<19} {rel}:{m.first} {' '.join(f'{c}:{line}' for c, line, _ in new)}")
    return outcomes, flagged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, required=True, help="folder holding the repositories' git directories")
    parser.add_argument("--repo", action="append", help="only this owner/name (repeatable)")
    parser.add_argument("--json", type=Path, help="write every outcome and flagged original here")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per mutant")
    args = parser.parse_args()
    outcomes: list[Outcome] = []
    flagged: list[str] = []
    missing = []
    for repo, commit in REPOS.items():
        if args.repo and repo not in args.repo:
            continue
        git = git_dir(args.mirror, repo)
        if git is None:
            missing.append(repo)
            continue
        commit = commit or "HEAD"
        print(f"{repo}@{commit[:8]}", flush=True)
        got, bad = run_repo(repo, git, commit, args.verbose)
        outcomes += got
        flagged += bad
    total, hits = Counter(o.kind for o in outcomes), Counter(o.kind for o in outcomes if o.reported)
    print(f"\n{'mutation':<20} {'reported':>9} {'mutants':>8} {'recall':>7}")
    for kind in KINDS:
        n = total[kind]
        print(f"{kind:<20} {hits[kind]:>9} {n:>8} {hits[kind] / n if n else 0:>7.2f}")
    n = sum(total.values())
    print(f"{'all':<20} {sum(hits.values()):>9} {n:>8} {sum(hits.values()) / n if n else 0:>7.2f}")
    per_repo = defaultdict(lambda: [0, 0])
    for o in outcomes:
        per_repo[o.repo][0] += o.reported
        per_repo[o.repo][1] += 1
    print(f"\n{len(per_repo)} repositories with mutants, {len({(o.repo, o.path) for o in outcomes})} files")
    print(f"\nAMP1xx findings on the originals ({len(flagged)}):")
    for line in flagged:
        print("  " + line)
    if missing:
        print(f"\nno snapshot: {', '.join(missing)}")
    if args.json:
        args.json.write_text(json.dumps({"outcomes": [asdict(o) for o in outcomes], "flagged": flagged, "missing": missing}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
