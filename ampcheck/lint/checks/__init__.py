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


REGISTRY: list[Check] = []


def check(*codes: str) -> Callable[[CheckFn], CheckFn]:
    def register(fn: CheckFn) -> CheckFn:
        REGISTRY.append(Check(fn, frozenset(codes)))
        return fn

    return register


def load_all() -> list[Check]:
    """Import every rule-family module in this package (each registers its checks on import)."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    return REGISTRY


def all_codes() -> frozenset[str]:
    return frozenset(c for chk in load_all() for c in chk.codes)
