"""`ampcheck trace SCRIPT [-- ARGS...]`: run a training script under the tracer.

The script runs as `python SCRIPT ARGS` would: `__name__ == "__main__"`, `sys.argv`,
`sys.path[0]` = the script's folder. Its exit status passes through (SystemExit codes kept; an
uncaught exception prints its traceback like python does and exits 1), and the report of what
ran before a crash is still written. `--out` is a file, or a directory that receives
`trace.rank{R}.json` (see `ampcheck.trace.ranks.output_path`).
"""
from __future__ import annotations

import os
import runpy
import sys
import traceback
from typing import Any, Optional

import click

from ampcheck.commands import OneLineUsage, fail
from ampcheck.trace.sections.precision_loss import DEFAULT_THRESHOLD


def _exit_code(exc: SystemExit) -> int:
    """What python's own exit does with a SystemExit payload."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _print_traceback(exc: BaseException, script: str) -> None:
    """The traceback python would print: from the script's first frame, not ampcheck's (none
    at all when the script never ran, e.g. a SyntaxError, which shows its file and line)."""
    tb = exc.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != script:
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb)


def run_script(script: str, args: tuple[str, ...], options: dict[str, Any]) -> tuple[int, Any]:
    """Run `script` traced; return (exit status, TraceReport). Restores argv and path."""
    from ampcheck.trace.tracer import trace

    path = os.path.abspath(script)
    saved_argv, saved_path0 = sys.argv[:], sys.path[0]
    sys.argv = [script, *args]  # run_path sets argv[0] to the path it is given
    sys.path[0] = os.path.dirname(path)
    status = 0
    tracer = trace(**options)
    try:
        with tracer:
            runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        status = _exit_code(exc)
    except KeyboardInterrupt as exc:
        _print_traceback(exc, path)
        status = 130
    except BaseException as exc:  # noqa: B036 - the script's own error, shown as python shows it
        _print_traceback(exc, path)
        status = 1
    finally:
        sys.argv, sys.path[0] = saved_argv, saved_path0
    return status, tracer.report


@click.command(cls=OneLineUsage, context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("script", type=click.Path(dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--out", "-o", default=None, metavar="PATH",
              help="Report file, or a directory for trace.rank{R}.json [default: ampcheck-trace.json].")
@click.option("--steps", type=click.IntRange(min=1), default=None,
              help="Stop recording after N optimizer steps; the script runs on untraced.")
@click.option("--phases", default="forward,backward", show_default=True,
              help="Phases to record: forward, backward, optimizer (recompute goes with backward).")
@click.option("--no-modules", is_flag=True, help="Do not attribute ops to modules (a little faster).")
@click.option("--numerics", is_flag=True, help="Also record inf/nan, fp16 headroom and underflow (AMP504-AMP506).")
@click.option("--numerics-every", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="With --numerics: sample one optimizer step in N.")
@click.option("--compare-fp32", is_flag=True,
              help="Also rerun each module in float32 on the same inputs and rank modules by the relative "
                   "error of their autocast output (AMP510). Training results stay the same; it costs time.")
@click.option("--compare-threshold", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_THRESHOLD,
              show_default=True, metavar="ERROR",
              help="With --compare-fp32: the relative error (0.1 = 10%) above which AMP510 names a module.")
@click.option("--quiet", "-q", is_flag=True, help="Do not print the summary.")
def trace(script: str, args: tuple[str, ...], out: Optional[str], steps: Optional[int], phases: str,
          no_modules: bool, numerics: bool, numerics_every: int, compare_fp32: bool, compare_threshold: float,
          quiet: bool) -> None:
    """Run SCRIPT (with ARGS) under the tracer and write its report."""
    from ampcheck.trace import ranks

    if not os.path.isfile(script):
        raise fail(f"{script}: no such file")
    if args[:1] == ("--",):  # `ampcheck trace SCRIPT -- ARGS`: the separator is ours
        args = args[1:]
    if out and out.endswith(("/", os.sep)):  # a trailing slash asks for a directory
        os.makedirs(out, exist_ok=True)
    launch = ranks.from_environment()
    try:
        target = ranks.output_path(out, launch)
    except ranks.OutputPathError as err:
        raise fail(str(err))
    try:
        import torch  # noqa: F401 - checked here so a missing torch is one clear line
    except ImportError:
        raise fail("`ampcheck trace` needs PyTorch: pip install 'ampcheck[trace]'")
    options = {
        "phases": tuple(p.strip() for p in phases.split(",") if p.strip()),
        "modules": not no_modules,
        "steps": steps,
        "numerics": numerics,
        "numerics_every": numerics_every,
        "compare_fp32": compare_fp32,
        "compare_threshold": compare_threshold,
    }
    try:
        from ampcheck.trace.tracer import Trace

        Trace(**options)  # validate options before the script runs
    except ValueError as err:
        raise fail(str(err))
    status, result = run_script(script, args, options)
    if result is not None:
        result.meta["script"] = [script, *args]
        result.meta["exit_status"] = status
        try:
            written = result.save(target)
        except OSError as err:
            raise fail(f"cannot write {target}: {err}")
        if not quiet:
            if not launch.rank:  # the ranks of a job would interleave their summaries: rank 0 speaks
                click.echo("\n" + result.to_text(), err=True)
            click.echo(f"\nampcheck: trace report written to {written}", err=True)
            if launch.distributed and not launch.rank:
                click.echo(f"ampcheck: merge the ranks' traces with: ampcheck report {written.parent}", err=True)
    raise click.exceptions.Exit(status)
