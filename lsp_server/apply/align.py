"""Aligning a sketch to the original: one dynamic programme, pure and vectorised with numpy.

An edit distance between the original's lines and the sketch's lines in which an elision marker
is a wildcard. Costs (integers; why in brackets):
- a sketch line equal to an original line: match, -MATCH for a line the file has once (a kept
  line is the strongest evidence of position), twice that for a definition (`def`, `class`...)
  whose name the file defines once,
  -2 or -1 for a line found in several places; trivial lines (`}`, `else:`) and blank lines match for 0 (they are everywhere);
- a sketch line the file has exactly once, left unmatched: +INS + its reward (re-typing a kept
  line while a marker swallows the original would duplicate it);
- a new sketch line: +INS, or +SIMILAR_SUB in place of a similar original line (an edited line
  replaces the line it edits rather than being added next to it; a definition line the file
  also has elsewhere, as overloads do, may edit its namesake too), +INS+1 in place of any line
  (so a new line never makes dropping an old one free), +SUB_ONCE more for a line the file has
  once (a new docstring paragraph is not an edit of the unique paragraph next to it);
- an original line dropped with no marker: +DEL (blank lines: 1);
- a marker covers any run of original lines indented at least as deep as itself for free (a
  marker inside a function cannot swallow the next function), starting right after the line
  before it; covering nothing costs +EMPTY (the sketch says code was elided there), except at
  the sketch's first or last line (`# ... rest of the file` where nothing is left); an indented
  marker that opens or closes the sketch covers any depth when that is EDGE_SAVING cheaper
  (`    # ...` ending a sketch whose file goes on after the class);
- the file's first and last lines may be left out of the sketch (kept: implicit elision).
One numpy pass per sketch line over all original lines, so a 3,000-line file with a 100-line
sketch aligns in milliseconds. Ties go to keeping original lines and adding sketch lines.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

MATCH = 6
INS = 2
SIMILAR_SUB = 1
SUB_ONCE = 2  # more to replace a line the file has once by an unlike one
DEL = 2
EMPTY = 3  # a marker that stands for nothing: the sketch says code is elided there
BIG = 1 << 50
PINNED = 1000  # re-typing a pinned sketch line
PREFERRED = 10  # re-typing the line right after a marker that looks like the end of what it elides
EDGE_SAVING = 8  # an indented marker closing the sketch stands for the rest of the file when that saves this much
TRIVIAL = re.compile(r"^[\s\})\]\(\[{;,:]*$|^(pass|else:|try:|finally:|return|break|continue|end|\.\.\.|\"\"\"|''')$")
# definitions name a place in the file: their lines are the strongest anchors
DEFINITION = re.compile(r"^(?:async\s+)?(?:def|class|function|func|fn|interface|struct|enum|impl|type)\s+\w|"
                        r"^(?:export\s+)?(?:pub\s+)?(?:async\s+)?(?:def|class|function|fn)\s")
TOKEN = re.compile(r"[A-Za-z_]\w*|\d+|\S")
IMPORT = re.compile(r"^(?:import\s|from\s+\S+\s+import\s|#include\s|use\s|require\(|const\s+\w+\s*=\s*require\()")


@dataclass(frozen=True)
class Op:
    kind: str  # edge | cover | match | new | drop | blank (added by the expander's spacing) | hoisted (its imports)
    o: int     # original line index (-1 for new)
    s: int     # sketch line index (-1 for edge/drop)


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


@lru_cache(maxsize=16384)  # a pure function of a line, asked again on every solve
def signature(key: str) -> tuple[str, ...] | None:
    """Lines that start alike count as one line, edited: the first two tokens when the second is
    a name (`return total`, `def greet`), else three (`self.x`, `c = 1`); numbers are alike; a
    condition on an attribute keeps the attribute (`if self.match_text`)."""
    if not key or TRIVIAL.match(key) or IMPORT.match(key):
        return None  # (an import line next to another is usually a new import, not an edited one)
    toks = ["#" if t[0].isdigit() else t for t in TOKEN.findall(key)[:4]]
    if len(toks) == 4 and toks[1] in ("self", "cls") and toks[2] == "." and toks[0] in ("if", "elif", "while"):
        return tuple(toks)  # `if self.match_text():` and `if self.match_percent():` test different things
    toks = toks[:3]
    return tuple(toks[:2]) if len(toks) > 1 and (toks[1][0].isalpha() or toks[1][0] == "_") else tuple(toks)


@dataclass
class Original:
    """What the programme needs of the original, computed once per file (the programme is solved
    several times: after weak anchors are banned, and for the expander's second opinions)."""
    n: int
    keys: list[str]              # the stripped lines
    ids: dict[str, int]          # stripped line → id ("" → 0)
    o_ids: np.ndarray
    counts: Counter              # stripped line → how often the file has it
    sigs: dict[tuple, int]
    sig_counts: Counter          # signature → how many original lines share it
    o_sig: np.ndarray
    o_blank: np.ndarray
    sub_extra: np.ndarray        # 1, + SUB_ONCE for a telling line the file has once: replacing line j costs INS + this
    at_id: dict[int, np.ndarray]  # line id → where the file has it
    at_sig: dict[int, np.ndarray]  # signature id → where the file has a line of it
    o_indent: np.ndarray
    del_cost: np.ndarray         # prefix sums of the cost of dropping lines
    joined: str                  # "\n" + the non-blank stripped lines, each followed by "\n" (runs of lines by `in`)


def prepare(o: list[str]) -> Original:
    o_keys = [x.strip() for x in o]
    counts = Counter(o_keys)
    ids: dict[str, int] = {"": 0}
    o_ids = np.array([ids.setdefault(k, len(ids)) for k in o_keys], dtype=np.int64)
    key_sig = {k: signature(k) for k in counts}  # once per distinct line
    sigs: dict[tuple, int] = {}
    o_sig = np.array([sigs.setdefault(g, len(sigs)) if (g := key_sig[k]) else -1 for k in o_keys], dtype=np.int64)
    sig_counts: Counter = Counter()
    for k, n in counts.items():
        if key_sig[k]:
            sig_counts[key_sig[k]] += n
    o_blank = o_ids == 0
    o_once = np.array([counts[k] == 1 and not TRIVIAL.match(k) for k in o_keys], dtype=bool)
    o_indent = np.array([len(x) - len(x.lstrip()) for x in o], dtype=np.int64)
    del_cost = np.concatenate([[0], np.cumsum(np.where(o_blank, 1, DEL))]).astype(np.int64)
    joined = "\n" + "".join(k + "\n" for k in o_keys if k)
    at_id, at_sig = _positions(o_ids), _positions(o_sig)
    at_sig.pop(-1, None)  # (lines without a signature)
    sub_extra = 1 + o_once.astype(np.int64) * SUB_ONCE
    return Original(len(o), o_keys, ids, o_ids, counts, sigs, sig_counts, o_sig, o_blank, sub_extra, at_id, at_sig,
                    o_indent, del_cost, joined)


def _positions(keys: np.ndarray) -> dict[int, np.ndarray]:
    """key → the positions that have it, in file order (slices of one stable sort: np.split
    would build a Python list of every group first)."""
    if not len(keys):
        return {}
    order = np.argsort(keys, kind="stable")
    grouped = keys[order]
    starts = np.concatenate([[0], np.flatnonzero(np.diff(grouped)) + 1])
    ends = np.concatenate([starts[1:], [len(order)]])
    return {int(k): order[a:b] for k, a, b in zip(grouped[starts].tolist(), starts.tolist(), ends.tolist())}


def _edges(s: list[str]) -> tuple[int, int]:
    """The sketch's first and last non-blank lines (-1 for an empty sketch)."""
    shown = [i for i, x in enumerate(s) if x.strip()]
    return (shown[0], shown[-1]) if shown else (-1, -1)


def _solve(orig: Original, s: list[str], marker: list[bool], banned: frozenset[int], free_edges: bool,
           trivial_reward: int, retype: int, pinned: frozenset[int] = frozenset(),
           open_edges: bool = False, preferred: frozenset[int] = frozenset()) -> tuple[list[Op], int]:
    """The cheapest path and its cost. open_edges: a marker that opens or closes the sketch
    covers any depth (else its indentation bounds it like any marker)."""
    n, m = orig.n, len(s)
    edges = _edges(s)
    ids, counts, sigs = orig.ids, orig.counts, orig.sigs
    o_blank, o_indent, del_cost = orig.o_blank, orig.o_indent, orig.del_cost
    rows = np.empty((m + 1, n + 1), dtype=np.int64)
    rows[0] = 0 if free_edges else del_cost  # leading original lines may stay out of the sketch
    # kept[i][j]: the cheapest way to the same place whose last step is not a dropped line. A
    # marker starts covering only there: lines left out just before a marker are what the marker
    # stands for, never deleted (a sketch shows context after a deletion).
    kept = np.empty((m + 1, n + 1), dtype=np.int64)
    kept[0] = 0 if free_edges else np.concatenate([[0], np.full(n, BIG)])
    costs: list[tuple[int, int, int, int, int]] = []  # per sketch line: id, match, ins, similar sub, signature
    for i in range(m):
        prev = rows[i]
        if marker[i]:
            width = 0 if open_edges and i in edges else len(indent_of(s[i]))
            seg = np.concatenate([[0], np.cumsum((o_indent < width) & ~o_blank)])
            offset = (seg[-1] - seg) * (1 << 30)  # later segments lower: no minimum carries across a barrier
            # starting to cover in the middle of a deeper block (the tail of a function, for a
            # marker standing for the functions after it) is allowed but not free
            best = np.minimum.accumulate(kept[i] + offset)  # best[j-1]: cheapest k <= j-1 in that segment
            covered = np.where(seg[:-1] == seg[1:], best[:-1] - offset[1:], BIG)  # o[j-1] no barrier
            # a sketch may open or close with a marker where nothing is left ("rest of the file")
            empty = 0 if i in edges else EMPTY
            rows[i + 1] = np.minimum(prev + empty, np.concatenate([[BIG], covered]))
            kept[i + 1] = np.minimum(kept[i] + empty, np.concatenate([[BIG], covered]))
            costs.append((width, empty, 0, -1, -1))
            continue
        key = s[i].strip()
        sid = ids.get(key, -2) if i not in banned else -2
        trivial = not key or bool(TRIVIAL.match(key))
        count = counts.get(key, 0)
        if not key or count == 0:
            reward = 0
        elif trivial:
            reward = trivial_reward if count == 1 or trivial_reward == 0 else 1
        elif count > 1:  # a line found in many places says little about which one
            reward = 2 if count <= 3 else 1
        else:
            # a definition names a place, unless the file defines the name again (overloads)
            reward = 2 * MATCH if DEFINITION.match(key) and orig.sig_counts[signature(key)] <= 1 else MATCH
        match = -reward
        # re-typing a line the file has exactly once would duplicate it: as costly as the match is good
        ins = 1 if not key else INS + (retype * reward if count == 1 or (trivial and trivial_reward) else 0)
        if i in pinned:
            ins += PINNED
        elif i in preferred:
            ins += PREFERRED
        sig = signature(key)
        editable = sid < 0 or (count == 1 and DEFINITION.match(key))  # `def f(  # noqa` → `def f(` as an overload has it
        sig_id = sigs[sig] if sig is not None and editable and sig in sigs else -1
        a = prev + ins
        if key:
            # replacing a line the file has once by an unlike line deletes it: as costly as re-typing one
            sub = prev[:-1] + orig.sub_extra
            sub += ins
            if sig_id >= 0:
                alike = orig.at_sig[sig_id]
                sub[alike] = prev[alike] + SIMILAR_SUB
            np.minimum(a[1:], sub, out=a[1:])
        hit = orig.at_id.get(sid) if sid >= 0 else None  # ("" has an id even in a file without blank lines)
        if hit is not None:
            a[hit + 1] = np.minimum(a[hit + 1], prev[hit] + match)
        kept[i + 1] = a
        rows[i + 1] = del_cost + np.minimum.accumulate(a - del_cost)
        costs.append((sid, match, ins, SIMILAR_SUB if sig_id >= 0 else ins + 1, sig_id))
    ops = _trace(rows, kept, orig, costs, s, marker, free_edges)
    return ops, int(rows[m].min() if free_edges else rows[m][n])


def _trace(rows, kept, orig: Original, costs, s, marker, free_edges: bool) -> list[Op]:
    """Walk the cheapest path back; at equal cost prefer match, then a new line, then a
    replaced line, then a dropped one; a marker covers as much as it can at that cost (original
    lines are kept rather than replaced)."""
    n, m = orig.n, len(s)
    o_ids, o_sig, o_indent, o_blank = orig.o_ids, orig.o_sig, orig.o_indent, orig.o_blank
    ops: list[Op] = []
    j = int(np.argmin(rows[m])) if free_edges else n
    ops.extend(Op("edge", x, -1) for x in range(n - 1, j - 1, -1))  # trailing lines left out
    target = rows[m][j]  # the cost to explain at (i + 1, j)
    for i in range(m - 1, -1, -1):
        prev = rows[i]
        if marker[i]:
            if prev[j] + costs[i][1] == target:  # covers nothing
                target = prev[j]
                continue
            width, k, start = costs[i][0], j - 1, None  # covers o[start:j], starting where the line
            while k >= 0 and (o_indent[k] >= width or o_blank[k]):  # before ends without a drop
                if kept[i][k] == target:
                    start = k
                k -= 1
            k = start
            ops.extend(Op("cover", x, i) for x in range(j - 1, k - 1, -1))
            j, target = k, kept[i][k]
            continue
        sid, match, ins, sub_sim, sig_id = costs[i]
        while True:
            if j > 0 and sid >= 0 and o_ids[j - 1] == sid and prev[j - 1] + match == target:
                j -= 1
                ops.append(Op("match", j, i))
                break
            if prev[j] + ins == target:
                ops.append(Op("new", -1, i))
                break
            if j > 0 and s[i].strip():
                sub = sub_sim if sig_id >= 0 and o_sig[j - 1] == sig_id else ins + int(orig.sub_extra[j - 1])
                if prev[j - 1] + sub == target:
                    j -= 1
                    ops.append(Op("new", -1, i))
                    ops.append(Op("drop", j, -1))
                    break
            j -= 1  # an original line dropped: the only way left to this cost
            target = rows[i + 1][j]
            ops.append(Op("drop", j, -1))
        target = prev[j]
    ops.extend(Op("edge" if free_edges else "drop", x, -1) for x in range(j - 1, -1, -1))  # leading lines
    ops.reverse()
    return ops


def _weak(ops: list[Op], counts: Counter, s: list[str], marker: list[bool]) -> set[int]:
    """In a stretch of the sketch between two markers, a single matched line with new lines on
    both sides that the file has several times (`return result` of a new function matched to an
    old one) is no evidence of position: the stretch is new code, placed as a whole. Nor are such
    lines inside a new definition the stretch opens."""
    kind_of = {op.s: op.kind for op in ops if op.s >= 0 and op.kind in ("match", "new")}
    weak: set[int] = set()
    start = 0
    for end in [i for i, m in enumerate(marker) if m] + [len(s)]:
        lines = [i for i in range(start, end) if s[i].strip()]
        matched = [i for i in lines if kind_of.get(i) == "match"]
        inner = start > 0 and end < len(s) and all(counts.get(s[i].strip(), 0) > 1 for i in matched)
        if inner and len(matched) == 1 and lines[0] < matched[0] < lines[-1]:
            weak.add(matched[0])  # (a line the file has once is its own evidence)
        elif inner and matched and _opens_new_definition(s, lines, counts):
            weak.update(matched)  # `def process(self, stmt):` of a new class, matched to an old class's
        start = end + 1
    return weak


def _opens_new_definition(s: list[str], lines: list[int], counts: Counter) -> bool:
    """Does the stretch open a definition the file does not have, every other line inside it
    (sqlparse's new `class StripTrailingSemicolonFilter:` around a `def process(self, stmt):` and a
    `return stmt` that older classes have; flask's new method ending in `return value`)?"""
    head = s[lines[0]].strip()
    if not DEFINITION.match(head) or counts.get(head, 0):
        return False
    depth = len(indent_of(s[lines[0]]))
    return all(len(indent_of(s[i])) > depth for i in lines[1:])


def align(orig: Original, s: list[str], marker: list[bool], rounds: int = 3, trivial_reward: int = 0,
          retype: int = 1, unmatched: frozenset[int] = frozenset(), pinned: frozenset[int] = frozenset()) -> list[Op]:
    """The alignment path of `orig` (from `prepare`): every original line once (edge/cover/match/drop), every sketch line
    once (match/new, markers through their cover ops), in output order. `trivial_reward` > 0
    makes `}` and closing-quote lines anchor too: the second opinion when the first result does not parse;
    `retype` > 1 makes re-typing a line the file has once that much costlier than matching it is
    good: the second opinion when the first result repeats such a line; `unmatched` sketch lines
    may not match (they are written anew: code the sketch moved); `pinned` sketch lines match if
    they can at all (re-typing them costs more than anything else could gain).

    A sketch with markers says everything about the file: where it does not begin or end with a
    marker, the file begins or ends there. A sketch without markers whose lines sit in the middle
    of the file is a fragment: the lines around it are kept (edge).

    Lines shown right after a marker that the file has together but the programme wrote anew (it
    preferred editing an older copy of similar code into the sketch's new code) are the marker's
    context: the programme is solved again with them pinned. The first line after a marker, deeper
    than it, costs more to re-type from the start."""
    free_edges = not any(marker)
    banned = unmatched | _new_code_blanks(orig, s, marker)
    preferred = _context_ends(orig, s, marker) - unmatched - pinned

    def solve(banned: frozenset[int], pinned: frozenset[int], open_edges: bool) -> tuple[list[Op], int]:
        return _solve(orig, s, marker, banned, free_edges, trivial_reward, retype, pinned, open_edges, preferred - pinned)

    ops, cost = solve(banned, pinned, False)
    open_edges = False
    if any(i >= 0 and marker[i] and indent_of(s[i]) for i in _edges(s)):
        # an indented marker closing the sketch means the rest of its block, which usually ends
        # the file (its depth then says which block the last lines are in); where the file goes
        # on after that block, it stands for that too rather than have it deleted
        wide, wide_cost = solve(banned, pinned, True)
        if wide_cost + EDGE_SAVING <= cost:
            ops, open_edges = wide, True
    for _ in range(rounds):
        weak = _weak(ops, orig.counts, s, marker) - banned
        if not weak:
            break
        banned = banned | weak
        ops, _ = solve(banned, pinned, open_edges)
    runs = _retyped_context(ops, orig, s, marker) - banned - pinned
    if runs:
        ops, _ = solve(banned, pinned | runs, open_edges)
    return ops


def _new_code_blanks(orig: Original, s: list[str], marker: list[bool]) -> frozenset[int]:
    """Blank sketch lines between two lines the file does not have: they belong to the new code
    around them. Matched to one of the file's blank lines, they would take it from where it
    separates the code the file keeps (range.py's two blank lines before its first class, taken
    by the blank lines inside a new import block)."""
    out: set[int] = set()
    last_new: bool | None = None  # the last non-blank line before: a line the file lacks?
    run: list[int] = []
    for i, line in enumerate(s):
        if marker[i]:
            last_new, run = None, []
        elif not line.strip():
            run.append(i)
        else:
            new = orig.counts.get(line.strip(), 0) == 0
            if new and last_new:
                out.update(run)
            last_new, run = new, []
    return frozenset(out)


def _context_ends(orig: Original, s: list[str], marker: list[bool]) -> frozenset[int]:
    """The first line after each marker when it is a telling line of the file, deeper than the
    marker: it ends what the marker elides (sqlparse's `return stmt` before a new class), so
    re-typing it costs more (the programme would rather turn an older method into the new one)."""
    out = set()
    for i, is_marker in enumerate(marker):
        if not is_marker:
            continue
        j = next((j for j in range(i + 1, len(s)) if s[j].strip()), None)
        if j is None or marker[j]:
            continue
        key = s[j].strip()
        if orig.counts.get(key, 0) > 0 and not TRIVIAL.match(key) and len(indent_of(s[j])) > len(indent_of(s[i])):
            out.add(j)
    return frozenset(out)


def _retyped_context(ops: list[Op], orig: Original, s: list[str], marker: list[bool]) -> frozenset[int]:
    """The lines between a marker and the first line matched after it, written anew although the
    file has them together, in order, and all telling (two at least): the sketch's context for
    where the marker ends, re-typed because the programme found it cheaper to turn an older copy
    of similar code into the sketch's new code (typing_extensions' `TypeIs`, a near copy of
    `TypeGuard`, made by editing `TypeGuard` away). They are matched if they can be."""
    kind = {op.s: op.kind for op in ops if op.kind in ("match", "new")}
    keys = [x.strip() for x in s]
    out: set[int] = set()
    for i, is_marker in enumerate(marker):
        if not is_marker:
            continue
        run, end = [], None
        for j in range(i + 1, len(s)):
            if marker[j] or (keys[j] and kind.get(j) == "match"):
                end = j if not marker[j] and orig.counts.get(keys[j], 0) > 1 else None  # a weak anchor
                break
            if keys[j]:
                run.append(j)
        if len(run) >= 2 and all(not TRIVIAL.match(keys[j]) for j in run) \
                and "\n" + "".join(keys[j] + "\n" for j in run) in orig.joined:
            out.update(run)
            if end is not None and "\n" + "".join(keys[j] + "\n" for j in run + [end]) in orig.joined:
                out.add(end)  # `""")` ending the context tells which of two copies it means
    return frozenset(out)
