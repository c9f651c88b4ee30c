"""Linting arbitrary Python never crashes: programs composed from AMP-shaped statements and
random identifiers (nested in loops, branches, functions, classes, with and try blocks),
and random text, go through the engine with every rule selected and come back without an
exception or an internal error."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ampcheck.lint.checks import all_codes
from ampcheck.lint.engine import analyse

CODES = frozenset(all_codes())
PLAIN = st.sampled_from(["scaler", "opt", "optimizer", "model", "loss", "x", "sc", "p", "ctx", "helper", "step", "y"])
ANY = st.one_of(PLAIN, st.sampled_from(["self.scaler", "self.opt", "self.model", "self.loss_scaler", "trainer.scaler"]))

SIMPLE = [
    "{a} = torch.amp.GradScaler('cuda', enabled={c})",
    "{a} = torch.cuda.amp.GradScaler()",
    "{a} = GradScaler(enabled={c} == 'float16')",
    "{a} = torch.optim.AdamW({b}.parameters(), lr=1e-3)",
    "{a} = torch.optim.LBFGS({b}.parameters())",
    "{a} = torch.nn.Linear(4, 4).cuda().half()",
    "{a} = {b}",
    "{a} = {b}.scale({c})",
    "{a}, {b} = accelerator.prepare({a}, {b})",
    "{a}.scale({b}).backward()",
    "{a}.scale({b} / 4).backward(retain_graph=True)",
    "{a}.backward()",
    "{a}.backward({b})",
    "{a}.unscale_({b})",
    "{a}.step({b})",
    "{a}.step({b}, closure={c})",
    "{a}.step()",
    "{a}.update()",
    "{a}.zero_grad(set_to_none=True)",
    "torch.nn.utils.clip_grad_norm_({a}.parameters(), 1.0)",
    "total = sum(q.grad.norm() for q in {a}.parameters())",
    "{a}.grad = None",
    "torch.save({{'model': {a}.state_dict(), 'optimizer': {b}.state_dict()}}, 'ckpt.pt')",
    "torch.save({a}, 'ckpt.pt')",
    "{a}({b}, {c})",
    "{a}.{b}({c})",
    "imported_helper({a}, {b})",
    "torch.autograd.grad({a}, {b})",
    "return {a}",
    "continue",
    "break",
    "pass",
    "del {a}",
    "{a} += 1",
    "lambda: {a}.step({b})",
]
OPENERS = [
    "for {a} in range(3):",
    "for {a}, {b} in enumerate({c}):",
    "while {a} < 10:",
    "if {a}:",
    "if ({a} + 1) % 4 == 0:",
    "if not torch.isfinite({a}):",
    "with torch.autocast('cuda', enabled={a}):",
    "with {a}:",
    "def {p}({q}, {r}):",
    "def __call__(self, {q}, {r}):",
    "class {P}(torch.nn.Module):",
    "try:",
]


def _fmt(template: str, a: str, b: str, c: str, p: str, q: str, r: str) -> str:
    return template.format(a=a, b=b, c=c, p=p, q=q, r=r, P=p.title().replace("_", "") or "C")


simple = st.builds(_fmt, st.sampled_from(SIMPLE), ANY, ANY, ANY, PLAIN, PLAIN, PLAIN)


def _compound(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.builds(
        lambda opener, body, orelse: (opener, body, orelse),
        st.builds(_fmt, st.sampled_from(OPENERS), ANY, ANY, ANY, PLAIN, PLAIN, PLAIN),
        st.lists(children, min_size=1, max_size=4),
        st.one_of(st.none(), st.lists(children, min_size=1, max_size=3)),
    )


statement = st.recursive(simple, _compound, max_leaves=25)


def _render(stmts: list, indent: int = 0) -> list[str]:
    pad = "    " * indent
    out: list[str] = []
    for s in stmts:
        if isinstance(s, str):
            out.append(pad + s)
            continue
        opener, body, orelse = s
        if opener.startswith(("def ", "class ")) and indent and "self" in opener and not opener.startswith("def __call__"):
            opener = opener.replace("self", "me")
        out.append(pad + opener)
        out += _render(body, indent + 1)
        if opener == "try:":
            out.append(pad + "except Exception:")
            out += _render(orelse or ["pass"], indent + 1)
        elif orelse is not None and opener.startswith(("if ", "for ", "while ")):
            out.append(pad + "else:")
            out += _render(orelse, indent + 1)
    return out


PRELUDE = "import torch\nfrom torch.amp import GradScaler\nfrom accelerate import Accelerator\nfrom engine import imported_helper\n"


def _lint(text: str) -> None:
    result = analyse(text, "generated.py", CODES)
    assert result.internal_errors == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(statement, min_size=1, max_size=8))
def test_linting_generated_training_code_never_crashes(stmts):
    _lint(PRELUDE + "\n".join(_render(stmts)) + "\n")


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("scaler.step(opt)\n :=#'\"\\[]{}ifor\tbackward_")), max_size=200))
def test_linting_random_text_never_crashes(text):
    _lint("import torch\n" + text)


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=300))
def test_linting_arbitrary_unicode_never_crashes(text):
    _lint(text)
