"""The server's next-edit state: one EditHistory fed by didOpen/didChange/didClose, and the
`tandem/nextEdit` answer for a document at a position (or None: silence)."""
from __future__ import annotations

from lsp_server.next_edit.history import EditHistory
from lsp_server.next_edit.predict import predict
from lsp_server.protocol import index_to_utf16, normalise_eol


class NextEditService:
    def __init__(self) -> None:
        self.history = EditHistory()
        self.stats = {"requests": 0, "predicted": 0}

    def opened(self, uri: str, text: str) -> None:
        self.history.opened(uri, normalise_eol(text))

    def changed(self, uri: str, text: str, line: int, inserted_newline: bool) -> None:
        self.history.changed(uri, normalise_eol(text), line, inserted_newline)

    def closed(self, uri: str) -> None:
        self.history.forget(uri)

    def suggest(self, uri: str, text: str, engine=None, cursor_line: int | None = None) -> dict | None:
        """{range, newText} in LSP terms (UTF-16 columns of `text`'s lines), or None."""
        self.stats["requests"] += 1
        norm = normalise_eol(text)
        prediction = predict(norm, self.history.recent(uri), engine=engine, cursor_line=cursor_line, path=uri)
        if prediction is None:
            return None
        self.stats["predicted"] += 1
        lines = norm.split("\n")
        c = prediction.change
        if c is not None:  # in-line: just the changed characters
            line = lines[c.line]
            return {"uri": uri, "range": {"start": {"line": c.line, "character": index_to_utf16(line, c.start)},
                                          "end": {"line": c.line, "character": index_to_utf16(line, c.end)}},
                    "newText": c.text, "kind": c.kind}
        eol = "\r\n" if "\r\n" in text else "\n"
        new_text = "".join(x + eol for x in prediction.new_lines)
        if prediction.end_line >= len(lines):  # up to the end of a file without a final newline
            last = len(lines) - 1
            end = {"line": last, "character": index_to_utf16(lines[last], len(lines[last]))}
            new_text = new_text[: -len(eol)] if new_text else new_text
        else:
            end = {"line": prediction.end_line, "character": 0}
        return {"uri": uri, "range": {"start": {"line": prediction.start_line, "character": 0}, "end": end},
                "newText": new_text, "kind": prediction.source}
