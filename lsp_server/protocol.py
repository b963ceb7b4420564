"""Positions and text as the LSP sees them: lines split on \\n, \\r\\n or \\r, characters in
UTF-16 code units. Pure functions; lsprotocol types stop here."""
from __future__ import annotations

from lsp_server.errors import TandemError


class PositionError(TandemError):
    pass


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


def offset_at(text: str, line: int, character: int, encoding: str = "utf-16") -> int:
    """Index into `text` (with \\n line ends) of an LSP position."""
    if line < 0 or character < 0:
        raise PositionError(f"negative position {line}:{character}")
    lines = text.split("\n")
    if line >= len(lines):
        raise PositionError(f"line {line} is past the end of the text ({len(lines)} lines, 0-based)")
    start = sum(len(ln) + 1 for ln in lines[:line])
    return start + char_to_index(lines[line], character, encoding)
