"""Dataclasses to JSON-ready values and back, derived from their fields and type hints, so a
new field of a module summary is written and read with no codec code to touch.

- Fields whose metadata says `{"disk": False}` (tree nodes) are not written; they read back
  as their default.
- A member of a union of dataclasses carries its class name under "t" (`tagged`).
- Instances of the `shared` class are written once, in a table, and referred to by index
  wherever they appear (one guard object shared by many ops stays one object). A field of
  it named `stmt` is renumbered densely, in order of first appearance (its values are ids
  of tree nodes, which mean nothing on disk).
- Enums are written as their values; tuples and lists as lists; frozensets as sorted lists.
"""
from __future__ import annotations

import dataclasses
import types
from enum import Enum
from typing import Any, Union, get_args, get_origin, get_type_hints


class Codec:
    def __init__(self, tagged: tuple[type, ...], shared: type) -> None:
        self.tagged = {cls.__name__: cls for cls in tagged}
        self.shared = shared
        self.table: list[Any] = []
        self._index: dict[int, int] = {}
        self._stmts: dict[Any, int] = {}

    # -- writing ------------------------------------------------------------------------------------
    def encode(self, value: Any) -> Any:
        if isinstance(value, self.shared):
            return self._share(value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            out = {f.name: self.encode(getattr(value, f.name)) for f in _disk_fields(type(value))}
            if type(value).__name__ in self.tagged:
                out["t"] = type(value).__name__
            return out
        if isinstance(value, Enum):
            return value.value
        if isinstance(value, (list, tuple)):
            return [self.encode(v) for v in value]
        if isinstance(value, frozenset):
            return sorted(self.encode(v) for v in value)
        if isinstance(value, dict):
            return {k: self.encode(v) for k, v in value.items()}
        return value

    def _share(self, value: Any) -> int:
        i = self._index.get(id(value))
        if i is None:
            i = self._index[id(value)] = len(self.table)
            row = {f.name: self.encode(getattr(value, f.name)) for f in _disk_fields(type(value))}
            if "stmt" in row:
                row["stmt"] = self._stmts.setdefault(row["stmt"], len(self._stmts))
            self.table.append(row)
        return i

    # -- reading ------------------------------------------------------------------------------------
    def load_table(self, rows: list[Any]) -> None:
        self.table = [self._dataclass(row, self.shared) for row in rows]

    def decode(self, data: Any, hint: Any) -> Any:
        if hint is self.shared:
            return self.table[data]
        origin, args = get_origin(hint), get_args(hint)
        if origin is Union or origin is types.UnionType:
            if data is None:
                return None
            options = [a for a in args if a is not type(None)]
            if len(options) == 1:
                return self.decode(data, options[0])
            return self._dataclass(data, self.tagged[data["t"]])
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return tuple(self.decode(v, args[0]) for v in data)
            return tuple(self.decode(v, a) for v, a in zip(data, args))
        if origin is list:
            return [self.decode(v, args[0]) for v in data]
        if origin is frozenset:
            return frozenset(self.decode(v, args[0]) for v in data)
        if origin is dict:
            return {k: self.decode(v, args[1]) for k, v in data.items()}
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return self._dataclass(data, hint)
        if isinstance(hint, type) and issubclass(hint, Enum):
            return hint(data)
        return data

    def _dataclass(self, data: dict[str, Any], cls: type) -> Any:
        hints = _hints(cls)
        return cls(**{f.name: self.decode(data[f.name], hints[f.name]) for f in _disk_fields(cls) if f.name in data})


def _disk_fields(cls: type) -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(cls) if f.metadata.get("disk", True)]


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    found = _HINTS.get(cls)
    if found is None:
        found = _HINTS[cls] = get_type_hints(cls)
    return found
