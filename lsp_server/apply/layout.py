"""Blank lines around what a sketch adds (pure): sketches rarely show them, files have a style.

- A definition the sketch writes after the file's code (or the file's definition after code or
  blank lines the sketch wrote), and top-level code the sketch writes right after a body (a module
  statement after a function; not a clause like `except`, nor text inside a string), gets at
  least the blank lines the file puts before definitions at that depth — PEP 8's two and one in a Python file without an example (then only where there is
  no blank line at all). Not between overload stubs, and not where the sketch shows both lines
  itself: then its spacing stands (a method right after its class's docstring).
- A run of the file's blank lines that a marker keeps part of, the sketch's blank lines taking
  the rest across new code, is kept whole by the marker: the sketch's blank lines are its own,
  on the other side of the new code (a method added at the end of a class keeps the class's
  two blank lines after it).
- New code right after a header (comments, a module docstring's closing quotes) goes after the
  header's blank line; the sketch's blank line after the new code is then a new one. The same
  for a new paragraph of prose inside a string, which also ends with a blank line of its own when
  the next paragraph follows, and for one of a comment block after its empty-comment break (`#:`).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from lsp_server.apply.align import Op, indent_of

DEFINITION_START = re.compile(r"^\s*(?:@\w|(?:async\s+)?def\s+\w+\s*\(|class\s+\w+\s*[(:])")  # a decorator opens its definition
STUB = re.compile(r"^\s*(?:async\s+)?def\s.*:\s*\.\.\.\s*(?:#.*)?$")  # `def f(x) -> int: ...` (overloads stand together)
# a closing bracket, or a clause of the statement before (`except ImportError:`): no new statement
CLOSES = re.compile(r"^(?:[\])}]|(?:else|elif|except|finally|case)\b)")
HEADER_ENDS = ('"""', "'''")  # a module docstring's closing line


def whole_blank_runs(ops: list[Op], original: Sequence[str], sketch: Sequence[str]) -> list[Op]:
    """`match` of the sketch's blank lines to the start of a blank run, new code, then a `cover`
    of the run's rest (or the mirror: a cover of a run's start, new code, the sketch's blank
    lines matched to its rest before the next line kept): the cover takes the whole run and
    the sketch's blank lines are new. Else new code splits the file's separator in two and one
    side loses it. The mirror also where the cover ends with a top-level statement's closing
    bracket (a new statement after a table) and the run follows it whole."""
    def blank_match(op: Op) -> bool:
        return op.kind == "match" and not original[op.o].strip()

    def blank_cover(op: Op) -> bool:
        return op.kind == "cover" and not original[op.o].strip()

    def new_code(a: int, b: int) -> bool:
        return a < b and all(op.kind == "new" for op in out[a:b]) and any(sketch[op.s].strip() for op in out[a:b])

    def after_closer(k: int) -> bool:
        """Does the new code at k start at the top level right after a covered `}` / `]` / `)`
        that ends a top-level statement (h11's transition table)?"""
        first = next((op for op in out[k:] if op.kind != "new" or sketch[op.s].strip()), None)
        return first is not None and first.kind == "new" and not indent_of(sketch[first.s]) \
            and bool(re.match(r"^[\])}]", original[out[k - 1].o]))

    out = list(ops)
    k = 1
    while k < len(out):
        if blank_match(out[k]) and out[k - 1].o >= 0 and out[k - 1].o == out[k].o - 1 and original[out[k - 1].o].strip():
            e = k + 1  # out[k:e]: the sketch's blank lines matched to the run's start, after a kept line
            while e < len(out) and blank_match(out[e]) and out[e].o == out[e - 1].o + 1:
                e += 1
            c = e
            while c < len(out) and out[c].kind == "new":
                c += 1
            if new_code(e, c) and c < len(out) and blank_cover(out[c]) and out[c].o == out[e - 1].o + 1:
                run = out[k:e]
                out[k:c] = [Op("new", -1, op.s) for op in run] + out[e:c] + [Op("cover", op.o, out[c].s) for op in run]
                k = c + 1
                continue
        if out[k - 1].kind == "cover" and out[k].kind == "new" and (blank_cover(out[k - 1]) or after_closer(k)):
            c = k  # new code after a cover of the run's start, then the sketch's blank lines matched to its rest
            while c < len(out) and out[c].kind == "new":
                c += 1
            e, last = c, out[k - 1].o
            while e < len(out) and blank_match(out[e]) and out[e].o == last + 1:
                e, last = e + 1, out[e].o
            if e > c and new_code(k, c) and e < len(out) and out[e].kind in ("match", "cover") \
                    and out[e].o == last + 1 and original[out[e].o].strip():
                run = out[c:e]
                out[k:e] = [Op("cover", op.o, out[k - 1].s) for op in run] + out[k:c] + [Op("new", -1, op.s) for op in run]
                k = e + 1
                continue
        k += 1
    return out


EMPTY_COMMENTS = ("#", "#:", "//", "///", "--", "*")  # a comment block's paragraph break


def after_header(ops: list[Op], original: Sequence[str], sketch: Sequence[str],
                 in_string: frozenset[int] = frozenset()) -> list[Op]:
    """Cover of a header (or of prose: lines inside a string, a docstring's paragraph), new
    lines, then the file's blank line right after it matched to the sketch's blank after the new
    lines → the cover takes the blank, the sketch's blank is new: a new paragraph goes after the
    blank line that ends the one before it. The same in a comment block whose paragraphs an empty
    comment separates (werkzeug's `#: .. versionchanged::` before `#: .. versionadded::`). (In
    code, new lines right after covered code stay with it: a line appended to a function's body.)"""
    out = list(ops)
    for k in range(1, len(out) - 1):
        if out[k - 1].kind != "cover" or out[k].kind != "new" or not sketch[out[k].s].strip():
            continue
        last = original[out[k - 1].o].strip()
        header = last.startswith("#") or last in HEADER_ENDS or out[k - 1].o in in_string
        comment = last.startswith(("#", "//"))
        if not (header or comment):
            continue
        m = k
        while m < len(out) and out[m].kind == "new" and sketch[out[m].s].strip():
            m += 1
        if m >= len(out) or out[m].kind != "match" or out[m].o != out[k - 1].o + 1:
            continue
        separator = original[out[m].o].strip()
        if not separator and not header:
            continue
        if separator and not (comment and separator in EMPTY_COMMENTS and m + 1 < len(out)
                              and all(sketch[op.s].strip().startswith(("#", "//")) and sketch[op.s].strip()
                                      not in EMPTY_COMMENTS for op in out[k:m])
                              and out[m + 1].kind in ("match", "cover") and out[m + 1].o == out[m].o + 1):
            continue
        out[k:m + 1] = [Op("cover", out[m].o, out[k - 1].s)] + out[k:m] + [Op("new", -1, out[m].s)]
    return _paragraph_ends(out, original, sketch, in_string)


def _paragraph_ends(ops: list[Op], original: Sequence[str], sketch: Sequence[str],
                    in_string: frozenset[int]) -> list[Op]:
    """The file's blank line, a new paragraph of prose, then the file's next paragraph (kept by a
    marker) right after that blank line: the new paragraph ends with a blank line of its own."""
    out: list[Op] = []
    for k, op in enumerate(ops):
        out.append(op)
        nxt = ops[k + 1] if k + 1 < len(ops) else None
        if op.kind != "new" or not sketch[op.s].strip() or nxt is None or nxt.kind != "cover" \
                or nxt.o not in in_string or not original[nxt.o].strip():
            continue
        first = k
        while first > 0 and ops[first - 1].kind == "new" and sketch[ops[first - 1].s].strip():
            first -= 1
        before = ops[first - 1] if first > 0 else None
        if before is not None and before.kind == "match" and before.o == nxt.o - 1 and not original[before.o].strip():
            out.append(Op("blank", -1, -1))
    return out


def spaced(kept: list[Op], lines: Sequence[str], original: Sequence[str], path: str,
           sketch: Sequence[str] = ()) -> tuple[list[Op], list[str]]:
    """`kept`: the ops that make the result (no drops), `lines`: their text. Both again, with
    `blank` ops (and their empty lines) added."""

    def sketch_gap(a: int, b: int) -> bool:
        """Sketch lines a < b with only blank lines between them."""
        return 0 <= a < b <= len(sketch) and all(not x.strip() for x in sketch[a + 1:b])

    out: list[Op] = []
    text: list[str] = []
    convention: dict[int, tuple[int, bool]] = {}  # depth → blank_lines_before (a scan of the file each)
    quoted = False  # inside a triple-quoted string (where a line at column 0 is text, not code)
    python = path.endswith((".py", ".pyi"))
    for op, line in zip(kept, lines):
        j = len(text) - 1  # the code before this line, past blank lines
        while j >= 0 and not text[j].strip():
            j -= 1
        gap = len(text) - 1 - j
        # the sketch wrote the definition, or the code or blank lines right before it...
        written = op.kind == "new" or any(x.kind in ("new", "blank") for x in out[max(j, 0):])
        # ...but not both lines next to each other: then it says how they are spaced
        shown = j >= 0 and out[j].s >= 0 and op.s >= 0 and out[j].kind in ("new", "match") \
            and op.kind in ("new", "match") and sketch_gap(out[j].s, op.s)
        # a definition, or top-level code right after a body (a module statement after a function)
        after_body = line.strip() and not indent_of(line) and j >= 0 and indent_of(text[j]) and not quoted \
            and not gap and python and not CLOSES.match(line)
        quoted ^= (line.count('"""') + line.count("'''")) % 2 == 1
        if j >= 0 and written and not shown and (DEFINITION_START.match(line) or after_body):
            before, depth = text[j], len(indent_of(line))
            if len(indent_of(before)) >= depth and not before.lstrip().startswith(("@", "#")) \
                    and not before.rstrip().endswith((":", "{", "(", ",", "\\")) and not STUB.match(before):
                if depth not in convention:
                    convention[depth] = blank_lines_before(original, depth, path)
                want, example = convention[depth]
                # fewer than the file's: topped up; PEP 8's count (no example in the file) only
                # where there is no blank line at all
                blanks = want - gap if example or not gap else 0
                out.extend(Op("blank", -1, -1) for _ in range(blanks))
                text.extend([""] * blanks)
        out.append(op)
        text.append(line)
    return out, text


def blank_lines_before(original: Sequence[str], depth: int, path: str) -> tuple[int, bool]:
    """How many blank lines the file puts between code and a definition at this depth, and
    whether the file has an example (else PEP 8's count)."""
    seen: Counter = Counter()
    for i, line in enumerate(original):
        if not DEFINITION_START.match(line) or len(indent_of(line)) != depth:
            continue
        j = i - 1
        while j >= 0 and not original[j].strip():
            j -= 1
        if j >= 0 and not original[j].lstrip().startswith(("@", "#")) and not original[j].rstrip().endswith(":"):
            seen[i - 1 - j] += 1
    if seen:
        return seen.most_common(1)[0][0], True
    return (2 if depth == 0 else 1) if path.endswith((".py", ".pyi")) else 0, False
