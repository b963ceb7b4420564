"""Pass 1: a sketch's text → plain data (its lines, which are markers, how its indentation maps
onto the file's). Pure functions; docs/sketch-contract.md is the contract they implement."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Container, Sequence
from dataclasses import dataclass

from lsp_server.apply.markers import is_marker
from lsp_server.protocol import normalise_eol
from lsp_server.text import indent_of

FENCE = re.compile(r"^\s*```")
OPENER = re.compile(r"(?::|\{|=>\s*\{?)\s*(?:#.*|//.*)?$")  # a line that opens a block
# Lines that say nothing about where they are: they match anywhere for nothing.
TRIVIAL = re.compile(r"^[\s\})\]\(\[{;,:]*$|^(pass|else:|try:|finally:|return|break|continue|end|\.\.\.|\"\"\"|''')$")


@dataclass(frozen=True)
class Sketch:
    lines: tuple[str, ...]     # as written (fence and trailing blank lines removed)
    marker: tuple[bool, ...]   # per line: an elision marker?

    @property
    def has_markers(self) -> bool:
        return any(self.marker)


def parse(text: str, original_keys: Container[str]) -> Sketch:
    """The sketch's lines without a surrounding Markdown fence or trailing blank lines; a comment
    line that the original also has is code, never a marker."""
    lines = normalise_eol(text).split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) > 1 and FENCE.match(lines[0]) and FENCE.match(lines[-1]):
        lines = lines[1:-1]
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return Sketch(tuple(lines), tuple(is_marker(x, original_keys) for x in lines))


IMPLIED = "\u2026"  # the text of a marker the sketch implies (see implied_markers)


def implied_markers(sketch: Sketch, keys: Sequence[str]) -> tuple[Sketch, list[str]]:
    """The markers around a sketch without any that is a fragment of the file (its only caller asks for no other): at
    the start when the first line of the file it shows (new lines may come before it) is not the file's first line; at
    the end when its last line is a line of the file that the file goes on after."""
    shown = [k for k in keys if k]
    lines, marker, notes = list(sketch.lines), list(sketch.marker), []
    present = set(shown)
    first = next((x.strip() for x in lines if x.strip() in present), None)  # (the first line of the file it shows)
    if first is not None and first != shown[0]:
        lines.insert(0, IMPLIED)
        marker.insert(0, True)
        notes.append("the sketch starts inside the file without a marker: the lines above it are kept")
    last = lines[-1].strip()
    if last in present and last != shown[-1]:
        lines.append(IMPLIED)
        marker.append(True)
        notes.append("the sketch ends inside the file without a marker: the lines below it are kept")
    return Sketch(tuple(lines), tuple(marker)), notes


def is_trivial(key: str) -> bool:
    return not key or bool(TRIVIAL.match(key))


def _uses_tabs(lines: Sequence[str]) -> bool | None:
    tabs = sum(1 for x in lines if x[:1] == "\t")
    spaces = sum(1 for x in lines if x[:1] == " " and x.strip())
    return None if tabs == spaces == 0 else tabs > spaces


@dataclass(frozen=True)
class Indentation:
    """How the sketch's indentation maps onto the file's: tabs ↔ spaces, then a uniform column
    offset (a method sketched without its class's indentation). Levels are never re-scaled: a
    fragment says too little about its own unit to convert 2 ↔ 4 spaces safely."""
    to_tabs: bool = False
    to_spaces: bool = False
    offset: int = 0

    def tabs(self, line: str) -> str:
        ind = indent_of(line)
        if self.to_tabs:
            width = len(ind.replace("\t", "    "))
            return "\t" * (width // 4) + " " * (width % 4) + line.lstrip()
        if self.to_spaces:
            return ind.replace("\t", "    ") + line.lstrip()
        return line

    def convert(self, line: str) -> str:
        """A sketch line in the file's indentation."""
        if not line.strip():
            return ""
        line = self.tabs(line)
        if self.offset > 0:
            return ("\t" if self.to_tabs or line[:1] == "\t" else " ") * self.offset + line
        if self.offset < 0:
            return line[min(-self.offset, len(indent_of(line))):]
        return line


def learn_indentation(original: Sequence[str], sketch: Sequence[str], pairs: Sequence[tuple[str, str]]) -> Indentation:
    """pairs: (original line, sketch line) that the alignment matched. Lines kept at their own
    depth say the sketch is written in the file's columns (the others are lines it re-indents, as
    a block moved into a `try:`); otherwise the commonest shift is the sketch's offset."""
    file_tabs, sketch_tabs = _uses_tabs(original), _uses_tabs(sketch)
    base = Indentation(file_tabs is True and sketch_tabs is False, file_tabs is False and sketch_tabs is True)
    deltas = Counter(len(indent_of(o)) - len(indent_of(base.tabs(s))) for o, s in pairs if o.strip())
    if not deltas or deltas[0] >= 2:
        return base
    return Indentation(base.to_tabs, base.to_spaces, deltas.most_common(1)[0][0])
