"""libcst's parse at the cost the analysis can pay for it.

Two of libcst's per-node costs buy the analysis nothing:

- Every node the parser constructs validates itself (`CSTNode.__post_init__` runs the
  node's `_validate`), about a tenth of a parse. The checks hold by construction for what
  the parser builds from text its grammar accepts; the text parsed here is one CPython's
  parser has accepted already (the syntax check runs first), a module read only for its
  summary, or a statement of a buffer that did parse. libcst's own comment on
  `__post_init__` says as much ("avoid validating the tree when parsing a file"). Nodes
  built any other way (a fix, a statement generated alone for its positions) still validate.
- Nodes compare and hash by identity (`__eq__` is `is`, `__hash__` is `id`), but through
  Python functions, called for every dict look-up keyed by a node: tens of millions of
  calls on a large repository. `object`'s own slots give the same identity semantics in C,
  so every node class gets them once, when this module is imported.
"""
from __future__ import annotations

from typing import Iterator

import libcst as cst
from libcst._nodes.base import CSTNode


def parse_module(text: str) -> cst.Module:
    """`cst.parse_module(text)`, its nodes left unvalidated; raises as it does. The hook is
    swapped for this one call: a process parses on one thread at a time (the language
    server runs its analyses one at a time on its worker thread)."""
    validate = CSTNode.__post_init__
    CSTNode.__post_init__ = _unvalidated  # type: ignore[method-assign]
    try:
        return cst.parse_module(text)
    finally:
        CSTNode.__post_init__ = validate  # type: ignore[method-assign]


def _unvalidated(self: CSTNode) -> None:
    """What a node does once constructed by the parser: nothing."""


def _node_classes(cls: type) -> Iterator[type]:
    yield cls
    for sub in cls.__subclasses__():
        yield from _node_classes(sub)


def _identity_in_c() -> None:
    """Each node class's `__eq__` and `__hash__` (libcst copies its identity-based ones into
    every class it defines) made `object`'s."""
    by_id, same = CSTNode.__dict__["__hash__"], CSTNode.__dict__["__eq__"]
    for cls in set(_node_classes(CSTNode)):
        if cls.__dict__.get("__hash__") is by_id:
            cls.__hash__ = object.__hash__  # type: ignore[assignment]
        if cls.__dict__.get("__eq__") is same:
            cls.__eq__ = object.__eq__  # type: ignore[assignment]


_identity_in_c()
