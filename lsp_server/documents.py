"""The server's open documents: pygls' TextDocument with LSP's line ends.

pygls 2.1 splits a document with str.splitlines, which also breaks lines at form feeds, \\x85,
U+2028 and the like; LSP counts only \\r\\n, \\r and \\n. After an incremental change on such a
line the server's copy differed from the editor's, and a planned edit below it landed a line off.
`install()` makes the workspace create documents whose lines are protocol.lsp_lines.
"""
from __future__ import annotations

from pygls.workspace.text_document import TextDocument

from lsp_server.protocol import lsp_lines


class LspTextDocument(TextDocument):
    @property
    def lines(self):
        return tuple(lsp_lines(self.source))


def install() -> None:
    import pygls.workspace.workspace

    pygls.workspace.workspace.TextDocument = LspTextDocument
