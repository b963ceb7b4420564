"""Pass 5: verify a draft result. Each check is a pure function of the draft that returns the
reason to refuse, or None; CHECKS runs them in order (cheapest first). A refusal is better than
a wrong merge: its reason goes back to the planner's repair round."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from lsp_server.apply import syntax
from lsp_server.apply.align import Kind, Op
from lsp_server.apply.sketch import Sketch, is_trivial


@dataclass(frozen=True)
class Draft:
    path: str
    original: tuple[str, ...]   # the file's lines (LF, no final newline)
    result: tuple[str, ...]     # the draft's lines
    sketch: Sketch
    ops: tuple[Op, ...]

    @cached_property
    def original_text(self) -> str:
        return "\n".join(self.original) + "\n"

    @cached_property
    def result_text(self) -> str:
        return "\n".join(self.result) + "\n"


def deletions_shown(d: Draft) -> str | None:
    """Code is deleted only where the sketch shows the lines on both sides of it, or writes an
    alike line in its place: a line dropped between a marker and anything else is a bug, never a
    merge."""
    k = 0
    while k < len(d.ops):
        if d.ops[k].kind is not Kind.DROP:
            k += 1
            continue
        end = k
        while end < len(d.ops) and d.ops[end].kind is Kind.DROP:
            end += 1
        left = d.ops[k - 1].kind if k else None
        right = d.ops[end].kind if end < len(d.ops) else None
        replaced = end - k == 1 and Kind.NEW in (left, right)
        if Kind.COVER in (left, right) and not replaced and any(d.original[op.o].strip() for op in d.ops[k:end]):
            return f"the result would delete original line {d.ops[k].o + 1}, which the sketch does not show deleted"
        k = end
    return None


def edge_losses(ops: tuple[Op, ...] | list[Op], original, sketch: Sketch) -> list[str]:
    """The edges ("start", "end") where the sketch, having no marker there, deletes more of the
    file's lines than it writes new ones (and more than three): a forgotten marker, not a
    deletion."""
    out = []
    for seq, where in ((ops, "start"), (ops[::-1], "end")):
        dropped = 0
        for op in seq:
            if op.kind is not Kind.DROP:
                break
            dropped += bool(original[op.o].strip())
        new = sum(1 for op in ops if op.kind is Kind.NEW and op.s >= 0 and sketch.lines[op.s].strip())
        if dropped > max(3, new):
            out.append(where)
    return out


def edges_kept(d: Draft) -> str | None:
    """A sketch without a marker at its start begins at the file's first line, and lines above
    what it shows are deleted (likewise at the end) — but not many: see edge_losses."""
    lost = edge_losses(d.ops, d.original, d.sketch)
    if lost:
        return f"the sketch has no marker at its {lost[0]}, which would delete many lines there: add a marker to keep them"
    return None


def no_context_copied(d: Draft) -> str | None:
    """A line the file has once, written anew by the sketch right next to a marker that also keeps
    it (no line the sketch shows between the two copies): the sketch meant it as context, and the
    result would have it twice. (New code that copies a line from elsewhere in the file, with
    shown lines between the copies, is not refused.)"""
    counts = Counter(x.strip() for x in d.original)
    written = Counter(x.strip() for x, m in zip(d.sketch.lines, d.sketch.marker) if not m)
    where = {op.o: k for k, op in enumerate(d.ops) if op.kind is Kind.COVER}
    for k, op in enumerate(d.ops):
        if op.kind is not Kind.NEW or op.s < 0 or (k and d.ops[k - 1].kind is Kind.DROP):
            continue  # (a line written in place of an alike one edits it)
        key = d.sketch.lines[op.s].strip()
        if counts.get(key) != 1 or written[key] > 1 or is_trivial(key) or len(key) <= 3:
            continue
        j = d.original.index(next(x for x in d.original if x.strip() == key))
        kept = where.get(j)
        if kept is not None and not any(x.kind is Kind.MATCH and d.original[x.o].strip()
                                        for x in d.ops[min(k, kept) + 1:max(k, kept)]):
            return (f"the sketch writes {key[:60]!r} (its line {op.s + 1}) anew next to a marker that keeps the same "
                    f"line (original line {j + 1}): show it once, as context, or show the lines around it")
    return None


def parses(d: Draft) -> str | None:
    """The result parses no worse than the original: CPython's parser for a Python file it takes
    (stricter than tree-sitter about indentation), else tree-sitter's count of errors."""
    if d.path.endswith((".py", ".pyi")) and syntax.python_parses(d.original_text):
        if syntax.python_parses(d.result_text):
            return None
        return "the expanded file would not parse (Python finds syntax errors; the original has none)"
    before = syntax.error_count(d.path, d.original_text, False)
    after = syntax.error_count(d.path, d.result_text, False)
    if before is not None and after is not None and after > before:
        return f"the expanded file would not parse ({after} syntax errors, the original has {before})"
    return None


CHECKS = (deletions_shown, edges_kept, no_context_copied, parses)


def first_failure(d: Draft) -> str | None:
    return next((reason for check in CHECKS if (reason := check(d)) is not None), None)
