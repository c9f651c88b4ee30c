"""Code actions on a document's findings: each fix as a quick fix (a safe one preferred, an
unsafe one labelled and never preferred), "Ignore AMPxxx on this line", and the fix-all
source action that applies every safe fix.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from lsprotocol import types

from ampcheck.config import SYNTAX_ERROR
from ampcheck.findings import Finding
from ampcheck.lint.suppress import suppression_edit
from ampcheck.server import convert
from pygls.workspace.position_codec import PositionCodec

FIX_ALL = "source.fixAll.ampcheck"
KINDS = [types.CodeActionKind.QuickFix, FIX_ALL]


@dataclass(frozen=True)
class Document:
    """The text a set of findings was computed on, and how to address edits to it."""

    uri: str
    version: Optional[int]
    text: str
    codec: PositionCodec
    versioned: bool  # the client takes versioned workspace edits

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines(keepends=True)

    def edit(self, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
        return convert.workspace_edit(self.uri, self.version, edits, self.versioned)


def quick_fixes(doc: Document, found: Sequence[tuple[Finding, types.Diagnostic]]) -> list[types.CodeAction]:
    """For each finding: its fix, then the action that ignores its code on its line."""
    lines = doc.lines
    actions = []
    for finding, diag in found:
        fix = finding.fix
        if fix is not None:
            safe = fix.applicability == "safe"
            title = f"{fix.message} ({finding.code})" if safe else f"{fix.message} ({finding.code}, unsafe fix)"
            actions.append(types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=safe,
                edit=doc.edit([convert.text_edit(e, lines, doc.codec) for e in fix.edits]),
            ))
        if finding.code != SYNTAX_ERROR:
            edit = suppression_edit(doc.text, finding.line, finding.code)
            actions.append(types.CodeAction(
                title=f"Ignore {finding.code} on this line",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                edit=doc.edit([convert.text_edit(edit, lines, doc.codec)]),
            ))
    return actions


def fix_all(doc: Document, fixed: str) -> types.CodeAction:
    """The fix-all action: the document replaced by its fixed text."""
    edit = types.TextEdit(range=convert.whole(doc.lines, doc.codec), new_text=fixed)
    return types.CodeAction(title="Fix all safe ampcheck findings", kind=FIX_ALL, edit=doc.edit([edit]))


def wanted(context: types.CodeActionContext, kind: str) -> bool:
    """Whether the client asked for actions of `kind` (it asks for all when it names none)."""
    only = context.only
    return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)
