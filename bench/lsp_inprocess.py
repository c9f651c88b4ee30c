"""The language server's analysis after each edit, in one process and without LSP: the same
generated project and edits as bench/lsp_bench.py, each edit given to the server's `Session`
(`edit`, then `check`, as its worker thread does), timed in CPU seconds, with the CPU of each
phase of the analysis (the `--timings` phases of `ampcheck lint`) averaged over the edits.
What this leaves out of lsp_bench.py's figure is the protocol: JSON-RPC, the conversion of
findings to diagnostics, the event loop.

    python bench/lsp_inprocess.py --edits 30
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import lsp_project  # noqa: E402  (bench scripts are run as files, not as a package)
from lsp_bench import edits, percentile  # noqa: E402
from procstats import load_average, machine  # noqa: E402

from ampcheck.lint.timings import RECORDER, Phase  # noqa: E402
from ampcheck.server.session import Session  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--lines", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ampcheck-lsp-inprocess-") as tmp:
        script = str(lsp_project.make_project(Path(tmp), args.lines))
        text = Path(script).read_text()
        before = load_average()
        session = Session([tmp])
        session.open(script, text)
        session.check(script, text)  # the cold analysis: the project's summaries built
        RECORDER.take()
        cpu = []
        for edit in edits(text, args.edits):
            offset = text.index(edit.old, text.index(edit.after))
            text = text[:offset] + edit.new + text[offset + len(edit.old):]
            start = time.process_time()
            session.edit(script, text)
            session.check(script, text)
            cpu.append((time.process_time() - start) * 1000)
        phases = RECORDER.take()
    print(f"edits: {len(cpu)}; CPU per edit: p50 {statistics.median(cpu):.0f} ms, p95 {percentile(cpu, 0.95):.0f} ms, max {max(cpu):.0f} ms")
    for phase in Phase:
        if phases.seconds[phase]:
            print(f"  {phase.value:<40} {phases.seconds[phase] / len(cpu) * 1000:6.1f} ms")
    print(f"Machine: {machine()}; load average before the run: {before}.")


if __name__ == "__main__":
    main()
