"""Pass 3: resolve placements. The alignment fixes every stretch of the sketch that shows a line the file has once; a
stretch between two markers that shows no such line (new code alone, or around `}` or `return x`) could go in several
places, and the programme's pick among equal costs is no evidence. Each such stretch gets the places that fit it:
- at an edge of the sketch with no marker there: the file's start or end (a sketch with only a leading marker appends);
- else, between the neighbouring stretches, every gap between statements at its depth (new code alone) or every run of
  the file's lines equal to the ones it shows (a weak anchor).
One place: it goes there. Several: the local model's likelihood picks one (chooser), else a refusal that says how many
places fit, which the planner's repair round sends back."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from lsp_server.apply.align import (IMPORT, MATCH, Kind, Op, Original, block_end, edited_lines, shown_block_closers,
                                    edits_its_definition, new_names, renamed_as, renames, replaces,
                                    reward, same_definition, signature)
from lsp_server.apply.errors import ApplyError
from lsp_server.apply.sketch import OPENER, Sketch
from lsp_server.text import DEFINITION, indent_of

MAX_PLACES = 4  # more equally fitting places than this is no tie a model should break: each costs a forward pass
# (bench/apply.py --heldout: 36 candidates took 15 s and the lead stayed under tiebreak.MARGIN)
# a body ending so cannot have had the old body after it
TERMINAL = re.compile(r"^(?:return|raise|throw|panic\(|continue\b|break\b|yield\b|os\.Exit\(|sys\.exit\()")
OPENS = (":", "{", "(", "[", ",", "\\", "=", "=>")


def stretches(sketch: Sketch) -> list[range]:
    """The sketch's lines between markers (or its edges), where they are not all blank: a marker comes right before a
    stretch unless it starts at the sketch's first line, and right after it unless it ends at the last."""
    out, start = [], 0
    for i, is_marker in enumerate(sketch.marker + (True,)):
        if is_marker:
            if any(x.strip() for x in sketch.lines[start:i]):
                out.append(range(start, i))
            start = i + 1
    return out


def _ops_of(ops: list[Op], st: range, at: dict[int, int]) -> tuple[int, int]:
    """The slice of ops from the stretch's first sketch line to its last, with the drops between
    and right before it (an alike line replaced: the drop comes first); at: sketch line → op."""
    idx = [at[i] for i in st if i in at]
    first = min(idx)
    while first > 0 and ops[first - 1].kind is Kind.DROP:
        first -= 1
    return first, max(idx) + 1


def _sketch_ops(ops: list[Op]) -> dict[int, int]:
    """Sketch line → the op that writes or matches it."""
    return {op.s: k for k, op in enumerate(ops) if op.s >= 0 and op.kind in (Kind.MATCH, Kind.NEW)}


def _gaps(orig: Original, lo: int, hi: int, depth: int) -> list[tuple[int, int]]:
    """Runs of blank lines [a, b) in o[lo:hi] (empty runs too) between two statements where
    code at `depth` columns can start: not inside a deeper block, not between a header or an
    open bracket and what continues it, not after a decorator."""
    keys = orig.keys
    out = []
    for a in [lo] + [x + 1 for x in range(lo, hi) if keys[x]]:  # (at lo, and after each non-blank line)
        b = next((x for x in range(a, hi) if keys[x]), hi)
        prev = next((x for x in range(a - 1, -1, -1) if keys[x]), None)
        nxt = next((x for x in range(b, len(keys)) if keys[x]), None)
        ok = nxt is None or orig.indent[nxt] <= depth
        if ok and prev is not None:
            code = keys[prev].split(" #")[0].rstrip()
            if code.startswith("@") or (code.endswith(OPENS) and orig.indent[prev] >= depth):
                ok = False
            else:  # the statement before at our depth, or the header of the block we start
                up = next((x for x in range(prev, -1, -1) if keys[x] and orig.indent[x] <= depth), None)
                if up is not None and orig.indent[up] < depth and not keys[up].split(" #")[0].rstrip().endswith((":", "{")):
                    ok = False
        elif ok and prev is None and depth > 0:
            ok = False
        if ok:
            out.append((a, b))
    return out


def _shifts(orig: Original, shown: list[tuple[int, int]], lo: int, hi: int) -> list[int]:
    """Offsets q such that the file has the stretch's matched lines at o[q + (j - j0)] within [lo, hi)."""
    j0 = shown[0][1]
    rel = [(j - j0, orig.keys[j]) for _, j in shown]
    span = rel[-1][0]
    return [q for q in range(lo, hi - span) if all(orig.keys[q + d] == k for d, k in rel)]


LOOSE = 3  # lines: how much longer than in the sketch the file may have a weak stretch's ends apart


def _loose_places(orig: Original, shown: list[tuple[int, int]], lo: int, hi: int) -> list[int]:
    """Where in [lo, hi) the file has a weakly shown stretch's first and last shown lines about as far apart as the
    sketch has them (edits between them could fit it there as well as where its lines match exactly)."""
    (i0, j0), (i1, j1) = shown[0], shown[-1]
    starts = _between(orig, j0, lo, hi)
    if i1 == i0:
        return starts
    ends = orig.at_id.get(orig.ids.get(orig.keys[j1], -1), ())
    return [p for p in starts if any(p < q < min(hi, p + (i1 - i0) + LOOSE + 1) for q in ends)]


def _between(orig: Original, j: int, lo: int, hi: int) -> list[int]:
    """The file lines in [lo, hi) that read as line j does."""
    return [int(p) for p in orig.at_id.get(orig.ids.get(orig.keys[j], -1), ()) if lo <= p < hi]


def _insert(ops: list[Op], i0: int, i1: int, sketch: Sketch, gap: tuple[int, int], orig: Original) -> list[Op]:
    """ops with the stretch's code placed in the gap of blank lines o[a:b]. Blank lines: the
    sketch's own before its code, else the gap's; after it the gap's (when the sketch gave its own
    before), else the sketch's own, else as many new ones as the gap has."""
    seg = ops[i0:i1]
    new = [op for op in seg if op.kind is Kind.NEW or op.kind is Kind.MATCH]  # (matches here are blank lines)
    code = [k for k, op in enumerate(new) if sketch.lines[op.s].strip()]
    lead, trail = code[0], len(new) - 1 - code[-1]
    body = [Op(Kind.NEW, -1, op.s) for op in new[code[0]:code[-1] + 1]]
    a, b = gap
    kept_gap = [Op(Kind.COVER, x) for x in range(a, b)]
    blank = [Op(Kind.NEW, -1, -1)]  # (s = -1: a blank line the expander adds)
    if lead:
        before, after = blank * lead, kept_gap or blank * trail
    else:
        before, after = kept_gap, blank * (trail or (b - a))
    if a == 0:  # the file's start: no blank lines above the code
        before, after = [], kept_gap + (blank * trail if not kept_gap else [])
    if a == len(orig.keys):  # the file's end: none below it
        after = []
    # the stretch's blank lines matched somewhere keep that original line where it was
    rest = ops[:i0] + [Op(Kind.COVER, op.o) for op in seg if op.kind in (Kind.MATCH, Kind.COVER)] + ops[i1:]
    rest = [op for op in rest if not (op.kind is Kind.COVER and a <= op.o < b)]
    at = next((k for k, op in enumerate(rest) if op.o >= b), len(rest))
    return rest[:at] + before + body + after + rest[at:]


EDIT_RUN = 3  # alike lines edited in a row with no telling line of the file after them before a marker


def _sure_edit(seg: list[Op], orig: Original, sketch: Sketch, renamed: frozenset[str],
               pairs: frozenset[tuple[str, str]]) -> bool:
    """Does the stretch edit a line that says where it is: the first line of the file's one
    definition of that name (`def f(a)` → `def f(a, b)`), one renamed as the sketch renames its
    calls, or the one line of the file like the new one, which the file has once?"""
    for x in range(len(seg) - 1):
        if replaces(seg, x):
            j, line = seg[x].o, sketch.lines[seg[x + 1].s]
            old, new = orig.keys[j], line.strip()
            if edits_its_definition(orig, j, new) or DEFINITION.match(new) and renamed_as(orig, old, new, renamed) in pairs \
                    or orig.counts[old] == 1 and edited_lines(orig, line, renamed, pairs).tolist() == [j]:
                return True
    return False


def _fits_around(orig: Original, seg: list[Op], j: int, x: int) -> bool:
    """Would the file's lines the stretch matches (placed around its edit of line j) be the same
    lines were the edit of line x instead?"""
    return all(0 <= x + op.o - j < len(orig.lines) and orig.lines[x + op.o - j] == orig.lines[op.o]
               for op in seg if op.kind is Kind.MATCH)


def _check_trailing_edits(seg: list[Op], orig: Original, sketch: Sketch, st: range,
                          renamed: frozenset[str], pairs: frozenset[tuple[str, str]], closers: dict[int, int]) -> None:
    """A stretch that ends, before a marker, in EDIT_RUN or more alike lines written in place of the file's lines, with
    fewer than two telling lines of the file after them, may as well add those lines before the ones it would edit:
    refused (context after an edit says which). A line renamed as the sketch renames elsewhere too is an edit for sure,
    and so is the first line of a definition of the same name (and the lines above it); so are lines followed by the
    closing bracket of a block whose first line the sketch shows (`closers`: that block's own, in the file)."""
    if st.stop == len(sketch.lines):  # (no marker after it)
        return
    edits = shown = 0
    for x in range(len(seg) - 1, -1, -1):
        op = seg[x]
        if op.kind is Kind.MATCH and closers.get(op.s) == op.o:
            break  # (the edits are that block's, up to its end)
        if op.kind is Kind.MATCH and reward(orig, orig.keys[op.o]) > 0:
            shown += 1  # two lines of the file (or one it has once) after the edits say they are edits
            if shown == 2 or reward(orig, orig.keys[op.o]) >= MATCH:
                break
        if replaces(seg, x):
            old, new = orig.keys[op.o], sketch.lines[seg[x + 1].s].strip()
            if same_definition(old, new):
                return  # a definition cannot be added beside itself: the edits above it are edits too
            edits += renamed_as(orig, old, new, renamed) not in pairs
    if edits >= EDIT_RUN:
        first = next(op.s for op in seg if op.kind is Kind.NEW)
        raise ApplyError(f"the sketch's lines before its marker at line {st.stop + 1} may replace original lines or be "
                         f"new lines added before them (nothing the file has follows them; see its line {first + 1}): "
                         "show an unchanged line after the change")


def place(ops: list[Op], orig: Original, sketch: Sketch, indent: Callable[[str], str],
          render: Callable[[list[Op]], str], chooser: Callable[[Sequence[str]], int | None] | None,
          notes: list[str]) -> list[Op]:
    """ops with every stretch that no line of the file pins down placed where it fits."""
    renamed = new_names(orig, sketch)
    pairs = renames(orig, sketch, renamed)
    at = _sketch_ops(ops)
    closers = shown_block_closers(orig, sketch, {})
    for st in stretches(sketch):
        a, b = _ops_of(ops, st, at)
        seg = ops[a:b]
        if not any(op.kind is Kind.NEW and op.s >= 0 and sketch.lines[op.s].strip() for op in seg):
            continue  # nothing new to place (`]` alone after a marker is the file's)
        # the file's lines between the last one the sketch shows or deletes before the stretch and the first after it
        lo = next((op.o + 1 for op in reversed(ops[:a]) if op.kind in (Kind.MATCH, Kind.DROP)), 0)
        hi = next((op.o for op in ops[b:] if op.kind in (Kind.MATCH, Kind.DROP)), len(orig.lines))
        # (a line that says little, `try:`, still says where when the file has it once between the stretches around)
        shown = [(op.s, op.o) for op in seg if op.kind is Kind.MATCH and orig.keys[op.o]
                 and (reward(orig, orig.keys[op.o]) > 0 or _between(orig, op.o, lo, hi) == [op.o])]
        if any(reward(orig, orig.keys[j]) >= MATCH for _, j in shown) or _sure_edit(seg, orig, sketch, renamed, pairs) \
                or any(op.kind is Kind.MATCH and closers.get(op.s) == op.o for op in seg):
            _check_trailing_edits(seg, orig, sketch, st, renamed, pairs, closers)
            continue  # it shows a line the file has once, edits a definition there, or closes a block the
            # sketch opens above it: the alignment placed it
        edits = [(seg[x].o, seg[x + 1]) for x in range(len(seg)) if replaces(seg, x)]  # (old line, new op)
        at_end, at_start = st.stop == len(sketch.lines), st.start == 0  # at the sketch's edge with no marker there
        if edits and not shown:
            if at_end or at_start:
                continue  # edits at the file's edge, which the sketch's edge pins
            written = [op for op in seg if op.kind is Kind.NEW and sketch.lines[op.s].strip()]
            if len(written) == len(edits) and all(
                    [x for x in edited_lines(orig, sketch.lines[op.s], renamed, pairs).tolist()
                     if lo <= x < hi and _fits_around(orig, seg, j, x)] == [j] for j, op in edits):
                continue  # only edits, each of the one line like it between the stretches around it that
                # has the lines the stretch shows (`}` too) where the stretch shows them
            # several lines are like one it writes: nothing says it edits this one; it is new code
            ops = ops[:a] + [Op(Kind.COVER, op.o) if op.kind is Kind.DROP else op for op in seg] + ops[b:]
            seg = ops[a:b]
        text = next(sketch.lines[op.s] for op in seg if op.kind in (Kind.NEW, Kind.MATCH) and sketch.lines[op.s].strip())
        if not shown:
            if at_end and at_start:
                continue
            imports = [i for i in st if sketch.lines[i].strip()]
            if all(IMPORT.match(sketch.lines[i].strip()) for i in imports) and _import_run(orig):
                spot = _import_place(orig, sketch.lines[imports[0]].strip())  # new imports alone
                gaps = [(spot, spot)]
            elif at_end:
                gaps = [(len(orig.lines), len(orig.lines))]  # no marker after the sketch's last stretch: it ends the file
            elif at_start:
                gaps = [(0, 0)]
            else:
                gaps = _gaps(orig, lo, hi, len(indent_of(indent(text))))
            if not gaps:
                raise ApplyError(f"no place between the lines around it fits {text.strip()[:60]!r} "
                                 f"(sketch line {st.start + 1}): show an unchanged line right before or after it")
            options = [_insert(ops, a, b, sketch, g, orig) for g in gaps]
        else:
            shifts = _shifts(orig, shown, lo, hi)
            if len(shifts) == 1 and len(loose := _loose_places(orig, shown, lo, hi)) > 1:
                shifts = loose  # (edits could make it fit elsewhere too)
            if len(shifts) <= 1:
                continue
            j0 = shown[0][1]
            # the one place where each line it writes in place of a line of the file edits a line like it (elsewhere
            # its anchors fit too, but its new lines would replace unrelated code)
            if edits and [q for q in shifts if all(q + (o - j0) in edited_lines(orig, sketch.lines[op.s], renamed, pairs)
                                                   for o, op in edits)] == [j0]:
                continue  # the one place where the lines it writes anew edit lines like them
            if (at_end and j0 == max(shifts)) or (at_start and j0 == min(shifts)):
                continue  # at the sketch's edge with no marker there: the place nearest the file's edge
            options = []  # (a weak anchor: only the model's likelihood could tell, per whole text)
            gaps = shifts
        pick = 0
        if len(gaps) > 1:
            what = f"{len(gaps)} places fit the new lines starting {text.strip()[:60]!r} (sketch line {st.start + 1})"
            if chooser is None or not options or len(options) > MAX_PLACES:
                raise ApplyError(f"{what}: show an unchanged line right before or after them")
            pick = chooser([render(o) for o in options])
            if pick is None:
                raise ApplyError(f"{what} and the local model could not choose: show an unchanged line next to them")
            notes.append(f"{what}; the local model chose one")
        ops = options[pick]
        at = _sketch_ops(ops)
    return ops


def _import_run(orig: Original) -> list[int]:
    """The file's first run of top-level imports (their lines; blank lines and comments between them do not end it)."""
    run: list[int] = []
    for j, key in enumerate(orig.keys):
        if not key or orig.indent[j] or key.startswith(("#", "//")):
            continue
        if IMPORT.match(key):
            run.append(j)
        elif run:
            break
    return run


def _import_place(orig: Original, line: str) -> int:
    """Where a new import goes in the file's first run of imports: a `__future__` import first;
    else in the first section (imports with no blank line between) that is in isort's order
    (`import` lines, then `from` lines, each sorted) and that the new line sorts inside of, or
    whose lines import from its package, where the order puts it; else after the run."""
    run = _import_run(orig)
    if "__future__" in line:
        return run[0]
    key = line.lower()
    package = re.split(r"[\s.]", key.split(maxsplit=1)[1])[0] if " " in key else ""
    sections: list[list[int]] = []
    for j in run:
        if sections and j == sections[-1][-1] + 1:
            sections[-1].append(j)
        else:
            sections.append([j])
    fits = []
    for section in sections:
        group = [j for j in section if orig.keys[j].split()[0] == key.split()[0] and "__future__" not in orig.keys[j]]
        kinds = [orig.keys[j].lower().split()[0] for j in section]
        if not group or kinds != sorted(kinds, key=lambda k: k != "import") \
                or [orig.keys[j].lower() for j in group] != sorted(orig.keys[j].lower() for j in group):
            continue  # (a section in no order we know, or with no line of the new one's kind)
        at = next((j for j in group if orig.keys[j].lower() > key), group[-1] + 1)
        inside = orig.keys[group[0]].lower() < key < orig.keys[group[-1]].lower()
        same = any(re.split(r"[\s.]", orig.keys[j].lower().split(maxsplit=1)[1])[0] == package for j in section)
        fits.append((not inside, not same, at))
    best = min(fits, default=None)
    return best[2] if best is not None and not (best[0] and best[1]) else run[-1] + 1


def _file_line(ops: list[Op], k: int) -> int:
    """The file line ops[k] shows (a match) or edits (a new line right after that line's drop), else -1."""
    if ops[k].kind is Kind.MATCH:
        return ops[k].o
    return ops[k - 1].o if k and replaces(ops, k - 1) else -1


def rewritten_blocks(ops: list[Op], orig: Original, sketch: Sketch, indent: Callable[[str], str]) -> list[Op]:
    """A block whose header the sketch shows (as it is, or edited), followed only by new lines deeper than the header
    and then a marker no deeper than the header: the sketch wrote the block's whole body anew, and the old body goes. (A
    marker indented inside the body stands for the rest of the body instead, and a body line the sketch shows keeps the
    rest too.) Unless the new body ends the block (`return`, `raise`...) or rewrites a definition in at least half as
    many lines, it may as well be an addition at the block's start: refused."""
    out = list(ops)
    k = 0
    while k < len(out):
        op = out[k]
        j = _file_line(out, k)
        if j < 0 or op.s < 0 or not OPENER.search(orig.keys[j]) or op.s + 1 >= len(sketch.lines):
            k += 1
            continue
        depth = len(indent_of(indent(sketch.lines[op.s])))
        x = k + 1
        while x < len(out) and out[x].kind is Kind.NEW:
            x += 1
        code = [b for b in out[k + 1:x] if b.s >= 0 and sketch.lines[b.s].strip()]
        after = code[-1].s + 1 if code else -1
        while 0 <= after < len(sketch.lines) and not sketch.lines[after].strip():
            after += 1
        deeper = all(len(indent_of(indent(sketch.lines[b.s]))) > depth or sketch.lines[b.s].strip()[:1] in "}])"
                     for b in code)
        if not code or not deeper or not (0 <= after < len(sketch.lines) and sketch.marker[after]) \
                or len(indent_of(sketch.lines[after])) > len(indent_of(sketch.lines[op.s])) \
                or x >= len(out) or out[x].kind is not Kind.COVER or out[x].o != j + 1 \
                or _only_comments([sketch.lines[b.s].strip() for b in code]):
            # (a doc comment or docstring alone is no body: it heads the one the marker keeps)
            k += 1
            continue
        end = block_end(orig, j)
        old = sum(1 for y in range(j + 1, end + 1) if orig.keys[y])
        body = [b for b in code if sketch.lines[b.s].strip()[:1] not in "}])"]  # (closing brackets aside)
        top = min((len(indent_of(sketch.lines[b.s])) for b in body), default=0)  # the body's own statements
        ends = [sketch.lines[b.s].strip() for b in body if len(indent_of(sketch.lines[b.s])) == top]
        final = bool(ends) and TERMINAL.match(ends[-1]) is not None
        if old and not final and not (DEFINITION.match(orig.keys[j]) and len(code) * 2 >= old):
            raise ApplyError(f"the sketch writes {len(code)} line(s) after {sketch.lines[op.s].strip()[:60]!r} (its line "
                             f"{op.s + 1}) and then a marker: it may replace the {old}-line block or add to it; show "
                             "the block's first unchanged line, or put the marker inside the block")
        y = x
        while y < len(out) and out[y].kind is Kind.COVER and out[y].o <= end:
            out[y] = Op(Kind.REWRITTEN, out[y].o)
            y += 1
        k = y
    return out


COMMENT = re.compile(r"^(?://|#(?![\[!])|/\*|\*|--)")  # a comment line (Rust's `#[...]` is an attribute)
DOCSTRING = re.compile(r"^[rRuU]?(\"\"\"|\'\'\')")
DOC_WORD = re.compile(r"[a-z]{3,}")
DOC_SHARED = 0.5  # of the old comment's words: the new comment says the same thing again


def _only_comments(keys: list[str]) -> bool:
    """Are these (stripped, non-blank) lines comments only, or one docstring?"""
    if all(COMMENT.match(k) for k in keys):
        return True
    m = DOCSTRING.match(keys[0])
    return m is not None and keys[-1].endswith(m.group(1)) and (len(keys) > 1 or len(keys[0]) >= len(m.group(0)) + 3)


def rewritten_doc_comments(ops: list[Op], orig: Original, sketch: Sketch) -> list[Op]:
    """New comment lines right above a definition the sketch shows (as it is or edited), after a
    marker that keeps the file's own comment above that definition: when the new comment says
    much the same (half of the old one's words), the sketch rewrote the definition's doc comment,
    and the old one goes. (A comment about something else is an addition: both stay.)"""
    out = list(ops)
    for k, op in enumerate(out):
        j = _file_line(out, k)
        if j < 0 or not DEFINITION.match(orig.keys[j]) or op.s < 0:
            continue
        if op.kind is Kind.NEW:
            k -= 1  # (the edited line's drop)
        a = k  # the new comment lines right above the definition
        while a > 0 and out[a - 1].kind is Kind.NEW and out[a - 1].s >= 0 and COMMENT.match(sketch.lines[out[a - 1].s].strip()):
            a -= 1
        b = a  # (the sketch's own blank lines above its comment)
        while b > 0 and out[b - 1].kind is Kind.NEW and (out[b - 1].s < 0 or not sketch.lines[out[b - 1].s].strip()):
            b -= 1
        c = j  # the file's comment lines right above it, all kept by the marker before
        while c > 0 and orig.keys[c - 1] and COMMENT.match(orig.keys[c - 1]):
            c -= 1
        if a == k or c == j or b < j - c or any(x.kind is not Kind.COVER or x.o != c + y
                                                for y, x in enumerate(out[b - (j - c):b])):
            continue
        new = set(DOC_WORD.findall(" ".join(sketch.lines[x.s] for x in out[a:k]).lower()))
        old = set(DOC_WORD.findall(" ".join(orig.keys[c:j]).lower()))
        if old and len(old & new) >= DOC_SHARED * len(old):
            out[b - (j - c):b] = [Op(Kind.REWRITTEN, x) for x in range(c, j)]
    return out


def replaced_returns(ops: list[Op], orig: Original, sketch: Sketch, indent: Callable[[str], str]) -> list[Op]:
    """A new `return`/`raise`/`throw` written right before a kept line with the same statement head at the same depth
    edits that line: code after it would never run, so it cannot be an addition. (The sketch wrote a line the file has
    elsewhere too, so the alignment did not take it for an edit.)"""
    out = list(ops)
    for k in range(len(out) - 1):
        op, nxt = out[k], out[k + 1]
        if op.kind is not Kind.NEW or op.s < 0 or nxt.kind is not Kind.COVER:
            continue
        key = sketch.lines[op.s].strip()
        if TERMINAL.match(key) and signature(key) is not None and signature(key) == signature(orig.keys[nxt.o]) \
                and len(indent_of(indent(sketch.lines[op.s]))) == orig.indent[nxt.o]:
            out[k], out[k + 1] = Op(Kind.DROP, nxt.o), op
    return out
