"""The Finding shape shared by lint and trace, so every output format serves both."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Optional

Applicability = Literal["safe", "unsafe"]


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the text between two 1-based (row, column) positions; column counts characters
    from 1, like Ruff's JSON. Edits are plain text ranges so cached findings can replay fixes."""

    row: int
    column: int
    end_row: int
    end_column: int
    content: str

    def to_json(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "location": {"row": self.row, "column": self.column},
            "end_location": {"row": self.end_row, "column": self.end_column},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Edit":
        return cls(
            data["location"]["row"],
            data["location"]["column"],
            data["end_location"]["row"],
            data["end_location"]["column"],
            data["content"],
        )


@dataclass(frozen=True)
class Fix:
    message: str
    edits: tuple[Edit, ...]
    applicability: Applicability = "safe"

    def to_json(self) -> dict[str, Any]:
        return {
            "applicability": self.applicability,
            "message": self.message,
            "edits": [e.to_json() for e in self.edits],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Fix":
        return cls(
            data["message"],
            tuple(Edit.from_json(e) for e in data["edits"]),
            data["applicability"],
        )


@dataclass(frozen=True)
class Finding:
    """One diagnostic. `line`/`col` are 1-based; in a notebook they count within `cell`
    (1-based cell index among all cells), and `path:cell N:line:col` is printed."""

    code: str
    message: str
    path: str
    line: int
    col: int
    end_line: int
    end_col: int
    fix: Optional[Fix] = None
    cell: Optional[int] = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def location(self) -> str:
        if self.cell is not None:
            return f"{self.path}:cell {self.cell}:{self.line}:{self.col}"
        return f"{self.path}:{self.line}:{self.col}"

    def sort_key(self) -> tuple[Any, ...]:
        return (self.path, self.cell or 0, self.line, self.col, self.code)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "end_line": self.end_line,
            "end_col": self.end_col,
            "cell": self.cell,
            "fix": self.fix.to_json() if self.fix else None,
            "extra": self.extra,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Finding":
        return cls(
            code=data["code"],
            message=data["message"],
            path=data["path"],
            line=data["line"],
            col=data["col"],
            end_line=data["end_line"],
            end_col=data["end_col"],
            fix=Fix.from_json(data["fix"]) if data.get("fix") else None,
            cell=data.get("cell"),
            extra=data.get("extra", {}),
        )
