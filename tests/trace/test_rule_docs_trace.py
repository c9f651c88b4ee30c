"""The trace rules' docs are a test suite too: each Example, run under the tracer, raises its
code; each Use instead raises no finding at all. Parametrised over every `source: trace` doc,
each traced with the options its section declares (`@producer(..., options=...)`)."""
from __future__ import annotations

import pytest

import ampcheck
from ampcheck import catalog
from ampcheck.trace import sections

CODES = sorted(code for code, doc in catalog.load().items() if doc.source == "trace")


def run_traced(code: str, which: str):
    doc = catalog.load()[code]
    with ampcheck.trace(**sections.options_for(code)) as t:
        exec(compile(getattr(doc, which), f"{code}.md", "exec"), {"__name__": "__main__"})
    return t.report.findings()


def test_every_trace_doc_has_a_section_that_emits_its_code_and_every_code_a_doc():
    assert sorted(sections.codes()) == CODES


@pytest.mark.parametrize("code", CODES)
def test_example_raises_its_code(code):
    assert code in {f.code for f in run_traced(code, "bad")}


@pytest.mark.parametrize("code", CODES)
def test_use_instead_raises_nothing(code):
    assert run_traced(code, "good") == []
