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
from collections.abc import Mapping
from enum import Enum
from typing import Any, Callable, Iterator, Optional, TypeVar, Union, get_args, get_origin, get_type_hints


_V = TypeVar("_V")
# reads one JSON value for one type hint, with the codec that holds the table of shared values
Decoder = Callable[["Codec", Any], Any]
# writes one value of one class as JSON, with the codec that collects the shared values
Encoder = Callable[["Codec", Any], Any]


class Codec:
    def __init__(self, tagged: tuple[type, ...], shared: type) -> None:
        self.tagged = {cls.__name__: cls for cls in tagged}
        self.shared = shared
        self.table: list[Any] = []
        self._index: dict[int, int] = {}
        self._stmts: dict[Any, int] = {}
        # the decoders and encoders of this codec's kind, built once per process: reading
        # or writing a summary asks the same few hints and types hundreds of thousands of times
        kind = (tuple(self.tagged), shared)
        self._decoders = _DECODERS.setdefault(kind, {})
        self._encoders = _ENCODERS.setdefault(kind, {})

    # -- writing ------------------------------------------------------------------------------------
    def encode(self, value: Any) -> Any:
        write = self._encoders.get(type(value))
        if write is None:
            write = self._encoders[type(value)] = self._encoder(type(value))
        return write(self, value)

    def _encoder(self, cls: type) -> Encoder:
        """How a value of the class `cls` is written, chosen once per class."""
        if issubclass(cls, self.shared):
            return Codec._share
        names = _disk_names(cls)
        if names is not None:
            tag = cls.__name__ if cls.__name__ in self.tagged else None

            def write(codec: "Codec", value: Any) -> Any:
                out = {}
                for name in names:
                    v = getattr(value, name)
                    out[name] = v if type(v) in _PLAIN else codec.encode(v)
                if tag is not None:
                    out["t"] = tag
                return out

            return write
        if issubclass(cls, Enum):
            return lambda codec, value: value.value
        if issubclass(cls, (list, tuple)):
            return lambda codec, value: [v if type(v) in _PLAIN else codec.encode(v) for v in value]
        if issubclass(cls, frozenset):
            return lambda codec, value: sorted(codec.encode(v) for v in value)
        if issubclass(cls, Mapping):
            return lambda codec, value: {k: v if type(v) in _PLAIN else codec.encode(v) for k, v in value.items()}
        return lambda codec, value: value

    def _share(self, value: Any) -> int:
        i = self._index.get(id(value))
        if i is None:
            i = self._index[id(value)] = len(self.table)
            row = {name: self.encode(getattr(value, name)) for name in _disk_names(type(value)) or ()}
            if "stmt" in row:
                row["stmt"] = self._stmts.setdefault(row["stmt"], len(self._stmts))
            self.table.append(row)
        return i

    # -- reading ------------------------------------------------------------------------------------
    def load_table(self, rows: list[Any]) -> None:
        read = self._dataclass_decoder(self.shared)
        self.table = [read(self, row) for row in rows]

    def decode(self, data: Any, hint: Any) -> Any:
        return self._decoder(hint)(self, data)

    def decode_lazily(self, data: dict[str, Any], hint: type[_V]) -> "LazyMapping[_V]":
        """A mapping of the JSON object `data` whose values are read as `hint` when first
        asked for (the shared table must be loaded first)."""
        read = self._decoder(hint)
        return LazyMapping(data, lambda item: read(self, item))

    def _decoder(self, hint: Any) -> Decoder:
        found = self._decoders.get(hint)
        if found is None:
            found = self._decoders[hint] = self._build(hint)
        return found

    def _build(self, hint: Any) -> Decoder:
        if hint is self.shared:
            return lambda codec, data: codec.table[data]
        origin, args = get_origin(hint), get_args(hint)
        if origin is Union or origin is getattr(types, "UnionType", Union):  # X | Y is 3.10+
            options = [a for a in args if a is not type(None)]
            if len(options) == 1:
                one = self._decoder(options[0])
                return _same if one is _same else lambda codec, data: None if data is None else one(codec, data)
            by_tag = {name: self._dataclass_decoder(cls) for name, cls in self.tagged.items()}
            return lambda codec, data: None if data is None else by_tag[data["t"]](codec, data)
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                each = self._decoder(args[0])
                if each is _same:
                    return lambda codec, data: tuple(data)
                return lambda codec, data: tuple(each(codec, v) for v in data)
            parts = [self._decoder(a) for a in args]
            return lambda codec, data: tuple(read(codec, v) for v, read in zip(data, parts))
        if origin is list:
            each = self._decoder(args[0])
            if each is _same:
                return lambda codec, data: list(data)
            return lambda codec, data: [each(codec, v) for v in data]
        if origin is frozenset:
            each = self._decoder(args[0])
            return lambda codec, data: frozenset(each(codec, v) for v in data)
        if origin is dict or origin is Mapping:
            value = self._decoder(args[1])
            if value is _same:
                return lambda codec, data: dict(data)
            return lambda codec, data: {k: value(codec, v) for k, v in data.items()}
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return self._dataclass_decoder(hint)
        if isinstance(hint, type) and issubclass(hint, Enum):
            return lambda codec, data: hint(data)
        return _same

    def _dataclass_decoder(self, cls: type) -> Decoder:
        """An instance of `cls` from its written fields (all of them: a payload missing one
        raises KeyError, which its reader takes for a stale cache entry). The reader is
        compiled for the class on first use, once its fields' decoders can be looked up (a
        dataclass may hold itself, through a union): one call with the fields as keyword
        arguments, those read as they were written (strings, numbers, flags) passed as they are.
        A summary is tens of thousands of these (a third of a one-file run's summary loading
        went to a generic loop over each instance's fields)."""
        compiled: Optional[Decoder] = None

        def read(codec: "Codec", data: dict[str, Any]) -> Any:
            nonlocal compiled
            if compiled is None:
                compiled = self._compiled_reader(cls)
            return compiled(codec, data)

        return read

    def _compiled_reader(self, cls: type) -> Decoder:
        hints = _hints(cls)
        scope: dict[str, Any] = {"cls": cls}
        args = []
        for i, name in enumerate(_disk_names(cls) or ()):
            f = self._decoder(hints[name])
            if f is _same:
                args.append(f"{name}=data[{name!r}]")
            else:
                scope[f"f{i}"] = f
                args.append(f"{name}=f{i}(codec, data[{name!r}])")
        exec(f"def read(codec, data):\n    return cls({', '.join(args)})\n", scope)  # noqa: S102 (built from field names)
        return scope["read"]


class LazyMapping(Mapping[str, _V]):
    """A read-only mapping that decodes each value once, when first asked for. A module
    summary read from the cache holds dozens of function programs, and most readers look up
    one or two of them (a base class's method, a helper a call enters): decoding all of them
    took most of the summary loading of a one-file run. Iterating over the values decodes
    each as it comes; a value keeps its identity once decoded."""

    def __init__(self, encoded: dict[str, Any], read: Callable[[Any], _V]) -> None:
        self._encoded, self._read = encoded, read
        self._decoded: dict[str, _V] = {}

    def __getitem__(self, key: str) -> _V:
        found = self._decoded.get(key)
        if found is None:
            found = self._decoded[key] = self._read(self._encoded[key])
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._encoded

    def __iter__(self) -> Iterator[str]:
        return iter(self._encoded)

    def __len__(self) -> int:
        return len(self._encoded)


def _same(codec: Codec, data: Any) -> Any:
    """A value read as it was written."""
    return data


_DECODERS: dict[tuple[tuple[str, ...], type], dict[Any, Decoder]] = {}
_ENCODERS: dict[tuple[tuple[str, ...], type], dict[type, Encoder]] = {}
# what is written as it is (no subclass: a str enum is written as its value)
_PLAIN = frozenset({str, int, float, bool, type(None)})
_NAMES: dict[type, Optional[tuple[str, ...]]] = {}


def _disk_names(cls: type) -> Optional[tuple[str, ...]]:
    """The fields of a dataclass that are written, in order; None for any other type."""
    try:
        return _NAMES[cls]
    except KeyError:
        pass
    found = None
    if dataclasses.is_dataclass(cls):
        found = tuple(f.name for f in dataclasses.fields(cls) if f.metadata.get("disk", True))
    _NAMES[cls] = found
    return found


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    found = _HINTS.get(cls)
    if found is None:
        found = _HINTS[cls] = get_type_hints(cls)
    return found
