"""A generated project for the language-server benchmark: a 1,000-line training script that
imports helpers from a package of 498 modules (500 Python files in all), as a mid-sized research repository has.

The helpers are the kinds of code a training script calls: model blocks, a backward/step
helper that drives the GradScaler, a checkpoint writer, data utilities. Every module
imports torch and one neighbour, so the project model has a real import graph to follow.
The script itself carries a few real findings (a deprecated autocast, a helper that steps
the optimizer behind the scaler's back), so every edit re-runs checks that report.

    python bench/lsp_project.py DEST       # writes DEST/pyproject.toml, DEST/train.py, DEST/lib/
"""
from __future__ import annotations

import argparse
from pathlib import Path

FILES = 500  # Python files in all: the helpers, lib/__init__.py and the script
HELPERS = FILES - 2
SCRIPT = "train.py"
PYPROJECT = "# Written by bench/lsp_project.py.\n[tool.ampcheck]\n"

_MODULE = '''\
"""Generated helper module {i}."""
import torch
from torch import nn

from lib.mod_{j:03d} import Block{j}


class Block{i}(nn.Module):
    def __init__(self, width: int = {width}) -> None:
        super().__init__()
        self.inner = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)
        self.next = Block{j}(width) if width > {width} else None

    def forward(self, x):
        y = self.norm(self.inner(x))
        return torch.relu(y) + x


def backward_and_step_{i}(loss, optimizer, scaler):
    scaler.scale(loss).backward()
    {step}
    scaler.update()
    optimizer.zero_grad(set_to_none=True)


def save_{i}(model, optimizer, scaler, path):
    torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(), "scaler": scaler.state_dict()}}, path)


def batches_{i}(n: int, width: int = {width}):
    for _ in range(n):
        yield torch.randn(8, width), torch.randn(8, width)


def smooth_{i}(values, alpha: float = 0.{k}):
    out = []
    last = None
    for v in values:
        last = v if last is None else alpha * v + (1 - alpha) * last
        out.append(last)
    return out
'''

_BLOCK = '''\

class Stage{n}(nn.Module):
    """Stage {n} of the generated network."""

    def __init__(self, width: int = WIDTH) -> None:
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.block = Block{m}(width)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        h = self.block(self.proj(x))
        return self.dropout(h)


def evaluate_stage_{n}(model, loader, device="cuda"):
    model.eval()
    total = 0.0
    count = 0
    with torch.no_grad():
        for inputs, targets in loader:
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                outputs = model(inputs.to(device))
                loss = F.mse_loss(outputs, targets.to(device))
            total += loss.item()
            count += 1
    return total / max(count, 1)


def train_stage_{n}(model, loader, optimizer, scaler, epochs: int = 1):
    model.train()
    for epoch in range(epochs):
        for step, (inputs, targets) in enumerate(loader):
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                outputs = model(inputs.cuda())
                loss = F.mse_loss(outputs, targets.cuda())
            backward_and_step_{m}(loss, optimizer, scaler)
            if step % LOG_EVERY == 0:
                print(f"stage {n} epoch {{epoch}} step {{step}} loss {{loss.item():.4f}}")
    return smooth_{m}([1.0, 0.5, 0.25])

'''

_HEAD = '''\
"""Generated training script for the language-server benchmark."""
import argparse
import math

import torch
import torch.nn.functional as F
from torch import nn

{imports}

WIDTH = 64
LOG_EVERY = 10
LEARNING_RATE = 1e-3
'''

_TAIL = '''

def build_model(stages: int = {stages}):
    return nn.Sequential(*[STAGES[i % len(STAGES)]() for i in range(stages)]).cuda()


STAGES = [{stage_list}]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    model = build_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE)
    scaler = torch.amp.GradScaler("cuda")
    loader = list(batches_{first}(4))
    for epoch in range(args.epochs):
        for inputs, targets in loader:
            optimizer.zero_grad()
            with torch.cuda.amp.autocast():
                loss = F.mse_loss(model(inputs.cuda()), targets.cuda())
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        save_{first}(model, optimizer, scaler, f"checkpoint_{{epoch}}.pt")
    print(math.sqrt(evaluate_stage_0(model, loader)))


if __name__ == "__main__":
    main()
'''


def module_text(i: int) -> str:
    # one helper in seven steps the optimizer itself after scaling: AMP101 in its callers
    step = "optimizer.step()" if i % 7 == 3 else "scaler.step(optimizer)"
    return _MODULE.format(i=i, j=(i + 1) % HELPERS, width=32 + i % 5 * 16, step=step, k=i % 9 + 1)


def script_text(lines: int = 1000) -> str:
    """The training script, grown stage by stage to about `lines` lines."""
    used: list[int] = []
    blocks: list[str] = []
    n = 0
    while True:
        m = (n * 37 + 3) % HELPERS
        block = _BLOCK.format(n=n, m=m)
        tail_lines = _TAIL.count("\n") + 8
        if sum(b.count("\n") for b in blocks) + len(set(used)) + 20 + tail_lines >= lines:
            break
        blocks.append(block)
        used.append(m)
        n += 1
    imports = "\n".join(
        f"from lib.mod_{m:03d} import Block{m}, backward_and_step_{m}, batches_{m}, save_{m}, smooth_{m}"
        for m in sorted(set(used))
    )
    stage_list = ", ".join(f"Stage{i}" for i in range(n))
    tail = _TAIL.format(stages=n, stage_list=stage_list, first=used[0])
    return _HEAD.format(imports=imports) + "".join(blocks) + tail


def make_project(dest: Path, lines: int = 1000) -> Path:
    """Write the project into `dest`; returns the training script's path."""
    lib = dest / "lib"
    lib.mkdir(parents=True, exist_ok=True)
    (dest / "pyproject.toml").write_text(PYPROJECT)
    (lib / "__init__.py").write_text("")
    for i in range(HELPERS):
        (lib / f"mod_{i:03d}.py").write_text(module_text(i))
    script = dest / SCRIPT
    script.write_text(script_text(lines))
    return script


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--lines", type=int, default=1000)
    args = parser.parse_args()
    script = make_project(args.dest, args.lines)
    print(f"{script}: {script.read_text().count(chr(10))} lines; {FILES} Python files in {args.dest}")


if __name__ == "__main__":
    main()
