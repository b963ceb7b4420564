"""Where a new Python import goes: the place that keeps the file's import blocks sorted.

Pure functions. A sketch that adds `import collections.abc as cabc` with no context fits after any
blank line of the header; a person puts it in the block of its kind (`__future__`, standard
library, third party, relative) at its sorted place, and so do isort and ruff. Two orders are in
common use: all `import` lines before all `from` lines (the default of isort and ruff) and by
module with `import m` before `from m import x` (their force-sort-within-sections). The file's own
blocks say which one it follows (the default when they fit both: a block of `from` lines only); a
file sorted by neither gets no answer."""
from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence

FUTURE = re.compile(r"^from\s+__future__\s+import\s")
_IMPORT = re.compile(r"^import\s+([\w.]+)")
_FROM = re.compile(r"^from\s+(\.*[\w.]*)\s+import\s+\(?\s*([\w*]*)")
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
_DEFINITION = re.compile(r"^(?:async\s+def|def|class)\s")

Key = tuple  # (module, kind, name): kind 0 for `import m`, 1 for `from m import x`


def import_key(line: str) -> Key | None:
    """Sort key of a top-level, one-line import statement, or None for anything else."""
    if line[:1].isspace():
        return None
    if m := _IMPORT.match(line):
        return (m.group(1).lower(), 0, "")
    if m := _FROM.match(line):
        return (m.group(1).lower(), 1, m.group(2).lower())
    return None


def section(key: Key) -> int:
    module = key[0]
    if module == "__future__":
        return 0
    if module.startswith("."):
        return 3
    return 1 if module.split(".")[0] in _STDLIB else 2


ORDERS: tuple[Callable[[Key], tuple], ...] = (
    lambda k: (k[1], k[0], k[2]),   # all `import` lines, then all `from` lines
    lambda k: (k[0], k[1], k[2]),   # by module, `import m` first
)


def _blocks(lines: Sequence[str]) -> list[list[tuple[int, int]]]:
    """Runs of consecutive import statements, each as (first line, line after it); a
    parenthesised import runs to its `)` line."""
    blocks: list[list[tuple[int, int]]] = []
    current: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        if import_key(lines[i]) is None:
            if current:
                blocks.append(current)
            current, i = [], i + 1
            continue
        end = i + 1
        if lines[i].rstrip().endswith("("):
            while end < len(lines) and not lines[end - 1].strip().startswith(")"):
                end += 1
        current.append((i, end))
        i = end
    if current:
        blocks.append(current)
    return blocks


def _places(lines: Sequence[str], new_line: str) -> list[int] | None:
    """Per order the file's blocks follow (first the default), the index into lines before which
    `new_line` goes; None: not an import, or no single block of its section."""
    key = import_key(new_line)
    if key is None:
        return None
    blocks = _blocks(lines)
    keys = {start: import_key(lines[start]) for b in blocks for start, _ in b}
    mine = [b for b in blocks if section(key) in {section(keys[start]) for start, _ in b}]
    if len(mine) > 1:  # an import after the code (werkzeug's circular `from .. import http`) is no block to join
        first_def = _first_definition(lines)
        mine = [b for b in mine if b[0][0] < first_def]
    if len(mine) != 1:
        return None
    places = []
    for order in ORDERS:
        if all(order(keys[a]) <= order(keys[b]) for blk in blocks for (a, _), (b, _) in zip(blk, blk[1:])):
            before = [end for start, end in mine[0] if order(keys[start]) <= order(key)]
            places.append(before[-1] if before else mine[0][0][0])
    return places


def _first_definition(lines: Sequence[str]) -> int:
    """Index of the first top-level `def`/`class` line (len(lines) without one): where the
    import section ends at the latest."""
    return next((i for i, x in enumerate(lines) if _DEFINITION.match(x)), len(lines))


def section_end(lines: Sequence[str]) -> int | None:
    """Index of the line after the last import of the file's import section (its import blocks
    before the first definition), or None without one: where new imports go in a file whose
    imports follow no order we know (appended, as people do)."""
    first_def = _first_definition(lines)
    blocks = [b for b in _blocks(lines) if b[0][0] < first_def]
    return blocks[-1][-1][1] if blocks else None


def sorted_place(lines: Sequence[str], new_line: str) -> int | None:
    """Index into lines before which `new_line` (an import) goes, or None: not an import, no
    block of its section, more than one, or the file's blocks follow no order we know."""
    places = _places(lines, new_line)
    return places[0] if places else None


def resorted_place(lines: Sequence[str], gone: set[int], line: str, was: int) -> int | None:
    """Where an import the sketch took from line `was` goes, the lines in `gone` (it among them)
    taken away: the place an order the rest still follows puts it, other than where it was (a
    sketch that moves an import re-sorts the block: isort's default order to its sorting by
    module). An index into lines, or None when no such order or two places fit."""
    kept = [i for i in range(len(lines)) if i not in gone]
    places = _places([lines[i] for i in kept], line)
    if not places:
        return None
    home = next((k for k, i in enumerate(kept) if i > was), len(kept))
    found = {kept[p] if p < len(kept) else len(lines) for p in places if p != home}
    return found.pop() if len(found) == 1 else None


def code_start(lines: Sequence[str]) -> int:
    """Index of the first line after the file's header: comments (shebang, encoding, licence),
    blank lines, the module docstring and `from __future__` imports. PEP 8 puts imports there
    when the file has none yet."""
    i, first = 0, True  # first: no statement yet (a string is the docstring only as the first)
    while i < len(lines):
        line = lines[i].strip()
        if not line or line.startswith("#"):
            i += 1
            continue
        if line.startswith("from __future__ "):
            i, first = i + 1, False
            continue
        quote = next((q for q in ('"""', "'''") if line.lstrip("rRuUbB").startswith(q)), None)
        if quote is None or not first:
            return i  # code
        first = False
        rest = line.lstrip("rRuUbB")[3:]
        while quote not in rest and i + 1 < len(lines):
            i += 1
            rest = lines[i]
        i += 1
    return i


def has_imports(lines: Sequence[str]) -> bool:
    """Does the file have a top-level import statement?"""
    return any(import_key(x) is not None for x in lines)
