"""Positions and text as the LSP sees them: lines split on \\n, \\r\\n or \\r, characters in
UTF-16 code units. Pure functions; lsprotocol types stop here."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsp_server.errors import TandemError

LINE_END = re.compile(r"\r\n|\r|\n")


class PositionError(TandemError):
    pass


def uri_to_path(uri: str) -> Path | None:
    """The local path of a file:// URI (None for any other scheme, or what is not a URI)."""
    if not isinstance(uri, str):
        return None
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def lsp_lines(text: str) -> list[str]:
    """The text's lines with their ends, split where LSP splits: only at \\r\\n, \\r and \\n.
    (str.splitlines also splits at \\x0b, \\x0c, \\x1c-\\x1e, \\x85, U+2028 and U+2029, which
    LSP positions do not count: a form feed in a line put every later edit one line off.)"""
    out, start = [], 0
    for m in LINE_END.finditer(text):
        out.append(text[start:m.end()])
        start = m.end()
    if start < len(text):
        out.append(text[start:])
    return out


def detect_eol(text: str) -> str:
    i = text.find("\n")
    if i > 0 and text[i - 1] == "\r":
        return "\r\n"
    if i < 0 and "\r" in text:
        return "\r"
    return "\n"


def normalise_eol(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def utf16_to_index(line: str, character: int) -> int:
    """Code-point index of a UTF-16 offset in `line`. Past the end clamps to the end (as the LSP
    spec asks); an offset inside a surrogate pair is an error."""
    units = 0
    for i, ch in enumerate(line):
        if units >= character:
            if units > character:
                raise PositionError(f"character {character} splits a surrogate pair")
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    if units > character:
        raise PositionError(f"character {character} splits a surrogate pair")
    return len(line)


def char_to_index(line: str, character: int, encoding: str = "utf-16") -> int:
    """Code-point index of a position's character in the negotiated position encoding."""
    if encoding == "utf-32":
        return min(character, len(line))
    if encoding == "utf-8":
        raw = line.encode("utf-8")[:character]
        return len(raw.decode("utf-8", errors="ignore"))
    return utf16_to_index(line, character)


def index_to_utf16(line: str, index: int) -> int:
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in line[:index])


def utf16_slice(line: str, a: int, b: int) -> str:
    """line[a:b] with a and b in UTF-16 code units."""
    data = line.encode("utf-16-le")
    return data[2 * a:2 * b].decode("utf-16-le", errors="ignore")


def offset_at(text: str, line: int, character: int, encoding: str = "utf-16") -> int:
    """Index into `text` (with \\n line ends) of an LSP position."""
    if line < 0 or character < 0:
        raise PositionError(f"negative position {line}:{character}")
    lines = text.split("\n")
    if line >= len(lines):
        raise PositionError(f"line {line} is past the end of the text ({len(lines)} lines, 0-based)")
    start = sum(len(ln) + 1 for ln in lines[:line])
    return start + char_to_index(lines[line], character, encoding)


def _width(line: str, encoding: str) -> int:
    if encoding == "utf-32":
        return len(line)
    if encoding == "utf-8":
        return len(line.encode("utf-8"))
    return index_to_utf16(line, len(line))


def line_edit(old: str, new: str, encoding: str = "utf-16") -> tuple[tuple[int, int, int, int], str] | None:
    """The one edit (whole lines) that turns `old` into `new`: ((start line, start char, end
    line, end char), replacement), or None when they are equal. Whole lines, so a CRLF pair is
    never split and every position but a last line without EOL is at character 0."""
    if old == new:
        return None
    a, b = lsp_lines(old), lsp_lines(new)
    p = 0
    while p < min(len(a), len(b)) and a[p] == b[p]:
        p += 1
    q = 0
    while q < min(len(a), len(b)) - p and a[-1 - q] == b[-1 - q]:
        q += 1
    end_index = len(a) - q
    if end_index == len(a) and a and not a[-1].endswith(("\n", "\r")):
        last = a[-1]
        end = (len(a) - 1, _width(last, encoding))
    else:
        end = (end_index, 0)
    return (p, 0, end[0], end[1]), "".join(b[p:len(b) - q])
