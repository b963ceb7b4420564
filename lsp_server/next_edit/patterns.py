"""Pattern propagation (pure): the transformation the last edit made, applied at the next place
where it applies and has not been applied yet.

The last edit is one changed line, `old` → `new`. Its token-level difference must be a single
changed region (a rename, an inserted `await `, an added argument, a changed literal, a deleted
keyword). That region with one token of context on each side is the pattern; the next place in
the file (after the edit, then from the top) where the old form still stands is the prediction.
Anything more complex is left to the model, or to silence.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from lsp_server.text import indent_of, is_word_char

TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|\s+|\"[^\"\n]*\"|'[^'\n]*'|.")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
COMMENT_OPENER = re.compile(r"(^|\s)(#|//)")
KEYWORDS = frozenset("if else elif for while return def class import from as in is not and or with try except "
                     "finally pass break continue lambda yield None True False self const let var function new "
                     "this public private static void int".split())


@dataclass(frozen=True)
class Change:
    """Replace text[line][start:end] (0-based line, code-point columns) with `text`."""
    line: int
    start: int
    end: int
    text: str
    kind: str  # rename | insert | delete | replace | argument


@dataclass(frozen=True)
class Pattern:
    kind: str
    old: str    # what must still be there (with context)
    new: str    # what it becomes
    lead: int   # length of the left context inside old/new (the change starts after it)
    whole_word: bool


def tokens(line: str) -> list[str]:
    return TOKEN.findall(line)


def _token_changes(old: str, new: str) -> tuple[list[str], list[str], list[tuple]]:
    """Both lines' tokens and the opcodes where they differ."""
    a, b = tokens(old), tokens(new)
    return a, b, [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]


def derive(old: str, new: str) -> Pattern | None:
    """The pattern of a one-line edit, or None when it is not a single local change."""
    if old == new or not old.strip() or not new.strip():
        return None
    a, b, ops = _token_changes(old, new)
    if len(ops) != 1:
        return None
    tag, i1, i2, j1, j2 = ops[0]
    old_seg, new_seg = "".join(a[i1:i2]), "".join(b[j1:j2])
    if not (old_seg.strip() or new_seg.strip()):
        return None  # whitespace only: formatting, not a pattern
    if COMMENT_OPENER.search(new_seg) and tag == "insert":
        return None  # a trailing `# type: ignore[...]` answers that line's own warning
    left = a[i1 - 1] if i1 > 0 else ""
    right = a[i2] if i2 < len(a) else ""
    if tag == "replace" and IDENT.match(old_seg) and IDENT.match(new_seg):
        if old_seg in KEYWORDS:
            return None
        return Pattern("rename", old_seg, new_seg, 0, True)
    if tag == "insert" and right == ")" and new_seg.lstrip().startswith(","):
        return Pattern("argument", "", new_seg, 0, False)
    # insert / delete / replace with one token of context on each side
    kind = {"insert": "insert", "delete": "delete"}.get(tag, "replace")
    if not (left.strip() or right.strip()):
        return None
    return Pattern(kind, left + old_seg + right, left + new_seg + right, len(left),
                   bool(IDENT.match(left) or IDENT.match(right)))


def _occurrences(line: str, needle: str, whole_word: bool):
    start = 0
    while True:
        at = line.find(needle, start)
        if at < 0:
            return
        before = line[at - 1] if at > 0 else " "
        after = line[at + len(needle)] if at + len(needle) < len(line) else " "
        word_ok = not whole_word or (not is_word_char(before) or not is_word_char(needle[0])) \
            and (not is_word_char(after) or not is_word_char(needle[-1]))
        if word_ok:
            yield at
        start = at + 1


def _call_name(new_line: str, new_seg: str) -> str | None:
    """`foo(a, b, c)` with `, c` added → "foo" (the call whose argument list changed)."""
    at = new_line.find(new_seg)
    depth = 0
    for k in range(at - 1, -1, -1):
        ch = new_line[k]
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                m = re.search(r"([A-Za-z_][A-Za-z0-9_.]*)\s*$", new_line[:k])
                return m.group(1) if m else None
            depth -= 1
    return None


def _argument_sites(lines: list[str], name: str, arg: str):
    """(line, column of the closing paren, args text) for one-line calls `name(...)` lacking arg."""
    pat = re.compile(rf"(?<![A-Za-z0-9_.]){re.escape(name)}\s*\(")
    for n, line in enumerate(lines):
        for m in pat.finditer(line):
            depth, k = 0, m.end()
            while k < len(line):
                if line[k] in "([{":
                    depth += 1
                elif line[k] in ")]}":
                    if depth == 0:
                        break
                    depth -= 1
                k += 1
            if k >= len(line):
                continue  # the call goes on over several lines: leave it to the model
            args = line[m.end():k]
            if arg.strip().lstrip(",").strip() not in args:
                yield n, k, args


def propagate(text: str, edit_line: int, old: str, new: str) -> Change | None:
    """The next place for the last edit's transformation. edit_line: 0-based line of `new` in text."""
    return next(candidates(text, edit_line, old, new), None)


def candidates(text: str, edit_line: int, old: str, new: str) -> Iterator[Change]:
    """Every place for the last edit's transformation, nearest first (onwards from the edit, then
    from the top); the caller keeps the first that passes its checks."""
    pattern = derive(old, new)
    if pattern is None:
        return
    lines = text.split("\n")
    order = list(range(edit_line, len(lines))) + list(range(0, edit_line))  # onwards, then from the top
    if pattern.kind == "argument":
        name = _call_name(new, pattern.new)
        if not name:
            return
        sites = {n: (k, args) for n, k, args in _argument_sites(lines, name, pattern.new)}
        for n in order:
            if n in sites and n != edit_line:
                k, args = sites[n]
                insert = pattern.new if args.strip() else pattern.new.lstrip().lstrip(",").lstrip()
                yield Change(n, k, k, insert, "argument")
        return
    core_old, core_new = _core_len(pattern, "old"), _core_len(pattern, "new")
    shape = _shape(old, new)
    for n in order:
        if shape is not None and n != edit_line:
            m = shape[0].search(lines[n])
            if m and _value_kind(lines[n][m.end():]) == shape[2]:  # the same insertion after another name
                yield Change(n, m.end(1), m.end(1), shape[1], "shape")  # in a line of the same shape
                continue
        if n == edit_line and pattern.kind != "rename":
            continue  # an insertion or replacement is not made twice in one line
        line = lines[n]
        for at in _occurrences(line, pattern.old, pattern.whole_word):
            if pattern.kind != "rename" and (line.startswith(pattern.new, at)
                                             or line[:at + len(pattern.old)].endswith(pattern.new)):
                continue  # already transformed here
            start = at + pattern.lead
            yield Change(n, start, start + core_old, pattern.new[pattern.lead:pattern.lead + core_new], pattern.kind)


def _value_kind(rest: str) -> str:
    """What is assigned after `=` (for annotations: `bool` suits another `False`, not a call)."""
    value = rest.split("=", 1)[1].strip() if "=" in rest else rest.strip()
    if re.match(r"(True|False|not)\b", value) or re.search(r"[=!<>]=|[<>]|\bis\b|\bin\b", value):
        return "bool"
    if re.match(r"-?\d", value):
        return "number"
    if re.match(r"[rbfu]*[\"']", value, re.IGNORECASE):
        return "string"
    if value[:1] in "[{(":
        return value[:1]
    call = re.match(r"([A-Za-z_][\w.]*)\s*\(", value)
    if call:
        return "call " + call.group(1)
    return "name" if value else ""


def _shape(old: str, new: str) -> tuple[re.Pattern, str, str] | None:
    """`self.x = False` → `self.x: bool = False`: an annotation inserted right after the name an
    assignment binds (nothing else: `t.Container` → `t.Container[t.Any]` is no shape), in a line whose
    other tokens stay. Generalised over the name (the next attribute gets the same annotation),
    with the tokens around kept: the token before the name, and what follows up to the next
    non-space token (not followed by another operator character, so `==` is not `=`); and only
    where the value is of the same kind (`bool` suits another `False`, not a call)."""
    a, b, ops = _token_changes(old, new)
    if len(ops) != 1 or ops[0][0] != "insert":
        return None
    _, i1, _, j1, j2 = ops[0]
    if i1 < 2 or not IDENT.match(a[i1 - 1]) or a[i1 - 1] in KEYWORDS or not a[i1 - 2].strip():
        return None
    inserted = "".join(b[j1:j2])
    rest = a[i1:]
    k = 0
    while k < len(rest) and not rest[k].strip():
        k += 1
    if k >= len(rest) or rest[k] != "=" or not inserted.lstrip().startswith(":"):
        return None  # an annotation put before an assignment's `=`, nothing else
    indent = re.escape(indent_of(old))
    right = re.escape("".join(rest[:k + 1]))
    regex = re.compile(rf"^{indent}(?:.*?){re.escape(a[i1 - 2])}([A-Za-z_]\w*){right}(?![=<>!])")
    return regex, inserted, _value_kind("".join(rest))


def _core_len(p: Pattern, side: str) -> int:
    """Length of the changed part inside old/new (without the right context)."""
    if p.kind == "rename":
        return len(p.old if side == "old" else p.new)
    full_old, full_new = p.old, p.new
    right = 0
    while right < min(len(full_old), len(full_new)) - p.lead and full_old[-1 - right] == full_new[-1 - right]:
        right += 1
    # the right context is one token; never count more than what is outside the change
    return (len(full_old) if side == "old" else len(full_new)) - p.lead - right


# -- repeated substitutions ------------------------------------------------------------------
# A systematic change (`t.Optional[X]` → `X | None`, `cookielib` → `http.cookiejar`) is made line
# by line, often several substitutions per line. Every token-level replacement the recent edits
# made, with SUB_CONTEXT tokens of context on its right and on its left (none for a change that
# starts with a name: the name's start is its context), is a rule; a rule made at least twice (or
# by the last edit) is applied, all together, to the next line it changes, and to the lines right
# after it that it also changes (one hunk), below the edit only. Measured on bench/next_edit.py:
# no repetition, or wrapping to the top, fired on too many silence cases.
SUB_CONTEXT = 2
SUB_REPEATS = 2


def substitutions(pairs: list[tuple[str, str]], newest: bool = True) -> list[tuple[str, str]]:
    """Rules (old, new) from changed line pairs, newest first: made SUB_REPEATS times, or by the
    newest pair when it is the last edit's (`newest`). Comments inserted are no rule (they answer
    one line's warning)."""
    seen: dict[tuple[str, str], int] = {}
    first: set[tuple[str, str]] = set()
    for k, (old, new) in enumerate(reversed(pairs)):
        a, b, ops = _token_changes(old, new)
        for tag, i1, i2, j1, j2 in ops:
            # a change that starts with a name needs no left context: the name's start is one
            left = "" if i1 < i2 and IDENT.match(a[i1]) else "".join(a[max(0, i1 - SUB_CONTEXT):i1])
            right = "".join(a[i2:i2 + SUB_CONTEXT])
            rule = (left + "".join(a[i1:i2]) + right, left + "".join(b[j1:j2]) + right)
            if len(rule[0].strip()) < 3 or COMMENT_OPENER.search("".join(b[j1:j2])):
                continue
            seen[rule] = seen.get(rule, 0) + 1
            if k == 0 and newest:
                first.add(rule)
    return [r for r, n in seen.items() if n >= SUB_REPEATS or r in first]


def substitute(line: str, rules: list[tuple[str, str]]) -> str:
    for old, new in rules:
        if old in line and not (old in new and new in line):  # not where it is made already
            if IDENT.match(old[:1]):  # from a name's start: not inside another name (or after a dot)
                line = re.sub(rf"(?<![\w.]){re.escape(old)}", lambda _: new, line)
            else:
                line = line.replace(old, new)
    return line


def repeated(text: str, edit_line: int, rules: list[tuple[str, str]]) -> Iterator[tuple[int, list[str]]]:
    """(first line, new lines) of each hunk the rules make below the edit, nearest first; a hunk
    runs over consecutive lines the rules change."""
    if not rules:
        return
    lines = text.split("\n")
    for n in range(edit_line + 1, len(lines)):  # onwards only: wrapping to the top fired on silence cases
        new = substitute(lines[n], rules)
        if new == lines[n]:
            continue
        block = [new]
        while n + len(block) < len(lines):
            nxt = substitute(lines[n + len(block)], rules)
            if nxt == lines[n + len(block)]:
                break
            block.append(nxt)
        yield n, block
