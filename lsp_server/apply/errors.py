"""The expander's failures: ApplyError (public, its str() is the reason) and the internal ones
that lead to a second opinion (each says what went wrong, so the retry can aim at it)."""
from __future__ import annotations


class ApplyError(Exception):
    """The sketch cannot be applied with confidence; str() is the reason."""


class _Moved(ApplyError):
    """A marker amid new lines stands for nothing; run_after: the sketch lines matched next;
    context: the first line after the marker, when the file has it (else None)."""

    def __init__(self, message: str, run_after: frozenset[int], context: int | None = None) -> None:
        super().__init__(message)
        self.run_after = run_after
        self.context = context


class _Unparsable(ApplyError):
    """The result parses worse than the original."""


class _Repeated(ApplyError):
    """The result repeats a once-only line; lines: that result."""

    def __init__(self, message: str, lines: list[str]) -> None:
        super().__init__(message)
        self.lines = lines


class _ContextCopy(ApplyError):
    """The sketch's line `line` was written anew next to a marker that keeps the same line."""

    def __init__(self, message: str, copies: dict[int, tuple[int, int]]) -> None:
        super().__init__(message)
        # each such sketch line → the original line after the last anchor before it, and the marker's copy
        self.copies = copies
