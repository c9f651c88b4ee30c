"""Compiled code traced compiled: the traced run is the untraced one (same graphs, same bits),
and the report says what the compiled program computed (inductor's CPU backend, tiny models)."""
from __future__ import annotations

import re
import shutil
import subprocess
import warnings

import pytest
import torch
import torch._dynamo.testing
from torch import nn

import ampcheck
from ampcheck.trace.report import TraceReport


def build() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))


def step(model: nn.Module) -> list[torch.Tensor]:
    x = torch.randn(4, 16, generator=torch.Generator().manual_seed(1))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = model(x)
    y.float().sum().backward()
    return [y.detach(), *(p.grad.clone() for p in model.parameters())]


@pytest.fixture(scope="module")
def runs():
    """One untraced compiled run, one compiled under the trace, and that model traced again."""
    torch._dynamo.reset()
    untraced_counter = torch._dynamo.testing.CompileCounterWithBackend("inductor")
    untraced = step(torch.compile(build(), backend=untraced_counter))
    torch._dynamo.reset()
    counter = torch._dynamo.testing.CompileCounterWithBackend("inductor")
    model = torch.compile(build(), backend=counter)
    with ampcheck.trace() as t:
        traced = step(model)
    frames_in_trace = counter.frame_count
    with ampcheck.trace() as again:
        step(model)
    return {"untraced": untraced, "untraced_frames": untraced_counter.frame_count, "traced": traced,
            "frames_in_trace": frames_in_trace, "frames_after": counter.frame_count, "report": t.report,
            "precompiled": again.report}


def test_the_traced_compiled_run_is_the_untraced_one_bit_for_bit_with_no_extra_graph(runs):
    assert runs["frames_in_trace"] == runs["untraced_frames"] == 1
    assert all(torch.equal(a, b) for a, b in zip(runs["untraced"], runs["traced"]))
    assert runs["frames_after"] == 1  # run again under another trace: nothing recompiles


def test_kernels_compiled_code_ran_are_recorded_compiled_in_their_real_dtype_and_region(runs):
    report = runs["report"]
    compiled = [r for r in report.ops if r.compiled]
    assert {(r.name, r.phase, r.out_dtype) for r in compiled if r.flops} == {
        ("addmm", "forward", "bfloat16"), ("mm", "backward", "bfloat16")}
    assert {r.module for r in compiled} == {"Sequential"}
    assert not any(r.compiled for r in report.ops if r.name == "sum")  # the loss ran eagerly


def test_the_graphs_as_compiled_give_every_ops_dtype_forward_and_backward(runs):
    section = runs["report"].sections["compiled"]
    assert section["frames_compiled"] == 1 and section["graph_breaks"] == []
    assert {g["phase"] for g in section["graphs"]} == {"forward", "backward"}
    forward = next(g for g in section["graphs"] if g["phase"] == "forward")
    matmuls = [op for op in forward["ops"] if op["flops"]]
    assert matmuls and all(op["out_dtype"] == "bfloat16" for op in matmuls)
    relu = [op for op in forward["ops"] if "relu" in op["op"]]
    assert relu and relu[0]["out_dtype"] == "bfloat16"  # fused into a kernel: seen only as compiled
    assert section["regions"] == [{"module": "Sequential", "class": "Sequential", "compiled_unseen": False}]


def test_a_model_compiled_before_the_trace_is_traced_compiled_and_said_unseen(runs):
    report = runs["precompiled"]
    assert any(r.compiled and r.name == "addmm" for r in report.ops)
    assert report.sections["compiled"]["regions"][0]["compiled_unseen"] is True
    assert "compiled before the trace (unseen)" in report.to_text()


def test_the_text_report_says_compiled_or_eager_per_record(runs):
    text = runs["report"].to_text()
    assert "compiled code (run compiled; 1 graph(s) compiled by Dynamo during the trace, 0 graph break(s))" in text
    assert "as compiled, backward:" in text
    assert any(line.split()[:5] == ["mm", "backward", "bfloat16", "off", "compiled"] for line in text.splitlines())


def test_the_report_round_trips_and_an_older_file_reads_as_eager(runs, tmp_path):
    report = runs["report"]
    loaded = TraceReport.load(report.save(tmp_path / "t.json"))
    assert loaded == report
    data = report.to_json()
    data["schema_version"] = 3
    for op in data["ops"]:
        del op["compiled"]
    assert not any(r.compiled for r in TraceReport.from_json(data).ops)


def test_graph_breaks_are_counted_with_where_and_why():
    torch._dynamo.reset()

    def f(x):
        y = torch.relu(x)
        torch._dynamo.graph_break()
        return y * 2

    compiled = torch.compile(f, backend="eager")
    with ampcheck.trace() as t:
        compiled(torch.randn(8))
    breaks = t.report.sections["compiled"]["graph_breaks"]
    assert len(breaks) == 1 and breaks[0]["where"].endswith(f"test_compiled.py:{f.__code__.co_firstlineno + 2}")


def test_with_compiled_false_compiled_code_runs_eagerly_and_the_trace_warns():
    torch._dynamo.reset()
    counter = torch._dynamo.testing.CompileCounterWithBackend("inductor")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ampcheck.trace(compiled=False) as t:
            step(torch.compile(build(), backend=counter))
    assert counter.frame_count == 0
    assert any("runs eagerly while traced" in str(w.message) for w in caught)
    assert not any(r.compiled for r in t.report.ops) and "compiled" not in t.report.sections
    assert "compiled code, if any: ran eagerly" in t.report.to_text()


def test_the_html_report_shows_compiled_or_eager_and_the_graphs_as_compiled(runs):
    from ampcheck.trace.html import render_html

    text = render_html(runs["report"])
    section = text.split('<section id="compiled">')[1].split("</section>")[0]
    assert "Compiled code ran <b>compiled</b>" in section and 'id="compiled-forward"' in section
    assert "<code>aten.mm.default</code>" in section or "<code>aten.addmm.default</code>" in section
    ops = text.split('<section id="ops">')[1].split("</section>")[0]
    assert "<th>code</th>" in ops and "<td>compiled</td>" in ops and "<td>eager</td>" in ops
    unseen = render_html(runs["precompiled"]).split('<section id="compiled">')[1]
    assert "compiled before the trace (unseen)" in unseen


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium package (.ci/run installs it)")
def test_chromium_shows_the_compiled_section(runs, tmp_path):
    from ampcheck.trace.html import render_html

    page = tmp_path / "compiled.html"
    page.write_text(render_html(runs["report"]), encoding="utf-8")
    flags = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--enable-logging=stderr", "--v=0", "--window-size=1280,2400"]
    shot = subprocess.run([*flags, f"--screenshot={tmp_path / 'compiled.png'}", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert [line for line in (shot.stderr + dom.stderr).splitlines() if ":CONSOLE" in line] == []
    assert (tmp_path / "compiled.png").stat().st_size > 10_000
    assert re.search(r'id="compiled-forward"><div class="v">100\.0%', dom.stdout)
