"""What the tracer and its observers share about the running program (torch): dtype names, the
user's source line, and a way to run ampcheck's own kernels unseen."""
from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, Optional

import torch

# frames in these folders are library code, never the user's line
_SKIP_DIRS = tuple(os.path.dirname(path) + os.sep for path in (torch.__file__, os.path.dirname(__file__)))


def dtype_name(dtype: Optional[torch.dtype]) -> Optional[str]:
    """`bfloat16` for torch.bfloat16; None for None."""
    return None if dtype is None else str(dtype).replace("torch.", "")


def _display_path(filename: str) -> str:
    cwd = os.getcwd() + os.sep
    return filename[len(cwd):] if filename.startswith(cwd) else filename


def user_source() -> Optional[str]:
    """`path:line` of the innermost frame outside torch and ampcheck: the user's line that
    led here (called once per new record, never per op)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_SKIP_DIRS) and not filename.startswith("<frozen"):
            return f"{_display_path(filename)}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def untraced() -> Any:
    """Run ampcheck's own bookkeeping kernels unseen by the tracer's (and any other) modes."""
    stack = contextlib.ExitStack()
    stack.enter_context(torch._C._DisableTorchDispatch())
    stack.enter_context(torch._C.DisableTorchFunction())
    return stack
