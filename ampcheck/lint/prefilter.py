"""The cheap text test that lets the engine skip libcst for files with nothing AMP in them.

Why these needles can never drop a true positive: every lint rule fires only on code that
names an AMP API or a low-precision dtype, and a name reaches the program model only
through text in the file (an import, an attribute chain, an alias assignment, a call).
Per family:

- AMP1xx (scaler protocol): a scaler is known from its constructor (GradScaler,
  ShardedGradScaler, `grad_scaler`), from a name that says "scaler" in any case, or is
  inferred from use (`x.scale(loss).backward()`, `x.unscale_(opt)`): "scaler", ".scale(",
  "unscale_". A bare "scale" (attention scales, `self.scale`) does not let a file through.
- AMP2xx (precision): fp16/bf16 autocast or scaler ("autocast", "scaler"), `.half()` /
  `torch.half` / "half" strings (the word "half"), `HalfTensor`, `torch.float16` /
  `torch.bfloat16` / "float16" strings ("float16"), FSDP1 ("FullyShardedDataParallel") -
  AMP205 needs fp16 params, so "half"/"float16" too.
- AMP3xx (autocast regions): a region needs "autocast" (or a `custom_fwd` in torch.amp,
  "amp"); AMP304's `torch.autograd.Function` is checked only in files using autocast.
- AMP4xx (deprecated): `torch.cuda.amp` / `torch.cpu.amp` / `apex.amp` all contain "amp".
- AMP002 (unused suppression): a directive names an "AMPnnn" code or "ampcheck".

A plain `.backward()` or `torch.autograd.Function` fires no rule on its own (AMP105 needs a
scaler, AMP301/AMP304 autocast), so neither word lets a file through: in library code they
are everywhere, and each file let through costs a full libcst parse. A new rule that keys
on another name adds its needle here.
AMP001 (syntax error) is not a name-based rule: the engine checks syntax with CPython's
parser for every file, filtered or not. The test suite runs every rule doc's Example and
every fixture through this filter to hold it to this promise.
"""
from __future__ import annotations

import re

# `amp` is matched as a whole word: an AMP module is always named as a dotted-name component
# (`torch.cuda.amp`, `from torch import amp`, `apex.amp`), so words such as "example" or
# "clamp" need not let a file through.
NEEDLES = (
    r"\bamp\b",
    r"AMP\d",
    "ampcheck",
    "autocast",
    "(?i:scaler)",
    r"\.scale\s*\(",
    "unscale_",
    r"\bhalf\b",
    "HalfTensor",
    "float16",
    "fp16",
    "bf16",
    "FullyShardedDataParallel",
)

_PATTERN = re.compile("|".join(NEEDLES))


def may_have_findings(text: str) -> bool:
    """False only when no lint rule can fire on `text`."""
    return _PATTERN.search(text) is not None
