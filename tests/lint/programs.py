"""Training-code-like programs for fuzzing the linter: every autocast and GradScaler spelling,
nested in loops, branches, functions, async functions, classes, try/finally, with and match
blocks, with comprehensions, walrus targets and decorators; and token-level mutations of
real files. The suite's property tests draw a few hundred; bench/fuzz_lint.py draws tens of
thousands from the same strategies."""
from __future__ import annotations

import io
import random
import tokenize

from hypothesis import strategies as st

PLAIN = st.sampled_from(
    ["scaler", "opt", "optimizer", "model", "loss", "x", "sc", "p", "ctx", "helper", "step", "y", "autocast", "GradScaler", "amp", "torch"]
)
ANY = st.one_of(PLAIN, st.sampled_from(["self.scaler", "self.opt", "self.model", "self.loss_scaler", "trainer.scaler"]))

# Every spelling of the AMP entry points, old and new.
AUTOCASTS = [
    "torch.autocast('cuda', dtype=torch.float16)",
    "torch.amp.autocast('cuda', enabled={c})",
    "torch.cuda.amp.autocast()",
    "torch.cuda.amp.autocast({c}, torch.bfloat16)",
    "torch.cpu.amp.autocast(dtype=torch.bfloat16)",
    "autocast()",
    "ac(enabled={c})",
    "amp.autocast()",
    "cuda_amp.autocast(enabled=False)",
    "functools.partial(torch.cuda.amp.autocast, enabled={c})()",
    "torch.autocast(device_type='cuda:0')",
]
SCALERS = [
    "torch.amp.GradScaler('cuda', enabled={c})",
    "torch.cuda.amp.GradScaler()",
    "torch.cuda.amp.GradScaler(2.0**16, growth_interval=100)",
    "torch.cpu.amp.GradScaler()",
    "GradScaler(enabled={c} == 'float16')",
    "amp.GradScaler()",
    "ShardedGradScaler()",
]
IMPORTS = [
    "import torch",
    "import torch.distributed",
    "import torch.cuda.amp as amp",
    "from torch.cuda import amp as cuda_amp",
    "from torch.cuda.amp import autocast, GradScaler",
    "from torch.cuda.amp import autocast as ac",
    "from torch.cpu.amp import autocast",
    "from torch.amp import GradScaler",
    "from torch.cuda.amp import custom_fwd, custom_bwd",
    "import functools",
    "from apex import amp",
]
SIMPLE = [
    "{a} = " + s for s in SCALERS
] + [
    "{a} = " + s for s in AUTOCASTS
] + [
    "{a} = torch.optim.AdamW({b}.parameters(), lr=1e-3, eps=1e-10)",
    "{a} = torch.optim.LBFGS({b}.parameters())",
    "{a} = torch.nn.Linear(4, 4).cuda().half()",
    "{a} = {b}",
    "{a} = torch.cuda.amp.autocast",
    "{a}: GradScaler = {b}",
    "{a} = {b}.scale({c})",
    "{a}, {b} = accelerator.prepare({a}, {b})",
    "{a}.scale({b}).backward()",
    "{a}.backward()",
    "{a}.unscale_({b})",
    "{a}.step({b})",
    "{a}.step({b}, closure={c})",
    "{a}.update()",
    "{a}.zero_grad(set_to_none=True)",
    "torch.nn.utils.clip_grad_norm_({a}.parameters(), 1.0)",
    "total = sum(q.grad.norm() for q in {a}.parameters())",
    "scales = [{a}.get_scale() for {b} in range(3) if ({c} := {b})]",
    "torch.save({{'model': {a}.state_dict(), 'optimizer': {b}.state_dict()}}, 'ckpt.pt')",
    "F.binary_cross_entropy({a}, {b})",
    "{a} = {b}.half()",
    "{a}({b}, {c})",
    "await {a}.step()",
    "return {a}",
    "continue",
    "break",
    "pass",
    "global {a}",
    "del {a}",
    "{a} += 1",
    "lambda: {a}.step({b})",
    "yield {a}",
] + IMPORTS
OPENERS = [
    "for {a} in range(3):",
    "async for {a} in {b}:",
    "while {a} < 10:",
    "if {a}:",
    "if ({a} := {b}):",
    "with torch.autocast('cuda', enabled={a}):",
    "with torch.cuda.amp.autocast({a}):",
    "with autocast():",
    "with {a} as {b}:",
    "async with {a}:",
    "def {p}({q}, {r}=None):",
    "async def {p}({q}):",
    "@torch.cuda.amp.custom_fwd\ndef forward(ctx, {q}):",
    "@custom_bwd\ndef backward(ctx, {q}):",
    "@torch.cuda.amp.autocast()\ndef {p}({q}):",
    "@functools.lru_cache\ndef {p}():",
    "class {P}(torch.nn.Module):",
    "class {P}(torch.autograd.Function):",
    "class {P}(torch.cuda.amp.GradScaler):",
    "try:",
    "match {a}:\n{pad}    case {b}:",
]


def _fmt(template: str, a: str, b: str, c: str, p: str, q: str, r: str, pad: str = "") -> str:
    return template.format(a=a, b=b, c=c, p=p, q=q, r=r, pad=pad, P=p.title().replace("_", "") or "C")


simple = st.builds(_fmt, st.sampled_from(SIMPLE), ANY, ANY, ANY, PLAIN, PLAIN, PLAIN)


def _compound(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.tuples(
        st.tuples(st.sampled_from(OPENERS), ANY, ANY, ANY, PLAIN, PLAIN, PLAIN),
        st.lists(children, min_size=1, max_size=4),
        st.one_of(st.none(), st.lists(children, min_size=1, max_size=3)),
    )


statements = st.lists(st.recursive(simple, _compound, max_leaves=25), min_size=1, max_size=8)


def render(stmts: list, indent: int = 0) -> list[str]:
    pad = "    " * indent
    out: list[str] = []
    for s in stmts:
        if isinstance(s, str):
            out.extend(pad + line for line in s.split("\n"))
            continue
        (template, a, b, c, p, q, r), body, orelse = s
        opener = _fmt(template, a, b, c, p, q, r, pad)
        inner = indent + (2 if template.startswith("match") else 1)
        out.extend(pad + line if i == 0 else line for i, line in enumerate(opener.split("\n")))
        out += render(body, inner)
        if template == "try:":
            out.append(pad + "except ImportError:")
            out += render(orelse or ["pass"], indent + 1)
            out.append(pad + "finally:")
            out += render(["pass"], indent + 1)
        elif orelse is not None and template.startswith(("if ", "for ", "while ")):
            out.append(pad + "else:")
            out += render(orelse, indent + 1)
    return out


PRELUDE = "import torch\nimport functools\nfrom torch.amp import GradScaler\nfrom accelerate import Accelerator\n"


def program(stmts: list) -> str:
    return PRELUDE + "\n".join(render(stmts)) + "\n"


def mutate(source: str, rng: random.Random, edits: int = 3) -> str:
    """`source` with a few tokens deleted, duplicated or swapped: almost-Python, as an editor
    holds it mid-keystroke."""
    try:
        tokens = [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        tokens = source.split(" ")
    for _ in range(edits):
        if not tokens:
            break
        i = rng.randrange(len(tokens))
        kind = rng.randrange(3)
        if kind == 0:
            del tokens[i]
        elif kind == 1:
            tokens.insert(i, tokens[rng.randrange(len(tokens))])
        else:
            j = rng.randrange(len(tokens))
            tokens[i], tokens[j] = tokens[j], tokens[i]
    out, prev = [], ""
    for tok in tokens:
        joiner = "" if not prev or prev.endswith(("\n", " ", "(", ".")) or tok in (")", ",", ":", ".", "(", "\n") else " "
        out.append(joiner + tok)
        prev = tok
    return "".join(out)


def refused(text: str, applied: list) -> list:
    """The fixes of a refused round that the verifier refuses on their own: the culprits."""
    from ampcheck.lint import fix as fixer

    out = []
    for one in applied:
        try:
            fixer.verify(fixer.apply_fixes(text, [one])[0], "generated.py", text, [one])
        except fixer.FixError:
            out.append(one)
    return out
