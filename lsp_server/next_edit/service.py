"""The server's next-edit state: one EditHistory fed by didOpen/didChange/didClose, and the
`tandem/nextEdit` answer for a document at a position (or None: silence). Texts come in with
\n line ends (the server normalises once per message); `eol` is the document's own."""
from __future__ import annotations

from collections.abc import Callable

from lsp_server.next_edit.history import EditHistory
from lsp_server.next_edit.predict import predict
from lsp_server.protocol import index_to_utf16


class NextEditService:
    def __init__(self) -> None:
        self.history = EditHistory()
        self.stats = {"requests": 0, "predicted": 0, "model_predicted": 0, "model_cancelled": 0, "shown": 0,
                      "accepted": 0, "rejected": 0}
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
        self.stats["requests"] += 1
        return self.history.recent(uri)

    def suggest(self, uri: str, norm: str, eol: str = "\n", edits: list | None = None) -> dict | None:
        """{range, newText} in LSP terms (UTF-16 columns of the lines), or None. Pattern
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
                      cancelled: Callable[[], bool]) -> dict | None:
        """The local model's rewrite of the region at the cursor (or at the next place like the last
        edit), when it clears the adapter's confidence threshold. Engine thread only: seconds of
        work, stopped between forward passes once `cancelled` (the next keystroke)."""
        prediction = predict(norm, edits, engine=engine, cursor_line=cursor_line, mode="model", path=uri,
                             cancelled=cancelled)
        if cancelled():
            self.stats["model_cancelled"] += 1
            return None
        if prediction is None:
            return None
        self.stats["model_predicted"] += 1
        return self._lsp(uri, norm, eol, prediction)

    def _answer(self, uri: str, norm: str, eol: str, edits: list) -> dict | None:
        prediction = predict(norm, edits, mode="pattern", path=uri)
        return None if prediction is None else self._lsp(uri, norm, eol, prediction)

    def _lsp(self, uri: str, norm: str, eol: str, prediction) -> dict:
        self.stats["predicted"] += 1
        lines = norm.split("\n")
        c = prediction.change
        if c is not None:  # in-line: just the changed characters
            line = lines[c.line]
            return {"uri": uri, "range": {"start": {"line": c.line, "character": index_to_utf16(line, c.start)},
                                          "end": {"line": c.line, "character": index_to_utf16(line, c.end)}},
                    "newText": c.text, "kind": c.kind}
        new_text = "".join(x + eol for x in prediction.new_lines)
        if prediction.end_line >= len(lines):  # up to the end of a file without a final newline
            last = len(lines) - 1
            end = {"line": last, "character": index_to_utf16(lines[last], len(lines[last]))}
            new_text = new_text[: -len(eol)] if new_text else new_text
        else:
            end = {"line": prediction.end_line, "character": 0}
        return {"uri": uri, "range": {"start": {"line": prediction.start_line, "character": 0}, "end": end},
                "newText": new_text, "kind": prediction.source}
