"""The server's copy of a document follows the editor's through any sequence of incremental
changes (property-based, against a reference that knows only LSP's rules), including lines
holding form feeds, \\x85, U+2028, lone CRs and astral characters; and edits computed from two
texts address the lines the editor has."""
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from lsp_server.documents import LspTextDocument
from lsp_server.protocol import index_to_utf16, line_edit, lsp_lines, utf16_to_index

ALPHABET = st.sampled_from(["a", "b", " ", "\n", "\r\n", "\r", "\x0c", "\x0b", "\x85", "\u2028", "\x1c", "é", "😀"])
TEXT = st.lists(ALPHABET, max_size=40).map("".join)


def body(line: str) -> str:
    return line.rstrip("\r\n")


def reference_offset(text: str, line: int, character: int) -> int:
    """LSP's rules only: lines end at \\r\\n, \\r, \\n; characters are UTF-16 code units."""
    lines = lsp_lines(text)
    if line >= len(lines):
        return len(text)
    return sum(map(len, lines[:line])) + utf16_to_index(body(lines[line]), character)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_incremental_changes_match_the_editors_text(data):
    start = data.draw(TEXT)
    doc = LspTextDocument("file:///t.txt", source=start, version=0, sync_kind=types.TextDocumentSyncKind.Incremental,
                          position_codec=PositionCodec(types.PositionEncodingKind.Utf16))
    text = start
    for _ in range(data.draw(st.integers(1, 6))):
        lines = lsp_lines(text) or [""]
        points = []
        for _ in range(2):
            ln = data.draw(st.integers(0, len(lines) - 1))
            line = body(lines[ln])
            idx = data.draw(st.integers(0, len(line)))
            points.append((ln, index_to_utf16(line, idx)))
        a, b = sorted(points)
        new = data.draw(TEXT)
        doc.apply_change(types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(*a), types.Position(*b)), text=new))
        text = text[:reference_offset(text, *a)] + new + text[reference_offset(text, *b):]
        assert doc.source == text


def test_a_form_feed_line_does_not_shift_the_lines_below():
    doc = LspTextDocument("file:///t.py", source="x = 1\x0c# page\ny = 2\nz = 3\n", version=0,
                          sync_kind=types.TextDocumentSyncKind.Incremental,
                          position_codec=PositionCodec(types.PositionEncodingKind.Utf16))
    doc.apply_change(types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(2, 0), types.Position(2, 1)), text="w"))
    assert doc.source == "x = 1\x0c# page\ny = 2\nw = 3\n"


@given(TEXT, TEXT)
def test_line_edit_addresses_lsp_lines(old, new):
    edit = line_edit(old, new)
    if edit is None:
        assert old == new
        return
    (sl, sc, el, ec), replacement = edit
    start, end = reference_offset(old, sl, sc), reference_offset(old, el, ec)
    assert old[:start] + replacement + old[end:] == new


def test_an_edit_below_a_form_feed_is_on_the_right_line():
    old = "a = 1\x0cb = 2\nc = 3\nd = 4\n"
    (sl, sc, el, ec), text = line_edit(old, old.replace("d = 4", "d = 5"))
    assert (sl, sc, el, ec, text) == (2, 0, 3, 0, "d = 5\n")
