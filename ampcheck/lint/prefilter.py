"""The cheap text test that lets the engine skip libcst for files with nothing AMP in them.

Why these needles can never drop a true positive: every lint rule fires only on code that
names an AMP API or a low-precision dtype, and a name reaches the program model only
through text in the file (an import, an attribute chain, an alias assignment, a call).
Per family:

- AMP1xx (scaler protocol): a GradScaler/ShardedGradScaler, or a `scaler.scale(...)` /
  `unscale_` / `.step` / `.update` on one; every one contains "scale" (GradScaler, scaler.scale).
- AMP2xx (precision): fp16/bf16 autocast or scaler ("autocast", "scale"), `.half()` /
  `torch.half` ("half"), `torch.float16` / `torch.bfloat16` / "float16" strings ("float16"),
  FSDP1 ("FullyShardedDataParallel") - AMP205 needs fp16 params, so "half"/"float16" too.
- AMP3xx (autocast regions): a region needs "autocast" (or a `custom_fwd` in torch.amp,
  "amp"); AMP304's `torch.autograd.Function` is checked only in files using autocast.
- AMP4xx (deprecated): `torch.cuda.amp` / `torch.cpu.amp` / `apex.amp` all contain "amp".
- AMP002 (unused suppression): a directive names an "AMPnnn" code or "ampcheck".

"backward" and "Function" are kept as well so a future rule about a plain `.backward()` or
an autograd Function is not silently starved; they only make the filter let more through.
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
    "[Ss]cale",
    "[Hh]alf",
    "float16",
    "fp16",
    "bf16",
    "FullyShardedDataParallel",
    "backward",
    "Function",
)

_PATTERN = re.compile("|".join(NEEDLES))


def may_have_findings(text: str) -> bool:
    """False only when no lint rule can fire on `text`."""
    return _PATTERN.search(text) is not None
