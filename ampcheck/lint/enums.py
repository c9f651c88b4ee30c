"""`StrEnum` on every Python ampcheck supports (`requires-python >= 3.9`).

The kinds of the program model (ops, events, guards) are str-valued enums so that they compare
equal to their spelling in a cached module summary; `enum.StrEnum` arrived only in 3.11.
"""
from __future__ import annotations

import sys
from enum import Enum

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:

    class StrEnum(str, Enum):
        """A str whose str() and format() are its value, as 3.11's StrEnum."""

        def __str__(self) -> str:
            return str(self.value)

        def __format__(self, spec: str) -> str:
            return format(str(self.value), spec)


__all__ = ["StrEnum"]
