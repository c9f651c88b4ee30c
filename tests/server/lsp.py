"""What the language-server tests share: the fixture project copied to a temporary folder,
and a real LSP client's moves (open, edit, wait for diagnostics, apply an edit)."""
from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Callable, Optional, Sequence

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.paths import FIXTURES

PROJECT = FIXTURES / "server" / "project"
# Analyses on a loaded 2-core machine take seconds; a test fails only when nothing comes.
WAIT_S = 60.0


def copy_project(tmp_path: Path) -> Path:
    dest = tmp_path / "project"
    shutil.copytree(PROJECT, dest)
    return dest


def initialize_params(root: Path, capabilities: types.ClientCapabilities) -> types.InitializeParams:
    return types.InitializeParams(
        capabilities=capabilities,
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        initialization_options={"debounce_ms": 0},
    )


def open_file(client: LanguageClient, path: Path, text: Optional[str] = None) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=path.read_text() if text is None else text,
    )))
    return uri


def replace(client: LanguageClient, uri: str, version: int, text: str, old: str, new: str) -> str:
    """Send the incremental change that replaces the first `old` in `text` with `new`; returns
    the new text."""
    offset = text.index(old)
    start = position_at(text, offset)
    end = position_at(text, offset + len(old))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=start, end=end), text=new)],
    ))
    return text[:offset] + new + text[offset + len(old):]


def position_at(text: str, offset: int) -> types.Position:
    before = text[:offset]
    return types.Position(line=before.count("\n"), character=len(before) - (before.rfind("\n") + 1))


def offset_of(text: str, pos: types.Position) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(line) for line in lines[: pos.line]) + pos.character


def apply(text: str, edits: Sequence[types.TextEdit]) -> str:
    """`text` with LSP edits applied (ASCII text: characters are UTF-16 units)."""
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = offset_of(text, edit.range.start), offset_of(text, edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


async def actions_on(client: LanguageClient, uri: str, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    """The code actions the server offers on a diagnostic's range."""
    got = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic]),
    ))
    return [a for a in got or [] if isinstance(a, types.CodeAction)]


def edits_of(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    assert action.edit is not None
    if action.edit.document_changes:
        return [e for change in action.edit.document_changes if change.text_document.uri == uri for e in change.edits]
    return list((action.edit.changes or {}).get(uri, []))


async def diagnostics(
    client: LanguageClient, uri: str, until: Callable[[list[str]], bool] = lambda codes: True
) -> list[types.Diagnostic]:
    """The diagnostics pushed for `uri` once their codes satisfy `until`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while loop.time() < deadline:
        found = client.diagnostics.get(uri)
        if found is not None and until([str(d.code) for d in found]):
            return list(found)
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics for {uri} as expected; last: {client.diagnostics.get(uri)}")


def codes(found: Sequence[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in found)


def notebook_cells(path: Path) -> list[tuple[types.NotebookCellKind, str]]:
    """The cells of a notebook file as an editor sends them: (kind, text)."""
    cells = json.loads(path.read_text())["cells"]
    kinds = {"code": types.NotebookCellKind.Code, "markdown": types.NotebookCellKind.Markup}
    return [(kinds[c["cell_type"]], "".join(c["source"])) for c in cells]
