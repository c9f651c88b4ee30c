"""Whole projects: the scaler protocol followed across modules, base classes and helpers.

Each folder under fixtures/projects is a project of its own (a pyproject.toml with
[tool.ampcheck]); its files mark the lines that must be reported with `# expect: CODE`.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ampcheck.config import Overrides, load_settings
from ampcheck.lint import engine
from ampcheck.lint.engine import Options, lint_paths
from ampcheck.lint.digests import FileDigests
from ampcheck.lint.project import Project, project_root
from tests.lint.helpers import expected
from tests.paths import FIXTURES

PROJECTS = FIXTURES / "projects"
NAMES = sorted(p.name for p in PROJECTS.iterdir() if p.is_dir())


def _lint(root: Path, *paths: str, cache: bool = False) -> engine.LintResult:
    targets = [str(root / p) for p in paths] or [str(root)]
    settings = load_settings(targets, Overrides(select=("AMP1",)), cwd=root)
    return lint_paths(targets, settings, Options(cache=cache, jobs=1))


def _project(root: Path) -> Project:
    return engine.open_project(str(root), load_settings([str(root)], Overrides(), cwd=root), None, FileDigests())


def _found(result: engine.LintResult, root: Path) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {}
    for f in result.findings:
        out.setdefault(Path(f.path).resolve().relative_to(root).as_posix(), []).append((f.code, f.line))
    return {k: sorted(v, key=lambda cl: (cl[1], cl[0])) for k, v in out.items()}


def _marked(root: Path) -> dict[str, list[tuple[str, int]]]:
    marks = {p.relative_to(root).as_posix(): expected(p, "AMP1") for p in sorted(root.rglob("*.py"))}
    return {k: v for k, v in marks.items() if v}


@pytest.mark.parametrize("name", NAMES)
def test_project_reports_exactly_the_marked_lines(name: str):
    root = PROJECTS / name
    assert _found(_lint(root), root) == _marked(root)


@pytest.mark.parametrize("name", NAMES)
def test_a_file_linted_alone_reports_what_the_whole_project_run_reports_for_it(name: str):
    root = PROJECTS / name
    marks = _marked(root)
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        assert _found(_lint(root, rel), root).get(rel, []) == marks.get(rel, []), rel


@pytest.mark.parametrize("name", NAMES)
def test_a_project_linted_from_the_root_of_a_repository_of_several_reports_what_it_reports_alone(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
):
    """A git repository holding the project in a folder of its own, whose pyproject.toml
    configures no ampcheck (as a project found on GitHub is): the repository is the root, and
    the project's folder is where its imports start."""
    repo = tmp_path / "repo"
    shutil.copytree(PROJECTS / name, repo / "projects" / name)
    (repo / "projects" / name / "pyproject.toml").write_text(f'[project]\nname = "{name}"\n')
    (repo / ".git").mkdir()
    monkeypatch.chdir(repo)
    target = f"projects/{name}"
    result = lint_paths([target], load_settings([target], Overrides(select=("AMP1",)), cwd=repo), Options(cache=False, jobs=1))
    root = repo / "projects" / name
    assert _found(result, root) == _marked(root)


def test_a_subclass_override_is_judged_in_the_base_class_loop_of_another_module():
    root = PROJECTS / "update_in_a_hook_the_base_loop_never_calls"
    [f] = [f for f in _lint(root, "recipes/denoising.py").findings if f.code == "AMP102"]
    assert "runs every iteration of this loop" in f.message and f.message.startswith("When the scaler is enabled")


def test_the_update_of_a_base_method_the_subclass_overrides_updates_nothing_for_it():
    root = PROJECTS / "brain_recipes"
    [f] = [f for f in _lint(root, "recipes/separation.py").findings if f.code == "AMP102"]
    assert "steps a scaler that no code can ever update" in f.message


def test_a_helper_bug_seen_from_a_caller_is_reported_at_the_call_naming_the_helper():
    root = PROJECTS / "src_helpers"
    [f] = [f for f in _lint(root, "tools/finetune.py").findings if f.code == "AMP102"]
    assert f.line == 15 and f.message.endswith("(in `step_only` in src/mytrain/scaling.py)")


def test_modules_read_for_their_summaries_are_never_reported():
    root = PROJECTS / "src_helpers"
    result = _lint(root, "tools/finetune.py")
    assert {Path(f.path).name for f in result.findings} == {"finetune.py"}


def test_a_helper_module_linted_alone_is_judged_in_its_callers_loops():
    root = PROJECTS / "src_helpers"
    found = _found(_lint(root, "src/mytrain/scaling.py"), root)
    assert found == {"src/mytrain/scaling.py": [("AMP104", 22), ("AMP102", 29)]}


def test_a_project_helper_that_does_the_whole_protocol_is_followed_not_assumed():
    root = PROJECTS / "src_helpers"
    assert _lint(root, "tools/pretrain.py", "src/mytrain/engine.py").findings == []


def test_the_project_root_is_the_config_folder_else_the_git_root_else_the_working_folder(tmp_path: Path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg").mkdir()
    (repo / "pkg" / "train.py").write_text("")
    assert project_root(None, ["pkg/train.py"], repo) == repo
    assert project_root(repo / "pkg" / "pyproject.toml", ["pkg/train.py"], repo) == repo / "pkg"
    loose = tmp_path / "loose"
    loose.mkdir()
    assert project_root(None, ["x.py"], loose) == loose


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    root = tmp_path / "src_helpers"
    shutil.copytree(PROJECTS / "src_helpers", root)
    return root


def test_a_changed_dependency_invalidates_the_cached_results_of_the_files_that_read_it(scratch: Path):
    assert [f.line for f in _lint(scratch, "tools/finetune.py", cache=True).findings] == [15]
    helpers = scratch / "src" / "mytrain" / "scaling.py"
    helpers.write_text(helpers.read_text().replace(
        "    scaler.step(optimizer)  # expect: AMP102\n", "    scaler.step(optimizer)\n    scaler.update()\n"
    ))
    again = _lint(scratch, "tools/finetune.py", cache=True)
    assert [f.line for f in again.findings] == [] and again.analysed == 1


def test_a_resume_module_that_starts_loading_the_optimizer_state_invalidates_the_cached_silence(tmp_path: Path):
    root = tmp_path / "resumed"
    shutil.copytree(PROJECTS / "checkpoint_resumed_without_its_optimizer_state", root)
    assert [f.line for f in _lint(root, "train.py", cache=True).findings] == [20]
    resume = root / "resume.py"
    resume.write_text(resume.read_text().replace(
        "def load_for_finetuning(model, path):", "def load_for_finetuning(model, optimizer, path):"
    ).replace(
        '    model.load_state_dict(checkpoint["model_state_dict"])\n',
        '    model.load_state_dict(checkpoint["model_state_dict"])\n    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])\n',
    ))
    again = _lint(root, "train.py", cache=True)
    assert [f.line for f in again.findings] == [19, 20] and again.analysed == 1


def test_a_project_where_no_file_makes_or_works_a_gradscaler_is_scaler_free():
    assert _project(PROJECTS / "engine_with_its_own_loss_scaler").scaler_free()
    assert not _project(PROJECTS / "src_helpers").scaler_free()


def test_a_cached_result_that_relied_on_the_project_having_no_gradscaler_is_analysed_again_once_a_file_makes_one(tmp_path: Path):
    root = tmp_path / "engine"
    shutil.copytree(PROJECTS / "engine_with_its_own_loss_scaler", root)
    assert _lint(root, "engine/runtime.py", cache=True).analysed == 1
    assert _lint(root, "engine/runtime.py", cache=True).analysed == 0
    (root / "amp_train.py").write_text("import torch\n\nscaler = torch.amp.GradScaler()\n")
    assert _lint(root, "engine/runtime.py", cache=True).analysed == 1


def test_an_unchanged_project_replays_every_result_from_the_cache(scratch: Path):
    first = _lint(scratch, cache=True)
    second = _lint(scratch, cache=True)
    assert second.analysed == 0 and second.findings == first.findings


def test_imported_modules_are_read_from_the_summary_cache_without_parsing(scratch: Path, monkeypatch):
    _lint(scratch, "tools/finetune.py", cache=True)
    (scratch / "tools" / "finetune.py").write_text((scratch / "tools" / "finetune.py").read_text() + "\n")
    parsed: list[str] = []
    summarize = engine._summarize
    monkeypatch.setattr(engine, "_summarize", lambda path, *a: parsed.append(os.path.basename(path)) or summarize(path, *a))
    result = _lint(scratch, "tools/finetune.py", cache=True)
    assert result.analysed == 1 and [f.line for f in result.findings] == [15]
    assert parsed == []


def _lint_counting_summaries(monkeypatch, root: Path, path: str) -> tuple[list, list[str]]:
    """The findings of linting `path` alone, and the project files parsed for summaries."""
    parsed: list[str] = []
    summarize = engine._summarize
    monkeypatch.setattr(engine, "_summarize", lambda p, *a: parsed.append(Path(p).relative_to(root).as_posix()) or summarize(p, *a))
    return _lint(root, path).findings, parsed


def test_a_module_that_only_saves_and_restores_a_handed_scaler_reads_none_of_its_callers(monkeypatch):
    """What a checkpoint module does with a scaler parameter (its state_dict, load_state_dict,
    a same-file helper it hands it to) is the same for every caller: no recipe is parsed."""
    findings, parsed = _lint_counting_summaries(monkeypatch, PROJECTS / "checkpoint_module", "speech/checkpoint.py")
    assert findings == [] and parsed == []


def test_a_class_that_updates_its_own_dict_reads_none_of_its_callers(monkeypatch):
    """`self.__dict__.update(kwargs)` has the shape of `scaler.update(new_scale)`, but an
    attribute Python gives every object is never a GradScaler handed in from outside."""
    findings, parsed = _lint_counting_summaries(monkeypatch, PROJECTS / "checkpoint_module", "speech/config.py")
    assert findings == [] and parsed == []


def test_a_lookup_answered_again_from_memory_still_records_the_module_it_read():
    """A cached result must depend on every module its analysis consulted, however often
    the project was asked before (lookups are remembered within a run)."""
    from ampcheck.config import default_settings
    from ampcheck.lint.digests import FileDigests
    from ampcheck.lint.model import FileModel

    root = PROJECTS / "src_helpers"
    project = engine.open_project(str(root), default_settings(root), None, FileDigests())
    caller = root / "tools" / "finetune.py"
    importer = FileModel(str(caller), caller.read_text(), project=project).summary
    first = project.lookup("mytrain.scaling.step_only", importer)
    with project.record() as read:
        again = project.lookup("mytrain.scaling.step_only", importer)
    assert first is not None and again == first
    assert str(root / "src" / "mytrain" / "scaling.py") in read
