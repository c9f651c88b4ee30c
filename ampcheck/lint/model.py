"""The program model of one linted file: its tree, the facets built over it, and its place in
the project. Facets are built on first use, each from the tree and the facets below it, so a
check pays only for what it asks and no check walks the tree again.

Layers, each importing only those below it: walk/names -> tree -> consteval -> bindings ->
regions (and reach, over them), casts -> program (the file's step programs, its ModuleSummary) -> project (every
module's summary) -> steps (sequences replayed across the project) -> this model -> checks;
assertions (what code asserts on, asked by the checks) sits on the tree.
"""
from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import Any, Optional

import libcst as cst

from ampcheck.findings import Finding, Fix
from ampcheck.lint import notebook
from ampcheck.lint.bindings import Bindings, named_like_optimizer
from ampcheck.lint.casts import Casts
from ampcheck.lint.consteval import ConstEval
from ampcheck.lint.program import ModuleSummary, StatementPrograms, build_summary
from ampcheck.lint.project import Project
from ampcheck.lint.reach import AutocastReach
from ampcheck.lint.regions import AutocastRegion, Regions
from ampcheck.lint.steps import Event, EventKind, StepEvents, exclusive
from ampcheck.lint.timings import Phase, timed
from ampcheck.lint.tree import Positions, SourceTree, StatementIndexes
from ampcheck.targets import Targets

# events after which gradients may have updated weights
_UPDATES = frozenset({EventKind.OPT_STEP, EventKind.SCALER_STEP, EventKind.OPAQUE})
_TEST_FOLDERS = frozenset({"test", "tests", "testing"})


class FileModel(SourceTree):
    """Everything the checks know about one file."""

    def __init__(
        self, path: str, source: str, module: Optional[cst.Module] = None, project: Optional[Project] = None,
        targets: Targets = Targets(), positions: Optional[Positions] = None,
        indexes: Optional[StatementIndexes] = None, programs: Optional[StatementPrograms] = None,
    ) -> None:
        self.project = project if project is not None else standalone_project(path)
        self._kept_programs = programs  # a buffer's programs of its last analysis, to reuse
        self.targets = targets  # the oldest Python and torch the project supports
        super().__init__(path, source, module, self.project.module_name(path), positions, indexes)

    def release(self) -> None:
        """Drop the tree and the facets once the checks are done. Each facet refers back to
        the model (`Regions(self, ...)`), so without this the tree stays in a reference cycle
        until the garbage collector walks all of it; with it, reference counting frees it."""
        self.__dict__.clear()

    # -- facets (built on first use) ---------------------------------------------------------------
    @cached_property
    @timed(Phase.MODEL)
    def consts(self) -> ConstEval:
        return ConstEval(self)

    @cached_property
    @timed(Phase.MODEL)
    def bindings(self) -> Bindings:
        return Bindings(self, self.consts)

    @cached_property
    @timed(Phase.MODEL)
    def regions(self) -> Regions:
        return Regions(self, self.consts)

    @cached_property
    @timed(Phase.MODEL)
    def reach(self) -> AutocastReach:
        return AutocastReach(self, self.regions)

    @cached_property
    @timed(Phase.MODEL)
    def casts(self) -> Casts:
        return Casts(self, self.consts, self.bindings)

    @cached_property
    @timed(Phase.MODEL)
    def summary(self) -> ModuleSummary:
        summary = build_summary(self, self.bindings, self.module_name, self._kept_programs)
        summary.path = os.path.abspath(self.path)
        self.project.add(self.path, summary)
        return summary

    @cached_property
    def steps(self) -> StepEvents:
        return StepEvents(self.project, self.summary, self.regions)

    @cached_property
    def is_test(self) -> bool:
        """Whether the file is test code: a module pytest collects (`test_*.py`, `*_test.py`,
        `conftest.py`) or any file under a `test`/`tests`/`testing` folder of the project.
        Tests run a few steps to check behaviour (a parity test, a memory test), so the rules
        that predict how a training run converges do not apply there."""
        name = os.path.basename(self.path)
        if name == "conftest.py" or (name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))):
            return True
        shown = Path(self.project.display(self.path))
        return not shown.is_absolute() and any(part in _TEST_FOLDERS for part in shown.parts[:-1])

    # -- questions over the facets -------------------------------------------------------------------
    def trains(self, backward: Event) -> bool:
        """Whether the gradients of a backward can reach an optimizer update, where fp16
        underflow or a backward under autocast does harm. A scaled backward or a framework's
        (`accelerator.backward(loss)`) is training by construction, and `torch.autograd.grad`
        returns its gradients as values that flow on (a gradient penalty's loss term). A plain
        `.backward()` trains when a run that holds it steps an optimizer (or hands one to code
        outside the project, which may step it), or an optimizer is at hand where it is written
        (or the call leading to it is): bound in that function, a function around it (a
        closure), its class or the module body, or taken as a parameter (a
        `forward_backward(model, optimizer, batch)` whose caller steps). A `.backward()` timed
        or checked and then dropped (a speed benchmark, a gradient test, a saliency map)
        updates nothing."""
        if backward.kind in (EventKind.AUTOGRAD_GRAD, EventKind.SCALED_AUTOGRAD_GRAD, EventKind.SCALED_BACKWARD) or backward.framework_backward:
            return True
        if id(backward.op) in self._ops_of_updating_runs:
            return True
        at = backward.node or next((c.op.node for c in backward.via if c.op.node is not None and self.owns(c.op.node)), None)
        if at is None:
            return True
        scopes: list[Optional[cst.CSTNode]] = []
        fn = self.enclosing_function(at)
        while fn is not None:
            if any(named_like_optimizer(p.name.value) for p in (*fn.params.params, *fn.params.kwonly_params)):
                return True
            scopes.append(fn)
            fn = self.enclosing_function(fn)
        scopes.append(None)  # the module body
        cls = self.enclosing_class(at)
        return any(
            self.enclosing_function(opt.node) in scopes or (cls is not None and self.enclosing_class(opt.node) is cls)
            for opt in self.bindings.of_kind("optimizer")
        )

    @cached_property
    def _ops_of_updating_runs(self) -> set[int]:
        """The ops (by identity) of every run that steps an optimizer or hands one outside the
        project, but for those whose gradients that run always clears before any update
        (`_cleared_first`): one pass over the runs, however many backwards `trains` is asked about."""
        return {
            id(e.op) for _, run in self.steps.roots() if any(e.kind in _UPDATES for e in run)
            for i, e in enumerate(run) if not _cleared_first(run, i)
        }

    def runs_without_grad(self, region: AutocastRegion) -> bool:
        """Whether autograd is off wherever an autocast region runs (`with torch.no_grad(),
        autocast():`, a region inside `no_grad()` or a `@torch.no_grad()` function, or every
        call that enters it so): nothing computed there reaches a backward."""
        if region.via:
            return all(self.casts.grad_disabled(c) for c in region.via)
        if isinstance(region.node, cst.With) and any(self.casts.disables_grad(i.item) for i in region.node.items):
            return True
        return self.casts.grad_disabled(region.node)

    # -- reporting -----------------------------------------------------------------------------------
    def line_name(self, node: cst.CSTNode) -> str:
        """How a message names the line `node` starts on: "line 12", or in a notebook, whose
        findings are shown cell by cell, "line 3 of cell 7"."""
        line = self.range(node).start.line
        place = notebook.cell_line(self.source, line) if self.path.endswith(".ipynb") else None
        return f"line {line}" if place is None else f"line {place[1]} of cell {place[0]}"

    def finding(
        self, code: str, node: cst.CSTNode, message: str, fix: Optional[Fix] = None
    ) -> Finding:
        """A finding at `node`; columns are 1-based like CPython's and Ruff's."""
        r = self.range(node)
        return Finding(
            code=code,
            message=message,
            path=self.path,
            line=r.start.line,
            col=r.start.column + 1,
            end_line=r.end.line,
            end_col=r.end.column + 1,
            fix=fix,
        )

    def event_finding(self, code: str, event: Event, message: str) -> Optional[Finding]:
        """A finding about an event: at the event when it is written in this file, else at
        the call in this file that leads to it, naming the function the event is in. None for an event
        no call of this file leads to (a base class's code replayed for a subclass)."""
        if event.node is not None:
            return self.finding(code, event.node, message)
        home = os.path.abspath(self.path)
        for call in reversed(event.via):
            if call.path == home and call.op.node is not None:
                where = f"`{event.function}` in {self.project.display(event.path)}"
                return self.finding(code, call.op.node, f"{message} (in {where})")
        return None


def _cleared_first(run: list[Event], i: int) -> bool:
    """Whether every pass that runs `run[i]` then zeroes gradients before any update: a
    `zero_grad()` later in the run, in the same loops and under no condition `run[i]` is not
    under, with no step (nor an optimizer handed out) between them. A backward taken to read
    gradients as values (a gradient-alignment diagnostic, cleared with `model.zero_grad()`
    before the training step) updates nothing; one in a loop whose step comes first in the
    next pass is cleared only if the clear follows it in its own pass."""
    e = run[i]
    conditions = {(g.condition, g.side) for g in e.guards if not g.is_loop}
    for later in run[i + 1:]:
        if later.kind in _UPDATES:
            return False
        if later.kind is EventKind.ZERO_GRAD and later.loops == e.loops and not exclusive(later, e) and {
            (g.condition, g.side) for g in later.guards if not g.is_loop
        } <= conditions:
            return True
    return False


def standalone_project(path: str) -> Project:
    """A project of one file: no other module is read."""
    return Project(root=Path(os.path.dirname(os.path.abspath(path))), build=lambda *_: None)


def summarize(path: str, text: str, module_name: str) -> Optional[dict[str, Any]]:
    """The summary of a module the run reads but does not lint, in its disk form (which holds
    no tree node: the tree is not kept), or None when it cannot be parsed."""
    try:
        tree = SourceTree(path, text, module_name=module_name)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return None
    consts = ConstEval(tree)
    summary = build_summary(tree, Bindings(tree, consts), module_name)
    summary.path = os.path.abspath(path)
    return summary.to_json()
