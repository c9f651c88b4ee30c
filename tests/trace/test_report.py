"""The TraceReport file: exact JSON round trip, clear errors, derived views, text summary."""
from __future__ import annotations

import json
import sys

import pytest

import ampcheck
from ampcheck.trace.report import SCHEMA_VERSION, OpRecord, TraceReport, WeightCasts
from model_fixtures import build_step


@pytest.fixture(scope="module")
def report() -> TraceReport:
    step = build_step("transformer", checkpoint=True)
    with ampcheck.trace() as t:
        step()
        step()
    t.report.sections["extra"] = {"nested": [1, 2.5, None, "x"], "flag": True}
    return t.report


def test_json_round_trips_exactly(report, tmp_path):
    path = report.save(tmp_path / "trace.json")
    loaded = TraceReport.load(path)
    assert loaded == report
    assert loaded.to_json() == report.to_json()
    assert json.loads(path.read_text()) == json.loads(report.dumps())


def test_the_file_carries_its_schema_version_and_run_facts(report, tmp_path):
    data = json.loads(report.save(tmp_path / "t.json").read_text())
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["meta"]["steps"] == 2 and data["meta"]["torch_version"]
    assert data["summary"]["coverage"]["forward"]["share"] == 1.0


def test_a_report_of_another_schema_version_is_refused_in_one_line(report, tmp_path):
    data = report.to_json()
    data["schema_version"] = SCHEMA_VERSION + 1
    path = tmp_path / "future.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="schema_version"):
        TraceReport.load(path)


def test_a_report_of_schema_version_1_loads_with_the_fields_added_since_at_their_defaults(report, tmp_path):
    data = report.to_json()
    data["schema_version"] = 1
    for op in data["ops"]:
        for added in ("misaligned_flops", "misaligned_calls", "misaligned_shapes"):
            del op[added]
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(data))
    loaded = TraceReport.load(path)
    assert loaded.schema_version == SCHEMA_VERSION and loaded.total_ops == report.total_ops
    assert all(r.tensor_core_aligned is None for r in loaded.ops)
    assert loaded.tensor_core_alignment()["flops"] == 0


@pytest.mark.parametrize("content, message", [("{not json", "invalid JSON"), ('{"a": 1}', "not an ampcheck trace report")])
def test_a_file_that_is_not_a_report_is_refused_in_one_line(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        TraceReport.load(path)


def _op(**fields):
    base = dict(op="aten.mm.default", phase="forward", module="enc", in_dtypes=("bfloat16", "bfloat16"),
                out_dtype="bfloat16", autocast="bfloat16", device="cpu", cast=None, policy="lower_precision",
                count=1, flops=0)
    return OpRecord(**{**base, **fields})


def test_coverage_is_the_low_precision_share_of_matmul_flops_per_phase():
    report = TraceReport(ops=[
        _op(flops=300),
        _op(flops=100, out_dtype="float32", in_dtypes=("float32", "float32"), autocast=None, module="dec"),
        _op(phase="backward", flops=800),
        _op(op="aten.relu.default", flops=0, policy="none"),
    ])
    cov = report.coverage()
    assert cov["forward"]["share"] == 0.75
    assert cov["forward"]["inside_autocast"] == {"flops": 300, "low_precision_flops": 300, "share": 1.0,
                                                 "float8_flops": 0, "float8_share": 0.0}
    assert cov["forward"]["outside_autocast"] == {"flops": 100, "low_precision_flops": 0, "share": 0.0,
                                                  "float8_flops": 0, "float8_share": 0.0}
    assert cov["backward"]["share"] == 1.0


def test_float8_matmuls_are_low_precision_and_their_own_class():
    report = TraceReport(ops=[
        _op(op="aten._scaled_mm.default", flops=600, in_dtypes=("float8_e4m3fn", "float8_e4m3fn", "float32", "float32")),
        _op(flops=200),
        _op(flops=200, out_dtype="float32", in_dtypes=("float32", "float32")),
    ])
    forward = report.coverage()["forward"]
    assert (forward["share"], forward["float8_flops"], forward["float8_share"]) == (0.8, 600, 0.6)


def test_module_coverage_rolls_up_to_enclosing_modules():
    report = TraceReport(ops=[
        _op(module="layers.0.attn", flops=100),
        _op(module="layers.0.mlp", flops=100, out_dtype="float32"),
    ])
    modules = report.module_coverage()
    assert modules["layers.0"]["forward"]["share"] == 0.5
    assert modules["layers.0.attn"]["forward"]["share"] == 1.0


def test_repeated_weight_casts_are_casts_beyond_one_per_region():
    report = TraceReport(weights=[WeightCasts("base.weight", "float32", "bfloat16", "autocast", casts=6, regions=2)])
    assert report.cast_totals()["repeated_weight_casts"] == 4


def test_text_summary_leads_with_coverage_and_names_modules(report):
    text = report.to_text()
    assert text.splitlines()[0].startswith("ampcheck trace:")
    assert "forward" in text and "recompute" in text and "100.0%" in text
    assert "layers" in text and "casts:" in text


def test_the_report_module_does_not_import_torch():
    import subprocess

    code = ("import sys, ampcheck.trace.report, ampcheck.trace.html, ampcheck.trace.text, "
            "ampcheck.trace.sections, ampcheck.commands.report; ampcheck.trace.sections.load_all(); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_module_rows_name_the_class_of_each_module(report):
    text = report.to_text()
    assert report.module_classes["layers.0.attn.qkv"] == "Linear"
    assert "  layers (ModuleList)" in text
    assert report.module_label("Encoder") == "Encoder"  # a root is named by its class already
    assert report.module_label("layers.0.attn") == "layers.0.attn (Attention)"


def test_findings_name_the_class_of_their_module():
    step = build_step("outside_autocast")
    with ampcheck.trace() as t:
        step()
    messages = [f.message for f in t.report.findings(select=["AMP501"])]
    assert any("module `decoder (Linear)`" in m for m in messages)


def test_text_tables_fit_their_longest_cell(report):
    """The CPU attention backward's op name is the longest; the phase column still starts
    after it, two spaces on, in every row."""
    lines = report.to_text(top=1000).splitlines()
    start = lines.index(next(line for line in lines if line.startswith("top "))) + 1
    rows = lines[start:lines.index("", start)]
    phase_at = rows[0].index("phase")
    long = next(row for row in rows if "_scaled_dot_product_flash_attention_for_cpu_backward" in row)
    assert long[phase_at - 2:phase_at] == "  " and long[phase_at:].startswith("backward")
    assert all(row[phase_at - 1] == " " and row[phase_at] != " " for row in rows)


def test_a_report_of_schema_version_2_loads_and_names_modules_without_classes(report, tmp_path):
    data = report.to_json()
    data["schema_version"] = 2
    del data["module_classes"]
    path = tmp_path / "v2.json"
    path.write_text(json.dumps(data))
    loaded = TraceReport.load(path)
    assert loaded.module_classes == {} and loaded.module_label("layers.0.attn") == "layers.0.attn"
    assert loaded.to_text().count("(ModuleList)") == 0
