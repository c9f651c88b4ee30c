"""How numbers read in the text and HTML reports: `1.25 GFLOP`, `87.5%`."""
from __future__ import annotations

from typing import Optional


def si(value: float, unit: str = "") -> str:
    """`1.25 GFLOP` for 1.25e9 FLOPs; `12 B` below a thousand."""
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.2f} {prefix}{unit}"
    return f"{value:.0f} {unit}".rstrip()


def pct(value: Optional[float]) -> str:
    """A share as a percentage with one decimal; `-` when there is none."""
    return "-" if value is None else f"{value:.1%}"
