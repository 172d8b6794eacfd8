"""The one error a base can raise: what is wrong, where (the line of the .base file)."""

from __future__ import annotations


class BaseError(Exception):
    """A base that cannot be read or a construct that cannot be evaluated.

    `line` is 1-based in the .base file (or the note holding the ```base block) when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.message = message
        self.line = line
        super().__init__(f"line {line}: {message}" if line else message)


class EvalError(Exception):
    """A value of the wrong type for an operation: the cell is empty, the filter false (as in
    Obsidian, where such a formula shows an error in its cell and the view still answers)."""
