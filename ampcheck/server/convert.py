"""Findings as LSP diagnostics, and ampcheck's text edits as LSP text edits.

ampcheck counts lines from 1 and columns in characters from 1; LSP counts both from 0 and
columns in the code units the client and server agreed on (UTF-16 unless told otherwise),
so every position goes through the document's lines and pygls' position codec.
"""
from __future__ import annotations

from typing import Optional, Sequence

from lsprotocol import types

from ampcheck import catalog
from ampcheck.findings import Edit, Finding
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

SOURCE = "ampcheck"

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}


def severity(code: str) -> types.DiagnosticSeverity:
    doc = catalog.load().get(code)
    return _SEVERITY[doc.severity] if doc is not None else types.DiagnosticSeverity.Error


def position(lines: Sequence[str], line: int, col: int, codec: PositionCodec) -> types.Position:
    """The LSP position of 1-based (line, character column)."""
    return codec.position_to_client_units(lines, ServerTextPosition(max(line - 1, 0), max(col - 1, 0)))


def diagnostic(finding: Finding, lines: Sequence[str], codec: PositionCodec) -> types.Diagnostic:
    start = position(lines, finding.line, finding.col, codec)
    end = position(lines, finding.end_line, finding.end_col, codec)
    message = finding.message
    if finding.fix is not None and finding.fix.applicability == "unsafe":
        message += " (unsafe fix available)"
    return types.Diagnostic(
        range=types.Range(start=start, end=end),
        message=message,
        severity=severity(finding.code),
        code=finding.code,
        source=SOURCE,
    )


def text_edit(edit: Edit, lines: Sequence[str], codec: PositionCodec) -> types.TextEdit:
    return types.TextEdit(
        range=types.Range(
            start=position(lines, edit.row, edit.column, codec),
            end=position(lines, edit.end_row, edit.end_column, codec),
        ),
        new_text=edit.content,
    )


def whole(lines: Sequence[str], codec: PositionCodec) -> types.Range:
    """The range of the whole document."""
    if lines and not lines[-1].endswith(("\n", "\r")):
        end = position(lines, len(lines), len(lines[-1]) + 1, codec)
    else:
        end = types.Position(line=len(lines), character=0)
    return types.Range(start=types.Position(line=0, character=0), end=end)


def workspace_edit(
    uri: str, version: Optional[int], edits: list[types.TextEdit], versioned: bool
) -> types.WorkspaceEdit:
    """Edits of one document; tied to the version they were computed on when the client
    takes versioned edits, so an editor that has moved on refuses them."""
    if versioned:
        document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=document, edits=edits)])
    return types.WorkspaceEdit(changes={uri: edits})
