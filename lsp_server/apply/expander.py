"""Sketch + original → the exact new text, as explicit passes over plain data (pure; the local
model's tie-breaker is passed in). docs/sketch-contract.md is the contract; each pass owns a module:

  parse (sketch.py) → align (align.py: one dynamic programme) → place (place.py: stretches no
  line of the file pins down) → render (here: kept lines from the file, new ones from the sketch
  in the file's indentation) → verify (verify.py: CHECKS) → Expansion, or ApplyError with a reason.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lsp_server.apply.align import Kind, Op, Original, align, prepare
from lsp_server.apply.errors import ApplyError
from lsp_server.apply.markers import LINE_COMMENT
from lsp_server.apply.layout import definition_spacing, merged_blank_runs, whole_blank_runs
from lsp_server.apply.place import place, replaced_returns, rewritten_blocks, rewritten_doc_comments
from lsp_server.apply.sketch import Indentation, Sketch, implied_markers, learn_indentation, parse
from lsp_server.text import indent_of
from lsp_server.apply.verify import CHECKS, DOUBTS, Draft, first_reason
from lsp_server.protocol import detect_eol, normalise_eol

log = logging.getLogger(__name__)

# A tie-breaker gets the candidate full texts (at most place.MAX_PLACES) and returns the likeliest's index, or None.
Chooser = Callable[[Sequence[str]], "int | None"]


@dataclass
class Expansion:
    text: str
    confidence: float
    notes: list[str] = field(default_factory=list)


def _whole_file(orig: Original, sketch: Sketch) -> bool | None:
    """For a marker-less sketch: the whole new file (True), a fragment whose surroundings stay (False), or unclear (None)."""
    shown = [x.strip() for x in sketch.lines if x.strip()]
    keys = [k for k in orig.keys if k]
    if shown[0] == keys[0] or shown[-1] == keys[-1]:
        return True
    if shown[0] in orig.counts and shown[-1] in orig.counts:
        return False
    return True if len(sketch.lines) * 2 >= len(orig.lines) else None


def _render(ops: Sequence[Op], orig: Original, sketch: Sketch, ind: Indentation) -> list[str]:
    """Kept lines as the file has them; new lines in the file's indentation; a matched line the
    sketch indents differently (a block moved into a `try:`) as the sketch indents it."""
    out = []
    for op in ops:
        if op.kind is Kind.COVER:
            out.append(orig.lines[op.o])
        elif op.kind is Kind.MATCH:
            line = orig.lines[op.o]
            moved = ind.convert(sketch.lines[op.s])
            if line.strip() and indent_of(moved) != indent_of(line):
                line = moved + line[len(line.rstrip()):]
            # a sketch with markers shows code, not trailing whitespace: the file's stays; a whole new
            # file without markers is the new text, trailing whitespace (or none) included
            out.append(line if sketch.has_markers or sketch.lines[op.s].endswith((" ", "\t")) else line.rstrip())
        elif op.kind is Kind.NEW:
            line = "" if op.s < 0 else sketch.lines[op.s]
            out.append(line if not line.strip() else ind.convert(line).rstrip())  # (a blank line as written)
    return out


def _place_and_render(ops: list[Op], orig: Original, sketch: Sketch, ind: Indentation, path: str,
                      chooser: Chooser | None) -> tuple[list[str], list[str], str | None]:
    """Passes 3 to 5 over the alignment: placement and layout, render, verify → (the result's
    lines, the placement's notes, a doubt about it or None), or ApplyError with the reason."""
    def render_text(candidate: list[Op]) -> str:
        return "\n".join(_render(candidate, orig, sketch, ind) + [""]) + "\n"

    notes: list[str] = []
    placed = rewritten_blocks(ops, orig, sketch, ind.convert)
    placed = rewritten_doc_comments(placed, orig, sketch)
    placed = replaced_returns(placed, orig, sketch, ind.convert)
    placed = place(placed, orig, sketch, ind.convert, render_text, chooser, notes)
    placed = merged_blank_runs(whole_blank_runs(placed, orig, sketch), orig, sketch)
    placed = definition_spacing(placed, orig, sketch, ind.convert)
    lines = _render(placed, orig, sketch, ind)
    draft = Draft(path, orig.lines, tuple(lines), sketch, tuple(placed), orig.counts)
    reason = first_reason(CHECKS, draft)
    if reason is not None:
        raise ApplyError(reason)
    return lines, notes, first_reason(DOUBTS, draft)


def _read(ops: list[Op], orig: Original, sketch: Sketch, ind: Indentation, path: str,
          chooser: Chooser | None) -> tuple[list[str], list[str]]:
    """The first reading's draft, unless it fails verification or is in doubt: then the first of the other readings that
    passes without doubt (the bodies of blocks the file does not have in any form read as new code — the first lets
    their lines match the file's, which reads a definition copied from another as that one, edited; then the bodies of
    definitions the sketch shows read in their own place), else the first draft that passes at all. None passing: the
    last reading's, if it passes (closing brackets before markers are the file's), else the first reading's reason."""
    passed: list[tuple[list[str], list[str]]] = []  # (lines, notes) of drafts that pass, in doubt
    refused = None
    tried: list[list[Op]] = []

    def attempt(candidate: list[Op]) -> bool:
        """Place, render and verify a reading not tried yet: True if it passes without doubt (as `passed[-1]`)."""
        nonlocal refused
        if candidate in tried:
            return False
        tried.append(candidate)
        try:
            lines, notes, doubt = _place_and_render(candidate, orig, sketch, ind, path, chooser)
        except ApplyError as exc:
            refused = refused or exc
            return False
        passed.append((lines, notes))
        return doubt is None

    clean = attempt(ops)
    for reading in ({"new_bodies": True}, {"in_place": True}):
        clean = clean or attempt(align(orig, sketch, **reading))
    if not passed:  # the last: closing brackets before markers are the file's
        attempt(align(orig, sketch, closers_close=True))
    if not passed:
        raise refused
    return passed[-1] if clean else passed[0]


def _expand(original: str, sketch_text: str, path: str, chooser: Chooser | None) -> Expansion:
    eol = detect_eol(original)
    text = normalise_eol(original)
    lines = text.split("\n")
    final_newline = lines[-1] == ""
    if final_newline:
        lines.pop()
    tail = 0  # the file's trailing blank lines stay as they are
    while tail < len(lines) and not lines[len(lines) - 1 - tail].strip():
        tail += 1
    body = lines[: len(lines) - tail]
    orig = prepare(body, LINE_COMMENT.get(Path(path).suffix.lower(), "#"))
    sketch = parse(sketch_text, orig.counts)
    if not any(x.strip() for x in sketch.lines):
        raise ApplyError("the sketch is empty")
    if all(m for x, m in zip(sketch.lines, sketch.marker) if x.strip()):
        raise ApplyError("the sketch has only markers: nothing to change")
    confidence = 1.0
    notes: list[str] = []
    if not sketch.has_markers and body:
        whole = _whole_file(orig, sketch)
        if whole is None:
            raise ApplyError("the sketch has no markers and is much shorter than the file: cannot tell whether it "
                             "replaces the whole file or a part of it (mark unchanged code with a marker comment)")
        if not whole:
            confidence = 0.7
            sketch, notes = implied_markers(sketch, orig.keys)
    ops = align(orig, sketch)
    pairs = [(orig.lines[op.o], sketch.lines[op.s]) for op in ops if op.kind is Kind.MATCH]
    ind = learn_indentation(body, [x for x, m in zip(sketch.lines, sketch.marker) if not m], pairs)
    lines, placing = _read(ops, orig, sketch, ind, path, chooser)
    out = "\n".join(lines + [""] * tail)
    if final_newline or (not text and out):
        out += "\n"
    if eol != "\n":
        out = out.replace("\n", eol)
    return Expansion(out, min(confidence, 0.8 if placing else 1.0), notes + placing)  # (the model chose a place)


def expand(original: str, sketch: str, path: str = "", chooser: Chooser | None = None) -> Expansion:
    """The full new text of `path` after applying `sketch` to `original`, or ApplyError."""
    try:
        return _expand(original, sketch, path, chooser)
    except ApplyError:
        raise
    except Exception as exc:  # a bug here refuses one file with a reason; it never takes the plan down
        log.exception("the expander failed on %s", path or "a sketch")
        raise ApplyError(f"internal error in the expander ({type(exc).__name__}): the sketch was not applied") from exc
