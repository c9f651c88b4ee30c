"""The HTML report's FSDP2/DDP policy table and float8 share, rendered by headless Chromium."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

import ampcheck
from ampcheck.trace.html import render_html
from ampcheck.trace.report import TraceReport
from distributed_runs import traced
from model_fixtures import build_step

CHROMIUM = shutil.which("chromium")


@pytest.fixture(scope="module")
def float8_report() -> TraceReport:
    pytest.importorskip("torchao.float8", reason="needs the float8 extra (.ci/run installs it)")
    step = build_step("float8_mlp")
    with ampcheck.trace() as t:
        step()
    return t.report


def fsdp_report() -> TraceReport:
    return TraceReport.load(traced("fsdp2_reduce_dtype.py", "--reduce-dtype", "bfloat16") / "trace.rank0.json")


def rendered(page: str, tmp_path) -> tuple[str, list[str], int]:
    """The DOM Chromium built, its console lines, and the size of its screenshot."""
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--enable-logging=stderr", "--v=0", "--window-size=1280,2400"]
    shot = subprocess.run([*flags, f"--screenshot={tmp_path / 'report.png'}", path.as_uri()],
                          capture_output=True, text=True, timeout=120)
    dom = subprocess.run([*flags, "--dump-dom", path.as_uri()], capture_output=True, text=True, timeout=120)
    console = [line for line in (shot.stderr + dom.stderr).splitlines() if ":CONSOLE" in line]
    return dom.stdout, console, (tmp_path / "report.png").stat().st_size


def test_the_float8_section_shows_the_share_the_kernels_and_the_linears_left_out(float8_report):
    text = render_html(float8_report)
    share = float8_report.coverage()["forward"]["float8_share"]
    assert f'id="float8-forward"><div class="v">{share:.1%}</div>' in text
    assert "<td>float8_e5m2</td><td>float8_e4m3fn</td><td>bfloat16</td><td>tensorwise</td>" in text
    assert '<h3 id="float8-left-out">Linears left out of float8: 1 of 3' in text
    assert "<td><code>head</code></td><td>Linear</td>" in text


def test_reports_without_float8_or_sharding_say_so():
    text = render_html(TraceReport())
    assert "No float8 matmuls were traced." in text
    assert "No FSDP2 (fully_shard) or DDP module was traced." in text


@pytest.mark.slow
def test_the_fsdp_policy_table_shows_configured_and_observed_dtypes():
    text = render_html(fsdp_report())
    table = text.split('<h3 id="fsdp-policies">')[1].split("</table>")[0]
    assert table.count('<b class="bad">AMP511</b>') == 3
    assert ("<tr><td><code>encoder.0</code> <b class=\"bad\">AMP511</b></td><td>FSDPLinear</td><td>bfloat16</td>"
            "<td>bfloat16</td><td>-</td><td>yes</td><td>bfloat16</td><td class=\"bad\">bfloat16</td></tr>") in table


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package (.ci/run installs it)")
def test_chromium_renders_the_policy_table_and_the_float8_share(float8_report, tmp_path):
    (tmp_path / "fsdp").mkdir()
    (tmp_path / "float8").mkdir()
    dom, console, screenshot = rendered(render_html(fsdp_report()), tmp_path / "fsdp")
    assert console == [] and screenshot > 10_000
    assert dom.count('<b class="bad">AMP511</b>') == 3
    dom, console, screenshot = rendered(render_html(float8_report), tmp_path / "float8")
    assert console == [] and screenshot > 10_000
    assert re.search(r'id="float8-forward"><div class="v">\d+\.\d%</div>', dom)
    assert 'id="float8-left-out"' in dom
