"""The trace rules' docs are a test suite too: each Example, run under the tracer, raises its
code; each Use instead raises no finding at all. Parametrised over every `source: trace` doc,
each traced with the options its section declares (`@producer(..., options=...)`); a code
that needs several ranks (`@producer(..., ranks=2)`) has its doc run as a script under
torchrun, over gloo, its ranks' traces merged."""
from __future__ import annotations

import pytest

import ampcheck
from ampcheck import catalog
from ampcheck.trace import report, sections
from distributed_runs import torchrun

CODES = sorted(code for code, doc in catalog.load().items() if doc.source == "trace")
LOCAL = [code for code in CODES if sections.producer_of(code).ranks == 1]
DISTRIBUTED = [code for code in CODES if sections.producer_of(code).ranks > 1]


def run_traced(code: str, which: str):
    doc = catalog.load()[code]
    with ampcheck.trace(**sections.producer_of(code).options) as t:
        exec(compile(getattr(doc, which), f"{code}.md", "exec"), {"__name__": "__main__"})
    return t.report.findings()


def run_on_ranks(code: str, which: str, tmp_path):
    script = tmp_path / f"{code}_{which}.py"
    script.write_text(getattr(catalog.load()[code], which), encoding="utf-8")
    result = torchrun("-m", "ampcheck", "trace", "--out", str(tmp_path / "traces"), str(script))
    assert result.returncode == 0, result.stdout + result.stderr
    return report.load([str(tmp_path / "traces")]).findings()


def test_every_trace_doc_has_a_section_that_emits_its_code_and_every_code_a_doc():
    assert sorted(sections.codes()) == CODES


@pytest.mark.parametrize("code", LOCAL)
def test_example_raises_its_code(code):
    assert code in {f.code for f in run_traced(code, "bad")}


@pytest.mark.parametrize("code", LOCAL)
def test_use_instead_raises_nothing(code):
    assert run_traced(code, "good") == []


@pytest.mark.slow
@pytest.mark.parametrize("code", DISTRIBUTED)
def test_example_raises_its_code_on_two_ranks(code, tmp_path):
    assert code in {f.code for f in run_on_ranks(code, "bad", tmp_path)}


@pytest.mark.slow
@pytest.mark.parametrize("code", DISTRIBUTED)
def test_use_instead_raises_nothing_on_two_ranks(code, tmp_path):
    assert run_on_ranks(code, "good", tmp_path) == []
