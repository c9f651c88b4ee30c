"""AMP401-AMP405: every spelling of the deprecated AMP APIs is reported; shims are not."""
from __future__ import annotations

from typing import Optional

import pytest

from ampcheck.targets import MinorVersion, Targets
from tests.paths import FIXTURES
from tests.lint.helpers import codes, expected, lint_file, lint_source

DEPRECATED = FIXTURES / "deprecated"


def amp4(name: str) -> list[tuple[str, int]]:
    return codes(lint_file(DEPRECATED / name, select="AMP4"))


def test_dotted_autocast_and_scaler_are_reported():
    assert amp4("train_dotted.py") == [("AMP402", 24), ("AMP401", 31)]


def test_imported_names_and_aliases_are_reported_at_their_calls():
    assert amp4("train_from_import.py") == [("AMP402", 21), ("AMP401", 28)]


def test_module_alias_is_followed():
    assert amp4("train_module_alias.py") == [("AMP402", 9), ("AMP401", 17)]


def test_custom_fwd_and_bwd_are_reported_bare_and_called():
    assert amp4("custom_function.py") == [
        ("AMP403", 8),
        ("AMP403", 14),
        ("AMP403", 24),
        ("AMP403", 32),
    ]


def test_stored_context_partial_and_decorator_are_reported():
    assert amp4("stored_context.py") == [("AMP401", 11), ("AMP401", 12), ("AMP401", 20)]


def test_cpu_amp_autocast_and_scaler_are_amp404():
    assert amp4("train_cpu.py") == [("AMP404", 7), ("AMP404", 12)]


def test_apex_amp_calls_are_reported_in_every_import_spelling():
    assert amp4("train_apex.py") == [
        ("AMP405", 9),
        ("AMP405", 16),
        ("AMP405", 18),
        ("AMP405", 21),
    ]


def test_apex_findings_offer_no_fix():
    assert all(f.fix is None for f in lint_file(DEPRECATED / "train_apex.py", select="AMP405"))


def test_scaler_subclass_is_reported_without_fix():
    (finding,) = lint_file(DEPRECATED / "scaler_subclass.py", select="AMP4")
    assert (finding.code, finding.line, finding.fix) == ("AMP402", 5, None)


@pytest.mark.parametrize(
    "name",
    ["shim_hasattr.py", "shim_try_import.py", "shim_version.py", "clean_modern.py", "timm_optional_apex.py"],
)
def test_shims_and_modern_code_raise_nothing(name):
    assert codes(lint_file(DEPRECATED / name)) == []


def test_message_names_old_and_new_spelling():
    (finding,) = lint_source("import torch\nscaler = torch.cuda.amp.GradScaler()\n", select="AMP4")
    assert finding.message == (
        '`torch.cuda.amp.GradScaler(...)` is deprecated; use `torch.amp.GradScaler("cuda", ...)`'
    )
    assert (finding.line, finding.col, finding.end_line, finding.end_col) == (2, 10, 2, 37)


def test_submodule_paths_are_the_same_deprecated_apis():
    source = (
        "from torch.cuda.amp.autocast_mode import autocast\n"
        "from torch.cpu.amp.grad_scaler import GradScaler\n"
        "ctx = autocast()\n"
        "scaler = GradScaler()\n"
    )
    assert codes(lint_source(source, select="AMP4")) == [("AMP401", 3), ("AMP404", 4)]


def test_rebound_name_is_not_assumed_deprecated():
    source = (
        "from torch.cuda.amp import autocast\n"
        "def run(autocast):\n"
        "    with autocast():\n"
        "        pass\n"
    )
    assert codes(lint_source(source, select="AMP4")) == [("AMP401", 1)]  # the unused import only


def test_except_handler_for_other_errors_is_not_a_shim():
    source = (
        "import torch\n"
        "try:\n"
        "    run()\n"
        "except RuntimeError:\n"
        "    scaler = torch.cuda.amp.GradScaler()\n"
    )
    assert codes(lint_source(source, select="AMP4")) == [("AMP402", 5)]


def test_unrelated_hasattr_guard_does_not_hide_a_finding():
    source = (
        "import torch\n"
        "if hasattr(model, 'module'):\n"
        "    ctx = torch.cuda.amp.autocast()\n"
    )
    assert codes(lint_source(source, select="AMP4")) == [("AMP401", 3)]


def test_api_stored_in_a_variable_is_followed_to_its_call():
    source = "import torch\nac = torch.cuda.amp.autocast\nwith ac(enabled=True):\n    pass\n"
    assert codes(lint_source(source, select="AMP4")) == [("AMP401", 3)]


def test_referring_to_the_old_api_without_calling_it_is_not_reported():
    source = (
        "import torch\n"
        "AUTOCASTS = (torch.cuda.amp.autocast, torch.cpu.amp.autocast)\n"
        "is_scaler = isinstance(obj, torch.cuda.amp.GradScaler)\n"
    )
    assert lint_source(source, select="AMP4") == []


def test_a_torch_flag_without_a_version_is_not_a_guard():
    source = "import torch\nif USE_TORCH_COMPILE:\n    ctx = torch.cuda.amp.autocast()\n"
    assert codes(lint_source(source, select="AMP4")) == [("AMP401", 3)]


@pytest.mark.parametrize(
    "test",
    ["_TORCH_GE_2_4", "not torch_2_4_plus", "is_torch_greater_or_equal('2.4')", "TORCH_VERSION >= (2, 4)"],
)
def test_version_flags_guard_a_fallback(test):
    source = (
        f"import torch\nif {test}:\n    ctx = torch.amp.autocast('cuda')\n"
        "else:\n    ctx = torch.cuda.amp.autocast()\n"
    )
    assert lint_source(source, select="AMP4") == []


def test_other_is_torch_helpers_are_not_guards():
    source = "import torch\nif is_torch_compiling():\n    ctx = torch.cuda.amp.autocast()\n"
    assert codes(lint_source(source, select="AMP4")) == [("AMP401", 3)]


# -- a use that may mean two bindings is reported but never rewritten ---------------------------
@pytest.mark.parametrize("name", ["optional_amp_branch.py", "optional_amp_try_import.py"])
def test_a_use_that_may_mean_a_users_fallback_is_reported_without_a_fix(name):
    findings = lint_file(DEPRECATED / name, select="AMP4")
    assert codes(findings) == expected(DEPRECATED / name, select="AMP4")
    assert [f.fix for f in findings] == [None] * len(findings)


def test_a_name_imported_twice_the_same_way_is_still_one_binding():
    source = "import torch\nimport torch.distributed\nctx = torch.cuda.amp.autocast()\n"
    [finding] = lint_source(source, select="AMP4")
    assert finding.fix is not None and finding.fix.applicability == "safe"


def test_a_use_of_a_name_declared_global_somewhere_is_not_rewritten():
    # found by test_never_crashes: `amp` bound twice at module level, and declared global
    source = (
        "import torch\n"
        "class Helper:\n"
        "    ctx = amp.autocast()\n"
        "try:\n"
        "    amp: object = None\n"
        "except ImportError:\n"
        "    pass\n"
        "import torch.cuda.amp as amp\n"
        "global amp\n"
    )
    [finding] = lint_source(source, select="AMP4")
    assert finding.fix is None


def test_a_module_torch_hidden_by_a_parameter_is_not_used_to_spell_the_fix():
    source = (
        "import torch\n"
        "def run(torch, enabled):\n"
        "    from torch.cuda.amp import autocast\n"
        "    registry = [autocast]\n"
        "    return autocast(enabled=enabled)\n"
    )
    [finding] = lint_source(source, select="AMP4")
    assert finding.fix is None


# -- imports no call site reports ---------------------------------------------------------------
def test_an_import_that_only_annotates_is_reported_with_a_safe_fix():
    [finding] = lint_file(DEPRECATED / "scaler_annotation_only.py", select="AMP4")
    assert codes([finding]) == expected(DEPRECATED / "scaler_annotation_only.py", select="AMP4")
    assert finding.message == "`torch.cuda.amp.GradScaler` is deprecated; import `torch.amp.GradScaler` instead"
    assert finding.fix is not None and finding.fix.applicability == "safe"


def test_re_exported_imports_are_reported_with_an_unsafe_fix():
    findings = lint_file(DEPRECATED / "amp_reexports.py", select="AMP4")
    assert sorted(codes(findings)) == expected(DEPRECATED / "amp_reexports.py", select="AMP4")
    assert {f.fix.applicability for f in findings if f.fix} == {"unsafe"} and all(f.fix for f in findings)


def test_an_import_whose_calls_are_reported_is_not_reported_again():
    assert amp4("train_from_import.py") == [("AMP402", 21), ("AMP401", 28)]


def test_an_import_in_a_package_init_is_a_possible_re_export():
    source = "from torch.cuda.amp import GradScaler\ndef f(s: GradScaler): ...\n"
    [finding] = lint_source(source, select="AMP4", path="pkg/__init__.py")
    assert finding.fix is not None and finding.fix.applicability == "unsafe"


# -- the oldest torch the project supports --------------------------------------------------------
AMP_APIS = FIXTURES / "compat" / "amp_apis.py"


def on_torch(floor: Optional[tuple[int, int]]) -> list[tuple[str, int]]:
    targets = Targets(torch=MinorVersion(*floor) if floor else None)
    return codes(lint_file(AMP_APIS, select="AMP4", targets=targets))


EVERY_SPELLING = [("AMP403", 10), ("AMP403", 16), ("AMP402", 24), ("AMP401", 27), ("AMP404", 35)]


def test_without_a_declared_torch_every_deprecated_spelling_is_reported():
    assert on_torch(None) == EVERY_SPELLING


def test_spellings_whose_replacement_the_oldest_torch_lacks_are_not_reported():
    # torch.amp.GradScaler came in 2.3, torch.amp.custom_fwd/custom_bwd in 2.4
    assert on_torch((2, 2)) == [("AMP401", 27), ("AMP404", 35)]
    assert on_torch((2, 3)) == [("AMP402", 24), ("AMP401", 27), ("AMP404", 35)]
    assert on_torch((2, 4)) == EVERY_SPELLING


def test_autocast_is_reported_for_any_torch_with_the_torch_amp_namespace():
    assert on_torch((2, 0)) == [("AMP401", 27), ("AMP404", 35)]
    assert on_torch((1, 12)) == [("AMP401", 27), ("AMP404", 35)]
    assert on_torch((1, 11)) == []  # torch.amp.autocast came in 1.12


def test_the_cpu_scaler_is_reported_whatever_the_oldest_torch():
    # torch.cpu.amp.GradScaler came with torch.amp.GradScaler (2.3): a torch without the new
    # spelling lacks the old one too, so the rewrite breaks nothing that worked
    source = "import torch\nscaler = torch.cpu.amp.GradScaler()\n"
    for floor in ((2, 2), (2, 3), None):
        targets = Targets(torch=MinorVersion(*floor) if floor else None)
        assert codes(lint_source(source, select="AMP4", targets=targets)) == [("AMP404", 2)]


def test_an_import_is_not_moved_to_torch_amp_when_one_of_its_names_is_missing_there():
    # on 2.2 the autocast calls are spelled through `torch`, and the import stays
    source = (
        "import torch\n"
        "from torch.cuda.amp import GradScaler, autocast\n"
        "scaler = GradScaler()\n"
        "with autocast():\n"
        "    pass\n"
    )
    [finding] = lint_source(source, select="AMP4", targets=Targets(torch=MinorVersion(2, 2)))
    assert (finding.code, finding.line) == ("AMP401", 4)
    assert [e.content for e in finding.fix.edits] == ["torch.amp.autocast", '"cuda"']


def test_an_annotation_only_import_the_oldest_torch_cannot_move_is_not_reported():
    path = DEPRECATED / "scaler_annotation_only.py"
    assert lint_file(path, select="AMP4", targets=Targets(torch=MinorVersion(2, 2))) == []
    assert codes(lint_file(path, select="AMP4", targets=Targets(torch=MinorVersion(2, 3)))) == expected(path, "AMP4")
