"""The HTML report's building blocks, shared by the page (`html.py`) and the sections' parts.

Every string that came from the traced program goes through `escape`.
"""
from __future__ import annotations

import html
from typing import Any, Iterable, Optional

from ampcheck.trace.units import si


def escape(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def num(value: Optional[float], text: Optional[str] = None) -> str:
    """A right-aligned cell that sorts by `value` and shows `text` (default: `value` in SI)."""
    if value is None:
        return '<td class="n" data-v="-1">-</td>'
    return f'<td class="n" data-v="{escape(value)}">{escape(text if text is not None else si(value))}</td>'


def count(value: int) -> str:
    return num(value, f"{value:,}")


def table(headers: Iterable[str], rows: Iterable[str], sortable: bool = True) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    cls = ' class="sortable"' if sortable else ""
    return f'<div class="scroll"><table{cls}><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
