"""Edit history per document, from didChange: keystrokes coalesce into edits (a pause, a jump to
another line or a new line closes one), kept as unified diffs with the changed line pairs.
Bounded: a few edits per document, a few documents, diffs cut at a size."""
from __future__ import annotations

import difflib
import re
import time
from collections import OrderedDict, deque
from dataclasses import dataclass

PAUSE_S = 1.0
MAX_EDITS = 8
MAX_DOCS = 32
MAX_DIFF_CHARS = 4000
MAX_HUNK_LINES = 40
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Edit:
    path: str
    diff: str                                  # unified diff, one line of context
    pairs: tuple[tuple[int, str, str], ...]    # (0-based line in the text after, old line, new line)


def edit_between(path: str, old: str, new: str) -> Edit | None:
    """The edit that turned `old` into `new` (None when equal)."""
    if old == new:
        return None
    a, b = old.split("\n"), new.split("\n")
    diff = "".join(difflib.unified_diff([x + "\n" for x in a], [x + "\n" for x in b], f"a/{path}", f"b/{path}", n=1))
    return parse_diff(path, diff[:MAX_DIFF_CHARS])


def hunk_start(diff: str) -> int | None:
    """1-based first line of a unified diff's first hunk in the text after it, or None."""
    return next((int(m.group(3)) for m in map(HUNK.match, diff.split("\n")) if m), None)


def parse_diff(path: str, diff: str) -> Edit:
    """Changed line pairs from a unified diff: a run of k removed lines followed by k added ones
    pairs up line by line (edits of lines, not insertions or deletions)."""
    pairs: list[tuple[int, str, str]] = []
    new_line = 0
    minus: list[str] = []
    plus: list[tuple[int, str]] = []

    def flush() -> None:
        if minus and len(minus) == len(plus) and len(minus) <= MAX_HUNK_LINES:
            pairs.extend((n, o, t) for o, (n, t) in zip(minus, plus) if o != t)
        minus.clear()
        plus.clear()

    for raw in diff.split("\n"):
        m = HUNK.match(raw)
        if m:
            flush()
            new_line = int(m.group(3)) - 1
            if m.group(4) == "0":
                new_line += 1
            continue
        if raw.startswith(("---", "+++")):
            continue
        if raw.startswith("-"):
            if plus:
                flush()
            minus.append(raw[1:])
        elif raw.startswith("+"):
            plus.append((new_line, raw[1:]))
            new_line += 1
        elif raw.startswith(" ") or raw == "":
            flush()
            if raw.startswith(" "):
                new_line += 1
    flush()
    return Edit(path, diff, tuple(pairs))


class _Doc:
    def __init__(self, text: str) -> None:
        self.snapshot = text
        self.base: str | None = None   # text when the open edit began
        self.line = -1
        self.last = 0.0
        self.closed: deque[Edit] = deque(maxlen=MAX_EDITS)
        self.pending: Edit | None = None  # the open edit's diff, computed once per snapshot


class EditHistory:
    def __init__(self, pause_s: float = PAUSE_S) -> None:
        self.pause_s = pause_s
        self.docs: OrderedDict[str, _Doc] = OrderedDict()

    def _doc(self, uri: str, text: str) -> _Doc:
        doc = self.docs.get(uri)
        if doc is None:
            doc = self.docs[uri] = _Doc(text)
            while len(self.docs) > MAX_DOCS:
                self.docs.popitem(last=False)
        self.docs.move_to_end(uri)
        return doc

    def opened(self, uri: str, text: str) -> None:
        self.docs.pop(uri, None)
        self._doc(uri, text)

    def changed(self, uri: str, text: str, line: int, inserted_newline: bool = False, now: float | None = None) -> None:
        """A change at `line` (0-based) has made the document `text`."""
        now = time.monotonic() if now is None else now
        doc = self._doc(uri, text)
        if doc.base is not None and (now - doc.last > self.pause_s or abs(line - doc.line) > 1 or inserted_newline):
            self._close(uri, doc)
        if doc.base is None:
            doc.base = doc.snapshot
        doc.snapshot, doc.line, doc.last, doc.pending = text, line, now, None

    def _close(self, uri: str, doc: _Doc) -> None:
        edit = doc.pending or edit_between(uri, doc.base or "", doc.snapshot)
        if edit is not None:
            doc.closed.append(edit)
        doc.base, doc.pending = None, None

    def recent(self, uri: str) -> list[Edit]:
        """This document's edits, oldest first, the one still being typed last."""
        doc = self.docs.get(uri)
        if doc is None:
            return []
        out = list(doc.closed)
        if doc.base is not None:
            # asked on every inline-completion request: diff the whole document once per change
            if doc.pending is None:
                doc.pending = edit_between(uri, doc.base, doc.snapshot)
            if doc.pending is not None:
                out.append(doc.pending)
        return out

    def forget(self, uri: str) -> None:
        self.docs.pop(uri, None)
