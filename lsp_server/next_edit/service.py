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

    def suggest(self, uri: str, text: str) -> dict | None:
        """{range, newText} in LSP terms (UTF-16 columns of `text`'s lines), or None."""
        self.stats["requests"] += 1
        norm = normalise_eol(text)
        prediction = predict(norm, self.history.recent(uri))
        if prediction is None:
            return None
        c = prediction.change
        line = norm.split("\n")[c.line]
        self.stats["predicted"] += 1
        return {"uri": uri,
                "range": {"start": {"line": c.line, "character": index_to_utf16(line, c.start)},
                          "end": {"line": c.line, "character": index_to_utf16(line, c.end)}},
                "newText": c.text, "kind": c.kind}
