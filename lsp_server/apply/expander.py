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
Failures raise ApplyError with a reason: a wrong merge is worse than none. The checks that refuse
a result the sketch does not determine are in `checks.py`, the placement of floating new code in
`placement.py` (mixins of `_Expander`), the failures in `errors.py`.
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
from lsp_server.apply.checks import Checks
from lsp_server.apply.errors import ApplyError, _ContextCopy, _Moved, _Repeated, _Unparsable
from lsp_server.apply.markers import is_marker
from lsp_server.apply.placement import Placement
from lsp_server.protocol import detect_eol, normalise_eol

log = logging.getLogger(__name__)

MIN_CONFIDENCE = 0.5
OVERLAP = 10  # lines: how far a sketch's rewrite may reach into what a marker keeps...
REACH = 80   # ...and for a line found at most twice in the file
MOVES = 3   # runs of moved lines a sketch may have before the expander gives up
RETYPE = 4  # second opinion: re-typing a once-only line costs this many times its match reward
MOVED_IMPORT = 10  # lines: how far apart a re-typed import and the copy a marker keeps count as one block
CONTEXT = 4  # lines in a row, in order, that make a sketch's run the marker's own context
SIBLING = 0.75  # an import this alike to an import in a block's body is added to the body
LIKE_BODY = 0.5  # a new block body line this alike to an old one reads as its rewrite
SHORT_BODY = 3  # a rewritten block body this many times shorter than the old one, sharing no line, is ambiguous
FENCE = re.compile(r"^\s*```")
CLOSER = re.compile(r"^[\})\]]+[;,)]*$")

# A tie-breaker gets the candidate full texts and returns the index of the likeliest, or None.
Chooser = Callable[[Sequence[str]], "int | None"]


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


def _open_brackets(lines: Iterable[str]) -> int:
    """Brackets the lines open and do not close (one-line strings and comments aside)."""
    depth = 0
    for line in lines:
        code = syntax.code_of(line)
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


class _Expander(Checks, Placement):
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
        self.last_future = max((i for i, x in enumerate(self.o) if imports.FUTURE.match(x)), default=-1)
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
                    return self.pinned(self.moves, "moved lines kept in place")
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
            return self.second_try(result, "context next to a marker matched")
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
        return self.second_try(result, why)

    def pinned(self, lines: frozenset[int], why: str) -> Expansion:
        """Align again with these sketch lines kept in place (matched if they can be at all): once-
        only lines the first result moved, or the line after an empty marker. If that result
        repeats a line, it is new code copying one (a new class's docstring sharing a function's
        `:param` lines) when the repeat survives costly re-typing too."""
        self.confidence, self.notes = 1.0, []
        try:
            result = self.attempt(pinned=lines)
        except _Repeated as again:
            return self.second_opinion(again, why, pinned=lines, retype=RETYPE)
        return self.second_try(result, why)

    @staticmethod
    def second_try(result: Expansion, why: str) -> Expansion:
        """A result from a retry: less confident, and saying why it was aligned again."""
        result.confidence = round(result.confidence * 0.9, 3)
        result.notes.append(f"aligned on the second try ({why})")
        return result

    def moved(self, first: _Moved) -> Expansion:
        """Code the sketch moved: its lines after the empty marker matched their old place, which
        left the marker nothing. Those lines (one run) are written anew instead, and their old
        place is dropped; up to MOVES runs, as long as each retry fails the same way further on.
        But first: the line right after the marker, a telling line the file has, is the marker's
        own context when pinning it passes every check — the lines that took its place were a new
        copy of the code the marker stands for (httpcore's `ThreadLock`, a copy of `Lock` written
        right after it, whose body the alignment had matched instead of the marker; pytest's new
        `_import_module_using_spec` after a `return mod` the file has three times)."""
        if first.context is not None:
            try:
                return self.pinned(frozenset({first.context}), "the line after an empty marker is its context")
            except ApplyError:
                pass
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
        ops = layout.whole_blank_runs(ops, self.o, self.s)
        ops = layout.after_header(ops, self.o, self.s, self.in_string)
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
        self.check_reparented(kept, lines)
        self.check_unique_anchors(ops)  # last: a second opinion may still give a result that passes
        self.check_repeated_unit(ops)
        return result

    def moved_imports(self, ops: list[Op]) -> list[Op]:
        """An import the file and the sketch each have once, written anew by the sketch while a
        marker next to its run keeps the original a few lines away, or anywhere in the same run of
        imports: the sketch reordered its import block (marshmallow's `import datetime as dt` above
        `import functools`, whose old line a marker kept). The kept copy goes; a file never imports the same line twice."""
        new = {self.s[op.s].strip(): k for k, op in enumerate(ops) if op.kind == "new"
               and IMPORT.match(self.s[op.s].strip()) and self.sketch_counts[self.s[op.s].strip()] == 1
               and self.counts.get(self.s[op.s].strip()) == 1}
        if not new:
            return ops
        out = list(ops)

        def line(op: Op) -> str:
            return (self.s[op.s] if op.s >= 0 and not self.marker[op.s] else self.o[op.o]).strip()

        def one_block(a: int, b: int) -> bool:  # only imports and blank lines between: one import block
            return all(not (x := line(op)) or IMPORT.match(x) for op in ops[min(a, b):max(a, b) + 1])

        for k, op in enumerate(ops):
            if (op.kind == "cover" and (at := new.get(self.o[op.o].strip())) is not None
                    and (abs(at - k) <= MOVED_IMPORT or one_block(at, k))):
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
        the alignment moved them, which sketches rarely do (also a line the file has more than
        once, dropped and written again between the same two markers: urllib3's `def read_chunked(`,
        whose stub the alignment had made into the new `read1` stub above it). Often the other of two equally cheap
        readings deletes lines the sketch never showed deleted (anyio's `@contextmanager`, dropped
        and re-typed while a new class's docstring matched the old function's)."""
        dropped = {self.o[op.o].strip() for op in ops if op.kind == "drop"}
        stretch, markers, last = [], 0, None  # each op's stretch: how many markers covered before it
        for op in ops:
            if op.kind == "cover" and op.s != last:
                markers, last = markers + 1, op.s
            stretch.append(markers)
        within = {(self.o[op.o].strip(), stretch[k]) for k, op in enumerate(ops) if op.kind == "drop"}
        return frozenset(op.s for k, op in enumerate(ops) if op.kind == "new"
                         and (key := self.s[op.s].strip()) in dropped and not TRIVIAL.match(key)
                         and (self.counts.get(key) == 1 or (key, stretch[k]) in within))

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
                if TRIVIAL.match(first) and first not in ("}", ")", "]"):
                    continue  # `continue` opening new lines says nothing of which one the marker keeps
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
