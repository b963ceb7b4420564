"""Sketch + original → exact new text (pure; the model tie-breaker is passed in).

The sketch is aligned to the original by one dynamic programme (`align.py`): an edit distance in
which elision markers are wildcards covering runs of original lines. Its path says, for every
line, what happens to it: kept under a marker, matched by a sketch line, dropped, or new. Then:
- a block opener whose body the sketch rewrote, followed by a marker outside the block, loses
  its whole old body (tree-sitter says where the block ends): the marker means "the rest of the
  file", not "the rest of this function";
- new lines floating between two markers (no line of context) are placed at the only plausible
  boundary, or the local model chooses among several, or the expander refuses;
- kept lines come from the original (its whitespace, its line endings); new lines from the
  sketch, converted to the file's tabs/spaces and indentation offset;
- the result must parse no worse than the original (tree-sitter error count).
Failures raise ApplyError with a reason: a wrong merge is worse than none.
"""
from __future__ import annotations

import difflib
import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Iterable, Sequence

from lsp_server.apply import imports, layout, syntax
from lsp_server.apply.align import DEFINITION, IMPORT, TRIVIAL, Op, align, indent_of, prepare, signature
from lsp_server.apply.markers import is_marker
from lsp_server.protocol import detect_eol, normalise_eol

log = logging.getLogger(__name__)

MIN_CONFIDENCE = 0.5
OVERLAP = 10  # lines: how far a sketch's rewrite may reach into what a marker keeps...
REACH = 80   # ...and for a line found at most twice in the file
NEAR_COPY = 100  # lines: two copies of a once-only line this close mean a botched merge (bench/apply.py: 30 left 1 silent wrong merge, 100 none)
NEAR_CONTEXT = 30  # lines: outside a function, how far a marker's kept copy of a context line counts
REACH_GAP = 20  # lines: how far apart two shown lines of a stretch may stand at another place
NEAR_SHORT_COPY = 5  # lines: the same for a short once-only line
MOVES = 3   # runs of moved lines a sketch may have before the expander gives up
RETYPE = 4  # second opinion: re-typing a once-only line costs this many times its match reward
MOVED_IMPORT = 10  # lines: how far apart a re-typed import and the copy a marker keeps count as one block
CONTEXT = 4  # lines in a row, in order, that make a sketch's run the marker's own context
SIBLING = 0.75  # an import this alike to an import in a block's body is added to the body
LIKE_BODY = 0.5  # a new block body line this alike to an old one reads as its rewrite
SHORT_BODY = 3  # a rewritten block body this many times shorter than the old one, sharing no line, is ambiguous
FENCE = re.compile(r"^\s*```")
NEW_DEFINITION = re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)")  # top level: no indentation
FUTURE = re.compile(r"^from\s+__future__\s+import\s")
ANY_DEFINITION = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)")  # at any depth
FUNCTION_OPENER = re.compile(r"^(?:async\s+)?def\s")
CLOSER = re.compile(r"^[\})\]]+[;,)]*$")

# A tie-breaker gets the candidate full texts and returns the index of the likeliest, or None.
Chooser = Callable[[Sequence[str]], "int | None"]


class ApplyError(Exception):
    """The sketch cannot be applied with confidence; str() is the reason."""


@dataclass
class Expansion:
    text: str
    confidence: float
    notes: list[str] = field(default_factory=list)


def _uses_tabs(lines: Sequence[str]) -> bool | None:
    tabs = spaces = 0
    for line in lines:
        if line[:1] == "\t":
            tabs += 1
        elif line[:1] == " " and line.strip():
            spaces += 1
    return None if tabs == spaces == 0 else tabs > spaces


class _Indenter:
    """Maps the sketch's indentation to the file's: tabs vs spaces, then a uniform column offset
    (a method sketched without its class's indentation). Levels are not re-scaled: a fragment
    says too little about its own indentation unit to convert 2 ↔ 4 spaces safely."""

    def __init__(self, original: Sequence[str], sketch: Sequence[str]) -> None:
        file_tabs, sketch_tabs = _uses_tabs(original), _uses_tabs(sketch)
        self.to_tabs = file_tabs is True and sketch_tabs is False
        self.to_spaces = file_tabs is False and sketch_tabs is True
        self.offset = 0  # columns added to every new line

    def _tabs(self, line: str) -> str:
        ind = indent_of(line)
        if self.to_tabs:
            width = len(ind.replace("\t", "    "))
            return "\t" * (width // 4) + " " * (width % 4) + line.lstrip()
        if self.to_spaces:
            return ind.replace("\t", "    ") + line.lstrip()
        return line

    def learn_offset(self, pairs: Sequence[tuple[str, str]]) -> None:
        deltas: dict[int, int] = {}
        for o, s in pairs:
            if o.strip():
                d = len(indent_of(o)) - len(indent_of(self._tabs(s)))
                deltas[d] = deltas.get(d, 0) + 1
        # Lines kept at their own depth say the sketch is written in the file's columns; the
        # others are lines it re-indents (a block taken out of a `try:`), not a shifted fragment.
        if deltas and deltas.get(0, 0) < 2:
            self.offset = max(deltas.items(), key=lambda kv: kv[1])[0]

    def convert(self, line: str) -> str:
        if not line.strip():
            return ""
        line = self._tabs(line)
        if self.offset > 0:
            return ("\t" if self.to_tabs or line[:1] == "\t" else " ") * self.offset + line
        if self.offset < 0:
            return line[min(-self.offset, len(indent_of(line))):]
        return line


def _enclosing_functions(lines: Sequence[str]) -> list[int | None]:
    """Per line, the indentation of the `def` whose body holds it (by indentation), or None at
    module or class level (and for blank lines). One pass: the lines that open around each line
    form a stack, innermost last."""
    out: list[int | None] = []
    stack: list[tuple[int, bool]] = []  # (indentation, is a def) of the lines enclosing the current one
    for line in lines:
        if not line.strip():
            out.append(None)
            continue
        width = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= width:
            stack.pop()
        out.append(next((w for w, is_def in reversed(stack) if is_def), None))
        stack.append((width, bool(FUNCTION_OPENER.match(line.strip()))))
    return out


STRING = re.compile(r"""[rRbBuUfF]*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")


def _open_brackets(lines: Iterable[str]) -> int:
    """Brackets the lines open and do not close (one-line strings and comments aside)."""
    depth = 0
    for line in lines:
        code = STRING.sub('""', line).split("#", 1)[0]
        depth += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
    return depth


def _clean(sketch: str) -> list[str]:
    """Sketch lines without a surrounding Markdown fence and trailing blank lines."""
    lines = normalise_eol(sketch).split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and FENCE.match(lines[0]) and FENCE.match(lines[-1]) and len(lines) > 1:
        lines = lines[1:-1]
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


class _Moved(ApplyError):
    """A marker amid new lines stands for nothing; run_after: the sketch lines matched next."""

    def __init__(self, message: str, run_after: frozenset[int]) -> None:
        super().__init__(message)
        self.run_after = run_after


class _Unparsable(ApplyError):
    """The result parses worse than the original."""


class _Repeated(ApplyError):
    """The result repeats a once-only line; lines: that result."""

    def __init__(self, message: str, lines: list[str]) -> None:
        super().__init__(message)
        self.lines = lines


class _ContextCopy(ApplyError):
    """The sketch's line `line` was written anew next to a marker that keeps the same line."""

    def __init__(self, message: str, copies: dict[int, tuple[int, int]]) -> None:
        super().__init__(message)
        # each such sketch line → the original line after the last anchor before it, and the marker's copy
        self.copies = copies


class _Expander:
    def __init__(self, original: str, sketch: str, path: str, chooser: Chooser | None):
        self.path, self.chooser = path, chooser
        self.python = path.endswith((".py", ".pyi"))
        self.eol = detect_eol(original)
        self.text = normalise_eol(original)
        self.final_newline = self.text.endswith("\n")
        self.o = self.text.split("\n")
        if self.final_newline:
            self.o.pop()
        self.original = prepare(self.o)  # once: every opinion aligns against it
        self.counts = self.original.counts  # stripped original line → how often
        self.s = _clean(sketch)
        self.marker = [is_marker(x, self.counts) for x in self.s]
        self.last_future = max((i for i, x in enumerate(self.o) if FUTURE.match(x)), default=-1)
        self.hoisted: list[tuple[int, str]] = []  # (original line it goes before, new import line)
        self.hoist_imports()
        self.ind = _Indenter(self.o, [x for x, m in zip(self.s, self.marker) if not m])
        self.confidence = 1.0
        self.notes: list[str] = []
        self.matched: set[tuple[int, int]] = set()  # (sketch, original) lines the last alignment matched

    @cached_property
    def sketch_counts(self) -> Counter:
        """Stripped sketch line → how often the sketch has it (the sketch as hoist_imports left it)."""
        return Counter(x.strip() for x in self.s)

    def line_of(self, key: str) -> int:
        """The first original line whose stripped text is `key` (which the file has)."""
        return int(self.original.at_id[self.original.ids[key]][0])

    @cached_property
    def in_string(self) -> frozenset[int]:
        """Original lines inside a multi-line string (prose): found once, for every opinion."""
        return syntax.string_lines(self.path, self.text)

    def hoist_imports(self) -> None:
        """New Python imports alone between two markers go where the file's sorted import blocks
        put them, whatever the markers around them would otherwise cover: the run and the marker
        after it leave the sketch (two runs of new imports would otherwise share the header's few
        lines between their markers by chance)."""
        if not self.python:
            return
        marks = [i for i, m in enumerate(self.marker) if m]
        drop: set[int] = set()
        for m1, m2 in zip(marks, marks[1:]):
            lines = [self.s[i] for i in range(m1 + 1, m2) if self.s[i].strip()]
            if not lines or any(x.strip() in self.counts or imports.import_key(x) is None for x in lines):
                continue
            places = {imports.sorted_place(self.o, x) for x in lines}
            if len(places) == 1 and None not in places:
                at = places.pop()
                self.hoisted.extend((at, x) for x in lines)
                drop.update(range(m1 + 1, m2 + 1))
        if drop:
            keep = [i for i in range(len(self.s)) if i not in drop]
            self.s, self.marker = [self.s[i] for i in keep], [self.marker[i] for i in keep]

    def with_hoisted(self, ops: list[Op]) -> list[Op]:
        """The hoisted imports inserted before the original lines they go before."""
        for k, (at, _) in sorted(enumerate(self.hoisted), key=lambda x: (x[1][0], x[0])):
            place = next((x for x, op in enumerate(ops) if op.o >= at and op.kind in ("cover", "match", "edge")), len(ops))
            while place < len(ops) and ops[place].kind == "hoisted":
                place += 1
            ops = ops[:place] + [Op("hoisted", -1, k)] + ops[place:]
        if self.hoisted:
            self.penalise(0.95, "new imports placed where the file's import order puts them")
        return ops

    def penalise(self, factor: float, note: str) -> None:
        self.confidence *= factor
        if note not in self.notes:
            self.notes.append(note)

    def run(self) -> Expansion:
        if not any(x.strip() for x in self.s):
            raise ApplyError("the sketch is empty")
        try:
            return self.attempt()
        except _Moved as first:
            return self.moved(first)
        except _ContextCopy as first:
            return self.context_matched(first)
        except (_Unparsable, _Repeated) as first:
            if self.moves:  # a once-only line dropped and written anew elsewhere: keep it in place instead
                try:
                    return self.pinned(first, self.moves)
                except ApplyError:
                    pass
            if isinstance(first, _Unparsable):
                return self.second_opinion(first, "brackets and quotes as anchors", trivial_reward=3)
            return self.second_opinion(first, "lines the file has once as anchors", retype=RETYPE)

    def context_matched(self, first: _ContextCopy) -> Expansion:
        """A line written anew next to a marker that keeps the same line: the sketch showed it as
        context and the marker stands for the lines after it (platformdirs' `@property` after a
        rewritten body, which the marker would otherwise have kept). Aligned again with all such
        lines pinned; only a result that passes every check, keeps every match of the first
        alignment and matches each pinned line to the marker's copy, or to the line right after
        the anchor before it, is taken (pinning that moves other lines is another reading, not a
        repair: pytest's `@final`)."""
        before = set(self.matched)
        self.confidence, self.notes = 1.0, []
        try:
            result = self.attempt(pinned=frozenset(first.copies))
        except ApplyError:
            raise first from None
        at = dict(self.matched)
        # the first matches all kept; each pinned line is the marker's copy or follows the anchor
        # (matched in between, the lines the marker kept before it were another reading:
        # more-itertools' `yield tuple(window)`)
        if before <= self.matched and all(at.get(s) in ends for s, ends in first.copies.items()):
            result.confidence = round(result.confidence * 0.9, 3)
            result.notes.append("aligned on the second try (context next to a marker matched)")
            return result
        raise first

    def second_opinion(self, first: ApplyError, why: str, **retry) -> Expansion:
        """Align again by what went wrong: a result that does not parse with brackets and docstring
        quotes as anchors; one that repeats a once-only line with re-typing such a line made
        costly (the sketch showed it as context). If that repeat stays put, the sketch writes the
        line again on purpose (new code copying a line): taken if every other check passes. Only
        a result that passes every check is taken; otherwise the first reason stands."""
        self.confidence, self.notes = 1.0, []
        try:
            result = self.attempt(**retry)
        except _Repeated as again:
            if not isinstance(first, _Repeated) or again.lines != first.lines:
                raise first from None
            self.confidence, self.notes = 1.0, []
            try:
                result = self.attempt(**retry, repeat_ok=first.lines)
            except ApplyError:
                raise first from None
            why = "a repeated line kept: the alignment does not move under costly re-typing"
        except ApplyError:
            raise first from None
        result.confidence = round(result.confidence * 0.9, 3)
        result.notes.append(f"aligned on the second try ({why})")
        return result

    def pinned(self, first: ApplyError, moves: frozenset[int]) -> Expansion:
        """The first result moved once-only lines and failed: align again with them kept in place.
        If that result repeats a line, it is new code copying one (a new class's docstring
        sharing a function's `:param` lines) when the repeat survives costly re-typing too."""
        self.confidence, self.notes = 1.0, []
        try:
            result = self.attempt(pinned=moves)
        except _Repeated as again:
            return self.second_opinion(again, "moved lines kept in place", pinned=moves, retype=RETYPE)
        result.confidence = round(result.confidence * 0.9, 3)
        result.notes.append("aligned on the second try (moved lines kept in place)")
        return result

    def moved(self, first: _Moved) -> Expansion:
        """Code the sketch moved: its lines after the empty marker matched their old place, which
        left the marker nothing. Those lines (one run) are written anew instead, and their old
        place is dropped; up to MOVES runs, as long as each retry fails the same way further on."""
        unmatched: frozenset[int] = frozenset()
        failure = first
        for _ in range(MOVES):
            run = failure.run_after
            if not run or run <= unmatched:
                break
            unmatched |= run
            self.confidence, self.notes = 1.0, []
            try:
                result = self.attempt(unmatched=unmatched)
            except _Moved as again:
                failure = again
                continue
            except ApplyError:
                break
            result.confidence = round(result.confidence * 0.85, 3)
            result.notes.append(f"moved code: {len(unmatched)} sketch lines written anew at their new place")
            return result
        raise first

    def attempt(self, trivial_reward: int = 0, retype: int = 1, unmatched: frozenset[int] = frozenset(),
                repeat_ok: list[str] | None = None, pinned: frozenset[int] = frozenset()) -> Expansion:
        ops = align(self.original, self.s, self.marker, trivial_reward=trivial_reward, retype=retype, unmatched=unmatched,
                    pinned=pinned)
        self.moves = self.moved_lines(ops)
        matched = [op for op in ops if op.kind == "match" and self.o[op.o].strip()]
        if not matched and any(self.marker) and self.edited_definition(ops):
            self.penalise(0.85, "located by an edited definition line only")
        elif not matched and any(self.marker) and (self.floating_runs() or self.hoisted):
            pass  # new code between markers: place_floating finds its place or refuses
        elif not matched:
            if any(self.marker):
                raise ApplyError("no line of the sketch matches the file: cannot tell where it goes")
            if self.text.strip():
                self.penalise(0.9, "no line in common: the sketch replaces the whole file")
            return self.finish(list(self.s))
        self.ind.learn_offset([(self.o[op.o], self.s[op.s]) for op in matched])
        ops = self.overlaps(ops)
        ops = self.whole_bodies(ops)
        ops = self.place_floating(ops)
        ops = self.overlaps(ops)  # a placed block can leave a marker's lines next to re-typed context
        ops = self.moved_imports(ops)
        self.check_markers(ops)
        ops = self.with_hoisted(ops)
        ops = layout.after_header(layout.whole_blank_runs(ops, self.o, self.s), self.o, self.s, self.in_string)
        kept = [op for op in ops if op.kind != "drop"]  # what makes the result
        kept, lines = layout.spaced(kept, self.emit(kept), self.o, self.path, self.s)
        self.matched = {(op.s, op.o) for op in kept if op.kind == "match"}
        self.check_context_copies(kept, lines, self.edits(ops))
        if any(op.kind == "edge" and self.o[op.o].strip() for op in kept):
            if not self.fragment(kept):
                self.penalise(0.95, "no markers: the sketch is the whole new file")
                return self.finish([self.ind.convert(x) if x.strip() else x for x in self.s])
            self.penalise(0.9, "the sketch has no markers and covers part of the file: the rest is kept")
        result = self.finish(lines, kept, repeat_ok)
        self.check_deleted_definitions(ops, lines)  # after the checks that lead to second opinions
        self.check_unique_anchors(ops)  # last: a second opinion may still give a result that passes
        self.check_repeated_unit(ops)
        return result

    def moved_imports(self, ops: list[Op]) -> list[Op]:
        """An import the file and the sketch each have once, written anew by the sketch while a
        marker next to its run keeps the original a few lines away: the sketch reordered its
        import block (marshmallow's `import datetime as dt` above `import functools`, whose old
        line a marker kept). The kept copy goes; a file never imports the same line twice."""
        new = {self.s[op.s].strip(): k for k, op in enumerate(ops) if op.kind == "new"
               and IMPORT.match(self.s[op.s].strip()) and self.sketch_counts[self.s[op.s].strip()] == 1
               and self.counts.get(self.s[op.s].strip()) == 1}
        if not new:
            return ops
        out = list(ops)
        for k, op in enumerate(ops):
            if op.kind == "cover" and (at := new.get(self.o[op.o].strip())) is not None and abs(at - k) <= MOVED_IMPORT:
                out[k] = Op("drop", op.o, -1)
                self.penalise(0.95, "an import the sketch moved within its block")
        return out

    def fragment(self, ops: list[Op]) -> bool:
        """A sketch without markers describes the whole file (the planner's prompt says so). One
        that opens and closes with lines of the file, leaving lines of the file on either side,
        is a fragment breaking that rule, kept lenient: the lines around it stay. Ending in new
        code with much of the file unshown, it is neither: refused rather than guessed."""
        shown = [op for op in ops if op.s >= 0 and self.s[op.s].strip()]
        if shown and shown[0].kind == "match" and shown[-1].kind == "match":
            return True
        if 2 * len(shown) >= sum(1 for x in self.o if x.strip()):
            return False
        raise ApplyError("the sketch has no markers and ends in new code without the lines around it: "
                         "cannot tell whether it replaces the rest of the file")

    def moved_lines(self, ops: list[Op]) -> frozenset[int]:
        """Sketch lines written anew whose text the file has once, on a line the alignment drops:
        the alignment moved them, which sketches rarely do. Often the other of two equally cheap
        readings deletes lines the sketch never showed deleted (anyio's `@contextmanager`, dropped
        and re-typed while a new class's docstring matched the old function's)."""
        dropped = {self.o[op.o].strip() for op in ops if op.kind == "drop"}
        return frozenset(op.s for op in ops if op.kind == "new" and (key := self.s[op.s].strip()) in dropped
                         and self.counts.get(key) == 1 and not TRIVIAL.match(key))

    def edits(self, ops: list[Op]) -> set[int]:
        """Sketch lines that replace the original line dropped right before them, which starts
        alike (`def convert(  # noqa: F811` → `def convert(`): an edited line."""
        return {op.s for prev, op in zip(ops, ops[1:]) if prev.kind == "drop" and op.kind == "new"
                and (sig := signature(self.s[op.s].strip())) is not None and sig == signature(self.o[prev.o].strip())}

    def edited_definition(self, ops: list[Op]) -> bool:
        """The sketch rewrote a definition's own line (`def greet(name):` → `def greet(name, x):`):
        the same name in the same kind of line still says where it goes."""
        for prev, op in zip(ops, ops[1:]):
            if prev.kind == "drop" and op.kind == "new":
                old, new = self.o[prev.o].strip(), self.s[op.s].strip()
                if DEFINITION.match(old) and signature(old) == signature(new):
                    return True
        return False

    # -- structure ---------------------------------------------------------------------------

    def overlaps(self, ops: list[Op]) -> list[Op]:
        """New lines next to a marker that repeat a line the marker keeps: the sketch shows that
        line as context, so the marker stops before it (and what lies between is what the
        sketch replaced or deleted). Trivial lines count only within OVERLAP lines; a telling line
        the file has at most twice, within REACH lines."""
        out = list(ops)

        def reach(line: str) -> int:
            if not line:
                return 0
            if TRIVIAL.match(line):
                return OVERLAP
            return REACH if self.counts.get(line, 0) <= 2 else OVERLAP

        for k in range(len(out) - 1):
            if out[k].kind == "new" and out[k + 1].kind == "cover":
                last = self.s[out[k].s].strip()
                if TRIVIAL.match(last):
                    continue  # a new block ending in `}` says nothing about the next one
                x, hit = k + 1, None
                while x < len(out) and x <= k + reach(last) and out[x].kind == "cover":
                    if self.o[out[x].o].strip() == last:
                        hit = x
                        break
                    x += 1
                if hit is not None:
                    for x in range(k + 1, hit + 1):
                        out[x] = Op("drop", out[x].o, -1)
                    self.penalise(0.95, "the sketch's lines overlap what a marker keeps: the overlap is replaced")
            elif out[k].kind == "cover" and out[k + 1].kind == "new":
                first = self.s[out[k + 1].s].strip()
                x, hit = k, None
                while x >= 0 and x >= k + 1 - reach(first) and out[x].kind == "cover":
                    if self.o[out[x].o].strip() == first:
                        hit = x
                        break
                    x -= 1
                if hit is None:
                    hit = self.shown_context(out, k)
                if hit is not None:
                    out[hit] = Op("match", out[hit].o, out[k + 1].s)
                    out[k + 1] = Op("gone", -1, -1)
                    for x in range(hit + 1, k + 1):
                        out[x] = Op("drop", out[x].o, -1)
                    self.penalise(0.95, "the sketch's lines overlap what a marker keeps: the overlap is replaced")
        return [op for op in out if op.kind != "gone"]

    def shown_context(self, out: list[Op], k: int) -> int | None:
        """Past REACH: the new run after the cover at out[k] starts with CONTEXT lines (two of them
        telling) that stand together, in order, among the lines the marker covers: the sketch
        shows them as context, so the marker stops there (the last such place). Where is it?"""
        run = []
        for op in out[k + 1:]:
            if op.kind != "new" or len(run) == CONTEXT:
                break
            run.append(self.s[op.s].strip())
        if len(run) < CONTEXT or sum(1 for x in run if x and not TRIVIAL.match(x)) < 2:
            return None
        start = k
        while start > 0 and out[start - 1].kind == "cover":
            start -= 1
        for x in range(k - len(run) + 1, start - 1, -1):
            if all(self.o[out[x + j].o].strip() == run[j] for j in range(len(run))):
                return x
        return None

    def check_deleted_definitions(self, ops: list[Op], lines: list[str]) -> None:
        """A definition the alignment deletes (its line dropped, no marker for it) that the
        sketch's own code still calls, while nothing else defines the name: the sketch did not
        delete it, the alignment went astray (pytest's `check_interactive_exception`, dropped so
        that lines the sketch moved out of another function could match there)."""
        names = {}
        for op in ops:
            if op.kind == "drop" and (m := ANY_DEFINITION.match(self.o[op.o])) and not m.group(1).startswith("__"):
                names.setdefault(m.group(1), op.o)
        if not names:
            return
        kept = {m.group(1) for x in lines if (m := ANY_DEFINITION.match(x))}  # defined in the result
        names = {name: line for name, line in names.items() if name not in kept}
        if not names:
            return
        code = [STRING.sub('""', x).split("#")[0] for x, is_marker in zip(self.s, self.marker) if not is_marker]
        joined = "\n".join(code)
        for name, line in names.items():
            if name not in joined:  # (most: the sketch never names it)
                continue
            code_naming = [x for x in code if name in x]
            # defined again by the sketch (a def, an assignment, an import) or only named: no sign
            n = re.escape(name)
            bound = re.compile(rf"^\s*(?:(?:async\s+)?(?:def|class)\s+{n}\b|{n}\s*[:=]|.*\bimport\b.*\b{n}\b"
                               rf"|{n}\s*(?:as\s+\w+\s*)?,?\s*$)")  # (the last: an item of a multi-line import)
            if any(bound.match(x) for x in code_naming):
                continue
            call = re.compile(rf"(?<![\w.]){n}\s*\(")
            if any(call.search(x) for x in code_naming):
                # the lines matched after it, up to the next marker, pulled the alignment past it:
                # written anew (moved code), the alignment may keep it
                k = next(k for k, op in enumerate(ops) if op.kind == "drop" and op.o == line)
                after = set()
                for op in ops[k + 1:]:
                    if op.kind == "cover":
                        break
                    if op.kind == "match" and self.o[op.o].strip():
                        after.add(op.s)
                raise _Moved(f"the sketch uses {name!r} but its alignment would delete that definition (original "
                             f"line {line + 1}), which the sketch does not show: cannot tell where its lines go",
                             frozenset(after))

    def check_markers(self, ops: list[Op]) -> None:
        """A marker amid new lines that stands for no original line: the code it means is
        elsewhere (moved) or gone, and no monotonic alignment can honour it. Any other marker
        inside the sketch must stand for some line too (one that opens or closes it may not:
        "rest of the file" where nothing is left)."""
        covered = {op.s for op in ops if op.kind == "cover" and self.o[op.o].strip()}  # blank lines say nothing
        kind = {op.s: op.kind for op in ops if op.kind in ("match", "new")}
        for i, is_marker in enumerate(self.marker):
            if not is_marker or i in covered:
                continue
            before = next((j for j in range(i - 1, -1, -1) if self.s[j].strip()), None)
            after = next((j for j in range(i + 1, len(self.s)) if self.s[j].strip()), None)
            if before is not None and after is not None and kind.get(before) == "new" and kind.get(after) == "new":
                # the first run of matched lines after the marker: where the moved code may have anchored
                later = [j for j in range(after, len(self.s)) if not self.marker[j] and self.s[j].strip()]
                start = next((k for k, j in enumerate(later) if kind.get(j) == "match"), None)
                run: set[int] = set()
                for j in later[start:] if start is not None else []:
                    if kind.get(j) != "match":
                        break
                    run.add(j)
                raise _Moved(f"the marker on sketch line {i + 1} stands for code the file does not have there "
                             "(moved or removed code?)", frozenset(run))
            if before is not None and after is not None and not self.placed_next_to(i, kind) and self.deletes(ops):
                # between lines of the file, a marker standing for none of it while the alignment
                # deletes lines the sketch never showed replaced: the two disagree (never so in an
                # exact result of bench/apply.py --all-styles; in six wrong ones: a re-sorted
                # import block, re-typed lines next to it). A marker where nothing was left out,
                # with nothing deleted, is only a superfluous marker.
                raise ApplyError(f"the marker on sketch line {i + 1} stands for no line of the file "
                                 "while lines of the file are deleted: the sketch does not fit the file there")

    def deletes(self, ops: list[Op]) -> bool:
        """Does the alignment drop a non-blank line with no new line next to it (a deletion, not
        a replacement)?"""
        return any(op.kind == "drop" and self.o[op.o].strip()
                   and not any(0 <= x < len(ops) and ops[x].kind == "new" for x in (k - 1, k + 1))
                   for k, op in enumerate(ops))

    def placed_next_to(self, i: int, kind: dict[int, str]) -> bool:
        """Is the stretch of sketch lines on one side of marker i all new code (a block placed
        where nothing lies between it and the file's next line: a helper right above its user)?"""
        for step in (-1, 1):
            j, lines = i + step, []
            while 0 <= j < len(self.s) and not self.marker[j]:
                if self.s[j].strip():
                    lines.append(j)
                j += step
            if lines and all(kind.get(j) == "new" for j in lines):
                return True
        return False

    def check_repeated_unit(self, ops: list[Op]) -> None:
        """New lines replacing original lines, shown between two copies of the same two or more
        lines the file has several times, the second copy right before a marker (pytest's `)` /
        `add_option_ini(` around a new option): a new unit inserted before the next one (the
        marker keeps that) or an edit of the next one? Refused. (One such line, `@property`,
        is too common around edits to tell.)"""
        for k, op in enumerate(ops):
            if op.kind != "drop" or not self.o[op.o].strip() or (k > 0 and ops[k - 1].kind in ("drop", "new")):
                continue
            e = k  # ops[k:e]: a run of dropped and new lines
            while e < len(ops) and ops[e].kind in ("drop", "new"):
                e += 1
            if not any(x.kind == "new" for x in ops[k:e]):
                continue
            after = []  # the matched lines after it, up to a marker
            x = e
            while x < len(ops) and ops[x].kind == "match":
                after.append(ops[x])
                x += 1
            if not after or x >= len(ops) or ops[x].kind != "cover":
                continue
            keys = [self.o[a.o].strip() for a in after if self.o[a.o].strip()]
            before = [self.o[b.o].strip() for b in ops[max(0, k - len(after)):k] if b.kind == "match"]
            before = [b for b in before if b]
            if len(keys) >= 2 and keys == before[-len(keys):] and all(self.counts[x] > 1 for x in keys):
                raise ApplyError(f"the sketch's new lines before {keys[-1][:40]!r} (original line {after[-1].o + 1}) may "
                                 f"replace original lines {ops[k].o + 1}-{max(x.o for x in ops[k:e] if x.kind == 'drop') + 1} "
                                 "or be inserted before them: the lines around them are the same")

    def check_unique_anchors(self, ops: list[Op]) -> None:
        """Each stretch of the sketch between markers must be placed by what it shows: when its
        matched lines are all lines the file has several times, and the original lines it stands on
        (those it replaces included) stand the same at another place between the stretches around
        it, the sketch fits both (cachetools' `def __init__(self, maxsize, getsizeof=None):` /
        `Cache.__init__(...)`, in four classes)."""
        if not any(self.marker):
            return
        run_of, run = [], 0
        for i in range(len(self.s)):
            run += self.marker[i]
            run_of.append(run)
        shown = [(op.s, op.o) for op in ops if op.kind == "match" and self.o[op.o].strip()
                 and not TRIVIAL.match(self.o[op.o].strip())]
        keys = [x.strip() for x in self.o]
        for r in sorted({run_of[s] for s, _ in shown}):
            mine = [(s, o) for s, o in shown if run_of[s] == r]
            if any(self.counts[keys[o]] == 1 for _, o in mine):
                continue
            lo = max((o for s, o in shown if run_of[s] < r), default=-1)
            hi = min((o for s, o in shown if run_of[s] > r), default=len(self.o))
            # the whole stretch it stands on, lines it replaces included: those tell places apart
            at = [k for k, op in enumerate(ops) if op.s >= 0 and op.kind in ("match", "new") and run_of[op.s] == r]
            stretch = [op.o for op in ops[at[0]:at[-1] + 2] if op.kind in ("match", "drop")]
            first, last = min(stretch), max(stretch)
            fits = [p for p in range(lo + 1, hi) if keys[p] == keys[first] and p != first
                    and last + p - first < hi and keys[p:p + last - first + 1] == keys[first:last + 1]]
            if not fits:  # places where the shown lines fit but what they replace differs: the likeliest edit
                fits = self.likelier_places(ops, at, stretch, lo, hi) or self.reshaped_places(ops, at, lo, hi)
            if fits:
                raise ApplyError(f"the lines the sketch shows around its change at sketch line {mine[0][0] + 1} "
                                 f"fit original lines {first + 1} and {fits[0] + 1}: cannot tell which place it means")
        self.check_unanchored_edits(ops, run_of, {run_of[s] for s, _ in shown})

    def check_unanchored_edits(self, ops: list[Op], run_of: list[int], anchored: set[int]) -> None:
        """A stretch between markers that matches no telling line but replaces original lines
        (`return 9` between two markers, in a file with `return 1` and `return 2`): an edit of
        lines like those at another place between the stretches around it fits as well. Refused."""
        shown = [op for op in ops if op.kind == "match" and self.o[op.o].strip()]
        k = 0
        while k < len(ops):
            if ops[k].kind != "new" or run_of[ops[k].s] in anchored:
                k += 1
                continue
            a = b = k  # the run of new and dropped lines around this new line
            while a > 0 and ops[a - 1].kind in ("new", "drop"):
                a -= 1
            while b + 1 < len(ops) and ops[b + 1].kind in ("new", "drop"):
                b += 1
            k = b + 1
            replaced = [op.o for op in ops[a:b + 1] if op.kind == "drop" and self.o[op.o].strip()]
            if not replaced:
                continue  # an insertion: place_floating's
            lo = max((op.o for op in shown if op.o < replaced[0]), default=-1)
            hi = min((op.o for op in shown if op.o > replaced[-1]), default=len(self.o))
            offsets = [o - replaced[0] for o in replaced]
            sigs = [(signature(self.o[o].strip()), indent_of(self.o[o])) for o in replaced]
            if any(sig is None for sig, _ in sigs):
                continue
            for p in range(lo + 1, hi - offsets[-1]):
                if p != replaced[0] and all((signature(self.o[p + d].strip()), indent_of(self.o[p + d])) == sig
                                            for d, sig in zip(offsets, sigs)):
                    line = next(op.s for op in ops[a:b + 1] if op.kind == "new") + 1
                    raise ApplyError(f"the sketch's new lines at sketch line {line} "
                                     f"with no line of context could replace original line {replaced[0] + 1} or "
                                     f"{p + 1}: cannot tell which it edits")

    def likelier_places(self, ops: list[Op], at: list[int], stretch: list[int], lo: int, hi: int) -> list[int]:
        """Other places where a stretch's matched lines stand the same, whose lines at the offsets
        the stretch replaces are at least as like its new lines as the ones it replaced (two
        `_deserialize` methods after `return value.compressed`: the new signature names the
        second one's types). The alignment's costs tie there and it took the first."""
        span = ops[at[0]:at[-1] + 2]
        new = "\n".join(self.s[op.s].strip() for op in span if op.kind == "new" and self.s[op.s].strip())
        if not new:
            return []
        first, keys = min(stretch), [x.strip() for x in self.o]
        shown = [op.o - first for op in span if op.kind == "match"]
        replaced = [op.o - first for op in span if op.kind == "drop"]
        width = max(stretch) - first + 1

        def likeness(p: int) -> float:
            old = "\n".join(keys[p + d] for d in replaced if keys[p + d])
            # a place where the new lines are already there would be no edit: no reading
            return -1.0 if old == new else difflib.SequenceMatcher(None, new, old, autojunk=False).ratio()

        mine = likeness(first)
        return [p for p in range(lo + 1, hi - width + 1) if p != first
                and all(keys[p + d] == keys[first + d] for d in shown) and likeness(p) >= max(mine, 0.0)]

    def reshaped_places(self, ops: list[Op], at: list[int], lo: int, hi: int) -> list[int]:
        """Like likelier_places, where the lines between the stretch's shown lines may be more or
        fewer at the other place: pytest's two `fail(` … `pytrace=False,` calls, the new message
        line replacing a three-line `.format(` call at one and a one-line f-string at the other.
        Each shown line is found in order within REACH_GAP lines of the one before."""
        span = ops[at[0]:at[-1] + 2]
        new = "\n".join(self.s[op.s].strip() for op in span if op.kind == "new" and self.s[op.s].strip())
        shown = [op.o for op in span if op.kind == "match" and self.o[op.o].strip()]
        if not new or len(shown) < 2:
            return []
        keys = [x.strip() for x in self.o]
        gaps = [any(op.kind == "drop" for op in span if a < op.o < b) for a, b in zip(shown, shown[1:])]
        if not any(gaps):
            return []  # an insertion between lines kept together: likelier_places' (same shape)

        def replaced(places: list[int]) -> str | None:
            out = []
            for (a, b), dropped in zip(zip(places, places[1:]), gaps):
                if not dropped and b != a + 1 + sum(not keys[x] for x in range(a + 1, b)):
                    return None  # the stretch keeps these two lines together (blank lines aside)
                out += [keys[x] for x in range(a + 1, b) if keys[x]] if dropped else []
            return "\n".join(out)

        def likeness(old: str | None) -> float:
            if old is None or old == new:  # no such place, or one where the edit is already made
                return -1.0
            return difflib.SequenceMatcher(None, new, old, autojunk=False).ratio()

        mine = likeness(replaced(shown))
        out = []
        for p in range(lo + 1, hi):
            if p == shown[0] or keys[p] != keys[shown[0]]:
                continue
            places = [p]
            for o in shown[1:]:
                nxt = next((x for x in range(places[-1] + 1, min(hi, places[-1] + 1 + REACH_GAP)) if keys[x] == keys[o]), None)
                if nxt is None:
                    break
                places.append(nxt)
            apart = places[-1] < shown[0] or places[0] > shown[-1]  # not the chosen place widened
            if len(places) == len(shown) and apart and likeness(replaced(places)) >= max(mine, 0.0):
                out.append(p)
        return out

    def check_context_copies(self, ops: list[Op], lines: list[str], edits: set[int]) -> None:
        """A line of the file the sketch writes anew right next to a marker, while that marker keeps
        the same line, at the same depth, in the same function: the sketch showed it as the
        marker's context, and the marker stands for the lines on the other side of it
        (more-itertools' `yield tuple(window)`, which the file has three times: the old loop
        stayed under the new one). Two readings; refused, not guessed. A line that edits the line
        it replaces (edits) is no copy: pytest's overloads share `def deprecated_call(`."""
        owners: list[int | None] | None = None
        copies: dict[int, tuple[int, int]] = {}
        message = ""
        for k, op in enumerate(ops):
            key = lines[k].strip()
            if op.kind != "new" or op.s in edits or not key or TRIVIAL.match(key) or key not in self.counts:
                continue
            depth = indent_of(lines[k])
            owners = owners or _enclosing_functions(lines)
            owner = owners[k]  # None: module or class level, where only nearby lines count
            for step in (1, -1):
                x = k + step
                while 0 <= x < len(ops) and ops[x].kind == "blank":
                    x += step
                start = x
                while 0 <= x < len(ops) and ops[x].kind == "cover" and (
                        (not lines[x].strip() or len(indent_of(lines[x])) > owner) if owner is not None
                        else abs(x - start) < NEAR_CONTEXT):
                    if lines[x].strip() == key and indent_of(lines[x]) == depth and op.s not in copies:
                        message = message or (f"the sketch writes {key[:50]!r} (its line {op.s + 1}) anew next to a "
                                              f"marker that keeps the same line (original line {ops[x].o + 1}): which "
                                              "lines does the marker stand for?")
                        copies[op.s] = self.since_anchor(ops, k, x)
                    x += step
        if copies:
            raise _ContextCopy(message, copies)

    @staticmethod
    def since_anchor(ops: list[Op], k: int, x: int) -> tuple[int, int]:
        """The original lines between the line matched last on the side of op k away from op x
        (a marker's copy of k's line) and that copy, inclusive."""
        if x > k:
            lo = max((op.o for op in ops[:k] if op.kind == "match"), default=-1) + 1
            return lo, ops[x].o
        hi = min((op.o for op in ops[k + 1:] if op.kind == "match"), default=len(ops)) - 1
        return ops[x].o, hi

    def whole_bodies(self, ops: list[Op]) -> list[Op]:
        """`def f():` matched, new body lines, then a marker no deeper than `def`: the marker
        stands for what follows the function, so the old body goes (up to tree-sitter's end)."""
        out = list(ops)
        for k, op in enumerate(out):
            if op.kind != "match" or not self.o[op.o].rstrip().endswith((":", "{")):
                continue
            opener_ind = len(indent_of(self.o[op.o]))
            saw_new, m = False, k + 1
            while m < len(out) and (out[m].kind in ("new", "drop") or (out[m].kind == "match" and not self.o[out[m].o].strip())):
                saw_new |= out[m].kind == "new" and bool(self.s[out[m].s].strip())
                m += 1
            if not saw_new or m >= len(out) or out[m].kind != "cover":
                continue
            if len(indent_of(self.s[out[m].s])) > opener_ind:
                continue  # the marker is inside the block: it elides the rest of the body
            if _open_brackets(self.s[out[x].s] for x in range(k + 1, m) if out[x].kind == "new") > 0:
                continue  # the run stops inside a bracket (`raise TypeError(`): the marker goes on with it
            end = syntax.block_end(self.path, self.text, op.o, opener_ind)
            if end is None:
                continue
            new_lines = [self.s[out[x].s].strip() for x in range(k + 1, m) if out[x].kind == "new" and self.s[out[x].s].strip()]
            old_body = [self.o[x].strip() for x in range(op.o + 1, end + 1) if self.o[x].strip()]
            if old_body and all(IMPORT.match(n) and any(difflib.SequenceMatcher(None, n, b).ratio() >= SIBLING
                                                        for b in old_body) for n in new_lines):
                continue  # imports next to the block's imports: added to it, not replacing it
            unlike = not any(signature(n) is not None and signature(n) == signature(b)
                             or difflib.SequenceMatcher(None, n, b, autojunk=False).ratio() >= LIKE_BODY
                             for n in new_lines for b in old_body)
            if (len(new_lines) * SHORT_BODY < len(old_body) and not set(new_lines) & set(old_body) or unlike) \
                    and old_body and not DEFINITION.match(self.o[op.o].strip()):
                # an `if`/`for` body of a few new lines over a long old one with nothing in common,
                # or of lines none alike to the old ones (werkzeug's new `if data is None: raise`
                # over `etag = generate_etag(data)`): lines added at the top of the block (the
                # marker then stands for its rest), or a rewrite? (A function's new body after its
                # `def` is a rewrite: that is how sketches replace a function.)
                raise ApplyError(f"the sketch writes {len(new_lines)} line(s) after {self.o[op.o].strip()[:50]!r} "
                                 f"(original line {op.o + 1}) and then a marker: it may replace the "
                                 f"{len(old_body)}-line block or add to it")
            last_new = next(self.s[out[x].s] for x in range(m - 1, k, -1) if out[x].kind == "new" and self.s[out[x].s].strip())
            if CLOSER.match(self.o[end].strip()) and not CLOSER.match(last_new.strip()):
                end -= 1  # the sketch's run stops before the closing brace: keep the original's
            x = m
            while x < len(out) and out[x].kind == "cover" and out[x].o <= end:
                out[x] = Op("drop", out[x].o, out[x].s)
                x += 1
            self.penalise(0.97, "a rewritten block replaces the whole old block")
        return out

    def place_floating(self, ops: list[Op]) -> list[Op]:
        """New lines between two markers with no line of context (blank lines aside): the
        programme's placement is one of several equally cheap ones, so check that only one
        place fits, or let the tie-breaker choose, or refuse."""
        matched = {op.s for op in ops if op.kind == "match"}
        for a, b in self.floating_runs(matched):
            in_run = set(range(a, b + 1))
            positions = [k for k, op in enumerate(ops) if op.s in in_run and op.kind in ("new", "match")]
            if not positions:
                continue
            lo, hi = positions[0], positions[-1] + 1
            while lo > 0 and self.loose(ops[lo - 1], a - 1):
                lo -= 1
            while hi < len(ops) and self.loose(ops[hi], b + 1):
                hi += 1
            region = [op.o for op in ops[lo:hi] if op.o >= 0]
            core = [i for i in range(a, b + 1) if self.s[i].strip()]
            if not region or not core:
                continue
            dropped = {self.o[op.o].strip() for op in ops if op.kind == "drop"}
            moved = [i for i in core if self.s[i].strip() in dropped and self.counts.get(self.s[i].strip()) == 1]
            resorted = self.resorted_imports(ops, region, core, moved) if moved else None
            if moved and resorted is None:  # a line of the file taken from its place, and nothing says where it goes
                line = self.s[moved[0]].strip()
                raise ApplyError(f"the sketch moves {line[:60]!r} (original line {self.line_of(line) + 1}) with no context "
                                 "around its new place")
            core_lines = list(range(core[0], core[-1] + 1))
            lead = list(range(a, core[0]))                # the sketch's blank lines before the new block
            trailing = list(range(core[-1] + 1, b + 1))   # and after it
            points = self.insertion_points(region, self.s[core[0]])
            # a marker between two new blocks stands for something; code goes after the imports
            sensible = [p for p in points if not (p == 0 and lo > 0 and ops[lo - 1].kind == "new")
                        and not (p == len(region) and hi < len(ops) and ops[hi].kind == "new")
                        and (IMPORT.match(self.s[core[0]].strip()) or not self.amid_imports(region, p))
                        and not self.before_future(region, p)]
            points = sensible or points
            sorted_at = resorted if resorted is not None else self.import_place(region, core)
            if sorted_at is None and self.first_imports(core):
                start = imports.code_start(self.o)  # no import yet: at the top of the code (PEP 8)
                sorted_at = next((x for x, o in enumerate(region) if o == start), None)
                if sorted_at is None and start == region[-1] + 1:
                    sorted_at = len(region)
            if sorted_at is None and len(points) > 1 and self.python \
                    and imports.import_key(self.ind.convert(self.s[core[0]])) is not None \
                    and not FUTURE.match(self.s[core[0]].strip()):
                end = imports.section_end(self.o)  # a file whose imports follow no order we know
                appended = region.index(end) if end in region else len(region) if end == region[-1] + 1 else None
                if appended is not None:
                    self.penalise(0.9, "new imports appended to the file's import section (no order we know)")
                    points = [appended]
            if sorted_at is not None:
                chosen = sorted_at
                self.penalise(0.95, "new imports placed where the file's import order puts them")
            elif len(points) > 1:
                pick = self.choose(ops, lo, hi, region, points, core_lines, lead, trailing)
                chosen = points[pick]
            else:
                chosen = points[0] if points else len(region)
            if lead and not trailing:  # the sketch separates the block from what is above it: the
                while chosen > 0 and not self.o[region[chosen - 1]].strip():  # file's blank lines
                    chosen -= 1  # then separate it from what follows (imports above the code)
            ops[lo:hi] = self.placed(region, chosen, core_lines, lead, trailing)
        return ops

    def resorted_imports(self, ops: list[Op], region: list[int], core: list[int], moved: list[int]) -> int | None:
        """Imports alone between two markers, each one the file has and the alignment dropped
        from its place: the sketch re-sorted the import block (pytest's `import warnings`, from
        among the `import` lines to after `from typing import Union`). The one place an order
        the rest of the block still follows puts them, as an offset into region, else None."""
        lines = [i for i in core if self.s[i].strip()]
        if len(moved) != len(lines) or not self.python:
            return None
        gone = {op.o for op in ops if op.kind == "drop"}
        places = set()
        for i in lines:
            line = self.s[i].strip()
            places.add(imports.resorted_place(self.o, gone, line, self.line_of(line)))
        if len(places) != 1 or None in places:
            return None
        at = places.pop()
        if at in region:
            return region.index(at)
        return len(region) if at == region[-1] + 1 else None

    def floating_runs(self, matched: set[int] | None = None) -> list[tuple[int, int]]:
        """Sketch spans [a, b] strictly between two markers holding no line found in the file (or,
        given the alignment's matched sketch lines, none it matched: a new method whose
        `if not self._closed:` the file has elsewhere is placed like any new block)."""
        keys = self.counts
        # an edited definition line (`def greet(name):` → `def greet(name, x):`) anchors its run,
        # when the file defines that name once (a new class's `def __init__(` edits none of many)
        defs = Counter(signature(x.strip()) for x in self.o if DEFINITION.match(x.strip()))
        marks = [i for i, m in enumerate(self.marker) if m]
        runs = []
        for m1, m2 in zip(marks, marks[1:]):
            body = [i for i in range(m1 + 1, m2) if self.s[i].strip()]
            anchored = any((self.s[i].strip() in keys and not TRIVIAL.match(self.s[i].strip())
                            and (matched is None or i in matched))
                           or (DEFINITION.match(self.s[i].strip()) and defs[signature(self.s[i].strip())] == 1)
                           for i in body)
            if body and not anchored:
                runs.append((m1 + 1, m2 - 1))
        return runs

    def import_place(self, region: list[int], core: list[int]) -> int | None:
        """New Python imports, every one bound for the same place in the file's sorted import
        blocks: that place (an offset into region), else None."""
        if not self.python:
            return None
        lines = [self.o[i] for i in region]
        new = [self.ind.convert(self.s[i]) for i in core if self.s[i].strip()]
        places = {imports.sorted_place(lines, line) for line in new}
        return places.pop() if len(places) == 1 else None

    def first_imports(self, core: list[int]) -> bool:
        """New Python imports, and the file has no top-level import yet."""
        return self.python and not imports.has_imports(self.o) \
            and all(imports.import_key(self.ind.convert(self.s[i])) for i in core if self.s[i].strip())

    def amid_imports(self, region: list[int], p: int) -> bool:
        """Is offset p of region between two top-level import lines (blank lines aside)?"""
        at = region[p] if p < len(region) else region[-1] + 1
        before = next((self.o[i] for i in range(at - 1, -1, -1) if self.o[i].strip()), "")
        after = next((self.o[i] for i in range(at, len(self.o)) if self.o[i].strip()), "")
        return all(imports.import_key(x) is not None for x in (before, after))

    def before_future(self, region: list[int], p: int) -> bool:
        """Would offset p of region put code above a `from __future__` import (which must come first)?"""
        at = region[p] if p < len(region) else region[-1] + 1
        return at <= self.last_future

    def loose(self, op: Op, marker: int) -> bool:
        """Ops around a floating run that may move: lines its markers cover, blank lines."""
        if op.kind == "cover":
            return op.s == marker
        if op.kind in ("match", "drop") and op.o >= 0:
            return not self.o[op.o].strip()
        return op.kind == "new" and not self.s[op.s].strip()

    def placed(self, region: list[int], p: int, core: list[int], lead: list[int], trailing: list[int]) -> list[Op]:
        """Original lines before p (the marker before the block covers them), the new block,
        original lines from p (the marker after it); the sketch's blank lines around the block
        only where the original has none at that place."""
        first = (lead or core)[0] - 1
        last = (trailing or core)[-1] + 1
        before = [Op("cover", o, first) for o in region[:p]]
        head = [Op("new", -1, i) for i in lead] if p > 0 and self.o[region[p - 1]].strip() else []
        block = [Op("new", -1, i) for i in core]
        after = region[p] if p < len(region) else region[-1] + 1
        tail = [Op("new", -1, i) for i in trailing] if after < len(self.o) and self.o[after].strip() else []
        return before + head + block + tail + [Op("cover", o, last) for o in region[p:]]

    def insertion_points(self, region: list[int], first_line: str) -> list[int]:
        """Offsets into region where a block at first_line's indentation can start: after a
        blank line (or the region start) and before a line indented no deeper (or the end)."""
        want = len(indent_of(self.ind.convert(first_line)))
        o = self.o
        points = []
        after = region[-1] + 1  # the original line after the region (an anchor), if any
        next_ind = next((len(indent_of(o[i])) for i in range(after, len(o)) if o[i].strip()), 0)
        for p in range(len(region) + 1):
            after_blank = p in (0, len(region)) or not o[region[p - 1]].strip()
            if p == len(region):  # at the end: only if what follows is not deeper (inside a block)
                fits = next_ind <= want
            else:
                fits = bool(o[region[p]].strip()) and len(indent_of(o[region[p]])) <= want
            if after_blank and fits:
                points.append(p)
        return points

    def choose(self, ops, lo, hi, region, points, core, lead, trailing) -> int:
        preview = self.s[core[0]].strip()
        places = ", ".join(str(region[p] + 1) if p < len(region) else "the end" for p in points[:6])
        definition = NEW_DEFINITION.match(self.s[core[0]]) is not None
        # each trial is a whole op list: built only for a rule or a chooser that will read them
        trials = [ops[:lo] + self.placed(region, p, core, lead, trailing) + ops[hi:] for p in points] \
            if definition or self.chooser is not None else []
        user = self.above_first_user(trials, core) if definition else None
        if user is not None:
            self.penalise(0.9, "a new definition placed right above its first user")
            return user
        if self.chooser is None:
            raise ApplyError(f"{len(points)} places fit the new lines starting {preview[:60]!r} "
                             f"(before original lines {places}) and the sketch gives no context")
        texts = ["\n".join(self.emit(trial)) for trial in trials]
        pick = self.chooser(texts)
        if pick is None:
            raise ApplyError(f"the local model could not choose among {len(points)} places for {preview[:60]!r}")
        self.penalise(0.8, f"placement chosen by the local model among {len(points)}")
        return pick

    def above_first_user(self, trials: list[list[Op]], core: list[int]) -> int | None:
        """A new top-level `def`/`class` goes right above the first line that uses its name when
        that line runs at import time (top level, a class body, a decorator): it must come after
        the definition, and helpers sit right above their first caller. The trial with the fewest
        lines between the block and that use. A use inside a function body runs later and says
        nothing about the place (sqlparse's `class Over`, used in a method 60 lines below it)."""
        head = self.s[core[0]]
        m = NEW_DEFINITION.match(head)
        if m is None:
            return None
        use = re.compile(rf"(?<![\w.]){re.escape(m.group(1))}\b")
        block = set(core)
        gaps = []
        for trial in trials:
            trial = [op for op in trial if op.kind != "drop"]  # one op per line of the text
            at = next(k for k, op in enumerate(trial) if op.kind == "new" and op.s == core[-1])
            lines = self.emit(trial)
            k = next((k for k in range(at + 1, len(trial))
                      if not (trial[k].kind == "new" and trial[k].s in block) and use.search(lines[k])), None)
            gaps.append(None if k is None or _enclosing_functions(lines)[k] is not None else k - at)
        known = [g for g in gaps if g is not None]
        if not known:
            return None
        best = min(known)
        return gaps.index(best) if gaps.count(best) == 1 else None

    # -- output -----------------------------------------------------------------------------

    def emit(self, ops: list[Op]) -> list[str]:
        out: list[str] = []
        for op in ops:
            if op.kind in ("cover", "edge"):
                out.append(self.o[op.o])
            elif op.kind == "match":
                o_line, s_line = self.o[op.o], self.ind.convert(self.s[op.s])
                # a blank line keeps the original's whitespace; otherwise the sketch's line is the new
                # text (it may re-indent the line or drop its trailing spaces)
                out.append(o_line if not s_line else s_line)
            elif op.kind == "new":
                out.append(self.ind.convert(self.s[op.s]))
            elif op.kind == "hoisted":
                out.append(self.hoisted[op.s][1])
            elif op.kind == "blank":
                out.append("")
        return out

    def duplicated(self, lines: list[str], ops: list[Op] | None) -> str | None:
        """A line the file has once and the sketch writes once, twice and close together in the
        result, where the copy the sketch wrote sits next to the marker that kept the other (or
        we cannot tell: no ops): the sketch showed it as context and the merge went wrong. Far
        apart, or kept by another marker, it is new code copied from elsewhere, which is fine."""
        orig, sketch = self.counts, self.sketch_counts
        marks = [i for i, m in enumerate(self.marker) if m]

        def neighbour_markers(s_line: int) -> set[int]:
            before = [m for m in marks if m < s_line]
            after = [m for m in marks if m > s_line]
            return {x for x in (before[-1] if before else None, after[0] if after else None) if x is not None}

        seen: dict[str, int] = {}
        for i, line in enumerate(lines):
            key = line.strip()
            if orig.get(key) != 1 or sketch.get(key, 0) != 1 or TRIVIAL.match(key):
                continue
            # at another depth it is another statement (`if x is None:` nested in a new branch)
            first = seen.get(line.rstrip())
            # a short line (`"has_fcntl",`) says little far away, but a few lines apart it is a copy
            near = NEAR_COPY if len(key) > 12 else NEAR_SHORT_COPY
            if first is not None and i - first <= near:
                if ops is None:
                    return key
                pair = (ops[first], ops[i])
                new = [op for op in pair if op.kind == "new"]
                kept = [op for op in pair if op.kind == "cover"]
                if not (new and kept) or kept[0].s in neighbour_markers(new[0].s):
                    return key
            seen[line.rstrip()] = i
        return None

    @cached_property
    def errors_before(self) -> int | None:
        return syntax.error_count(self.path, self.text)

    @cached_property
    def python_clean(self) -> bool:
        """A Python file without a tree-sitter error (empty blocks aside: CPython finds those)."""
        return self.python and syntax.error_count(self.path, self.text, empty_blocks=False) == 0

    @cached_property
    def python_original(self) -> bool:
        """A Python file that both tree-sitter and CPython parse: its results must parse in CPython."""
        return self.python_clean and syntax.python_parses(self.text)

    @cached_property
    def statement_starts(self) -> frozenset[int]:
        return syntax.statement_starts(self.path, self.text)

    def changed_statements(self, lines: list[str], ops: list[Op] | None) -> list[str]:
        """The result cut at lines kept from the original that start a statement there, at the
        top level or in a top-level class's body: the stretches holding a change (a line not the
        original's, or two lines not next to each other in the original), each as text (under a
        stand-in `class` header when it starts inside a class). The other stretches are runs of
        the original's whole statements, which parse; so the result parses if these do (CPython
        builds objects for every node: parsing only what changed in a 4,000-line file saves
        ~20 ms, and a 4,000-line class is cut at its methods)."""
        if ops is None or not self.statement_starts:
            return ["\n".join(lines)]
        orig_of = [op.o if op.kind in ("cover", "edge", "match") and lines[k] == self.o[op.o] else None
                   for k, op in enumerate(ops)]

        def follows(k: int) -> bool:  # result line k is the original line after result line k - 1
            if k == len(orig_of):  # the end: the result ends with the file's last line
                return bool(orig_of) and orig_of[-1] == len(self.o) - 1
            before = orig_of[k - 1] if k else -1
            return orig_of[k] is not None and before is not None and orig_of[k] == before + 1

        joined = [follows(k) for k in range(len(orig_of) + 1)]
        cuts, last_code = [], ""  # a decorator the sketch added belongs to the statement after it
        for k, o in enumerate(orig_of):
            # a class member is cut only where the original's line before it comes before it: the
            # class around it is then the original's (a member left after a dropped `class` line
            # stays with what precedes it, where it does not parse)
            if k and o in self.statement_starts and not last_code.startswith("@") \
                    and (not lines[k][:1].isspace() or joined[k]):
                cuts.append(k)
            last_code = lines[k].lstrip() or last_code
        out, pending, start = [], [], 0

        def flush() -> None:
            if pending:  # a piece starting inside a class gets a class header to stand in
                out.append(("class _:\n" if pending[0][:1].isspace() else "") + "\n".join(pending))
                pending.clear()

        for end in cuts + [len(lines)]:
            if all(joined[start:end + 1]):  # the original's statements, as they were
                flush()
            else:
                pending.extend(lines[start:end])
            start = end
        flush()
        return out

    def check_parses(self, text: str, lines: list[str] | None = None, ops: list[Op] | None = None) -> None:
        """The result parses no worse than the original: CPython's parser for a Python file it
        took (stricter than tree-sitter), on the statements that changed, else tree-sitter's error
        count. The original is parsed by CPython only when a result fails (it may use newer syntax)."""
        if self.python_clean:
            parts = self.changed_statements(lines, ops) if lines is not None else [text]
            if all(syntax.python_parses(part) for part in parts):
                return
            if self.python_original:
                raise _Unparsable("the expanded file would not parse (Python finds syntax errors; the original has none)")
        before, after = self.errors_before, syntax.error_count(self.path, text)
        if before is not None and after is not None and after > before:
            raise _Unparsable(f"the expanded file would not parse ({after} syntax errors, the original has {before})")

    @staticmethod
    def close_copies(lines: list[str], key: str) -> bool:
        """Are two copies of key a few lines apart? Never a copy on purpose: a moved list item
        (platformdirs' `"PlatformDirs",` moved up `__all__`), which no alignment can express."""
        at = [k for k, x in enumerate(lines) if x.strip() == key]
        return any(b - a <= NEAR_SHORT_COPY for a, b in zip(at, at[1:]))

    def finish(self, lines: list[str], ops: list[Op] | None = None, repeat_ok: list[str] | None = None) -> Expansion:
        """The last checks; repeat_ok: a result whose repeated line is intended."""
        twice = self.duplicated(lines, ops)
        if twice is not None and (lines != repeat_ok or self.close_copies(lines, twice)):
            raise _Repeated(f"the result would repeat {twice[:60]!r}, which the file and the sketch each have once "
                            "(the sketch is ambiguous about what it replaces)", lines)
        text = "\n".join(lines)
        if self.final_newline or (not self.text and lines):
            text += "\n"
        self.check_parses(text, lines, ops)
        if self.confidence < MIN_CONFIDENCE:
            raise ApplyError(f"confidence {self.confidence:.2f} is below {MIN_CONFIDENCE}: " + "; ".join(self.notes))
        if self.eol != "\n":
            text = text.replace("\n", self.eol)
        return Expansion(text, round(self.confidence, 3), self.notes)


def expand(original: str, sketch: str, path: str = "", chooser: Chooser | None = None) -> Expansion:
    """The full new text of `path` after applying `sketch` to `original`, or ApplyError."""
    try:
        return _Expander(original, sketch, path, chooser).run()
    except ApplyError:
        raise
    except Exception as exc:  # a bug here refuses one file with a reason; it never takes the plan down
        log.exception("the expander failed on %s", path or "a sketch")
        raise ApplyError(f"internal error in the expander ({type(exc).__name__}): the sketch was not applied") from exc
