"""`ampcheck report FILE --format html`: one self-contained page, escaped, rendered by Chromium."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

import ampcheck
from ampcheck.cli import cli
from ampcheck.trace.html import render_html
from tests.paths import FIXTURES

sys.path.insert(0, str(FIXTURES / "models"))
from fp16_scaler_loop import train  # noqa: E402

CHROMIUM = shutil.which("chromium")


@pytest.fixture(scope="module")
def saved_report(tmp_path_factory):
    """A trace with findings, a skipped step, numerics and the fp32 comparison, saved as
    `ampcheck trace` saves it."""
    with ampcheck.trace(numerics=True, compare_fp32=True) as t:
        train(steps=8, overflow_at=3, clip="before_unscale", scheduler=True)
    path = tmp_path_factory.mktemp("trace") / "trace.json"
    return t.report.save(path)


@pytest.fixture(scope="module")
def page(saved_report, tmp_path_factory):
    result = CliRunner().invoke(cli, ["report", str(saved_report), "--format", "html"])
    assert result.exit_code == 0, result.output
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(result.output, encoding="utf-8")
    return path


def test_the_page_is_self_contained(page):
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)\s*=|https?://(?!pytorch\.org)|@import|url\(""", text)
    assert text.count("<style>") == 1 and text.count("<script>") == 1 and "<svg" in text


def test_the_page_holds_every_section(page):
    text = page.read_text(encoding="utf-8")
    for section in ("coverage", "findings", "tensor-cores", "compare-fp32", "scaler", "modules", "ops", "casts",
                    "numerics"):
        assert f'<section id="{section}">' in text
    assert "AMP504" in text and "AMP507" in text and "AMP508" in text
    # findings come with their source lines
    assert "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)</pre>" in text


def test_an_empty_report_renders_every_section_with_a_note():
    from ampcheck.trace.report import TraceReport

    text = render_html(TraceReport())
    assert "No matmul-class ops were traced." in text and "No findings." in text
    assert "No enabled GradScaler was used." in text and "Not recorded" in text
    assert "No float16/bfloat16 matmul-class ops were traced." in text
    assert "Not recorded (trace with <code>compare_fp32=True</code>" in text


def test_user_strings_are_escaped(saved_report):
    from ampcheck.trace.report import TraceReport

    report = TraceReport.load(saved_report)
    report.ops[0].module = "<img onerror=alert(1)>"
    report.meta["script"] = ["</title><script>alert(1)</script>"]
    report.sections["compare_fp32"]["modules"][0]["module"] = "<b>compared</b>"
    next(r for r in report.ops if r.misaligned_calls).misaligned_shapes = "<i>shapes</i>"
    text = render_html(report)
    assert "<img onerror" not in text and "<script>alert(1)" not in text
    assert "&lt;img onerror=alert(1)&gt;" in text
    assert "<b>compared</b>" not in text and "&lt;b&gt;compared&lt;/b&gt;" in text
    assert "<i>shapes</i>" not in text and "&lt;i&gt;shapes&lt;/i&gt;" in text


def test_the_page_names_the_policy_the_alignment_share_and_ranks_modules_against_fp32(saved_report):
    from ampcheck.trace.report import TraceReport

    report = TraceReport.load(saved_report)
    text = render_html(report)
    assert '<p id="policy" class="muted">Autocast policy (torch 2.13 tables): cpu by AutocastCPU.</p>' in text
    share = report.tensor_core_alignment()["share"]
    assert f'<p id="misaligned-share"><b class="warn">{share:.1%}</b>' in text
    assert "<code>16x64 @ 64x10: N=10</code>" in text  # the classifier head of 10 classes
    table = text.split('<section id="compare-fp32">')[1].split("</section>")[0]
    first = table.split("<tbody>")[1].split("</tr>")[0]
    assert '<td class="n" data-v="1">1</td>' in first  # rank 1
    assert table.count("<tr") == len([m for m in report.sections["compare_fp32"]["modules"] if m["calls"]]) + 1


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package (.ci/run installs it)")
def test_chromium_renders_it_without_console_errors_and_shows_the_key_figures(page, tmp_path):
    flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--enable-logging=stderr", "--v=0", "--window-size=1280,2400"]
    screenshot = tmp_path / "report.png"
    shot = subprocess.run([*flags, f"--screenshot={screenshot}", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    console = [line for line in (shot.stderr + dom.stderr).splitlines() if ":CONSOLE" in line]
    assert console == []
    assert screenshot.stat().st_size > 10_000
    html = dom.stdout
    assert 'data-sortable-tables="8"' in html  # the inline script ran over every table
    assert re.search(r'id="coverage-forward"><div class="v good">100\.0%', html)
    assert re.search(r'id="skipped-GradScaler#1">Skipped <b>1</b> of 8 steps', html)
    assert html.count('class="skip"') == 1  # the skipped step marked on the timeline
    assert "First inf/nan: step 3" in html


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package (.ci/run installs it)")
def test_clicking_a_header_sorts_the_table_both_ways(page, tmp_path):
    click = ("<script>var t=document.querySelector('#ops table'),th=t.tHead.rows[0].cells[10];"
             "th.click();var up=t.tBodies[0].rows[0].cells[10].getAttribute('data-v');"
             "th.click();var down=t.tBodies[0].rows[0].cells[10].getAttribute('data-v');"
             "document.title='sorted '+up+' '+down+' '+th.className;</script></body>")
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", click), encoding="utf-8")
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                          "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120).stdout
    ops = dom.split('<section id="ops">')[1].split("</section>")[0]
    rows = re.findall(r"<tr>(.*?)</tr>", ops.split("<tbody>")[1])
    counts = sorted(int(re.findall(r"<td[^>]*>", row)[10].split('data-v="')[1].split('"')[0]) for row in rows)
    title = re.search(r"<title>sorted (\d+) (\d+) (.*?)</title>", dom)
    assert title, dom[:500]
    assert (int(title[1]), int(title[2]), title[3]) == (counts[0], counts[-1], "sortable desc")
