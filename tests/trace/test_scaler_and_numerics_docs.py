"""The AMP504-AMP508 docs as a test suite: each Example, run under the tracer with numerics,
raises its code; each Use instead raises no finding at all."""
from __future__ import annotations

import pytest

import ampcheck
from ampcheck.catalog import load

CODES = ["AMP504", "AMP505", "AMP506", "AMP507", "AMP508"]


def findings_of(program: str, code: str) -> list[str]:
    with ampcheck.trace(numerics=True) as t:
        exec(compile(program, f"<{code} doc>", "exec"), {"__name__": "__main__"})
    return [f.code for f in t.report.findings()]


@pytest.mark.parametrize("code", CODES)
def test_the_example_raises_its_code(code):
    doc = load()[code]
    assert doc.source == "trace"
    assert code in findings_of(doc.bad, code)


@pytest.mark.parametrize("code", CODES)
def test_the_use_instead_raises_nothing(code):
    assert findings_of(load()[code].good, code) == []
