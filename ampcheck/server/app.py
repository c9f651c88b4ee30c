"""The pygls language server: documents in, diagnostics, code actions and hovers out.

A *target* is what one analysis reads: a Python document, or a notebook (all its cells,
read as the CLI reads a notebook file). Its analyses run one at a time on a worker thread,
so the event loop keeps reading messages (changes, cancellations) while one runs; an edit
is analysed after a short quiet spell (the debounce), an open or a save at once, and a
request that needs findings (pull diagnostics, a code action, a hover) waits for the
analysis of the version it is about, never for a newer one.

Diagnostics are pulled (`textDocument/diagnostic`) by a client that says it can, and pushed
(`publishDiagnostics`) to any other, never both. Findings are never published for a version
older than the document's current one. When a file changes (a buffer edited, a file saved
or changed on disk), the open files whose last analysis read it are checked again.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Optional
from urllib.parse import unquote

from lsprotocol import types

from ampcheck import __version__
from ampcheck.findings import Finding
from ampcheck.server import actions, convert, hover
from ampcheck.server.session import CONFIG_FILE, Checked, Session
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec

DEBOUNCE_S = 0.2  # quiet time after an edit before it is analysed
WATCHED = ("**/*.py", f"**/{CONFIG_FILE}")
logger = logging.getLogger(__name__)


class Protocol(LanguageServerProtocol):
    """pygls' protocol, refusing a change older than the document it would apply to: an
    incremental change applied to the wrong text would corrupt the buffer for good."""

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        known = self.workspace.text_documents.get(unquote(params.text_document.uri))
        if known is not None and known.version is not None and params.text_document.version is not None:
            if params.text_document.version <= known.version:
                logger.warning("ignoring change to %s: version %s after %s", params.text_document.uri, params.text_document.version, known.version)
                return
        yield from super().lsp_text_document__did_change(params)


@dataclass
class Snapshot:
    """A target's content at one version."""

    target: str  # the document's or the notebook's URI
    path: str
    version: Optional[int]
    content: str  # Python, or the notebook's JSON
    cells: list[tuple[str, str, Optional[int]]] = field(default_factory=list)  # a notebook's code cells: URI, text, version


@dataclass
class Result:
    """One analysis, as the client sees it: per document URI (a notebook's cells each have
    one), the text it was computed on and its findings paired with their diagnostics."""

    version: Optional[int]
    checked: Checked
    texts: dict[str, tuple[str, Optional[int]]]  # URI -> the text analysed and its version
    found: dict[str, list[tuple[Finding, types.Diagnostic]]]
    stale: bool = False  # a file it read has changed since

    def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        return [d for _, d in self.found.get(uri, [])]


class AmpcheckServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "ampcheck", __version__, protocol_cls=Protocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[types.NotebookDocumentFilterWithCells(
                    notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")],
                )],
                save=True,
            ),
        )
        self.session = Session([])
        self.pull = False  # the client pulls diagnostics
        self.debounce = DEBOUNCE_S
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ampcheck-lint")
        self.results: dict[str, Result] = {}
        self.running: dict[str, tuple[Optional[int], "asyncio.Future[Result]"]] = {}
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.python: set[str] = set()  # the open text documents that are Python (the others are not linted)

    # -- targets -------------------------------------------------------------------------------------
    def target_of(self, uri: str) -> str:
        """The target a document belongs to: its notebook for a cell, else itself."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        return notebook.uri if notebook is not None else uri

    def snapshot(self, target: str) -> Optional[Snapshot]:
        """The target's current content; None once it is closed."""
        notebook = self.workspace.get_notebook_document(notebook_uri=target)
        if notebook is not None:
            cells, raw = [], []
            for cell in notebook.cells:
                doc = self.open_document(cell.document)
                text = doc.source if doc is not None else ""
                if cell.kind == types.NotebookCellKind.Code:
                    cells.append((cell.document, text, doc.version if doc is not None else None))
                    language = doc.language_id if doc is not None and doc.language_id else "python"
                    raw.append({"cell_type": "code", "source": text, "metadata": {"vscode": {"languageId": language}}})
                else:
                    raw.append({"cell_type": "markdown", "source": text, "metadata": {}})
            content = json.dumps({"cells": raw, "metadata": {"language_info": {"name": "python"}}})
            return Snapshot(target, self.path_of(target, ".ipynb"), notebook.version, content, cells)
        doc = self.open_document(target)
        if doc is None:
            return None
        return Snapshot(target, self.path_of(target, ".py"), doc.version, doc.source)

    def open_document(self, uri: str) -> Optional[TextDocument]:
        return self.workspace.text_documents.get(unquote(uri))

    def path_of(self, uri: str, suffix: str) -> str:
        """The file a document stands for; an unsaved (`untitled:`) one is taken to be a new
        file of the first workspace folder."""
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if path is not None:
            return os.path.abspath(path)
        folder = self.session.folders[0] if self.session.folders else os.getcwd()
        name = "".join(c if c.isalnum() else "_" for c in uri.rsplit("/", 1)[-1]) or "untitled"
        return os.path.join(folder, name if name.endswith(suffix) else name + suffix)

    def codec(self) -> PositionCodec:
        return self.workspace.position_codec

    # -- analysis ------------------------------------------------------------------------------------
    async def result(self, target: str) -> Optional[Result]:
        """The findings of the target's current version: the last analysis when it is of
        that version, else a new one (or the one already running for it)."""
        snap = self.snapshot(target)
        if snap is None:
            return None
        done = self.results.get(target)
        if done is not None and done.version == snap.version and not done.stale:
            return done
        running = self.running.get(target)
        if running is None or running[0] != snap.version:
            running = (snap.version, self._start(snap))
            self.running[target] = running
        return await asyncio.shield(running[1])

    def _start(self, snap: Snapshot) -> "asyncio.Future[Result]":
        self._cancel_timer(snap.target)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.worker, self._analyse, snap)

        def finished(fut: "asyncio.Future[Result]") -> None:
            if self.running.get(snap.target, (None, None))[1] is fut:
                del self.running[snap.target]
            if fut.cancelled() or fut.exception() is not None:
                return
            current = self.snapshot(snap.target)
            if current is not None and current.version == snap.version:
                self.results[snap.target] = fut.result()
                for line in fut.result().checked.problems:
                    self.window_log_message(types.LogMessageParams(type=types.MessageType.Warning, message=f"ampcheck: {line}"))

        future.add_done_callback(finished)
        return future

    def _analyse(self, snap: Snapshot) -> Result:
        """On the worker thread: check the snapshot and convert its findings. A failure
        costs this target's findings (and says so in the log), never the server."""
        try:
            return self._convert(snap, self.session.check(snap.path, snap.content))
        except Exception as err:
            checked = Checked(snap.path, snap.content, problems=[f"{snap.path}: internal error: {type(err).__name__}: {err}"])
            return Result(snap.version, checked, {}, {})

    def _convert(self, snap: Snapshot, checked: Checked) -> Result:
        codec = self.codec()
        if not snap.cells:
            lines = snap.content.splitlines(keepends=True)
            found = [(f, convert.diagnostic(f, lines, codec)) for f in checked.findings]
            return Result(snap.version, checked, {snap.target: (snap.content, snap.version)}, {snap.target: found})
        notebook = self.workspace.get_notebook_document(notebook_uri=snap.target)
        uris = [c.document for c in notebook.cells] if notebook is not None else []
        texts = {uri: (text, version) for uri, text, version in snap.cells}
        by_cell: dict[str, list[tuple[Finding, types.Diagnostic]]] = {uri: [] for uri in texts}
        for f in checked.findings:
            uri = uris[f.cell - 1] if f.cell is not None and 0 < f.cell <= len(uris) else None
            if uri in texts:
                by_cell[uri].append((f, convert.diagnostic(f, texts[uri][0].splitlines(keepends=True), codec)))
        return Result(snap.version, checked, texts, by_cell)

    def schedule(self, target: str, delay: float) -> None:
        """Analyse the target after `delay` seconds of quiet and push its diagnostics (a
        pulling client is asked to pull instead)."""
        if self.pull:
            self.refresh()
            return
        self._cancel_timer(target)
        loop = asyncio.get_running_loop()
        self.timers[target] = loop.call_later(delay, lambda: asyncio.ensure_future(self.push(target)))

    def _cancel_timer(self, target: str) -> None:
        timer = self.timers.pop(target, None)
        if timer is not None:
            timer.cancel()

    async def push(self, target: str) -> None:
        self.timers.pop(target, None)
        result = await self.result(target)
        current = self.snapshot(target)
        if result is None or current is None or current.version != result.version:
            return  # closed, or edited meanwhile: the newer version's analysis publishes
        for uri in result.found:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, diagnostics=result.diagnostics(uri), version=result.texts[uri][1],
            ))

    def refresh(self) -> None:
        """Ask a pulling client to pull again (when it can be asked)."""
        workspace = self.client_capabilities.workspace
        diagnostics = workspace.diagnostics if workspace is not None else None
        if diagnostics is not None and diagnostics.refresh_support:
            self.workspace_diagnostic_refresh(None)

    def files_changed(self, paths: list[str]) -> None:
        """Re-check the open targets whose last analysis read any of `paths`."""
        touched = {p for path in paths for p in self.session.dependents(path)}
        self._recheck([t for t, r in self.results.items() if r.checked.path in touched])

    def files_changed_all(self) -> None:
        """Re-check every open target (the settings, or where imports lead, changed)."""
        self._recheck(list(self.results))

    def _recheck(self, targets: list[str]) -> None:
        for target in targets:
            self.results[target].stale = True
            self.schedule(target, self.debounce)

    def document(self, uri: str, result: Result) -> actions.Document:
        """The document of `uri` as `result` analysed it, for edits to it."""
        text, version = result.texts[uri]
        workspace = self.client_capabilities.workspace
        edit = workspace.workspace_edit if workspace is not None else None
        versioned = bool(edit is not None and edit.document_changes)
        return actions.Document(uri, version, text, self.codec(), versioned)

    def forget(self, target: str, uris: list[str]) -> None:
        """A target was closed: drop what is known of it and clear what was pushed."""
        self._cancel_timer(target)
        self.results.pop(target, None)
        if not self.pull:
            for uri in uris:
                self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


server = AmpcheckServer()


def _options(params: types.InitializeParams) -> dict[str, Any]:
    options = params.initialization_options
    return options if isinstance(options, dict) else {}


@server.feature(types.INITIALIZE)
def initialize(ls: AmpcheckServer, params: types.InitializeParams) -> None:
    folders = [to_fs_path(f.uri) for f in params.workspace_folders or []]
    if not folders and params.root_uri:
        folders = [to_fs_path(params.root_uri)]
    elif not folders and params.root_path:
        folders = [params.root_path]
    ls.session = Session([f for f in folders if f])
    text = params.capabilities.text_document
    ls.pull = text is not None and text.diagnostic is not None
    debounce = _options(params).get("debounce_ms")
    if isinstance(debounce, (int, float)) and debounce >= 0:
        ls.debounce = debounce / 1000


@server.feature(types.INITIALIZED)
async def initialized(ls: AmpcheckServer, params: types.InitializedParams) -> None:
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    if watched is None or not watched.dynamic_registration:
        return  # saves in the editor are still seen
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=g) for g in WATCHED]
    )
    registration = types.Registration(id="ampcheck-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options)
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
    except Exception as err:  # the client may refuse; saves are still seen
        logger.info("file watching not registered: %s", err)


@server.feature(types.SHUTDOWN)
def shutdown(ls: AmpcheckServer, params: Any) -> None:
    for target in list(ls.timers):
        ls._cancel_timer(target)
    ls.worker.shutdown(wait=False, cancel_futures=True)


# -- documents -------------------------------------------------------------------------------------
@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: AmpcheckServer, params: types.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    if ls.workspace.get_notebook_document(cell_uri=doc.uri) is not None:
        return  # a cell: its notebook is the target
    if doc.language_id != "python" and not doc.uri.endswith(".py"):
        return  # a client that sends every document: only Python is linted
    ls.python.add(doc.uri)
    snap = ls.snapshot(doc.uri)
    if snap is not None:
        ls.session.open(snap.path, snap.content)
        ls.files_changed([snap.path])
        ls.schedule(snap.target, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: AmpcheckServer, params: types.DidChangeTextDocumentParams) -> None:
    target = ls.target_of(params.text_document.uri)
    snap = ls.snapshot(target) if target in ls.python or target != params.text_document.uri else None
    if snap is None:
        return
    if not snap.cells:
        ls.session.edit(snap.path, snap.content)
        ls.files_changed([snap.path])
    ls.schedule(target, ls.debounce)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: AmpcheckServer, params: types.DidSaveTextDocumentParams) -> None:
    target = ls.target_of(params.text_document.uri)
    path = ls.path_of(target, ".py")
    ls.session.changed(path)
    if os.path.basename(path) == CONFIG_FILE:
        ls.files_changed_all()
        return
    ls.files_changed([path])
    if target in ls.results:
        ls.results[target].stale = True
        ls.schedule(target, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: AmpcheckServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    if uri not in ls.python:
        return  # a cell (its notebook closes it) or a document that was never linted
    ls.python.discard(uri)
    path = ls.path_of(uri, ".py")
    ls.session.close(path)
    ls.forget(uri, [uri])
    ls.files_changed([path])


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
def notebook_open(ls: AmpcheckServer, params: types.DidOpenNotebookDocumentParams) -> None:
    ls.schedule(params.notebook_document.uri, 0)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
def notebook_change(ls: AmpcheckServer, params: types.DidChangeNotebookDocumentParams) -> None:
    uri = params.notebook_document.uri
    cells = params.change.cells
    closed = [c.uri for c in (cells.structure.did_close or [])] if cells is not None and cells.structure else []
    if closed and not ls.pull:
        for cell in closed:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell, diagnostics=[]))
    ls.schedule(uri, ls.debounce)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
def notebook_save(ls: AmpcheckServer, params: types.DidSaveNotebookDocumentParams) -> None:
    ls.schedule(params.notebook_document.uri, 0)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
def notebook_close(ls: AmpcheckServer, params: types.DidCloseNotebookDocumentParams) -> None:
    ls.forget(params.notebook_document.uri, [c.uri for c in params.cell_text_documents])


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def watched_files(ls: AmpcheckServer, params: types.DidChangeWatchedFilesParams) -> None:
    paths = []
    for event in params.changes:
        path = to_fs_path(event.uri)
        if path is None:
            continue
        ls.session.changed(path, event.type != types.FileChangeType.Changed)
        if os.path.basename(path) == CONFIG_FILE or event.type != types.FileChangeType.Changed:
            ls.files_changed_all()  # settings, or where imports lead, may have changed
            return
        paths.append(path)
    ls.files_changed(paths)


# -- requests --------------------------------------------------------------------------------------
@server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(inter_file_dependencies=True, workspace_diagnostics=False, identifier="ampcheck"))
async def diagnostic(ls: AmpcheckServer, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
    uri = params.text_document.uri
    result = await ls.result(ls.target_of(uri))
    if result is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    result_id = f"{result.version}:{id(result)}"
    if params.previous_result_id == result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return types.RelatedFullDocumentDiagnosticReport(items=result.diagnostics(uri), result_id=result_id)


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=actions.KINDS, resolve_provider=False))
async def code_action(ls: AmpcheckServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    target = ls.target_of(uri)
    result = await ls.result(target)
    if result is None or uri not in result.texts:
        return []
    doc = ls.document(uri, result)
    out: list[types.CodeAction] = []
    if actions.wanted(params.context, types.CodeActionKind.QuickFix):
        start = (params.range.start.line, params.range.start.character)
        end = (params.range.end.line, params.range.end.character)
        hit = [(f, d) for f, d in result.found.get(uri, []) if _overlaps(d.range, start, end)]
        out += actions.quick_fixes(doc, hit)
    if actions.wanted(params.context, actions.FIX_ALL) and target == uri:
        fixed = await asyncio.get_running_loop().run_in_executor(ls.worker, ls.session.fix_all, result.checked.path, result.texts[uri][0])
        current = ls.snapshot(target)
        if fixed is not None and current is not None and current.version == result.version:
            out.append(actions.fix_all(doc, fixed))
    return out


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def on_hover(ls: AmpcheckServer, params: types.HoverParams) -> Optional[types.Hover]:
    uri = params.text_document.uri
    result = await ls.result(ls.target_of(uri))
    if result is None or uri not in result.texts:
        return None
    text = result.texts[uri][0]
    lines = text.splitlines(keepends=True)
    if params.position.line >= len(lines):
        return None
    column = ls.codec().position_from_client_units(lines, params.position).character
    findings = [f for f, _ in result.found.get(uri, [])]
    docs = [hover.markdown(code) for code in hover.codes_at(text, findings, params.position.line + 1, column + 1)]
    value = "\n---\n\n".join(d for d in docs if d)
    if not value:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value))


def _overlaps(r: types.Range, start: tuple[int, int], end: tuple[int, int]) -> bool:
    return (r.start.line, r.start.character) <= end and start <= (r.end.line, r.end.character)


def serve() -> None:
    """Run the server over stdin/stdout until the client says exit."""
    logging.basicConfig(level=logging.WARNING, format="ampcheck server: %(message)s")
    server.start_io()
