"""Linting arbitrary Python never crashes, and fixing it never breaks it: generated
training-code-like programs (every autocast/GradScaler spelling in classes, nested and async
functions, comprehensions, walrus, match, decorators, try/finally), token-level mutations of
the fixtures, and random text go through the engine with every rule selected; fixes are
applied round by round through the verifier. bench/fuzz_lint.py runs the same at scale."""
from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ampcheck.lint import fix as fixer
from ampcheck.lint.checks import all_codes
from ampcheck.lint.engine import analyse
from tests.lint.programs import mutate, program, statements
from tests.lint.programs import refused as _refused
from tests.paths import FIXTURES

CODES = frozenset(all_codes())
FIXTURE_SOURCES = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(FIXTURES.rglob("*.py"))]


def lint_and_fix(text: str) -> None:
    for _ in range(10):
        result = analyse(text, "generated.py", CODES)
        assert result.internal_errors == []
        fixes = [f.fix for f in result.findings if f.fix is not None]
        new, applied = fixer.apply_fixes(text, fixes)
        if not applied:
            return
        try:
            fixer.verify(new, "generated.py", text, applied)
        except fixer.FixError as err:  # only the ambiguity net may refuse, never for an AMP40x fix
            codes = {f.code for f in result.findings if f.fix in _refused(text, applied)}
            assert "different bindings" in str(err) and not any(c.startswith("AMP40") for c in codes), err
            return
        text = new
    raise AssertionError("fixes did not converge")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(statements)
def test_linting_and_fixing_generated_training_code_never_crashes(stmts):
    lint_and_fix(program(stmts))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_linting_and_fixing_mutated_fixtures_never_crashes(seed):
    rng = random.Random(seed)
    lint_and_fix(mutate(rng.choice(FIXTURE_SOURCES), rng, edits=rng.randint(1, 3)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("scaler.step(opt)\n :=#'\"\\[]{}ifor\tbackward_")), max_size=200))
def test_linting_random_text_never_crashes(text):
    lint_and_fix("import torch\n" + text)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_linting_arbitrary_unicode_never_crashes(text):
    lint_and_fix(text)
