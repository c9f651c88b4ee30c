"""Fuzz the linter in-process: generated training-code-like programs (tests/lint/programs.py:
every autocast/GradScaler spelling in classes, nested and async functions, comprehensions,
walrus, match, decorators, try/finally) and token-level mutations of every fixture, each
analysed with every rule and then fixed (`--fix --unsafe-fixes`) round by round with the
fix verifier. A crash is an exception, an internal error, fixes that never converge, or a
fix whose result does not parse or compile; the run stops at the first one and prints the
program. A round the verifier refuses because a rewritten use may mean two bindings is the
verifier doing its job: those are counted per rule (the engine, too, then leaves the file
as it was), and one from an AMP40x fix is a crash, since those check bindings themselves.

    python bench/fuzz_lint.py --programs 8000 --mutations 4000
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ampcheck.lint import fix as fixer  # noqa: E402
from ampcheck.lint.checks import all_codes  # noqa: E402
from ampcheck.lint.engine import analyse  # noqa: E402
from tests.lint.programs import mutate, program, statements
from tests.lint.programs import refused as _refused  # noqa: E402

CODES = frozenset(all_codes())


class Tally:
    def __init__(self) -> None:
        self.programs = self.analysed = self.findings = self.fixed = 0
        self.refused: dict[str, int] = {}  # rule codes of a refused round -> rounds


def lint_and_fix(text: str, tally: Tally) -> None:
    """Analyse `text`, then apply every fix round by round, verifying each round."""
    for _ in range(10):
        result = analyse(text, "fuzz.py", CODES)
        if result.internal_errors:
            raise AssertionError(f"internal error {result.internal_errors} in:\n{text}")
        tally.analysed += result.analysed
        tally.findings += len(result.findings)
        fixes = [f.fix for f in result.findings if f.fix is not None]
        if not fixes:
            return
        new, applied = fixer.apply_fixes(text, fixes)
        if not applied:
            return
        try:
            fixer.verify(new, "fuzz.py", text, applied)
        except fixer.FixError as err:
            codes = ",".join(sorted({f.code for f in result.findings if f.fix in _refused(text, applied)}))
            if "different bindings" not in str(err) or "AMP40" in codes:
                raise AssertionError(f"fix refused ({err}) in:\n{text}") from None
            tally.refused[codes] = tally.refused.get(codes, 0) + 1
            return
        tally.fixed += len(applied)
        text = new
    raise AssertionError(f"fixes did not converge in:\n{text}")


def generated(n: int, tally: Tally) -> None:
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(statements)
    def run(stmts: list) -> None:
        tally.programs += 1
        lint_and_fix(program(stmts), tally)

    run()


def mutated(n: int, seed: int, tally: Tally) -> None:
    sources = [p.read_text(encoding="utf-8", errors="replace") for p in sorted((ROOT / "fixtures").rglob("*.py"))]
    rng = random.Random(seed)
    for _ in range(n):
        tally.programs += 1
        lint_and_fix(mutate(rng.choice(sources), rng, edits=rng.randint(1, 4)), tally)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=8000, help="generated programs")
    parser.add_argument("--mutations", type=int, default=4000, help="mutated fixtures")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for name, run in (("generated", lambda t: generated(args.programs, t)), ("mutated", lambda t: mutated(args.mutations, args.seed, t))):
        tally, start = Tally(), time.perf_counter()
        run(tally)
        print(
            f"{name}: {tally.programs} programs, 0 crashes; {tally.analysed} analyses through libcst, "
            f"{tally.findings} findings, {tally.fixed} fixes applied and verified, "
            f"rounds refused for an ambiguous use: {tally.refused or 0} ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
