"""Plain-text tables whose columns fit their longest cell, for the text reports.

Fixed widths break on real names: a CPU attention backward is
`_scaled_dot_product_flash_attention_for_cpu_backward`, a module `encoder.layers.11.attn (MultiheadAttention)`.
"""
from __future__ import annotations

from typing import Iterable, Sequence

GAP = 2


def columns(header: Sequence[str], rows: Iterable[Sequence[str]], right: Iterable[int] = (),
            indent: str = "  ") -> list[str]:
    """The header and the rows as lines, each column as wide as its widest cell; columns whose
    index is in `right` are right-aligned (numbers). The last column is not padded."""
    table = [list(header), *(list(row) for row in rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    right = frozenset(right)
    lines = []
    for row in table:
        cells = [cell.rjust(width) if i in right else cell.ljust(width)
                 for i, (cell, width) in enumerate(zip(row, widths))]
        lines.append((indent + (" " * GAP).join(cells)).rstrip())
    return lines
