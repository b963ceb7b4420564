"""Layout after placement: blank lines around what a sketch adds (pure). Blank lines are the
sketch's, except that the file's blank lines next to code a marker keeps stay with that code, and
a new definition right after kept code gets the blank lines the file puts before definitions."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import groupby

from lsp_server.apply.align import Kind, Op, Original, replaces
from lsp_server.apply.sketch import OPENER, Sketch
from lsp_server.text import DEFINITION, indent_of


def whole_blank_runs(ops: list[Op], orig: Original, sketch: Sketch) -> list[Op]:
    """A run of the file's blank lines that new code would split, or take from the code a marker keeps, stays whole on
    the side the marker keeps: the sketch's own blank lines on the side it shows are its own (new). (A sketch shows
    `RESET = 0`, a blank line, a new line and a marker: the two blank lines before the next definition stay two. A
    marker, new code, a blank line and context: the blank line after the kept code stays there, before the new code.)"""
    return _whole_runs(_whole_runs(list(ops), orig, sketch, 1)[::-1], orig, sketch, -1)[::-1]


def merged_blank_runs(ops: list[Op], orig: Original, sketch: Sketch) -> list[Op]:
    """Where a stretch's blank lines meet the file's blank lines that a marker keeps, they are one run: as long as the
    longer of the two (the sketch's blank line before a marker stands for the blank line the file already has there)."""
    out: list[Op] = []
    # (deleted lines print nothing: blank lines on both sides of them are one run)
    for blank, group in groupby(ops, lambda op: _blank(op, orig, sketch) or op.kind in (Kind.DROP, Kind.REWRITTEN)):
        run = list(group)
        new = [op for op in run if op.kind is Kind.NEW]
        kept = [op for op in run if op.kind is Kind.COVER]
        if blank and new and kept and len(new) + len(kept) == sum(1 for op in run if _blank(op, orig, sketch)):
            extra = max(0, len(new) - len(kept))  # the sketch's blank lines beyond the file's
            drop = {id(op) for op in new[extra:]}
            run = [op for op in run if id(op) not in drop]
        out.extend(run)
    return out


def _blank(op: Op, orig: Original, sketch: Sketch) -> bool:
    if op.kind in (Kind.COVER, Kind.MATCH):
        return not orig.keys[op.o]
    return op.kind is Kind.NEW and (op.s < 0 or not sketch.lines[op.s].strip())


def _whole_runs(out: list[Op], orig: Original, sketch: Sketch, step: int) -> list[Op]:
    """whole_blank_runs in one direction (step -1: over the reversed ops)."""
    k = 0
    while k < len(out):
        r = k
        while r < len(out) and out[r].kind is Kind.MATCH and not orig.keys[out[r].o] \
                and (r == k or out[r].o == out[r - 1].o + step):
            r += 1
        if r == k:
            k += 1
            continue
        # the run out[k:r] of matched blank lines; then new code (with no blank line of the
        # sketch's own before what follows); then what a marker keeps?
        nxt = r
        while nxt < len(out) and out[nxt].kind is Kind.NEW:
            nxt += 1
        code = any(out[x].s >= 0 and sketch.lines[out[x].s].strip() for x in range(r, nxt))
        own_blank = nxt > r and (out[nxt - 1].s < 0 or not sketch.lines[out[nxt - 1].s].strip())
        if code and not own_blank and nxt < len(out) and out[nxt].kind is Kind.COVER and out[nxt].o == out[r - 1].o + step:
            run = out[k:r]
            out[k:nxt] = [Op(Kind.NEW, -1, op.s) for op in run] + out[r:nxt] + [Op(Kind.COVER, op.o) for op in run]
            k = nxt
        k += 1
    return out


def _leads_in(key: str) -> bool:
    """Is the (stripped) line a decorator, a comment or a block's opening line: what follows belongs to it?"""
    return key.startswith(("@", "#", "//")) or OPENER.search(key) is not None


def _blank_lines_before_definitions(orig: Original) -> dict[int, int]:
    """depth → how many blank lines the file commonly puts before a definition at that depth
    (after other code at that depth or deeper, not as a block's first line)."""
    seen: dict[int, Counter] = {}
    blank = 0
    prev = None
    for j, key in enumerate(orig.keys):
        if not key:
            blank += 1
            continue
        if prev is not None and (DEFINITION.match(key) or key.startswith("@")) and not _leads_in(orig.keys[prev]) \
                and orig.indent[prev] >= orig.indent[j]:
            seen.setdefault(int(orig.indent[j]), Counter())[blank] += 1
        blank, prev = 0, j
    return {d: c.most_common(1)[0][0] for d, c in seen.items()}


def definition_spacing(ops: list[Op], orig: Original, sketch: Sketch, indent: Callable[[str], str]) -> list[Op]:
    """A new definition (or its decorator) right after code a marker keeps, at its depth or deeper, gets at least as
    many blank lines before it as the file puts before its definitions at that depth; so does a new top-level statement
    after a kept definition's body, and a kept definition right after new code that ends in blank lines. Where the
    sketch shows the line before, its own blank lines stand."""
    out: list[Op] = []
    prev_line, prev_kind, top, blanks = None, None, "", 0
    for k, op in enumerate(ops):
        line = (orig.lines[op.o] if op.kind in (Kind.COVER, Kind.MATCH) else
                indent(sketch.lines[op.s]) if op.kind is Kind.NEW and op.s >= 0 else "" if op.kind is Kind.NEW else None)
        if line is None:
            out.append(op)
            continue
        key = line.strip()
        spaced = False  # does the line get the file's usual blank lines before it?
        depth = len(indent_of(line)) if key and {op.kind, prev_kind} == {Kind.NEW, Kind.COVER} else 0
        # (a definition's first line edited in place keeps the blank lines the old one had)
        if key and op.kind is Kind.NEW and prev_kind is Kind.COVER and not (k and replaces(ops, k - 1)):
            starts = (DEFINITION.match(key) or key.startswith("@")) and len(indent_of(prev_line)) >= depth
            after_body = depth == 0 and len(indent_of(prev_line)) > 0 and DEFINITION.match(top) and key[:1] not in "}])"
            spaced = bool(starts or after_body) and not _leads_in(prev_line.strip())
        # (and a kept definition right after new code: the new code ends where the old spacing began)
        elif key and op.kind is Kind.COVER and prev_kind is Kind.NEW and blanks and DEFINITION.match(key):
            spaced = len(indent_of(prev_line)) >= depth and not _leads_in(prev_line.strip())
        if spaced:  # (the file's spacing is asked once per expansion, and only where new code meets kept code)
            usual = orig.memo("definition spacing", lambda: _blank_lines_before_definitions(orig))
            out.extend(Op(Kind.NEW, -1, -1) for _ in range(usual.get(depth, 0) - blanks))
        if key:
            prev_line, prev_kind, blanks = line, op.kind, 0
            if not line[:1].isspace():
                top = key
        else:
            blanks += 1
        out.append(op)
    return out
