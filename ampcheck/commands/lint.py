"""`ampcheck lint`: flags in, `lint_paths` and `render` out. No logic of its own."""
from __future__ import annotations

import sys
from typing import Optional

import click

from ampcheck.commands import OneLineUsage, fail
from ampcheck.output import FORMATS


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    """`--select AMP4,AMP101 --select AMP2` -> ("AMP4", "AMP101", "AMP2")."""
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


@click.command(cls=OneLineUsage)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that may change behaviour.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; change nothing.")
@click.option("--output-format", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--statistics", is_flag=True, help="Show counts per rule instead of each finding.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--select", multiple=True, metavar="CODES", help="Rules to check (codes or prefixes, ALL); replaces the config's.")
@click.option("--extend-select", multiple=True, metavar="CODES", help="Rules to check in addition.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Rules not to check.")
@click.option("--per-file-ignores", multiple=True, metavar="GLOB:CODES", help="Rules not to check in matching files.")
@click.option("--exclude", multiple=True, metavar="GLOBS", help="Paths to skip; replaces the defaults and the config's.")
@click.option("--extend-exclude", multiple=True, metavar="GLOBS", help="Paths to skip in addition.")
@click.option("--warn-unused-ignores/--no-warn-unused-ignores", default=None, help="Report suppressions that suppress nothing (AMP002).")
@click.option("--force-exclude/--no-force-exclude", default=None, help="Apply excludes to paths named on the command line too.")
@click.option("--max-file-size", metavar="SIZE", help='Skip files with more Python than this ("2MB", "512KiB"; 0: no limit; default 2MiB).')
@click.option("--target-version", metavar="PYVER", help='The oldest Python the project supports ("py312"); default: requires-python.')
@click.option("--torch-version", metavar="VERSION", help='The oldest torch the project supports ("2.2"); default: its torch requirements.')
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="Read settings from this file instead of the nearest pyproject.toml.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: all cores).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write .ampcheck_cache/.")
@click.option("--timings", is_flag=True, help="After the report, show on stderr where the run spent its time, per phase.")
def lint(
    paths: tuple[str, ...],
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    output_format: str,
    statistics: bool,
    exit_zero: bool,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    per_file_ignores: tuple[str, ...],
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    warn_unused_ignores: Optional[bool],
    force_exclude: Optional[bool],
    max_file_size: Optional[str],
    target_version: Optional[str],
    torch_version: Optional[str],
    config_file: Optional[str],
    jobs: Optional[int],
    no_cache: bool,
    timings: bool,
) -> None:
    """Check PATHS (files or folders; default: the current folder) for AMP mistakes."""
    from ampcheck.catalog import CatalogError
    from ampcheck.config import ConfigError, Overrides, load_settings
    from ampcheck.lint.engine import Options, lint_paths
    from ampcheck.output import render

    targets = list(paths) or ["."]
    overrides = Overrides(
        select=_split(select) if select else None,
        ignore=_split(ignore),
        extend_select=_split(extend_select),
        per_file_ignores=per_file_ignores,
        exclude=_split(exclude) if exclude else None,
        extend_exclude=_split(extend_exclude),
        warn_unused_ignores=warn_unused_ignores,
        force_exclude=force_exclude,
        max_file_size=max_file_size,
        target_version=target_version,
        torch_version=torch_version,
        config_file=config_file,
    )
    try:
        settings = load_settings(targets, overrides)
        options = Options(fix=fix and not diff, diff=diff, unsafe_fixes=unsafe_fixes, jobs=jobs, cache=not no_cache)
        result = lint_paths(targets, settings, options)
    except (ConfigError, CatalogError) as err:
        raise fail(str(err))
    except KeyboardInterrupt:
        raise fail("interrupted")
    except Exception as err:  # the promise is one line, never a traceback
        raise fail(f"internal error: {type(err).__name__}: {err}")

    if diff:
        sys.stdout.write("".join(result.diffs))
        noun = "error" if result.fixed == 1 else "errors"
        click.echo(f"Would fix {result.fixed} {noun}." if result.fixed else "No errors would be fixed.", err=True)
        failed = result.fixed > 0
    else:
        sys.stdout.write(render(result.findings, output_format, statistics=statistics, fixed=result.fixed))
        failed = bool(result.findings)
    sys.stdout.flush()
    # After the report, so a run that could not check everything never ends on its summary.
    for line in result.problems:
        click.echo(f"ampcheck: warning: {line}", err=True)
    for line in result.internal_errors:
        click.echo(f"ampcheck: error: {line}", err=True)
    for path in result.missing:
        click.echo(f"ampcheck: error: {path}: no such file or folder", err=True)
    if timings:
        click.echo(result.timings.render(result.wall, result.processes), err=True, nl=False)
    if result.missing or result.internal_errors:
        raise click.exceptions.Exit(2)
    raise click.exceptions.Exit(1 if failed and not exit_zero else 0)
