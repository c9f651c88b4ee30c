"""Language-server latency: from `didChange` to the diagnostics of that version, for a
1,000-line training script in a 500-file project (bench/lsp_project.py writes it to a
temporary folder), over a series of small edits of the kinds people make while typing.

The server is the real `ampcheck server` in a subprocess, driven over stdio by pygls'
client; its debounce is set to 0 so the figure is the server's work, not its wait. The
first diagnostics after `didOpen` (the cold analysis: the project's summaries read or
built) are reported apart from the edits. Beside the wall time, the CPU time the server
process spent on each edit (from /proc) is reported: on a shared machine the wall time
grows with the load, the CPU time much less.

    python bench/lsp_bench.py                          # prints the table
    python bench/lsp_bench.py --edits 50 --results bench/RESULTS.md
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import lsp_project  # noqa: E402  (bench scripts are run as files, not as a package)
from procstats import load_average, machine  # noqa: E402
from results_md import splice  # noqa: E402

TIMEOUT_S = 300.0


@dataclass(frozen=True)
class Edit:
    """Replace `old` by `new` at the first place after `after` (so edits spread over the file)."""

    after: str
    old: str
    new: str


def edits(text: str, count: int) -> list[Edit]:
    """Edits that change what the code does a little, each at another place of the script:
    a literal in a stage, a statement typed into a training loop, a comment."""
    stages = text.count("\nclass Stage")
    out = []
    for i in range(count):
        n = (i * 7) % stages
        kind = i % 3
        if kind == 0:
            out.append(Edit(f"class Stage{n}(", "nn.Dropout(0.1)", f"nn.Dropout(0.{i % 9 + 1})"))
        elif kind == 1:
            out.append(Edit(f"def train_stage_{n}(", "    model.train()\n", f"    model.train()\n    seen_{i} = {i}\n"))
        else:
            out.append(Edit(f"def evaluate_stage_{n}(", "    total = 0.0\n", f"    total = 0.0  # edit {i}\n"))
    return out


class Session:
    """One client connected to one server, remembering when each version's diagnostics came."""

    def __init__(self) -> None:
        self.client = LanguageClient("ampcheck-lsp-bench", "1")
        self.arrived: dict[int, float] = {}
        self.event = asyncio.Event()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            if params.version is not None:
                self.arrived[params.version] = time.perf_counter()
                self.event.set()

    async def wait(self, version: int) -> float:
        deadline = time.perf_counter() + TIMEOUT_S
        while version not in self.arrived:
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), deadline - time.perf_counter())
        return self.arrived[version]


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(project: Path, script: Path, count: int) -> tuple[float, list[float], list[float]]:
    session = Session()
    client = session.client
    await client.start_io(sys.executable, "-m", "ampcheck", "server")
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(),
        root_uri=project.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="bench")],
        initialization_options={"debounce_ms": 0},
    ))
    client.initialized(types.InitializedParams())
    uri = script.as_uri()
    text = script.read_text()
    start = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text),
    ))
    cold = await session.wait(1) - start
    assert client._server is not None
    pid = client._server.pid
    latencies, cpu = [], []
    for version, edit in enumerate(edits(text, count), start=2):
        offset = text.index(edit.old, text.index(edit.after))
        rng = types.Range(start=_position(text, offset), end=_position(text, offset + len(edit.old)))
        text = text[:offset] + edit.new + text[offset + len(edit.old):]
        sent, used = time.perf_counter(), cpu_seconds(pid)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(range=rng, text=edit.new)],
        ))
        latencies.append(await session.wait(version) - sent)
        cpu.append(cpu_seconds(pid) - used)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return cold, latencies, cpu


def _position(text: str, offset: int) -> types.Position:
    before = text[:offset]
    return types.Position(line=before.count("\n"), character=len(before) - (before.rfind("\n") + 1))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def row(cold: float, latencies: list[float], cpu: list[float], lines: int, label: str) -> str:
    ms, cpu_ms = [v * 1000 for v in latencies], [v * 1000 for v in cpu]
    return (
        f"| {label} | {lines} | {len(ms)} | {cold * 1000:.0f} ms | {statistics.median(ms):.0f} ms "
        f"| {percentile(ms, 0.95):.0f} ms | {max(ms):.0f} ms | {statistics.median(cpu_ms):.0f} ms "
        f"| {percentile(cpu_ms, 0.95):.0f} ms |"
    )


HEADER = (
    "| server | script lines | edits | cold open | p50 | p95 | max | server CPU p50 | server CPU p95 |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--label", default="ampcheck server", help="the row's name (e.g. the commit measured)")
    parser.add_argument("--results", type=Path, help="splice the table into this Markdown file")
    parser.add_argument("--table", default="lsp", help="the name of the table's block in --results")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ampcheck-lsp-bench-") as tmp:
        project = Path(tmp)
        script = lsp_project.make_project(project, args.lines)
        lines = script.read_text().count("\n")
        before = load_average()
        cold, latencies, cpu = asyncio.run(measure(project, script, args.edits))
    text = f"{HEADER}\n{row(cold, latencies, cpu, lines, args.label)}"
    text += f"\n\nMachine: {machine()}; load average before the run: {before}."
    print(text)
    if args.results is not None:
        splice(args.results, args.table, text)


if __name__ == "__main__":
    main()
