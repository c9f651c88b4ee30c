"""The checks: small functions over the FileModel, one module per rule family.

A check is registered with the codes it can emit; the engine runs it when any of those
codes is selected and keeps only the selected codes from what it yields.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable, Iterable

from ampcheck.findings import Finding

CheckFn = Callable[["FileModel"], Iterable[Finding]]  # noqa: F821 - see ampcheck.lint.model


@dataclass(frozen=True)
class Check:
    fn: CheckFn
    codes: frozenset[str]
    # False for a rule about how a training run turns out (underflow, lost scaler state, a
    # backward under autocast): test code runs a few steps to check behaviour, so it is not
    # reported there (`FileModel.is_test`). Rules about what raises run everywhere.
    in_tests: bool = True

    def run(self, model: "FileModel") -> Iterable[Finding]:  # noqa: F821 - see ampcheck.lint.model
        """The check's findings on a file, none on test code for a rule that skips tests."""
        if not self.in_tests and model.is_test:
            return ()
        return self.fn(model)


REGISTRY: list[Check] = []


def check(*codes: str, in_tests: bool = True) -> Callable[[CheckFn], CheckFn]:
    def register(fn: CheckFn) -> CheckFn:
        REGISTRY.append(Check(fn, frozenset(codes), in_tests))
        return fn

    return register


def load_all() -> list[Check]:
    """Import every rule-family module in this package (each registers its checks on import)."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    return REGISTRY


def all_codes() -> frozenset[str]:
    return frozenset(c for chk in load_all() for c in chk.codes)
