"""Pass 5: verify a draft result. Each check is a pure function of the draft that returns the
reason to refuse, or None; CHECKS runs them in order (cheapest first). A refusal is better than
a wrong merge: its reason goes back to the planner's repair round."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from lsp_server.syntax import check as syntax
from lsp_server.apply.align import Kind, Op, replaces
from lsp_server.text import DECORATOR, DEFINITION, IMPL, definition_name
from lsp_server.apply.sketch import OPENER, Sketch, is_trivial


@dataclass(frozen=True)
class Draft:
    path: str
    original: tuple[str, ...]   # the file's lines (LF, no final newline)
    result: tuple[str, ...]     # the draft's lines
    sketch: Sketch
    ops: tuple[Op, ...]
    counts: Counter             # how often the file has each (stripped) line

    @cached_property
    def written(self) -> Counter:
        """How often the sketch writes each (stripped) line, markers aside."""
        return Counter(x.strip() for x, m in zip(self.sketch.lines, self.sketch.marker) if not m)

    @cached_property
    def changed(self) -> set[int]:
        """Result lines the sketch wrote or re-indented, and those on each side of a deletion."""
        out: set[int] = set()
        at = 0
        for op in self.ops:
            if op.kind in (Kind.DROP, Kind.REWRITTEN):
                out.update((at - 1, at))
                continue
            if op.kind is Kind.NEW or (op.kind is Kind.MATCH and self.result[at] != self.original[op.o]):
                out.add(at)
            at += 1
        return out

    @cached_property
    def defined(self) -> set[str]:
        """The names the file's definitions define."""
        return {name for x in self.original if (name := definition_name(x.strip()))}


def deletions_shown(d: Draft) -> str | None:
    """Code is deleted only where the sketch shows the lines on both sides of it, or writes an alike line in its place:
    a line dropped between a marker and anything else is a bug, never a merge."""
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


def shown_lines_kept(d: Draft) -> str | None:
    """A line the file has once and the sketch shows once, as it is, is that line: a draft that
    drops the file's and writes the sketch's anew elsewhere has moved it, which a sketch may mean
    (imports sorted, code moved into a block), or read the code around it wrong (a new definition
    copying an old one, matched against the old one's lines). A doubt, not a refusal: DOUBTS."""
    dropped = {d.original[op.o].strip() for op in d.ops if op.kind is Kind.DROP}
    for op in d.ops:
        if op.kind is Kind.NEW and op.s >= 0:
            key = d.sketch.lines[op.s].strip()
            if key in dropped and d.counts[key] == 1 and d.written[key] == 1 and not is_trivial(key):
                return (f"the sketch shows {key[:60]!r} (its line {op.s + 1}) as the file has it, but the result would "
                        "delete the file's and write it elsewhere: show the lines around it as the file has them")
    return None


def definition_dropped_for_new(d: Draft) -> str | None:
    """A draft that deletes a definition's first line the sketch does not show, while the sketch writes a new
    definition: the new one's lines (`where`, `{`, a parameter line like the old one's) may have been matched against
    the old one's tail, deleting its head by adjacency. A doubt, not a refusal: DOUBTS."""
    added = {definition_name(d.sketch.lines[op.s].strip()) for op in d.ops if op.kind is Kind.NEW and op.s >= 0}
    added.discard(None)
    if not added:
        return None
    for op in d.ops:
        if op.kind is Kind.DROP and DEFINITION.match(key := d.original[op.o].strip()) and key not in d.written \
                and definition_name(key) not in added:  # (a definition's first line edited is no deletion)
            return f"the result would delete {key[:60]!r} (the file's line {op.o + 1}) while the sketch adds a definition"
    return None


def new_definition_of_old_lines(d: Draft) -> str | None:
    """A new definition (a name the file does not define: an edited first line is no new definition) whose body holds
    lines of the file: written anew as a copy of another definition, or that definition's lines taken into it. A doubt,
    not a refusal: DOUBTS (the second reading writes such bodies anew)."""
    opener = -1  # the depth of the new definition being read, -1 outside one
    for op in d.ops:
        if op.s < 0 or op.kind not in (Kind.MATCH, Kind.NEW):
            continue
        line = d.sketch.lines[op.s]
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if opener >= 0 and depth <= opener:
            opener = -1
        if opener >= 0 and op.kind is Kind.MATCH and not is_trivial(line.strip()):
            return (f"the sketch's new definition takes the file's line {op.o + 1} ({line.strip()[:60]!r}) into its body")
        if op.kind is Kind.NEW and OPENER.search(line.strip()) \
                and (name := definition_name(line.strip())) and name not in d.defined:
            opener = depth
    return None


def markers_stand_for_code(d: Draft) -> str | None:
    """A marker that stands for no line of the file, next to a stretch that deletes lines: the alignment took the lines
    the marker was written for (the sketch moved code, or its marker is misplaced)."""
    covering = {op.s for op in d.ops if op.kind is Kind.COVER}
    marks = [i for i, m in enumerate(d.sketch.marker) if m]
    bounds = [-1] + marks + [len(d.sketch.lines)]
    for lo, i, hi in zip(bounds, marks, bounds[2:]):  # (each marker, and the markers or edges around it)
        if i in covering or i in (0, len(d.sketch.lines) - 1):
            continue
        shown = [k for k, op in enumerate(d.ops) if lo < op.s < hi and op.kind in (Kind.MATCH, Kind.NEW)]
        span = d.ops[shown[0]:shown[-1] + 1] if shown else []
        if any(op.kind is Kind.DROP and d.original[op.o].strip() and not replaces(span, y)
               for y, op in enumerate(span)):  # (a line replaced by an alike one is an edit)
            return (f"the marker at sketch line {i + 1} stands for no line of the file while lines of the file are "
                    "deleted next to it: show the lines around the deletion, or put the marker where code is kept")
    return None


EDGE_SHARE = 0.25  # of the file's non-blank lines: more, at an edge with no marker, is a forgotten marker


def edges_kept(d: Draft) -> str | None:
    """A sketch without a marker at its start begins at the file's first line, and the lines above
    what it shows are deleted (likewise at the end) — a few, or whole top-level statements up to a
    quarter of the file; more, or part of a block, is a forgotten marker: refused."""
    code = sum(1 for x in d.original if x.strip()) or 1
    new = sum(1 for op in d.ops if op.kind is Kind.NEW and op.s >= 0 and d.sketch.lines[op.s].strip())
    for seq, where in ((d.ops, "start"), (d.ops[::-1], "end")):
        dropped = [op.o for op in seq[:next((k for k, op in enumerate(seq) if op.kind is not Kind.DROP), len(seq))]
                   if d.original[op.o].strip()]
        if len(dropped) <= max(3, new):
            continue
        # where what stays and what goes meet, a top-level statement must start
        edge = min(dropped) if where == "end" else next((x for x in range(max(dropped) + 1, len(d.original))
                                                          if d.original[x].strip()), max(dropped))
        whole = d.original[edge][:1] not in (" ", "\t")
        if not whole or len(dropped) > EDGE_SHARE * code:
            return (f"the sketch has no marker at its {where}, which would delete {len(dropped)} lines there: "
                    "add a marker to keep them, or show the lines around what it deletes")
    return None


BLOCK_WORD = re.compile(r"^(?:\}\s*)?(?:else|try|finally|do|loop)\s*\{$")  # `try {`: as `try:`, no one line's own
NEAR = 3  # non-blank lines: how close to the sketch's stretch a marker's copy of its line is "next to" it


def no_context_copied(d: Draft) -> str | None:
    """A line the file has once, written anew by the sketch while the marker right before or after its stretch keeps the
    same line within NEAR lines of the stretch: the sketch meant it as context (or moved it), and the result would have
    it twice. (A new definition copying a line of the one next to it is not refused.)"""
    markers = [i for i, m in enumerate(d.sketch.marker) if m]
    cover = {op.o: (k, op.s) for k, op in enumerate(d.ops) if op.kind is Kind.COVER}
    for k, op in enumerate(d.ops):
        if op.kind is not Kind.NEW or op.s < 0 or (k and replaces(d.ops, k - 1)):
            continue  # (a line written in place of an alike one edits it)
        key = d.sketch.lines[op.s].strip()
        if d.counts.get(key) != 1 or d.written[key] > 1 or is_trivial(key) or len(key) <= 3 or BLOCK_WORD.match(key):
            continue
        j = next(x for x, line in enumerate(d.original) if line.strip() == key)
        if j not in cover:
            continue
        at, marker = cover[j]
        before = max((i for i in markers if i < op.s), default=None)
        after = min((i for i in markers if i > op.s), default=None)
        if marker not in (before, after):
            continue
        # non-blank lines between the copy the marker keeps and the edge of its coverage by the stretch
        span = d.ops[at + 1:] if marker == before else d.ops[:at][::-1]
        gap = 0
        for x in span:
            if x.kind is not Kind.COVER or x.s != marker:
                break
            gap += bool(d.original[x.o].strip())
        if gap < NEAR and not _in_new_definition(d, op.s):
            return (f"the sketch writes {key[:60]!r} (its line {op.s + 1}) anew next to a marker that keeps the same "
                    f"line (original line {j + 1}): show it once, as context, or show the lines around it")
    return None


def _in_new_definition(d: Draft, i: int) -> bool:
    """Is sketch line i inside a definition (or another block) whose first line the sketch writes anew, or one of the
    decorators (`@slow`, `#[test]`) right above such a definition?"""
    new = {op.s for op in d.ops if op.kind is Kind.NEW}
    below = i
    while below < len(d.sketch.lines) and not d.sketch.marker[below] and d.sketch.lines[below].strip().startswith(DECORATOR):
        below += 1
    if below > i and below < len(d.sketch.lines) and DEFINITION.match(d.sketch.lines[below].strip()):
        return below in new and not d.sketch.marker[below]
    depth = len(d.sketch.lines[i]) - len(d.sketch.lines[i].lstrip())
    for x in range(i - 1, -1, -1):
        line = d.sketch.lines[x]
        if d.sketch.marker[x]:
            return False
        width = len(line) - len(line.lstrip())
        if line.strip() and width < depth:
            if DEFINITION.match(line.strip()) or OPENER.search(line.strip()):
                return x in new
            depth = width
    return False


def no_definition_repeated(d: Draft) -> str | None:
    """A definition the sketch writes anew right next to the file's definition of the same name at the same depth (only
    their bodies between): the result would define it twice — the sketch meant an edit of a first line it did not show
    as the file has it. Overloads, decorated definitions (`@x.setter`) and Rust `impl` blocks (a type may have several) are
    not refused."""
    if not any(op.kind is Kind.NEW and op.s >= 0 and DEFINITION.match(d.sketch.lines[op.s].strip()) for op in d.ops):
        return None  # (no new definition: nothing to look at)
    last: dict[int, tuple[str, bool, int]] = {}  # depth → (name, new?, line) of the definition last seen there
    for op in d.ops:
        if op.kind in (Kind.COVER, Kind.MATCH):
            lines, i, new = d.original, op.o, False
        elif op.kind is Kind.NEW and op.s >= 0:
            lines, i, new = d.sketch.lines, op.s, True
        else:
            continue
        line = lines[i]
        key = line.strip()
        if not key:
            continue
        depth = len(line) - len(line.lstrip())
        for w in [w for w in last if w > depth]:
            del last[w]
        name = definition_name(key) if not key.endswith(";") else None
        if name is not None and (_decorated(lines, i) or IMPL.match(key)):
            name = None
        if name is None:
            if not (key[0] in "}])" and is_trivial(key)):  # (a body's closing bracket ends nothing between)
                last.pop(depth, None)
            continue
        seen = last.get(depth)
        if seen is not None and seen[0] == name and seen[1] != new:
            return (f"the result would define {name!r} twice in a row: show the first line of the definition "
                    "the sketch replaces as the file has it, or the lines around it")
        last[depth] = (name, new, i)
    return None


def _decorated(lines, i: int) -> bool:
    x = i - 1
    while x >= 0 and not lines[x].strip():
        x -= 1
    return x >= 0 and lines[x].strip().startswith("@")


PY_IMPORT = re.compile(r"^(?:import\s+([\w.]+)|from\s+([\w.]+)\s+import\s+([\w, ]+)$)")
PY_GROUP = re.compile(r"^from\s+([\w.]+)\s+import\s+\(\s*$")
GO_IMPORT = re.compile(r"""^(?:import\s+)?(?:\w+\s+)?"([^"]+)"$""")


def _imports(lines, go: bool) -> Counter:
    """What the lines import at the top level (Python modules and names), or anywhere in a Go
    file's import declarations (paths), with repeats."""
    out: Counter = Counter()
    in_group: bool | str = False
    for line in lines:
        if go:
            key = line.strip()
            if key.startswith("import ("):
                in_group = True
            elif in_group and key == ")":
                in_group = False
            elif (in_group or key.startswith("import ")) and (m := GO_IMPORT.match(key)):
                out[m.group(1)] += 1
        elif in_group:  # (inside `from m import (`: names until the closing bracket)
            out.update(f"{in_group}:{n}" for n in re.findall(r"\w+", line.split("#")[0].split(")")[0]))
            in_group = False if ")" in line else in_group
        elif (m := PY_GROUP.match(line)):
            in_group = m.group(1)
        elif (m := PY_IMPORT.match(line)):
            module, source, names = m.groups()
            out.update([module] if module else [f"{source}:{n.strip()}" for n in names.split(",") if n.strip()])
    return out


def no_import_repeated(d: Draft) -> str | None:
    """The result imports something at the top level more often than the original did, twice at least: an import the
    sketch rewrote in another form (Go's `import "x"` into a group) kept beside it."""
    go = d.path.endswith(".go")
    if not go and not d.path.endswith((".py", ".pyi")):
        return None
    before, after = _imports(d.original, go), _imports(d.result, go)
    twice = [k for k, n in after.items() if n > 1 and n > before.get(k, 0)]
    if twice:
        return f"the result would import {twice[0]!r} twice: show the import the sketch replaces"
    return None


def parses(d: Draft) -> str | None:
    """The result parses no worse than the original: CPython's parser for a Python file it takes
    (stricter than tree-sitter about indentation) — on the statements the change touches, the
    whole file only if one fails — else tree-sitter's count of errors."""
    original_text, result_text = "\n".join(d.original) + "\n", "\n".join(d.result) + "\n"
    if d.path.endswith((".py", ".pyi")):
        if syntax.python_changed_parse(d.result, d.changed) or syntax.python_parses(result_text):
            return None
        if syntax.python_parses(original_text):
            return "the expanded file would not parse (Python finds syntax errors; the original has none)"
    before = syntax.error_count(d.path, original_text, False)
    after = syntax.error_count(d.path, result_text, False)
    if before is not None and after is not None and after > before:
        return f"the expanded file would not parse ({after} syntax errors, the original has {before})"
    return None


CHECKS = (deletions_shown, edges_kept, markers_stand_for_code, no_context_copied, no_import_repeated,
          no_definition_repeated, parses)


# Checks a draft may fail and still be the result, when no other reading passes them all.
DOUBTS = (shown_lines_kept, definition_dropped_for_new, new_definition_of_old_lines)


def first_reason(checks, d: Draft) -> str | None:
    """The first of the checks' reasons to refuse (CHECKS) or doubt (DOUBTS) the draft, or None."""
    return next((reason for check in checks if (reason := check(d)) is not None), None)
