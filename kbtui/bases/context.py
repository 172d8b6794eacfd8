"""What one evaluation sees: the rows, the current row, `this`, the base's formulas, and the
names bound inside `map`/`filter`/`reduce` or a summary (`value`, `index`, `acc`, `values`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kbtui.bases.parser import Node
from kbtui.bases.rows import FileRow, Rows


@dataclass
class NoteRef:
    """`note` (and `this`): properties by name; `file_path` lets links compare to it."""

    row: FileRow | None

    @property
    def file_path(self) -> str | None:
        return self.row.file_path if self.row else None


@dataclass
class Context:
    """What one evaluation sees: the rows, the current row, `this`, the base's formulas."""

    rows: Rows
    formulas: dict[str, Node]
    formula_lines: dict[str, int | None] = field(default_factory=dict)
    this: FileRow | None = None
    row: FileRow | None = None
    scope: dict[str, Any] = field(default_factory=dict)
    stack: list[str] = field(default_factory=list)
    # formula values of this evaluation, by (row path, formula): one base, one `this`
    memo: dict[tuple[str, str], Any] = field(default_factory=dict)

    def at(self, row: FileRow) -> Context:
        return Context(self.rows, self.formulas, self.formula_lines, self.this, row,
                       memo=self.memo)  # fmt: skip


class Formulas:
    """The `formula` namespace."""


FORMULA = Formulas()
