"""The cheap text test that lets the engine skip libcst for files with nothing AMP in them.

Why these needles can never drop a true positive: every lint rule fires only on code that
names an AMP API or a low-precision dtype, and a name reaches the program model only
through text in the file (an import, an attribute chain, an alias assignment, a call).
Per family:

- AMP1xx (scaler protocol): a scaler is known from its constructor (GradScaler,
  ShardedGradScaler, `grad_scaler`), from a name that says "scaler" in any case, or is
  inferred from use (`x.scale(loss).backward()`, `x.unscale_(opt)`): "scaler", ".scale(",
  "unscale_". A bare "scale" (attention scales, `self.scale`) does not let a file through.
- AMP2xx (precision): fp16/bf16 autocast or scaler ("autocast", "scaler"), FSDP1
  ("FullyShardedDataParallel"), a sharding policy's reduce_dtype (AMP207: torch's
  `MixedPrecisionPolicy` / `MixedPrecision`, imported by that name: "MixedPrecision"). The two that need neither, AMP204/AMP205, are about fp16
  parameters (`.half()`, `torch.half`, `HalfTensor`, `float16`, "fp16"/"bf16" strings) that
  an optimizer constructed in the file updates; an optimizer binding comes only from a
  `torch.optim` constructor ("optim") or a known optimizer name (`SGD`, `Adam*`, `Lion`...).
  So a dtype word lets a file through only together with an optimizer word: library code
  names float16 everywhere, and each file let through costs a full libcst parse.
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

# Needles are literal text so that the regular-expression engine can scan for them by their
# first characters: a pattern that starts with `\b` or is case-insensitive is tried at every
# position (on icefall's 21 MB, `\bamp\b`, `\bhalf\b` and `(?i:scaler)` took 0.6 s of the
# filter's 0.76 s). Whole words (`amp`, `half`) are matched as text and their left edge is
# checked by hand; "scaler" in any case is looked for in the case-folded text.
#
# `amp` is matched as a whole word: an AMP module is always named as a dotted-name component
# (`torch.cuda.amp`, `from torch import amp`, `apex.amp`), so words such as "example" or
# "clamp" need not let a file through.
WORDS = ("amp",)
NEEDLES = (
    r"AMP\d",
    "ampcheck",
    "autocast",
    r"\.scale\s*\(",
    "unscale_",
    "FullyShardedDataParallel",
    "MixedPrecision",
)
# in any case: `scaler`, `Scaler`, `SCALER`
ANY_CASE = ("scaler",)
# Low-precision parameters matter only to a file that also builds an optimizer (AMP204/205).
DTYPE_WORDS = ("half",)
DTYPE_NEEDLES = ("HalfTensor", "float16", "fp16", "bf16")
# Every spelling bindings.py classifies as an optimizer constructor: `torch.optim.*` and the
# third-party names (a test holds this list to bindings' own).
OPTIMIZER_NEEDLES = (
    "optim", "SGD", "Adam", "AdaBelief", "Adafactor", "Adagrad", "Adadelta", "LBFGS", "Lamb",
    "LAMB", "Lion", "Muon", "RMSprop", "Rprop", "Ranger", "Shampoo", "Sophia",
)

_PATTERN = re.compile("|".join(NEEDLES))
_WORDS = tuple(re.compile(rf"{w}(?!\w)") for w in WORDS)
_DTYPE = re.compile("|".join(DTYPE_NEEDLES))
_DTYPE_WORDS = tuple(re.compile(rf"{w}(?!\w)") for w in DTYPE_WORDS)
_OPTIMIZER = re.compile("|".join(OPTIMIZER_NEEDLES))


def may_have_findings(text: str) -> bool:
    """False only when no lint rule can fire on `text`."""
    if _PATTERN.search(text) is not None or any(_word(text, w) for w in _WORDS):
        return True
    if any(n in text.casefold() for n in ANY_CASE):
        return True
    dtype = _DTYPE.search(text) is not None or any(_word(text, w) for w in _DTYPE_WORDS)
    return dtype and _OPTIMIZER.search(text) is not None


def _word(text: str, pattern: re.Pattern[str]) -> bool:
    """Whether `pattern` (a word, with no word character after it) occurs with no word
    character before it either: `\bword\b`."""
    for m in pattern.finditer(text):
        i = m.start()
        if i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"):
            return True
    return False
