"""`ampcheck server` end to end: a real LSP client (pytest-lsp) talks to the server in a
subprocess over stdio, on a copy of fixtures/server/project/."""
from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.server.lsp import (
    actions_on,
    apply,
    codes,
    copy_project,
    diagnostics,
    edits_of,
    initialize_params,
    notebook_cells,
    open_file,
    replace,
)

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "ampcheck", "server"])
DEPRECATED = "torch.cuda.amp.autocast()"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path)


async def session(lsp_client: LanguageClient, project: Path, spec: str):
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        return None

    await lsp_client.initialize_session(initialize_params(project, client_capabilities(spec)))
    yield
    await lsp_client.shutdown_session()
    assert lsp_client._server is not None and lsp_client._server.returncode == 0  # shutdown, then exit


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, project: Path):
    """Neovim 0.7's capabilities: diagnostics pushed, plain workspace edits."""
    async for _ in session(lsp_client, project, "neovim@v0.7.0"):
        yield


@pytest_lsp.fixture(config=SERVER)
async def eglot(lsp_client: LanguageClient, project: Path):
    """Emacs eglot's capabilities: diagnostics pushed, versioned edits, file watching."""
    async for _ in session(lsp_client, project, "emacs@v29.1"):
        yield


@pytest_lsp.fixture(config=SERVER)
async def pulling(lsp_client: LanguageClient, project: Path):
    """Neovim 0.11's capabilities: diagnostics pulled."""
    async for _ in session(lsp_client, project, "neovim@v0.11.0"):
        yield


async def test_the_unsaved_buffer_is_linted_not_the_file(client: LanguageClient, project: Path) -> None:
    path = project / "train.py"
    text = path.read_text() + "\nlegacy_scaler = torch.cuda.amp.GradScaler()\n"
    uri = open_file(client, path, text)
    found = await diagnostics(client, uri)
    assert codes(found) == ["AMP109", "AMP401", "AMP402"]
    amp402 = next(d for d in found if d.code == "AMP402")
    assert amp402.range.start == types.Position(line=text.count("\n") - 1, character=16)
    assert amp402.source == "ampcheck" and amp402.severity == types.DiagnosticSeverity.Warning


async def test_an_edit_that_removes_the_mistake_clears_its_finding(client: LanguageClient, project: Path) -> None:
    path = project / "train.py"
    uri = open_file(client, path)
    await diagnostics(client, uri, lambda found: "AMP401" in found)
    replace(client, uri, 2, path.read_text(), DEPRECATED, 'torch.amp.autocast("cuda")')
    found = await diagnostics(client, uri, lambda found: "AMP401" not in found)
    assert codes(found) == ["AMP109"]


async def test_the_quick_fix_for_amp401_rewrites_the_call(eglot: LanguageClient, project: Path) -> None:
    path = project / "train.py"
    text = path.read_text()
    uri = open_file(eglot, path)
    found = await diagnostics(eglot, uri, lambda found: "AMP401" in found)
    got = await actions_on(eglot, uri, next(d for d in found if d.code == "AMP401"))
    fix = next(a for a in got if a.kind == types.CodeActionKind.QuickFix and "AMP401" in a.title and a.is_preferred)
    assert "unsafe" not in fix.title
    assert fix.edit is not None and fix.edit.document_changes[0].text_document.version == 1
    fixed = apply(text, edits_of(fix, uri))
    assert fixed == text.replace(DEPRECATED, 'torch.amp.autocast("cuda")')


async def test_fix_all_applies_what_lint_fix_applies(client: LanguageClient, project: Path, tmp_path: Path) -> None:
    path = project / "train.py"
    text = path.read_text()
    uri = open_file(client, path)
    await diagnostics(client, uri, lambda found: "AMP401" in found)
    got = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
        context=types.CodeActionContext(diagnostics=[], only=["source.fixAll.ampcheck"]),
    ))
    assert [a.kind for a in got] == ["source.fixAll.ampcheck"]
    cli_copy = copy_project(tmp_path / "cli") / "train.py"
    subprocess.run([sys.executable, "-m", "ampcheck", "lint", "--fix", "--no-cache", str(cli_copy)], capture_output=True, check=False)
    assert apply(text, edits_of(got[0], uri)) == cli_copy.read_text() != text
    assert path.read_text() == text  # the server never writes the user's file


async def test_the_ignore_action_adds_a_noqa_that_silences_the_finding(client: LanguageClient, project: Path) -> None:
    path = project / "train.py"
    text = path.read_text()
    uri = open_file(client, path)
    found = await diagnostics(client, uri, lambda found: "AMP109" in found)
    amp109 = next(d for d in found if d.code == "AMP109")
    got = await actions_on(client, uri, amp109)
    ignore = next(a for a in got if a.title == "Ignore AMP109 on this line")
    ignored = apply(text, edits_of(ignore, uri))
    line = ignored.splitlines()[amp109.range.start.line]
    assert line.endswith('f"G_{epoch}.pth")  # expect: AMP109  # noqa: AMP109')
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=ignored)],
    ))
    found = await diagnostics(client, uri, lambda found: "AMP109" not in found)
    assert codes(found) == ["AMP401"]


async def test_hover_shows_the_rule_doc_on_a_finding_and_in_a_noqa(client: LanguageClient, project: Path) -> None:
    path = project / "train.py"
    text = path.read_text().replace("# expect: AMP109", "# noqa: E501, AMP109")
    uri = open_file(client, path, text)
    found = await diagnostics(client, uri, lambda found: "AMP401" in found)
    amp401 = next(d for d in found if d.code == "AMP401")
    on_finding = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=amp401.range.start,
    ))
    assert on_finding is not None and on_finding.contents.kind == types.MarkupKind.Markdown
    doc = on_finding.contents.value
    assert doc.startswith("## AMP401 deprecated-cuda-autocast")
    for section in ("### What it does", "### Why is this bad", "### Example", "### Use instead"):
        assert section in doc
    line = next(i for i, t in enumerate(text.splitlines()) if "noqa: E501, AMP109" in t)
    column = text.splitlines()[line].index("AMP109") + 2
    in_noqa = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=column),
    ))
    assert in_noqa is not None and in_noqa.contents.value.startswith("## AMP109 scaler-state-not-checkpointed")


async def test_editing_an_imported_helper_rechecks_the_file_that_calls_it(client: LanguageClient, project: Path) -> None:
    train = open_file(client, project / "train.py")
    await diagnostics(client, train, lambda found: "AMP109" in found)
    helper_path = project / "utils.py"
    helper = open_file(client, helper_path)
    await diagnostics(client, helper)  # on its own the helper cannot tell its `scaler` is a GradScaler: the caller's AMP109
    old = '"optimizer": optimizer.state_dict(),'
    replace(client, helper, 2, helper_path.read_text(), old, old + '\n        "scaler": scaler.state_dict(),')
    found = await diagnostics(client, train, lambda found: "AMP109" not in found)
    assert codes(found) == ["AMP401"]
    assert '"scaler"' not in helper_path.read_text()  # unsaved: only the buffer has it


async def test_a_notebook_is_linted_cell_by_cell(client: LanguageClient, project: Path) -> None:
    notebook = (project / "explore.ipynb").as_uri()
    cells = notebook_cells(project / "explore.ipynb")
    uris = [f"{notebook}#cell{i}" for i in range(len(cells))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=notebook, notebook_type="jupyter-notebook", version=1,
            cells=[types.NotebookCell(kind=kind, document=uri) for (kind, _), uri in zip(cells, uris)],
        ),
        cell_text_documents=[
            types.TextDocumentItem(uri=uri, language_id="python" if kind == types.NotebookCellKind.Code else "markdown", version=1, text=text)
            for (kind, text), uri in zip(cells, uris) if kind == types.NotebookCellKind.Code
        ],
    ))
    scaler_cell = await diagnostics(client, uris[2], lambda found: bool(found))
    assert codes(scaler_cell) == ["AMP402"]
    assert scaler_cell[0].range.start == types.Position(line=0, character=9)
    assert await diagnostics(client, uris[1]) == []  # `%matplotlib inline` is IPython, not an error
    assert await diagnostics(client, uris[3]) == []


async def test_a_syntax_error_mid_edit_is_one_amp001_and_the_server_carries_on(client: LanguageClient, project: Path) -> None:
    path = project / "train.py"
    uri = open_file(client, path)
    await diagnostics(client, uri, lambda found: "AMP401" in found)
    half = replace(client, uri, 2, path.read_text(), "scaler.update()", "scaler.update(")
    found = await diagnostics(client, uri, lambda found: "AMP001" in found)
    assert codes(found) == ["AMP001"]
    replace(client, uri, 3, half, "scaler.update(", "scaler.update()")
    found = await diagnostics(client, uri, lambda found: "AMP001" not in found)
    assert codes(found) == ["AMP109", "AMP401"]


async def test_a_change_older_than_the_buffer_is_ignored(client: LanguageClient, project: Path) -> None:
    path = project / "train.py"
    text = path.read_text()
    uri = open_file(client, path)
    fixed = replace(client, uri, 5, text, DEPRECATED, 'torch.amp.autocast("cuda")')
    replace(client, uri, 3, fixed, "import torch\n", "")  # stale: version 3 after 5
    found = await diagnostics(client, uri, lambda found: "AMP401" not in found)
    assert codes(found) == ["AMP109"]


async def test_closing_a_document_clears_its_diagnostics(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "train.py")
    await diagnostics(client, uri, lambda found: bool(found))
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert await diagnostics(client, uri, lambda found: not found) == []


async def test_a_pulling_client_gets_diagnostics_by_request_and_none_pushed(pulling: LanguageClient, project: Path) -> None:
    uri = open_file(pulling, project / "train.py")
    report = await pulling.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
    ))
    assert report.kind == "full" and codes(report.items) == ["AMP109", "AMP401"]
    again = await pulling.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id,
    ))
    assert again.kind == "unchanged"
    assert uri not in pulling.diagnostics


def test_without_pygls_the_command_says_what_to_install_in_one_line() -> None:
    script = "import sys; sys.modules['pygls'] = None; from ampcheck.cli import main; main(['server'])"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "ampcheck: error: the language server needs pygls: pip install 'ampcheck[server]'\n"


async def test_a_cancelled_request_is_answered_as_cancelled_and_the_server_carries_on(client: LanguageClient, project: Path) -> None:
    path = project / "train.py"
    long = path.read_text() + "".join(f"\n\ndef helper_{i}(x):\n    return x * {i}\n" for i in range(500))
    uri = open_file(client, path, long)  # seconds to analyse: the hover waits for it
    position = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=12, character=20))
    pending = asyncio.ensure_future(client.protocol.send_request_async(types.TEXT_DOCUMENT_HOVER, position, msg_id="hover-to-cancel"))
    await asyncio.sleep(0.1)  # sent, and waiting for the analysis
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="hover-to-cancel"))
    with pytest.raises(JsonRpcRequestCancelled):
        await pending
    answered = await client.text_document_hover_async(position)
    assert answered is not None and answered.contents.value.startswith("## AMP401")


async def test_a_changed_config_applies_to_open_files_as_in_the_cli(eglot: LanguageClient, project: Path) -> None:
    uri = open_file(eglot, project / "train.py")
    await diagnostics(eglot, uri, lambda found: "AMP401" in found)
    config = project / "pyproject.toml"
    config.write_text(config.read_text() + 'per-file-ignores = { "train.py" = ["AMP4"] }\n')
    eglot.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)],
    ))
    found = await diagnostics(eglot, uri, lambda found: "AMP401" not in found)
    assert codes(found) == ["AMP109"]


async def test_a_document_that_is_not_python_is_not_linted(client: LanguageClient, project: Path) -> None:
    notes = project / "NOTES.md"
    notes.write_text("with torch.cuda.amp.autocast():\n    pass\n")
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=notes.as_uri(), language_id="markdown", version=1, text=notes.read_text(),
    )))
    uri = open_file(client, project / "train.py")
    await diagnostics(client, uri, lambda found: "AMP401" in found)  # opened after, answered after
    assert notes.as_uri() not in client.diagnostics
