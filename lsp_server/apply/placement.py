"""Placement of new code the alignment could not anchor: lines floating between two markers
with no line of context. A mixin of the expander (`_Expander`): the one plausible place (a new
definition right above its first user at import time, new imports at their sorted place or at
the end of an unordered import section, the top of the code), else the local model's choice, else
refusal."""
from __future__ import annotations

import re

from lsp_server.apply import imports
from lsp_server.apply.align import DEFINITION, IMPORT, TRIVIAL, Op, indent_of, signature
from lsp_server.apply.errors import ApplyError
from lsp_server.apply.syntax import enclosing_functions

NEW_DEFINITION = re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)")  # top level: no indentation


def _offset(region: list[int], line: int | None) -> int | None:
    """Original line `line` as an offset into region (len(region): right after it), else None."""
    if line is None:
        return None
    if line in region:
        return region.index(line)
    return len(region) if line == region[-1] + 1 else None


def _at(region: list[int], p: int) -> int:
    """The original line at offset p of region (_offset's inverse): the line after it at the end."""
    return region[p] if p < len(region) else region[-1] + 1


class Placement:
    """The expander's placement of floating new code (see the module docstring)."""

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
                # no import yet: at the top of the code (PEP 8)
                sorted_at = _offset(region, imports.code_start(self.o))
            if sorted_at is None and len(points) > 1 and self.python \
                    and imports.import_key(self.ind.convert(self.s[core[0]])) is not None \
                    and not imports.FUTURE.match(self.s[core[0]].strip()):
                # a file whose imports follow no order we know
                appended = _offset(region, imports.section_end(self.o))
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
        return _offset(region, places.pop())

    def floating_runs(self, matched: set[int] | None = None) -> list[tuple[int, int]]:
        """Sketch spans [a, b] strictly between two markers holding no line found in the file (or,
        given the alignment's matched sketch lines, none it matched: a new method whose
        `if not self._closed:` the file has elsewhere is placed like any new block)."""
        keys, sig_counts = self.counts, self.original.sig_counts
        # an edited definition line (`def greet(name):` → `def greet(name, x):`) anchors its run,
        # when the file defines that name once (a new class's `def __init__(` edits none of many)
        marks = [i for i, m in enumerate(self.marker) if m]
        runs = []
        for m1, m2 in zip(marks, marks[1:]):
            body = [i for i in range(m1 + 1, m2) if self.s[i].strip()]
            anchored = any((self.s[i].strip() in keys and not TRIVIAL.match(self.s[i].strip())
                            and (matched is None or i in matched))
                           or (DEFINITION.match(self.s[i].strip()) and sig_counts[signature(self.s[i].strip())] == 1)
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
        at = _at(region, p)
        before = next((self.o[i] for i in range(at - 1, -1, -1) if self.o[i].strip()), "")
        after = next((self.o[i] for i in range(at, len(self.o)) if self.o[i].strip()), "")
        return all(imports.import_key(x) is not None for x in (before, after))

    def before_future(self, region: list[int], p: int) -> bool:
        """Would offset p of region put code above a `from __future__` import (which must come first)?"""
        return _at(region, p) <= self.last_future

    def loose(self, op: Op, marker: int) -> bool:
        """Ops around a floating run that may move: lines its markers cover, the file's blank
        lines. (Not a new blank line past the marker: it belongs to the sketch's next stretch,
        and `placed` would lose it — dateutil's blank line before a new `def`, which PEP 8's
        count then replaced with two.)"""
        if op.kind == "cover":
            return op.s == marker
        return op.kind in ("match", "drop") and op.o >= 0 and not self.o[op.o].strip()

    def placed(self, region: list[int], p: int, core: list[int], lead: list[int], trailing: list[int]) -> list[Op]:
        """Original lines before p (the marker before the block covers them), the new block,
        original lines from p (the marker after it); the sketch's blank lines around the block
        only where the original has none at that place."""
        first = (lead or core)[0] - 1
        last = (trailing or core)[-1] + 1
        before = [Op("cover", o, first) for o in region[:p]]
        head = [Op("new", -1, i) for i in lead] if p > 0 and self.o[region[p - 1]].strip() else []
        block = [Op("new", -1, i) for i in core]
        after = _at(region, p)
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
            gaps.append(None if k is None or enclosing_functions(lines)[k] is not None else k - at)
        known = [g for g in gaps if g is not None]
        if not known:
            return None
        best = min(known)
        return gaps.index(best) if gaps.count(best) == 1 else None
