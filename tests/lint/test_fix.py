"""Autofix for AMP401-AMP404: the exact rewritten text, idempotence, formatting kept, working
imports, byte-faithful files, and refusal of results that do not parse."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ampcheck.findings import Edit, Fix
from ampcheck.lint.fix import FixError, apply_fixes, verify
from ampcheck.lint.source import SourceError, decode_source, read_source, write_source
from tests.paths import FIXTURES
from tests.lint.helpers import lint_source

DEPRECATED = FIXTURES / "deprecated"


def fix_once(text: str, unsafe: bool = True) -> tuple[str, int]:
    fixes = [
        f.fix for f in lint_source(text, select="AMP4")
        if f.fix is not None and (unsafe or f.fix.applicability == "safe")
    ]
    new, applied = apply_fixes(text, fixes)
    return new, len(applied)


def fix_all(text: str, unsafe: bool = True) -> str:
    """What `ampcheck lint --fix --unsafe-fixes` (or, with `unsafe=False`, `--fix`) does to a
    text: rounds until nothing applies, each verified."""
    for _ in range(10):
        new, applied = fix_once(text, unsafe)
        if not applied:
            return text
        verify(new)
        text = new
    raise AssertionError("fixes did not converge")


# -- exact rewrites -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "before, after",
    [
        (
            "import torch\nwith torch.cuda.amp.autocast():\n    pass\n",
            'import torch\nwith torch.amp.autocast("cuda"):\n    pass\n',
        ),
        (
            "import torch\nctx = torch.cuda.amp.autocast(dtype=torch.bfloat16, enabled=on)\n",
            'import torch\nctx = torch.amp.autocast("cuda", dtype=torch.bfloat16, enabled=on)\n',
        ),
        (  # the old positional order (enabled, dtype, cache_enabled) differs from the new one
            "import torch\nctx = torch.cuda.amp.autocast(use_amp, torch.float16, False)\n",
            'import torch\nctx = torch.amp.autocast("cuda", enabled=use_amp, dtype=torch.float16, '
            "cache_enabled=False)\n",
        ),
        (
            "import torch as th\ns = th.cuda.amp.GradScaler(2.0**10, growth_interval=100)\n",
            'import torch as th\ns = th.amp.GradScaler("cuda", 2.0**10, growth_interval=100)\n',
        ),
        (
            "import torch\ns = torch.cpu.amp.GradScaler(**cfg)\nc = torch.cpu.amp.autocast()\n",
            'import torch\ns = torch.amp.GradScaler("cpu", **cfg)\nc = torch.amp.autocast("cpu")\n',
        ),
        (
            "import torch\n@torch.cuda.amp.custom_fwd\ndef f(ctx, x):\n    return x\n",
            'import torch\n@torch.amp.custom_fwd(device_type="cuda")\ndef f(ctx, x):\n    return x\n',
        ),
        (
            "import torch\n@torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)\ndef f(ctx, x):\n"
            "    return x\n",
            'import torch\n@torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)\n'
            "def f(ctx, x):\n    return x\n",
        ),
        (
            "import torch\ng = torch.cuda.amp.custom_bwd(backward)\n",
            'import torch\ng = torch.amp.custom_bwd(backward, device_type="cuda")\n',
        ),
        (  # the device goes right after "(", before anything else inside the parentheses
            "import torch\nctx = torch.cuda.amp.autocast(  # fp16 region\n)\n",
            'import torch\nctx = torch.amp.autocast("cuda"  # fp16 region\n)\n',
        ),
        (
            "import functools, torch\np = functools.partial(torch.cuda.amp.autocast, dtype=d)\n",
            'import functools, torch\np = functools.partial(torch.amp.autocast, "cuda", dtype=d)\n',
        ),
    ],
)
def test_call_is_rewritten_exactly(before, after):
    assert fix_all(before) == after


def test_from_import_is_moved_to_torch_amp_with_every_use():
    before = (
        "from torch.cuda.amp import GradScaler, autocast as ac\n"
        "scaler = GradScaler()\n"
        "with ac():\n"
        "    pass\n"
        "with ac(enabled=False):\n"
        "    pass\n"
    )
    assert fix_all(before) == (
        "from torch.amp import GradScaler, autocast as ac\n"
        'scaler = GradScaler("cuda")\n'
        'with ac("cuda"):\n'
        "    pass\n"
        'with ac("cuda", enabled=False):\n'
        "    pass\n"
    )


def test_one_round_applies_the_whole_import_rewrite():
    """Every finding of the group carries the same edits, so none is left half-done."""
    before = "from torch.cuda.amp import autocast\na = autocast()\nb = autocast()\n"
    after, applied = fix_once(before)
    assert applied == 2
    assert after == 'from torch.amp import autocast\na = autocast("cuda")\nb = autocast("cuda")\n'


def test_module_alias_import_is_moved():
    before = "import torch.cuda.amp as amp\ns = amp.GradScaler()\nwith amp.autocast(True):\n    pass\n"
    assert fix_all(before) == (
        'import torch.amp as amp\ns = amp.GradScaler("cuda")\nwith amp.autocast("cuda", enabled=True):\n'
        "    pass\n"
    )


def test_from_torch_cuda_import_amp_is_moved():
    before = "from torch.cuda import amp\ns = amp.GradScaler()\n"
    assert fix_all(before) == 'from torch import amp\ns = amp.GradScaler("cuda")\n'


def test_custom_fwd_import_with_bare_decorators():
    before = (
        "from torch.cuda.amp import custom_bwd, custom_fwd\n"
        "class F:\n"
        "    @custom_fwd\n"
        "    def forward(ctx, x): ...\n"
        "    @custom_bwd\n"
        "    def backward(ctx, g): ...\n"
    )
    assert fix_all(before) == (
        "from torch.amp import custom_bwd, custom_fwd\n"
        "class F:\n"
        '    @custom_fwd(device_type="cuda")\n'
        "    def forward(ctx, x): ...\n"
        '    @custom_bwd(device_type="cuda")\n'
        "    def backward(ctx, g): ...\n"
    )


def test_import_used_as_a_value_is_kept_by_safe_fixes_and_calls_go_through_torch():
    text = (DEPRECATED / "alias_used_as_value.py").read_text()
    fixed = fix_all(text, unsafe=False)
    assert "from torch.cuda.amp import autocast\n" in fixed
    assert 'ctx = torch.amp.autocast("cuda", enabled=True)\n' in fixed
    assert "assert isinstance(ctx, autocast)\n" in fixed
    [left] = lint_source(fixed, select="AMP4")  # the import itself, now that no call uses it
    assert (left.line, left.fix.applicability) == (4, "unsafe")


def test_import_beside_a_name_torch_amp_lacks_is_not_moved():
    before = "import torch\nfrom torch.cuda.amp import autocast, common\nctx = autocast()\n"
    assert fix_all(before) == (
        'import torch\nfrom torch.cuda.amp import autocast, common\nctx = torch.amp.autocast("cuda")\n'
    )


def test_no_fix_without_a_way_to_name_torch_amp():
    (finding,) = lint_source((DEPRECATED / "local_import_only.py").read_text(), select="AMP4")
    assert finding.fix is None


def test_no_fix_through_a_torch_import_that_runs_later():
    source = "from torch.cuda.amp import autocast\nctx = autocast()\nregistry = [autocast]\nimport torch\n"
    (finding,) = lint_source(source, select="AMP4")
    assert finding.fix is None


def test_functions_may_use_a_torch_import_below_them():
    source = (
        "from torch.cuda.amp import autocast\n"
        "registry = [autocast]\n"
        "def run():\n"
        "    return autocast()\n"
        "import torch\n"
    )
    assert 'return torch.amp.autocast("cuda")\n' in fix_all(source)


def test_autocast_with_star_args_has_no_fix():
    (finding,) = lint_source("import torch\nctx = torch.cuda.amp.autocast(*flags)\n", select="AMP4")
    assert finding.fix is None


def test_shim_use_blocks_the_import_rewrite():
    """Moving the import would break the old-PyTorch branch the shim exists for."""
    before = (
        "import torch\n"
        "from torch.cuda.amp import autocast\n"
        "a = autocast()\n"
        "if torch.__version__ < '2.4':\n"
        "    b = autocast()\n"
    )
    fixed = fix_all(before)
    assert "from torch.cuda.amp import autocast\n" in fixed
    assert 'a = torch.amp.autocast("cuda")\n' in fixed
    assert "    b = autocast()\n" in fixed


def test_every_fix_is_marked_safe_but_moving_a_possible_re_export():
    findings = [
        f
        for path in sorted(DEPRECATED.glob("*.py"))
        if path.name != "amp_reexports.py"
        for f in lint_source(read_source(path).text, select="AMP4")
        if f.fix is not None
    ]
    assert findings and {f.fix.applicability for f in findings} == {"safe"}


def _applicability(source: str) -> list[tuple[str, int, str]]:
    return [(f.code, f.line, f.fix.applicability) for f in lint_source(source, select="AMP4") if f.fix]


def test_autocast_nested_in_another_region_without_dtype_is_unsafe():
    """The old API always used float16; the new one reads the enclosing region's dtype."""
    source = (
        "import torch\n"
        "with torch.autocast('cuda', dtype=torch.bfloat16):\n"
        "    with torch.cuda.amp.autocast():\n"
        "        pass\n"
    )
    assert _applicability(source) == [("AMP401", 3, "unsafe")]


def test_nested_autocast_with_explicit_dtype_and_cache_stays_safe():
    source = (
        "import torch\n"
        "with torch.autocast('cuda', dtype=torch.bfloat16):\n"
        "    with torch.cuda.amp.autocast(True, torch.float16, cache_enabled=True):\n"
        "        pass\n"
    )
    assert _applicability(source) == [("AMP401", 3, "safe")]


def test_nested_region_that_only_disables_autocast_stays_safe():
    """YOLOX's float32 sub-region: nothing is cast in it, so the dtype cannot matter."""
    source = (
        "import torch\n"
        "with torch.cuda.amp.autocast():\n"
        "    with torch.cuda.amp.autocast(enabled=False):\n"
        "        pass\n"
    )
    assert _applicability(source) == [("AMP401", 2, "safe"), ("AMP401", 3, "safe")]


def test_changing_the_default_autocast_dtype_makes_only_autocast_fixes_unsafe():
    source = (
        "import torch\n"
        "torch.set_autocast_gpu_dtype(torch.bfloat16)\n"
        "ctx = torch.cuda.amp.autocast()\n"
        "scaler = torch.cuda.amp.GradScaler()\n"
    )
    assert _applicability(source) == [("AMP401", 3, "unsafe"), ("AMP402", 4, "safe")]


def test_import_rewrite_is_unsafe_when_any_of_its_uses_is():
    source = (
        "import torch\n"
        "from torch.cuda.amp import GradScaler, autocast\n"
        "scaler = GradScaler()\n"
        "with torch.autocast('cuda', dtype=torch.bfloat16):\n"
        "    with autocast():\n"
        "        pass\n"
    )
    assert _applicability(source) == [("AMP402", 3, "unsafe"), ("AMP401", 5, "unsafe")]


def test_nested_default_dtype_really_differs(torch):
    """Why the nested case is unsafe, shown on the CPU back end."""
    source = (
        "import torch\n"
        "with torch.autocast('cpu', dtype=torch.float16):\n"
        "    ctx = torch.cpu.amp.autocast()\n"
    )
    old = _run(torch, source)
    new = _run(torch, apply_fixes(source, [f.fix for f in lint_source(source, select="AMP4")])[0])
    assert (old["ctx"].fast_dtype, new["ctx"].fast_dtype) == (torch.bfloat16, torch.float16)


# -- formatting, comments, idempotence --------------------------------------------------------
def test_comments_and_layout_inside_the_call_are_kept():
    text = (DEPRECATED / "train_from_import.py").read_text()
    fixed = fix_all(text)
    assert (
        '    scaler = GradScaler(\n        "cuda", init_scale=2.0**12,  # smaller start: the first steps '
        "overflowed\n        growth_interval=500,\n    )\n"
    ) in fixed
    assert "from torch.amp import GradScaler, autocast as ac\n" in fixed
    assert '        with ac("cuda", dtype=torch.float16):\n' in fixed
    # nothing but the three edited lines changed
    changed = [(a, b) for a, b in zip(text.splitlines(), fixed.splitlines()) if a != b]
    assert len(changed) == 3 and len(text.splitlines()) == len(fixed.splitlines())


@pytest.mark.parametrize("path", sorted(DEPRECATED.glob("*.py")), ids=lambda p: p.name)
def test_fixing_a_fixture_is_idempotent_and_leaves_only_unfixable_findings(path):
    text = read_source(path).text
    unfixable = {(f.code, f.line) for f in lint_source(text, select="AMP4") if f.fix is None}
    fixed = fix_all(text)
    compile(fixed, str(path), "exec")
    assert fix_once(fixed) == (fixed, 0)
    assert {(f.code, f.line) for f in lint_source(fixed, select="AMP4")} == unfixable


# -- the rewritten code means what the old code meant (real torch) -----------------------------
@pytest.fixture(scope="module")
def torch():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torch
    return torch


def _run(torch, text: str) -> dict:
    import warnings

    namespace: dict = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(text, "<snippet>", "exec"), namespace)
    namespace["deprecation_warnings"] = [w for w in caught if w.category is FutureWarning]
    return namespace


def _autocast_state(ctx) -> tuple:
    return (ctx.device, ctx.fast_dtype, ctx._enabled, ctx._cache_enabled)


def _scaler_state(scaler) -> dict:
    """Everything the scaler was configured with (a CUDA scaler on a CPU-only build keeps
    only its device and `enabled=False`)."""
    return {k: v for k, v in vars(scaler).items() if k != "_per_optimizer_states"}


@pytest.mark.parametrize(
    "source",
    [
        "import torch\nctx = torch.cuda.amp.autocast()\n",
        "import torch\nctx = torch.cuda.amp.autocast(False, torch.bfloat16, False)\n",
        "import torch\nctx = torch.cpu.amp.autocast(True, torch.float16)\n",
        "from torch.cpu.amp import autocast as ac\nctx = ac(cache_enabled=False)\n",
        "import torch\nimport torch.cuda.amp as amp\nctx = amp.autocast(dtype=torch.bfloat16)\n",
    ],
)
def test_rewritten_autocast_is_configured_identically(torch, source):
    old, new = _run(torch, source), _run(torch, fix_all(source))
    assert _autocast_state(new["ctx"]) == _autocast_state(old["ctx"])
    assert type(new["ctx"]) is torch.amp.autocast
    assert old["deprecation_warnings"] and not new["deprecation_warnings"]


@pytest.mark.parametrize(
    "source",
    [
        "import torch\ns = torch.cpu.amp.GradScaler(1024.0, 3.0, 0.25, 7)\n",
        "from torch.cpu.amp import GradScaler\ns = GradScaler(growth_interval=9)\n",
        "from torch.cuda.amp import GradScaler\ns = GradScaler(init_scale=8.0)\n",
    ],
)
def test_rewritten_scaler_is_configured_identically(torch, source):
    old, new = _run(torch, source), _run(torch, fix_all(source))
    assert _scaler_state(new["s"]) == _scaler_state(old["s"])
    assert type(new["s"]) is torch.amp.GradScaler


def test_rewritten_custom_function_behaves_the_same(torch):
    original = (DEPRECATED / "custom_function.py").read_text()
    old, new = _run(torch, original), _run(torch, fix_all(original))
    assert new["custom_fwd"] is torch.amp.custom_fwd and new["custom_bwd"] is torch.amp.custom_bwd
    assert old["deprecation_warnings"] and not new["deprecation_warnings"]
    grads = []
    for namespace in (old, new):
        x = torch.linspace(-2.0, 2.0, 5, requires_grad=True)
        namespace["FusedGelu"].apply(x).sum().backward()
        grads.append(x.grad)
    assert torch.equal(grads[0], grads[1])


def test_rewritten_import_aliases_resolve_to_torch_amp(torch):
    fixed = fix_all((DEPRECATED / "train_from_import.py").read_text())
    imports = "".join(line + "\n" for line in fixed.splitlines() if line.startswith(("import", "from")))
    namespace = _run(torch, imports)
    assert namespace["GradScaler"] is torch.amp.GradScaler
    assert namespace["ac"] is torch.amp.autocast


# -- apply_fixes and verify -----------------------------------------------------------------
def test_overlapping_fix_waits_for_the_next_round():
    first = Fix("a", (Edit(1, 1, 1, 4, "abc"),))
    overlapping = Fix("b", (Edit(1, 3, 1, 6, "zzz"),))
    later = Fix("c", (Edit(2, 1, 2, 2, "Y"),))
    text, applied = apply_fixes("xyzwv\nX\n", [later, overlapping, first])
    assert text == "abcwv\nY\n"
    assert applied == [first, later]


def test_identical_edits_from_two_fixes_are_applied_once():
    shared = Edit(1, 1, 1, 2, "B")
    one, two = Fix("1", (shared, Edit(2, 1, 2, 1, "<"))), Fix("2", (shared, Edit(3, 1, 3, 1, ">")))
    assert apply_fixes("a\nb\nc\n", [one, two]) == ("B\n<b\n>c\n", [one, two])


def test_two_insertions_at_one_point_are_not_both_applied():
    one, two = Fix("1", (Edit(1, 2, 1, 2, "x"),)), Fix("2", (Edit(1, 2, 1, 2, "y"),))
    assert apply_fixes("ab\n", [one, two]) == ("axb\n", [one])


def test_edit_positions_count_characters_and_crlf_lines():
    text = 'x = "é😀"; y = f()\r\nz = g()\r\n'
    fixes = [Fix("f", (Edit(1, 15, 1, 16, "h"),)), Fix("g", (Edit(2, 5, 2, 6, "k"),))]
    assert apply_fixes(text, fixes)[0] == 'x = "é😀"; y = h()\r\nz = k()\r\n'


def test_edit_outside_the_text_is_an_error():
    with pytest.raises(FixError, match="outside the file"):
        apply_fixes("a\n", [Fix("f", (Edit(5, 1, 5, 2, "x"),))])
    with pytest.raises(FixError, match="past the end of its line"):
        apply_fixes("ab\ncd\n", [Fix("f", (Edit(1, 9, 1, 9, "x"),))])


def test_verify_refuses_text_that_does_not_parse():
    with pytest.raises(FixError, match="does not parse"):
        verify("with torch.amp.autocast(\"cuda\",:\n    pass\n")


def test_verify_refuses_text_that_does_not_compile():
    with pytest.raises(FixError, match="does not compile"):
        verify("def f(x, x):\n    pass\n")


# -- reading and writing files ------------------------------------------------------------------
def _fix_file(path: Path) -> bytes:
    source = read_source(path)
    write_source(path, source, fix_all(source.text))
    return path.read_bytes()


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    target.write_bytes((DEPRECATED / name).read_bytes())
    return target


def test_crlf_line_endings_are_kept(tmp_path):
    data = _fix_file(_copy(tmp_path, "crlf_train.py"))
    assert b'scaler = torch.amp.GradScaler("cuda")  # fp16 loss scaling\r\n' in data
    assert b'with torch.amp.autocast("cuda", dtype=torch.float16):\r\n' in data
    assert data.count(b"\r\n") == data.count(b"\n") == 7


def test_bom_is_kept(tmp_path):
    data = _fix_file(_copy(tmp_path, "bom_train.py"))
    assert data.startswith(b"\xef\xbb\xbf\"\"\"Saved")
    assert data.count(b"\xef\xbb\xbf") == 1
    assert b'from torch.amp import autocast\n' in data and b'with autocast("cuda"):\n' in data
    assert "Schätzung".encode() in data


def test_latin1_file_is_written_back_in_latin1(tmp_path):
    path = _copy(tmp_path, "latin1_train.py")
    assert read_source(path).encoding == "iso-8859-1"
    data = _fix_file(path)
    assert 'ctx = torch.amp.autocast("cpu")  # précision réduite\n'.encode("latin-1") in data


def test_write_keeps_mode_and_leaves_no_temporary_file(tmp_path):
    path = _copy(tmp_path, "train_dotted.py")
    os.chmod(path, 0o750)
    _fix_file(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train_dotted.py"]


def test_failed_write_leaves_the_old_file_whole_and_no_temporary(tmp_path, monkeypatch):
    path = _copy(tmp_path, "train_dotted.py")
    before = path.read_bytes()

    def crash(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(SourceError, match="train_dotted.py: cannot write: No space left on device"):
        write_source(path, read_source(path), "x = 1\n")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train_dotted.py"]


def test_write_through_a_symlink_updates_the_target(tmp_path):
    target = _copy(tmp_path, "train_dotted.py")
    link = tmp_path / "link.py"
    link.symlink_to(target)
    _fix_file(link)
    assert link.is_symlink()
    assert b"torch.amp.autocast(" in target.read_bytes()


def test_text_the_encoding_cannot_hold_is_refused_and_the_file_kept(tmp_path):
    path = _copy(tmp_path, "latin1_train.py")
    before = path.read_bytes()
    with pytest.raises(SourceError, match="cannot encode"):
        write_source(path, read_source(path), "x = '中'\n")
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "data, message",
    [
        (b"x = 1\x00\n", "binary file"),
        (b"x = '\xe9'\n", "cannot decode as utf-8 (byte 0xe9 at offset 5)"),
        (b"# coding: klingon\nx = 1\n", "unknown encoding: klingon"),
        (b"\xef\xbb\xbf# coding: latin-1\n", "encoding problem"),
    ],
)
def test_unreadable_source_is_one_clear_line(data, message):
    with pytest.raises(SourceError, match="^f.py: .*" + message.replace("(", r"\(").replace(")", r"\)")):
        decode_source(data, "f.py")


def test_missing_file_is_one_clear_line(tmp_path):
    with pytest.raises(SourceError, match="cannot read: No such file or directory"):
        read_source(tmp_path / "gone.py")


def test_verify_is_silent_about_warnings_in_the_users_code():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        verify('import re\nPATTERN = re.compile("\\d+")\n')
    assert caught == []


# -- a use that may mean two bindings -----------------------------------------------------------
@pytest.mark.parametrize("name", ["optional_amp_branch.py", "optional_amp_try_import.py"])
def test_fixes_leave_an_optional_amp_fallback_byte_identical(name):
    text = (DEPRECATED / name).read_text()
    assert fix_all(text) == text


def test_the_verifier_refuses_a_rewrite_of_a_use_with_two_bindings():
    text = (DEPRECATED / "optional_amp_branch.py").read_text()
    row = next(n for n, line in enumerate(text.splitlines(), 1) if "with autocast():" in line)
    column = text.splitlines()[row - 1].index("autocast") + 1
    turns_amp_on = Fix("x", (Edit(row, column, row, column + len("autocast()"), 'torch.amp.autocast("cuda")'),))
    new, _ = apply_fixes(text, [turns_amp_on])
    with pytest.raises(FixError, match=r"`autocast` \(line 29\) may refer to 2 different bindings"):
        verify(new, before=text, applied=[turns_amp_on])


def test_the_verifier_ignores_edits_to_comments():
    text = "f = a if c else b\nf(\n    1,  # noqa: AMP401\n)\n"
    drop = Fix("x", (Edit(3, 7, 3, 23, ""),))
    new, _ = apply_fixes(text, [drop])
    verify(new, before=text, applied=[drop])


def test_an_import_that_only_annotates_moves_to_torch_amp():
    text = (DEPRECATED / "scaler_annotation_only.py").read_text()
    fixed = fix_all(text, unsafe=False)
    assert fixed == text.replace("from torch.cuda.amp import GradScaler", "from torch.amp import GradScaler")


def test_a_compile_error_the_text_already_had_is_not_blamed_on_the_fix():
    text = "import torch\nctx = torch.cuda.amp.autocast()\nawait ctx\n"  # top-level await, as in a cell
    new, applied = fix_once(text)
    verify(new, before=text, applied=[f.fix for f in lint_source(text, select="AMP4") if f.fix])
    with pytest.raises(FixError, match="does not compile"):
        verify(new)
