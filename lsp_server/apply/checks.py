"""Checks on an expansion that refuse (or send back for a second opinion) a result the sketch
does not determine: a mixin of the expander (`_Expander`), reading its original (`o`,
`original`, `counts`), sketch (`s`, `marker`) and helpers (`emit`, `line_of`, `attempt`).
Each one is a reading a person would also hesitate over; most name the benchmark case or golden
test they guard."""
from __future__ import annotations

import difflib
import re
from functools import cached_property

from lsp_server.apply.align import IMPORT, TRIVIAL, Op, indent_of, signature
from lsp_server.apply.errors import ApplyError, _ContextCopy, _Moved
from lsp_server.apply.syntax import code_of, enclosing_functions, string_lines

NEAR_COPY = 100  # lines: two copies of a once-only line this close mean a botched merge (bench/apply.py: 30 left 1 silent wrong merge, 100 none)
NEAR_CONTEXT = 30  # lines: outside a function, how far a marker's kept copy of a context line counts
REACH_GAP = 20  # lines: how far apart two shown lines of a stretch may stand at another place
NEAR_SHORT_COPY = 5  # lines: the same for a short once-only line
ANY_DEFINITION = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)")  # at any depth


def definition_parents(texts: list[str], origin, strings) -> dict[int, int | None]:
    """For each definition line of `texts` that comes from the file (origin(k): its original
    index, or None), its parent definition: the original index, None at the top level, -1 for a
    definition the sketch wrote. Lines in `strings` (a docstring's example code) are no code; a
    closing bracket ends a signature, not its definition."""
    stack: list[tuple[int, int | None]] = []  # (depth, a definition's origin or -1, else None)
    out: dict[int, int | None] = {}
    for k, line in enumerate(texts):
        if not line.strip() or k in strings or line.lstrip()[0] in ")]}":
            continue
        depth = len(indent_of(line))
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if not ANY_DEFINITION.match(line):
            stack.append((depth, None))
            continue
        o = origin(k)
        if o is not None:
            out[o] = next((x for _, x in reversed(stack) if x is not None), None)
        stack.append((depth, -1 if o is None else o))
    return out


def edit_run(ops: list[Op], k: int) -> tuple[int, int]:
    """ops[a:b]: the run of dropped and new lines around op k (an edit: what it replaces and what
    the sketch writes there)."""
    a = b = k
    while a > 0 and ops[a - 1].kind in ("drop", "new"):
        a -= 1
    while b < len(ops) and ops[b].kind in ("drop", "new"):
        b += 1
    return a, b


class Checks:
    """The expander's checks (see the module docstring for what they read)."""

    @cached_property
    def file_parents(self) -> dict[int, int | None]:
        """Each definition line of the file → its parent definition's line (check_reparented)."""
        return definition_parents(self.o, lambda k: k, self.in_string)

    @cached_property
    def nesting_definitions(self) -> frozenset[int]:
        """The file's definition lines whose next definition is deeper: those with definitions
        inside (a cheap first look for check_reparented; docstring examples may add a few)."""
        defs = [(k, len(indent_of(x))) for k, x in enumerate(self.o) if ANY_DEFINITION.match(x)]
        return frozenset(k for (k, d), (_, d2) in zip(defs, defs[1:]) if d2 > d)

    def check_deleted_definitions(self, ops: list[Op], lines: list[str]) -> None:
        """A definition the alignment deletes (its line dropped, no marker for it) that the
        sketch's own code (or, for a method, the result) still calls, while nothing else defines
        the name: the sketch did not delete it, the alignment went astray (pytest's `check_interactive_exception`, dropped so
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
        code = [code_of(x) for x, is_marker in zip(self.s, self.marker) if not is_marker]
        joined = "\n".join(code)
        result = "\n".join(lines)
        for name, line in names.items():
            if self.o[line][:1].isspace() and re.search(rf"\b(?:self|cls)\.{re.escape(name)}\s*\(", result):
                # every definition of a method gone while the class still calls it: a new method
                # read as a rename of an old one (urllib3's `read1` over both `read`s)
                raise ApplyError(f"the alignment would delete {self.o[line].strip()[:60]!r} (original line {line + 1}), "
                                 f"which the result still calls (self.{name}(...)) and the sketch does not show deleted")
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

    def check_reparented(self, kept: list[Op], lines: list[str]) -> None:
        """A definition the result keeps from the file must stay inside the same definition
        (or at the top): one whose class or function line the alignment deleted, or whose
        lines it joined to another class, is code the sketch never showed moving (a new stub
        made of one class's method, so that the method's own lines matched a later class's
        copy, deleting that class's line in between). A parent the sketch wrote is its choice."""
        def moved(strings) -> int | None:
            for o, parent in definition_parents(lines, lambda k: source[k], strings).items():
                if parent != -1 and before.get(o, parent) != parent:
                    return o
            return None

        source = [op.o if op.kind in ("match", "cover", "edge") else None for op in kept]
        if self.nesting_definitions <= set(source):
            return  # no definition with definitions inside it lost its line: none lost its parent
        before = self.file_parents
        # the result's strings: first as the file had them; a finding is checked on the result's own
        if moved({k for k, o in enumerate(source) if o in self.in_string}) is not None \
                and (o := moved(string_lines(self.path, "\n".join(lines)))) is not None:
            raise ApplyError(f"the result would move {self.o[o].strip()[:60]!r} (original line {o + 1}) out of "
                             "the definition it belongs to, which the sketch does not show")

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
                key = self.s[after].strip()
                context = after if self.counts.get(key) and not TRIVIAL.match(key) else None
                raise _Moved(f"the marker on sketch line {i + 1} stands for code the file does not have there "
                             "(moved or removed code?)", frozenset(run), context)
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
            if op.kind != "drop" or not self.o[op.o].strip():
                continue
            start, e = edit_run(ops, k)
            if start != k:  # (each run once, from its first line)
                continue
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
        keys = self.original.keys
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
            a, k = edit_run(ops, k)  # the run of new and dropped lines around this new line
            replaced = [op.o for op in ops[a:k] if op.kind == "drop" and self.o[op.o].strip()]
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
                    line = next(op.s for op in ops[a:k] if op.kind == "new") + 1
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
        first, keys = min(stretch), self.original.keys
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
        keys = self.original.keys
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
            owners = owners or enclosing_functions(lines)
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

    @staticmethod
    def close_copies(lines: list[str], key: str) -> bool:
        """Are two copies of key a few lines apart, or is it an import? Never a copy on purpose: a
        moved list item (platformdirs' `"PlatformDirs",` moved up `__all__`), which no alignment
        can express; a file imports a name once (pytest's `from collections import defaultdict`,
        moved up its import block by a sketch whose marker kept the old line further down; inside
        functions, local imports do repeat)."""
        at = [k for k, x in enumerate(lines) if x.strip() == key]
        if IMPORT.match(key) and not any(lines[k][:1].isspace() for k in at):
            return True
        return any(b - a <= NEAR_SHORT_COPY for a, b in zip(at, at[1:]))
