"""The server's next-edit state: one EditHistory fed by didOpen/didChange/didClose, and the
`tandem/nextEdit` answer for a document at a position (or None: silence). Texts come in with
\n line ends (the server normalises once per message); `eol` is the document's own."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lsp_server.next_edit.history import EditHistory
from lsp_server.next_edit.predict import predict
from lsp_server.protocol import index_to_utf16, utf16_slice
from lsp_server.stats import NextEditStats


@dataclass(frozen=True)
class NextEdit:
    """A predicted edit in LSP terms: 0-based lines, UTF-16 columns of the document's lines."""
    uri: str
    start_line: int
    start_character: int
    end_line: int
    end_character: int
    new_text: str
    kind: str  # which rule or "model" predicted it

    def to_lsp(self) -> dict:
        """The `tandem/nextEdit` answer (a contract: docs/architecture.md)."""
        return {"uri": self.uri,
                "range": {"start": {"line": self.start_line, "character": self.start_character},
                          "end": {"line": self.end_line, "character": self.end_character}},
                "newText": self.new_text, "kind": self.kind}


@dataclass(frozen=True)
class GhostText:
    """A next edit shown as inline-completion ghost text: insert `text` from the cursor, replacing
    up to `end_character` of the cursor's line."""
    text: str
    end_character: int


def as_ghost_text(edit: NextEdit | None, line: str, line_no: int, character: int) -> GhostText | None:
    """A next edit on the cursor's line at or after the cursor shows as ghost text (the editor's
    inline completion can replace from the cursor to the edit's end); any other is left to the
    client's next-edit display. `line` is the cursor's line, `character` a UTF-16 column."""
    if edit is None or edit.start_line != line_no or edit.end_line != line_no or edit.start_character < character:
        return None
    return GhostText(utf16_slice(line, character, edit.start_character) + edit.new_text, edit.end_character)


class NextEditService:
    def __init__(self) -> None:
        self.history = EditHistory()
        self.stats = NextEditStats()
        self._last: dict[str, tuple] = {}  # uri → (text hash and edits, answer): one per open document

    def opened(self, uri: str, text: str) -> None:
        self.history.opened(uri, text)

    def changed(self, uri: str, text: str, line: int, inserted_newline: bool) -> None:
        self.history.changed(uri, text, line, inserted_newline)

    def closed(self, uri: str) -> None:
        self.history.forget(uri)
        self._last.pop(uri, None)

    def recent(self, uri: str) -> list:
        """The document's recent edits, taken on the event loop (the history is the loop's)."""
        self.stats.requests += 1
        return self.history.recent(uri)

    def suggest(self, uri: str, norm: str, eol: str = "\n", edits: list | None = None) -> NextEdit | None:
        """The predicted edit, or None. Pattern
        propagation only (instant; inline completion asks too): the model path is
        model_suggest. Pure given `edits` (from recent()), so it may run on a worker thread; the
        last answer per document is kept, since inline completion and tandem/nextEdit ask for
        the same text."""
        if edits is None:
            edits = self.recent(uri)
        key = (hash(norm), eol, tuple(e.diff for e in edits))
        cached = self._last.get(uri)
        if cached is not None and cached[0] == key:
            return cached[1]
        result = self._answer(uri, norm, eol, edits)
        self._last[uri] = (key, result)
        return result

    def model_suggest(self, engine, uri: str, norm: str, eol: str, edits: list, cursor_line: int | None,
                      cancelled: Callable[[], bool]) -> NextEdit | None:
        """The local model's rewrite of the region at the cursor (or at the next place like the last
        edit), when it clears the adapter's confidence threshold. Engine thread only: seconds of
        work, stopped between forward passes once `cancelled` (the next keystroke)."""
        prediction = predict(norm, edits, engine=engine, cursor_line=cursor_line, mode="model", path=uri,
                             cancelled=cancelled)
        if cancelled():
            self.stats.model_cancelled += 1
            return None
        if prediction is None:
            return None
        self.stats.model_predicted += 1
        return self._lsp(uri, norm, eol, prediction)

    def _answer(self, uri: str, norm: str, eol: str, edits: list) -> NextEdit | None:
        prediction = predict(norm, edits, mode="pattern", path=uri)
        return None if prediction is None else self._lsp(uri, norm, eol, prediction)

    def _lsp(self, uri: str, norm: str, eol: str, prediction) -> NextEdit:
        self.stats.predicted += 1
        lines = norm.split("\n")
        c = prediction.change
        if c is not None:  # in-line: just the changed characters
            line = lines[c.line]
            return NextEdit(uri, c.line, index_to_utf16(line, c.start), c.line, index_to_utf16(line, c.end), c.text, c.kind)
        new_text = "".join(x + eol for x in prediction.new_lines)
        if prediction.end_line >= len(lines):  # up to the end of a file without a final newline
            end_line = len(lines) - 1
            end_character = index_to_utf16(lines[end_line], len(lines[end_line]))
            new_text = new_text[: -len(eol)] if new_text else new_text
        else:
            end_line, end_character = prediction.end_line, 0
        return NextEdit(uri, prediction.start_line, 0, end_line, end_character, new_text, prediction.source)

    def feedback(self, event: str, args: tuple = ()) -> None:
        self.stats.feedback(event, args)
