"""The next edit from the text and the recent edits: pattern propagation, else silence.
(The model-rewrite path is not built yet; see docs/architecture.md.)"""
from __future__ import annotations

from dataclasses import dataclass

from lsp_server.next_edit.history import Edit
from lsp_server.next_edit.patterns import Change, propagate


@dataclass(frozen=True)
class Prediction:
    change: Change
    source: str  # pattern


def predict(text: str, edits: list[Edit]) -> Prediction | None:
    """Silence unless the last edit's transformation applies somewhere it has not yet."""
    if not edits or not edits[-1].pairs:
        return None
    lines = text.split("\n")
    line, old, new = edits[-1].pairs[-1]
    if not (0 <= line < len(lines)) or lines[line] != new:
        # the diff's numbers are for the text right after that edit: find the line if it moved
        near = [n for n, x in enumerate(lines) if x == new]
        if not near:
            return None
        line = min(near, key=lambda n: abs(n - line))
    change = propagate(text, line, old, new)
    return Prediction(change, "pattern") if change else None


def as_line_edit(text: str, change: Change) -> dict:
    """The CLI form: replace 1-based lines start_line..end_line with new_text."""
    line = text.split("\n")[change.line]
    new_line = line[:change.start] + change.text + line[change.end:]
    return {"start_line": change.line + 1, "end_line": change.line + 1, "new_text": new_line + "\n"}
