"""Aligning a sketch to the original: one dynamic programme, pure and vectorised with numpy.

An edit distance between the original's lines and the sketch's lines in which an elision marker
is a wildcard. Costs (integers; why in brackets):
- a sketch line equal to an original line: match, -MATCH (a kept line is the strongest evidence
  of position); trivial lines (`}`, `else:`) and blank lines match for 0 (they are everywhere);
- a sketch line that exists in the file but is left unmatched: +INS + MATCH (re-typing a kept
  line while a marker swallows the original would duplicate it);
- a new sketch line: +INS, or +SIMILAR_SUB in place of a similar original line (an edited line
  replaces the line it edits rather than being added next to it), +INS in place of any line;
- an original line dropped with no marker: +DEL (blank lines: 1);
- a marker covers any run of original lines indented at least as deep as itself for free (a
  marker inside a function cannot swallow the next function);
- the file's first and last lines may be left out of the sketch (kept: implicit elision).
One numpy pass per sketch line over all original lines, so a 3,000-line file with a 100-line
sketch aligns in milliseconds. Ties go to keeping original lines and adding sketch lines.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

MATCH = 6
INS = 2
SIMILAR_SUB = 1
DEL = 2
BIG = 1 << 50
TRIVIAL = re.compile(r"^[\s\})\]\(\[{;,:]*$|^(pass|else:|try:|finally:|return|break|continue|end|\.\.\.|\"\"\"|''')$")
TOKEN = re.compile(r"[A-Za-z_]\w*|\d+|\S")


@dataclass(frozen=True)
class Op:
    kind: str  # edge | cover | match | new | drop
    o: int     # original line index (-1 for new)
    s: int     # sketch line index (-1 for edge/drop)


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _signature(key: str) -> tuple[str, ...] | None:
    """Lines with the same first three tokens count as one line, edited."""
    if not key or TRIVIAL.match(key):
        return None
    return tuple(TOKEN.findall(key)[:3])


def _solve(o: list[str], s: list[str], marker: list[bool], banned: frozenset[int]) -> list[Op]:
    n, m = len(o), len(s)
    o_keys = [x.strip() for x in o]
    ids: dict[str, int] = {"": 0}
    o_ids = np.array([ids.setdefault(k, len(ids)) for k in o_keys], dtype=np.int64)
    sigs: dict[tuple, int] = {}
    o_sig = np.array([sigs.setdefault(g, len(sigs)) if (g := _signature(k)) else -1 for k in o_keys], dtype=np.int64)
    o_blank = o_ids == 0
    o_indent = np.array([len(indent_of(x)) for x in o], dtype=np.int64)
    del_cost = np.concatenate([[0], np.cumsum(np.where(o_blank, 1, DEL))]).astype(np.int64)
    rows = np.empty((m + 1, n + 1), dtype=np.int64)
    rows[0] = 0  # leading original lines may stay out of the sketch
    costs: list[tuple[int, int, int, int, int]] = []  # per sketch line: id, match, ins, similar sub, signature
    for i in range(m):
        prev = rows[i]
        if marker[i]:
            width = len(indent_of(s[i]))
            seg = np.concatenate([[0], np.cumsum((o_indent < width) & ~o_blank)])
            offset = (seg[-1] - seg) * (1 << 30)  # later segments lower: no minimum carries across a barrier
            rows[i + 1] = np.minimum.accumulate(prev + offset) - offset
            costs.append((-1, 0, 0, -1, -1))
            continue
        key = s[i].strip()
        sid = ids.get(key, -2) if i not in banned else -2
        trivial = not key or bool(TRIVIAL.match(key))
        match = 0 if trivial else -MATCH
        ins = 1 if not key else INS + (MATCH if sid >= 0 and not trivial else 0)
        sig = _signature(key)
        sig_id = sigs[sig] if sig is not None and sid < 0 and sig in sigs else -1
        a = prev + ins
        if key:
            sub = prev[:-1] + ins
            if sig_id >= 0:
                sub = np.where(o_sig == sig_id, prev[:-1] + SIMILAR_SUB, sub)
            a[1:] = np.minimum(a[1:], sub)
        if sid >= 0:
            hit = np.nonzero(o_ids == sid)[0]
            a[hit + 1] = np.minimum(a[hit + 1], prev[hit] + match)
        rows[i + 1] = del_cost + np.minimum.accumulate(a - del_cost)
        costs.append((sid, match, ins, SIMILAR_SUB if sig_id >= 0 else ins, sig_id))
    return _trace(rows, o_ids, o_sig, costs, s, marker, n, m)


def _trace(rows, o_ids, o_sig, costs, s, marker, n, m) -> list[Op]:
    """Walk the cheapest path back; at equal cost prefer match, then a new line, then a
    replaced line, then a dropped one."""
    ops: list[Op] = []
    j = int(np.argmin(rows[m]))
    ops.extend(Op("edge", x, -1) for x in range(n - 1, j - 1, -1))  # trailing lines left out
    for i in range(m - 1, -1, -1):
        cur, prev = rows[i + 1], rows[i]
        if marker[i]:
            while j > 0 and prev[j] != cur[j]:
                j -= 1
                ops.append(Op("cover", j, i))
            continue
        sid, match, ins, sub_sim, sig_id = costs[i]
        while True:
            if j > 0 and sid >= 0 and o_ids[j - 1] == sid and prev[j - 1] + match == cur[j]:
                j -= 1
                ops.append(Op("match", j, i))
                break
            if prev[j] + ins == cur[j]:
                ops.append(Op("new", -1, i))
                break
            if j > 0 and s[i].strip():
                sub = sub_sim if sig_id >= 0 and o_sig[j - 1] == sig_id else ins
                if prev[j - 1] + sub == cur[j]:
                    j -= 1
                    ops.append(Op("new", -1, i))
                    ops.append(Op("drop", j, -1))
                    break
            j -= 1  # an original line dropped: the only way left to this cost
            ops.append(Op("drop", j, -1))
    ops.extend(Op("edge", x, -1) for x in range(j - 1, -1, -1))  # leading lines left out
    ops.reverse()
    return ops


def _weak(ops: list[Op], o: list[str], s: list[str], marker: list[bool]) -> set[int]:
    """Sketch lines matched alone amid new lines (`return result` in a new function matched to
    an old one): no evidence of position."""
    kind_of = {op.s: op.kind for op in ops if op.s >= 0 and op.kind in ("match", "new")}

    def neighbour_new(i: int, step: int) -> bool:
        i += step
        while 0 <= i < len(s) and not marker[i] and not s[i].strip():
            i += step
        return 0 <= i < len(s) and not marker[i] and kind_of.get(i) == "new"

    weak = set()
    matches = [op for op in ops if op.kind == "match" and s[op.s].strip()]
    for k, op in enumerate(matches):
        alone = not any(abs(other.s - op.s) == 1 and abs(other.o - op.o) == 1
                        for other in matches[max(0, k - 1):k + 2] if other is not op)
        if alone and neighbour_new(op.s, -1) and neighbour_new(op.s, 1):
            weak.add(op.s)
    return weak


def align(o: list[str], s: list[str], marker: list[bool], rounds: int = 3) -> list[Op]:
    """The alignment path: every original line once (edge/cover/match/drop), every sketch line
    once (match/new/cover for markers is implied), in output order."""
    banned: frozenset[int] = frozenset()
    ops = _solve(o, s, marker, banned)
    for _ in range(rounds):
        weak = _weak(ops, o, s, marker) - banned
        if not weak:
            break
        banned = banned | weak
        ops = _solve(o, s, marker, banned)
    return ops
