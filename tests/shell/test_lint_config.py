"""`[tool.ampcheck]`: discovery, selection by prefix, and one-line errors for anything unknown."""
from __future__ import annotations

from pathlib import Path

import pytest

from ampcheck.config import ConfigError, Overrides, known_codes, load_settings


def project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'demo'\n\n[tool.ampcheck]\n{table}\n")
    (tmp_path / "src" / "train").mkdir(parents=True)
    return tmp_path


def test_settings_come_from_the_nearest_pyproject_with_an_ampcheck_table(tmp_path):
    root = project(tmp_path, 'select = ["AMP4"]')
    (root / "src" / "pyproject.toml").write_text("[project]\nname = 'inner'\n")  # no table: skipped
    settings = load_settings(["src/train"], cwd=root)
    assert settings.config_path == root / "pyproject.toml"
    assert settings.root == root
    assert settings.enabled == {"AMP401", "AMP402", "AMP403", "AMP404", "AMP405"}


def test_config_flag_overrides_the_discovered_file(tmp_path):
    root = project(tmp_path, 'select = ["AMP4"]')
    (root / "strict.toml").write_text('[tool.ampcheck]\nselect = ["AMP001"]\n')
    settings = load_settings(["src"], Overrides(config_file="strict.toml"), cwd=root)
    assert settings.enabled == {"AMP001"}


def test_without_a_config_every_documented_rule_but_the_opt_in_ones_is_enabled(tmp_path):
    settings = load_settings(["."], cwd=tmp_path)
    assert settings.config_path is None
    assert settings.enabled == known_codes() - {"AMP207"}
    assert "AMP001" in settings.enabled and "AMP401" in settings.enabled


@pytest.mark.parametrize("flags", [Overrides(select=("ALL",)), Overrides(select=("AMP2",)), Overrides(extend_select=("AMP207",))])
def test_an_opt_in_rule_runs_when_all_its_code_or_a_prefix_selects_it(tmp_path, flags):
    # AMP207's doc says `default: off`: a deliberate trade-off in many projects
    assert "AMP207" in load_settings(["."], flags, cwd=tmp_path).enabled


def test_prefixes_select_families_and_ignore_wins(tmp_path):
    root = project(tmp_path, 'select = ["AMP40"]\nignore = ["AMP405"]\nextend-select = ["AMP001"]')
    assert load_settings(["."], cwd=root).enabled == {"AMP001", "AMP401", "AMP402", "AMP403", "AMP404"}


def test_command_line_select_replaces_and_extends_the_file(tmp_path):
    root = project(tmp_path, 'select = ["AMP4"]')
    flags = Overrides(select=("AMP401",), extend_select=("AMP402",), ignore=())
    assert load_settings(["."], flags, cwd=root).enabled == {"AMP401", "AMP402"}
    assert load_settings(["."], Overrides(select=("ALL",), ignore=("AMP4",)), cwd=root).enabled == (
        known_codes() - {c for c in known_codes() if c.startswith("AMP4")}
    )


def test_per_file_ignores_apply_to_matching_paths_only(tmp_path):
    root = project(tmp_path, '[tool.ampcheck.per-file-ignores]\n"legacy/*.py" = ["AMP4"]\n')
    settings = load_settings(["."], Overrides(per_file_ignores=("notebooks/**:AMP401",)), cwd=root)
    assert "AMP402" not in settings.codes_for(root / "legacy" / "old.py")
    assert "AMP402" in settings.codes_for(root / "src" / "new.py")
    assert "AMP401" not in settings.codes_for(root / "notebooks" / "deep" / "a.ipynb")
    assert "AMP402" in settings.codes_for(root / "notebooks" / "deep" / "a.ipynb")


def test_settings_fingerprint_differs_when_the_file_codes_differ(tmp_path):
    root = project(tmp_path, '[tool.ampcheck.per-file-ignores]\n"legacy/*.py" = ["AMP4"]\n')
    settings = load_settings(["."], cwd=root)
    assert settings.fingerprint(root / "legacy" / "a.py") != settings.fingerprint(root / "a.py")
    assert settings.fingerprint(root / "b.py") == settings.fingerprint(root / "a.py")


@pytest.mark.parametrize(
    "table, message",
    [
        ('selct = ["AMP4"]', "unknown key 'selct' in [tool.ampcheck] of"),
        ('select = ["AMP499"]', "unknown rule selector 'AMP499' in 'select' in"),
        ('ignore = ["E501"]', "unknown rule selector 'E501' in 'ignore' in"),
        ('select = "AMP4"', "'select' in"),
        ('warn-unused-ignores = "yes"', "'warn-unused-ignores' in"),
        ('[tool.ampcheck.per-file-ignores]\n"*.py" = ["AMP9"]', "per-file-ignores '*.py'"),
    ],
)
def test_a_bad_config_is_one_line_naming_the_problem(tmp_path, table, message):
    root = project(tmp_path, table)
    with pytest.raises(ConfigError) as err:
        load_settings(["."], cwd=root)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_unknown_codes_on_the_command_line_are_named(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown rule selector 'AMP9' in --select: it matches no rule"):
        load_settings(["."], Overrides(select=("AMP9",)), cwd=tmp_path)
    with pytest.raises(ConfigError, match=r"--per-file-ignores expects GLOB:CODE"):
        load_settings(["."], Overrides(per_file_ignores=("nocolon",)), cwd=tmp_path)


def test_invalid_toml_is_a_config_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ampcheck\nselect = 1\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_settings(["."], cwd=tmp_path)


def test_missing_config_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="config file nope.toml does not exist"):
        load_settings(["."], Overrides(config_file="nope.toml"), cwd=tmp_path)
