"""The next edit from the text and the recent edits: pattern propagation first (fast, exact), then
the next hunk of a substitution the recent edits repeated, then, when an engine is given, the model's rewrite of the region around the cursor; else silence."""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from lsp_server.next_edit.history import Edit, hunk_start
from lsp_server.next_edit.checks import Checker
from lsp_server.next_edit.patterns import Change, candidates, repeated, substitutions

MODES = ("pattern", "model", "both")
MAX_CANDIDATES = 8  # places tried for a pattern: each costs a parse


@dataclass(frozen=True)
class Prediction:
    start_line: int           # 0-based
    end_line: int             # 0-based, exclusive: lines start..end-1 are replaced
    new_lines: tuple[str, ...]
    source: str               # pattern | model
    change: Change | None = None  # the in-line form, for pattern predictions


def _from_change(text: str, change: Change) -> Prediction:
    line = text.split("\n")[change.line]
    return Prediction(change.line, change.line + 1, (line[:change.start] + change.text + line[change.end:],),
                      "pattern", change)


class _Lazy:
    """The document's Checker (one parse), made when a first candidate needs it and shared by
    the pattern and the repeated substitutions."""

    def __init__(self, path: str, text: str) -> None:
        self.path, self.text, self._checker = path, text, None

    def get(self) -> Checker:
        if self._checker is None:
            self._checker = Checker(self.path, self.text)
        return self._checker


def _checked(checkers: _Lazy, text: str, line: int, old: str, new: str) -> Change | None:
    """The nearest place for the pattern where it makes sense (checks.py), among the first few."""
    checker = None
    for n, change in enumerate(candidates(text, line, old, new)):
        if n == MAX_CANDIDATES:
            return None
        if checker is None:
            checker = checkers.get()
            at = len(os.path.commonprefix([old, new]))  # where the edit changed its line
            where = checker.region(line, at)
            scope = checker.scope(line)
            local = change.kind in ("rename", "shape") and _local_name(checker.lines, scope, old, at)
            local_to = scope if local else None
        if checker.accepts(change, where, local_to):
            return change
    return None


def _repeated(checkers: _Lazy, text: str, line: int, pairs: list[tuple[str, str]],
              newest: bool = True) -> Prediction | None:
    """The next hunk of a systematic substitution (patterns.repeated), checked like a pattern.
    newest: the last pair is the last edit's (its rules count even when made once)."""
    rules = substitutions(pairs, newest)
    checker = None
    for n, (start, new_lines) in enumerate(repeated(text, line, rules)):
        if n == MAX_CANDIDATES:
            return None
        if checker is None:
            checker = checkers.get()
            old, new = pairs[-1]
            where = checker.region(line, len(os.path.commonprefix([old, new])))
        if checker.accepts_lines(start, new_lines, where):
            old_line = checker.lines[start]
            change = None
            if len(new_lines) == 1:  # one line: the changed characters, for ghost text
                a = len(os.path.commonprefix([old_line, new_lines[0]]))
                b = len(os.path.commonprefix([old_line[a:][::-1], new_lines[0][a:][::-1]]))
                change = Change(start, a, len(old_line) - b, new_lines[0][a:len(new_lines[0]) - b], "repeat")
            return Prediction(start, start + len(new_lines), tuple(new_lines), "pattern", change)
    return None


def _local_name(lines: list[str], scope: tuple[int, int] | None, old_line: str, at: int) -> bool:
    """Is the name the edit changed (or annotated) at column `at` local to the function `scope`:
    not an attribute (`obj.name`), and bound there (a parameter, an assignment, `for`/`as`)?"""
    name = next((m for m in re.finditer(r"[A-Za-z_]\w*", old_line) if m.start() <= at <= m.end()), None)
    if scope is None or name is None or old_line[:name.start()].rstrip().endswith("."):
        return False
    word = re.escape(name.group())
    binding = re.compile(rf"(?<![\w.]){word}\s*(?:=(?!=)|:(?!:)|,|\)|\s+in\b)|\bas\s+{word}\b")
    return any(binding.search(x) for x in lines[scope[0]:scope[1] + 1] + [old_line])


def predict(text: str, edits: list[Edit], engine=None, cursor_line: int | None = None, mode: str = "both",
            path: str = "", cancelled: Callable[[], bool] = lambda: False) -> Prediction | None:
    """Silence unless a pattern applies, or the model's rewrite is confident (`cancelled` stops
    the model between forward passes)."""
    if not edits:
        return None
    lines = text.split("\n")
    checkers = _Lazy(path, text)
    pairs = [(o, n) for e in edits for _, o, n in e.pairs]
    if mode in ("pattern", "both") and edits[-1].pairs:
        line, old, new = edits[-1].pairs[-1]
        if not (0 <= line < len(lines)) or lines[line] != new:
            # the diff's numbers are for the text right after that edit: find the line if it moved
            near = [n for n, x in enumerate(lines) if x == new]
            line = min(near, key=lambda n: abs(n - line)) if near else -1
        if line >= 0:
            change = _checked(checkers, text, line, old, new)
            single = _from_change(text, change) if change is not None else None
            hunk = _repeated(checkers, text, line, pairs)
            if hunk is not None and (single is None or hunk.start_line == single.start_line
                                     and hunk.new_lines[0] != single.new_lines[0]):
                return hunk  # on the pattern's own line, more substitutions: the whole hunk
            if single is not None:
                return single
    elif mode in ("pattern", "both") and pairs:
        # the last edit added or removed lines: a substitution the user kept making still applies
        # below it (the rules made twice by the earlier edits)
        start = hunk_start(edits[-1].diff)
        if start is not None:
            hunk = _repeated(checkers, text, min(start, len(lines) - 1), pairs, newest=False)
            if hunk is not None:
                return hunk
    if mode in ("model", "both") and engine is not None:
        from lsp_server.next_edit.model import rewrite

        if cursor_line is None:
            cursor_line = edits[-1].pairs[-1][0] if edits[-1].pairs else 0
        r = rewrite(engine, path, text, cursor_line, [e.diff for e in edits],
                    last_pair=edits[-1].pairs[-1] if edits[-1].pairs else None, cancelled=cancelled)
        if r is not None:
            return Prediction(r.start_line, r.end_line, tuple(r.new_lines), "model")
    return None


def as_line_edit(p: Prediction) -> dict:
    """The CLI form: replace 1-based lines start_line..end_line (an insertion: end = start - 1)."""
    return {"start_line": p.start_line + 1, "end_line": p.end_line,
            "new_text": "".join(x + "\n" for x in p.new_lines)}
