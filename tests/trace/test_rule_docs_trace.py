"""The trace rules' docs are a test suite too: each Example, run under the tracer, raises its
code; each Use instead raises no finding at all. Parametrised over the `source: trace` docs
whose code a default trace produces (AMP501-AMP503, AMP509), and AMP510 with the fp32
comparison on."""
from __future__ import annotations

import pytest

import ampcheck
from ampcheck import catalog
from tests.paths import ROOT

OPTIONS = {"AMP501": {}, "AMP502": {}, "AMP503": {}, "AMP509": {}, "AMP510": {"compare_fp32": True}}
CODES = list(OPTIONS)


def run_traced(code: str, which: str):
    doc = catalog.parse((ROOT / "rules" / f"{code}.md").read_text(encoding="utf-8"), code)
    assert doc.source == "trace"
    with ampcheck.trace(**OPTIONS[code]) as t:
        exec(compile(getattr(doc, which), f"{code}.md", "exec"), {"__name__": "__main__"})
    return t.report.findings()


@pytest.mark.parametrize("code", CODES)
def test_example_raises_its_code(code):
    assert code in {f.code for f in run_traced(code, "bad")}


@pytest.mark.parametrize("code", CODES)
def test_use_instead_raises_nothing(code):
    assert run_traced(code, "good") == []
