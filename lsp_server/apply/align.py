"""Pass 2: align the sketch to the original — one dynamic programme, pure, vectorised with numpy.

An edit distance between the original's lines and the sketch's in which a marker is a wildcard covering any run of
original lines. Costs are integers (the indentation hint, 1, only breaks ties):
- a sketch line equal to an original line (stripped): a match, rewarded by how much it says about position: a line the
  file has once −MATCH (ten deleted lines cost as much), a definition the file has once −2·MATCH, a line found 2–3 times
  −8, more often −4, blank and trivial lines (`}`, `else:`) 0;
- a new sketch line: +INS; re-typing a line the file has once costs its match reward more (keeping the original and
  adding a copy would repeat it), and one that says little (`finally:`) more than matching it and dropping two lines;
- a new sketch line in place of an alike original line (same statement head: `return x` → `return x * 2`, `def f(a)` →
  `def f(a, b)`): +ALIKE, and the original line is replaced;
- an original line dropped: +DEL (blank lines less) — only between two sketch lines, never next to a marker: a deletion
  is shown by adjacency (a marker starts covering right after the line before it, never after a drop);
- a marker covers any run of original lines for free; covering nothing costs +EMPTY (the sketch says code is elided
  there) except at the sketch's edges; covering a line shallower than the marker's own indentation costs +HINT once:
  indentation is a hint between equal alignments, never a reason to delete;
- edges: the sketch's first and last lines are the file's (a sketch without markers that is a fragment gets its markers
  from sketch.implied_markers first).
"""
from __future__ import annotations

import bisect
import difflib
import enum
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache, wraps
from typing import NamedTuple

import numpy as np

from lsp_server.apply.sketch import OPENER, Sketch, is_trivial
from lsp_server.text import DECORATOR, DEFINITION, IMPL, definition_name, indent_of

MATCH, INS, ALIKE, DEL, DEL_BLANK, EMPTY, HINT = 80, 8, 4, 8, 4, 12, 1
END, PINNED = 2 * MATCH, 50 * MATCH  # re-typing the first or last line of a stretch (see _stretch_ends)
BIG = 1 << 50
STEP = 1 << 32  # offset between barrier-free stretches (see _cover)
TOKEN = re.compile(r"[A-Za-z_$][\w$]*|\d+|\S")
WORD = re.compile(r"[A-Za-z_$][\w$]*")
SELF = ("self", "this", "cls")
ASSIGNED = re.compile(r"^(?:(?:export\s+)?(?:const|let|var)\s+)?([A-Za-z_$][\w$]*)\s*(?::[^=]*)?=[^=]")
DELIMITER = re.compile(r"^(?:/\*\*?|\*/|\*)$")  # a block comment's opening or closing line alone
COMMENTS = ("#", "//", "/*", "*")  # how a comment line starts
IMPORT = re.compile(r"^(?:import\s|from\s+\S+\s+import\s|#include\s|use\s|const\s+\w+\s*=\s*require\()")


class Kind(enum.Enum):
    COVER = "cover"    # an original line a marker stands for: kept
    MATCH = "match"    # an original line the sketch shows: kept
    NEW = "new"        # a sketch line the file does not have there
    DROP = "drop"      # an original line the sketch deletes
    REWRITTEN = "rewritten"  # an original line of a block whose whole body the sketch wrote anew


class Op(NamedTuple):  # (a tuple: a file's worth of them is made and walked by every pass)
    kind: Kind
    o: int = -1  # original line (-1 for NEW)
    s: int = -1  # sketch line (-1 for DROP and REWRITTEN; COVER: the marker's line)


def replaces(ops: Sequence[Op], k: int) -> bool:
    """Is ops[k] the drop of a line the next op writes anew in its place (an alike edit)?"""
    return ops[k].kind is Kind.DROP and k + 1 < len(ops) and ops[k + 1].kind is Kind.NEW


@lru_cache(maxsize=16384)
def signature(key: str) -> tuple[str, ...] | None:
    """The head two lines share when one edits the other: the first two tokens when the second is a name
    (`return total`, `def greet`), else three (`self.x`, `c = 1`); numbers are alike; `self.`/`this.` does not count as
    the name (`if self.match_text()` and `if self.match_tag()` test different things); a definition's is its name
    (`pub fn`, `async def`, a Go method's receiver say nothing of which definition it is)."""
    if is_trivial(key) or IMPORT.match(key) or key.startswith(COMMENTS):
        return None
    if name := definition_name(key):
        return ("def", name)
    toks = ["#" if t[0].isdigit() else t for t in TOKEN.findall(key)[:6]]
    if len(toks) > 3 and toks[1] in SELF and toks[2] == ".":
        return tuple(toks[:4])
    return tuple(toks[:2]) if len(toks) > 1 and (toks[1][0].isalpha() or toks[1][0] in "_$") else tuple(toks[:3])


def strip_comment(key: str, comment: str) -> str:
    """A stripped line without its trailing comment (a marker outside quotes, after a space)."""
    at = key.find(" " + comment)
    while at >= 0:
        before = key[:at]
        if before.count('"') % 2 == 0 and before.count("'") % 2 == 0:
            return before.rstrip()
        at = key.find(" " + comment, at + 1)
    return key


@dataclass(frozen=True)
class Original:
    """What the programme needs of the original, computed once per file."""
    lines: tuple[str, ...]
    keys: tuple[str, ...]       # stripped lines
    counts: Counter             # stripped line → how often the file has it
    ids: dict                   # stripped line → id ("" → 0)
    at_id: dict                 # id → positions (np arrays)
    at_sig: dict                # signature → positions
    at_bare: dict               # stripped line without its trailing comment → lines, where the comment made a difference
    indent: np.ndarray
    blank: np.ndarray
    del_cost: np.ndarray        # prefix sums of the cost of dropping lines
    # One expansion's answers asked more than once (alike lines, the sketch's renames, what every reading shares, the
    # parts of the programme solved: _solve), each under its name; the tokens of lines; lines_with's answers.
    alike_cache: dict = field(default_factory=dict, init=False)
    _tokens: dict[str, tuple[str, ...]] = field(default_factory=dict, init=False)
    _word_lines: dict[str, list[int]] = field(default_factory=dict, init=False)

    def tokens(self, text: str) -> tuple[str, ...]:
        """The line's tokens (asked of the same lines by the renames, the alike lines and every reading)."""
        found = self._tokens.get(text)
        if found is None:
            found = self._tokens[text] = tuple(TOKEN.findall(text))
        return found

    def memo(self, key, make):
        """alike_cache's answer under key, made (make()) once."""
        if key not in self.alike_cache:
            self.alike_cache[key] = make()
        return self.alike_cache[key]

    @cached_property
    def definitions(self) -> list[tuple[int, str | None]]:
        """(line, name) of the file's definition lines (an `impl` block aside: nothing names it)."""
        return [(j, definition_name(k)) for j, k in enumerate(self.keys) if k and DEFINITION.match(k) and not IMPL.match(k)]

    @cached_property
    def words(self) -> list[frozenset[str]]:
        """Per line, the names on it."""
        return [frozenset(WORD.findall(k)) for k in self.keys]

    def index_words(self, wanted: set[str]) -> None:
        """Make lines_with() answer for these names: one pass over the lines for all of them."""
        todo = wanted - self._word_lines.keys()
        if not todo:
            return
        found: dict[str, list[int]] = {w: [] for w in todo}
        for j, ws in enumerate(self.words):
            for w in ws & todo:
                found[w].append(j)
        self._word_lines.update(found)

    def lines_with(self, word: str) -> list[int]:
        """The lines that have the name."""
        if word not in self._word_lines:
            self.index_words({word})
        return self._word_lines[word]


def _per_expansion(f):
    """f(orig, *args), answered once per expansion (in orig.alike_cache)."""
    name = f.__name__

    @wraps(f)
    def memoised(orig: Original, *args):
        key = (name, *args)
        found = orig.alike_cache.get(key, orig)  # (orig: no answer yet; None may be one)
        if found is orig:
            found = orig.alike_cache[key] = f(orig, *args)
        return found
    return memoised


def prepare(lines: list[str], comment: str = "#") -> Original:
    keys = tuple(x.strip() for x in lines)
    counts = Counter(keys)
    ids: dict[str, int] = {"": 0}
    id_list = [ids.setdefault(k, len(ids)) for k in keys]
    at_id: dict[int, list[int]] = {}
    at_sig: dict[tuple, list[int]] = {}
    at_bare: dict[str, list[int]] = {}
    for j, k in enumerate(keys):
        if comment in k and (bare := strip_comment(k, comment)) != k:
            at_bare.setdefault(bare, []).append(j)
        at_id.setdefault(id_list[j], []).append(j)
        if (sig := signature(k)) is not None:
            at_sig.setdefault(sig, []).append(j)
    blank = np.array(id_list, dtype=np.int64) == 0
    del_cost = np.concatenate([[0], np.cumsum(np.where(blank, DEL_BLANK, DEL))]).astype(np.int64)
    return Original(tuple(lines), keys, counts, ids, {k: np.array(v) for k, v in at_id.items()},
                    {k: np.array(v) for k, v in at_sig.items()}, at_bare,
                    np.array([len(x) - len(x.lstrip()) for x in lines], dtype=np.int64), blank, del_cost)


NONE = np.array([], dtype=np.int64)
SIMILAR = 0.8  # a line this alike (difflib's ratio), at the same depth, edits the other
COMMON = 200   # a name on more lines than this finds no alike line
SHORT = 12     # shorter lines are too alike by chance (`def b():`, `def d():`)


@_per_expansion
def renames(orig: Original, sketch: Sketch, renamed: frozenset[str]) -> frozenset[tuple[str, str]]:
    """(old name, new name) pairs that two or more of the sketch's new lines make of lines of the
    file (asked by the alignment and by placement)."""
    seen: Counter = Counter()
    for line, is_marker in zip(sketch.lines, sketch.marker):
        key = line.strip()
        if not is_marker and key and key not in orig.counts and not renamed.isdisjoint(WORD.findall(key)):
            found = alike_lines(orig, line, renamed).tolist()
            if DEFINITION.match(key):  # (alike to no other definition, but renamed as its calls are)
                found += _renamed_definitions(orig, line, renamed)
            seen.update({pair for j in set(found) for pair in renamed_all(orig, orig.keys[j], key, renamed)})
    # (an old name the sketch still shows on a line of the file lives on: new code beside it, no rename)
    kept = {w for x, m in zip(sketch.lines, sketch.marker) if not m and x.strip() in orig.counts for w in WORD.findall(x)}
    return frozenset(p for p, n in seen.items() if n >= 2 and p[0] not in kept)


def _renamed_definitions(orig: Original, line: str, renamed: frozenset[str]) -> list[int]:
    """The file's definition lines at the line's depth that it makes by renaming names (found
    through the rarest name the two share, or all definitions at that depth when it has none)."""
    key, depth = line.strip(), len(indent_of(line))
    near = _sharing_rarest(orig, set(WORD.findall(key)) - renamed, 1) or range(len(orig.keys))
    return [j for j in near if orig.indent[j] == depth and DEFINITION.match(orig.keys[j])
            and renamed_all(orig, orig.keys[j], key, renamed)]


@_per_expansion
def edited_lines(orig: Original, line: str, renamed: frozenset[str], pairs: frozenset[tuple[str, str]]) -> np.ndarray:
    """The lines of the file this one may edit: its alike lines, or of those only the ones it makes by a rename the
    sketch makes elsewhere too (`pairs`), else by renaming names to names new to the file (a field renamed while a
    parameter keeps the old name), if any; for a line alike to none (a definition's first line, or `seen = {}` with no
    name but the renamed one), the one it renames as the sketch renames the others."""
    alike = alike_lines(orig, line, renamed)
    key = line.strip()
    chosen = []
    if len(alike) > 1:
        made = {j: renamed_all(orig, orig.keys[j], key, renamed) for j in alike.tolist()}
        chosen = [j for j, by in made.items() if by and by <= pairs] or [j for j, by in made.items() if by]
    elif pairs and not len(alike):  # a line renamed as the others are, with no other name to find it by
        words = set(WORD.findall(key))
        chosen = sorted({j for old, new in pairs if new in words for j in orig.lines_with(old)
                         if pairs >= renamed_all(orig, orig.keys[j], key, renamed) >= {(old, new)}})
    return np.array(chosen, dtype=np.int64) if chosen else alike


STRING = re.compile(r"""(['"`])(?:\\.|(?!\1).)*\1""")  # a string literal on one line


@_per_expansion
def new_names(orig: Original, sketch: Sketch) -> frozenset[str]:
    """Names the file does not have that two or more of the sketch's new lines use: what a rename
    renames to (one new name on one line is as likely a different call); and a parameter's new
    name, which the file may have elsewhere."""
    seen: Counter = Counter()
    for line, is_marker in zip(sketch.lines, sketch.marker):
        if not is_marker and line.strip() not in orig.counts:
            seen.update(set(WORD.findall(line)))
    orig.index_words(set(seen))
    # (a name the file has only in comments and strings is new to its code: `// this instance's
    # listeners`, `throw new Error('Lock already acquired')`)
    params = _renamed_parameters(orig, sketch)
    return frozenset(w for w, n in seen.items() if n >= 2 and (w in params or not any(_in_code(orig.keys[j], w)
                                                                                       for j in orig.lines_with(w))))


def _renamed_parameters(orig: Original, sketch: Sketch) -> set[str]:
    """The names an edited first line of a definition gives where the file's one definition of
    that name has another (`compile(p string)` → `compile(pattern string)`): a parameter renamed
    in its body, though the file uses the new name elsewhere."""
    out = set()
    for line, is_marker in zip(sketch.lines, sketch.marker):
        key = line.strip()
        if is_marker or key in orig.counts or not (name := definition_name(key)):
            continue
        hits = orig.at_sig.get(("def", name), NONE).tolist()
        if len(hits) == 1 and len(changed := token_changes(orig, orig.keys[hits[0]], key)) == 1:
            out.update(y for _, y in changed)
    return out


def _in_code(key: str, word: str) -> bool:
    """Is the name on the line outside its comment and string literals?"""
    if key.startswith(COMMENTS):
        return False
    return word in WORD.findall(STRING.sub("", key))


@_per_expansion
def alike_lines(orig: Original, line: str, renamed: frozenset[str]) -> np.ndarray:
    """Original lines a new sketch line may replace as their edit: the same statement head; or,
    at the same depth, nearly the same text, the same tokens with one name renamed, or the old
    text extended (`versions` → `versions = versions`)."""
    key = line.strip()
    sig = signature(key)
    out = set(orig.at_sig.get(sig, NONE).tolist()) if sig is not None else set()
    if IMPORT.match(key):
        out.update(_same_import(orig, key))
    elif not is_trivial(key) and not DEFINITION.match(key):
        # (an import next to another is a new import; a definition of another name, a new one)
        depth = len(indent_of(line))
        words = set(WORD.findall(key))
        near = np.fromiter(_sharing_rarest(orig, words, 2), dtype=np.int64)
        renames_here = bool(words & renamed)
        sm = None  # (the new line's index for difflib: built once, when a line of the file needs it)
        for j in near[orig.indent[near] == depth].tolist():
            old = orig.keys[j]
            if j in out or len(words & orig.words[j]) * 2 < len(words):
                continue
            if len(old) >= 3 and key.startswith(old) or renames_here and renamed_as(orig, old, key, renamed) is not None:
                out.add(j)
            elif len(key) >= SHORT and abs(len(old) - len(key)) <= len(key) // 3:
                sm = sm or difflib.SequenceMatcher(None, "", key, autojunk=False)
                sm.set_seq1(old)
                if sm.quick_ratio() >= SIMILAR and sm.ratio() >= SIMILAR:
                    out.add(j)
    if not out and (m := OPENED.match(key)):
        out.update(j for j in orig.at_sig.get(("def", m.group(1)), NONE).tolist() if orig.indent[j] == len(indent_of(line)))
    return np.array(sorted(out), dtype=np.int64) if out else NONE


USE_ONE = re.compile(r"^(use\s+[\w:]+::)(\w+);$")
IMPORT_FROM = re.compile(r"^(from\s+\S+\s+import)\s+\(?([\w\s,]+?)\)?$")


def import_parts(key: str) -> tuple[str, frozenset[str]] | None:
    """An import line as (what it imports from, the names it imports): `from m import a, b`,
    `use m::{A, B};`, `import { a, b } from 'm';`; None for other lines."""
    if not IMPORT.match(key):
        return None
    if (m := IMPORT_FROM.match(key)):
        return m.group(1), frozenset(WORD.findall(m.group(2)))
    a, b = key.find("{"), key.rfind("}")
    if 0 <= a < b:
        return key[:a].rstrip() + "{}" + key[b + 1:].lstrip(), frozenset(WORD.findall(key[a + 1:b]))
    if (m := USE_ONE.match(key)):  # (`use syn::Type;` is `use syn::{Type};`)
        return m.group(1) + "{};", frozenset([m.group(2)])
    return None


GO_GROUP, GO_SINGLE = "import (", re.compile(r'^import\s+(?:[\w.]+\s+)?"[^"]+"$')


def _same_import(orig: Original, key: str) -> set[int]:
    """The file's import lines from the same place whose names the new line's names hold, or hold
    all of (a name added to or removed from an import is an edit of it, not a second import); for
    Go's `import (`, the file's one-line imports (`import "fmt"`), which a group replaces when an
    import is added to them."""
    if key == GO_GROUP:
        return {j for j, k in enumerate(orig.keys) if GO_SINGLE.match(k)}
    parts = import_parts(key)
    if parts is None or not parts[1]:
        return set()
    head, names = parts
    near = {j for w in names for j in orig.lines_with(w)[:COMMON]}
    return {j for j in near if (old := import_parts(orig.keys[j])) is not None and old[0] == head and old[1] != names
            and (old[1] <= names or names <= old[1])}


def _sharing_rarest(orig: Original, words: set[str], k: int) -> set[int]:
    """The file's lines with one of the k names (of these) it has on fewest lines (at most COMMON lines per name)."""
    known = sorted((len(found), w) for w in words if (found := orig.lines_with(w)))
    return {j for _, w in known[:k] for j in orig.lines_with(w)[:COMMON]}


# A class member's first line with its parameters on the lines below (`validate(`), a call's
# shape too: it edits only a definition of its name (`validate(files: File[]): void {`).
OPENED = re.compile(r"^(?:(?:public|private|protected|static|async|override|abstract)\s+)*\*?"
                    r"([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\($")


def defined_name(key: str) -> str | None:
    """The name a sketch line (stripped) defines, its parameters on the lines below or not."""
    return definition_name(key) or ((m := OPENED.match(key)) and m.group(1)) or None


def same_definition(old: str, new: str) -> bool:
    """Do both lines define the same name (`def f(a)` → `def f(a, b)`, `m(a) {` → `m(`)?"""
    a = definition_name(old)
    return a is not None and a == defined_name(new)


def edits_its_definition(orig: Original, j: int, new: str) -> bool:
    """Is new (a definition's first line) an edit of file line j, the file's one definition of
    that name? Then it says where it is as surely as a match of it."""
    return same_definition(orig.keys[j], new) and orig.at_sig.get(signature(orig.keys[j]), NONE).tolist() == [j]


def renamed_as(orig: Original, old: str, new: str, renamed: frozenset[str]) -> tuple[str, str] | None:
    """The same tokens but one name, replaced everywhere on the line by a name the sketch renames
    to (see new_names): (old name, new name), else None."""
    pairs = renamed_all(orig, old, new, renamed)
    return next(iter(pairs)) if len(pairs) == 1 else None


def renamed_all(orig: Original, old: str, new: str, renamed: frozenset[str]) -> frozenset[tuple[str, str]]:
    """The same tokens but names, each replaced everywhere on the line by a name the sketch renames to
    (`class Root extends SubTree` → `class TrickleRoot extends TrickleSubTree`): the (old name, new name) pairs, else none."""
    if renamed.isdisjoint(orig.tokens(new)):
        return frozenset()  # (the same answer, without comparing the lines: no new name is on the line)
    pairs = token_changes(orig, old, new)
    return pairs if all(y in renamed for _, y in pairs) else frozenset()


def token_changes(orig: Original, old: str, new: str) -> frozenset[tuple[str, str]]:
    """The same tokens but names, each replaced everywhere on the line: the (old name, new name) pairs, else none."""
    a, b = orig.tokens(old), orig.tokens(new)
    if len(a) != len(b):
        return frozenset()
    pairs = frozenset((x, y) for x, y in zip(a, b) if x != y)
    ok = len({x for x, _ in pairs}) == len(pairs) and all(WORD.fullmatch(x) and WORD.fullmatch(y) for x, y in pairs)
    return pairs if ok else frozenset()


@_per_expansion
def reward(orig: Original, key: str) -> int:
    """What matching a sketch line says about its position."""
    count = orig.counts.get(key, 0)
    if count == 0 or is_trivial(key):
        return 0
    if count > 1:
        return 8 if count <= 3 else 4
    sig = signature(key)
    unique_name = sig is not None and len(orig.at_sig.get(sig, ())) <= 1
    return 2 * MATCH if DEFINITION.match(key) and unique_name else MATCH


@_per_expansion
def _barriers(orig: Original, width: int) -> np.ndarray:
    """Per file position, an offset that rises by STEP at each non-blank line shallower than
    `width`, counted from the end: earlier stretches higher, so a running minimum never carries
    across a barrier (any window of it works alike)."""
    seg = np.concatenate([[0], np.cumsum((orig.indent < width) & ~orig.blank)])
    return (seg[-1] - seg) * STEP


def _cover(kept: np.ndarray, offset: np.ndarray, empty: int) -> np.ndarray:
    """Costs after a marker: it starts where a line before it was kept (never after a drop) and
    covers o[k:j] (k < j) for free, +HINT if that run holds a non-blank line shallower than the
    marker (offset: _barriers for its width); covering nothing costs `empty`."""
    same = np.minimum.accumulate(kept + offset)[:-1] - offset[1:]
    covered = np.minimum(np.where(same >= STEP, BIG, same), np.minimum.accumulate(kept)[:-1] + HINT)
    return np.minimum(kept + empty, np.concatenate([[BIG], covered]))


def block_end(orig: Original, j: int) -> int:
    """The last line of the block opened at file line j (by indentation; a closing bracket at its depth belongs to it)."""
    depth, end = orig.indent[j], j
    for x in range(j + 1, len(orig.keys)):
        if not orig.keys[x]:
            continue
        if orig.indent[x] <= depth:
            if orig.indent[x] == depth and orig.keys[x][0] in "}])":
                end = x
            break
        end = x
    return end


def _once_at(orig: Original, line: str) -> int:
    """Where the file has the line, if it has it once (else -1)."""
    hits = orig.at_id.get(orig.ids.get(line.strip(), -1))
    return int(hits[0]) if hits is not None and len(hits) == 1 else -1


def shown_block_closers(orig: Original, sketch: Sketch, placed: dict[int, int]) -> dict[int, int]:
    """Closing brackets the sketch writes for a block whose opening line it shows and the file has once (or in one place
    with the lines shown next to it: `placed`, from _unique_in_context): sketch line → the line closing that block in
    the file (its end, with the lines between the sketch's last shown line and it deleted by adjacency, or kept by a
    marker indented inside the block)."""
    out: dict[int, int] = {}
    for i, (line, is_marker) in enumerate(zip(sketch.lines, sketch.marker)):
        key = line.strip()
        if is_marker or not key or key[0] not in "}])" or not is_trivial(key):
            continue
        depth = len(indent_of(line))
        for x in range(i - 1, -1, -1):
            if sketch.marker[x]:
                if len(indent_of(sketch.lines[x])) > depth:
                    continue  # a marker inside the block stands for its body
                break
            above = sketch.lines[x]
            if above.strip() and len(indent_of(above)) <= depth:
                if len(indent_of(above)) == depth and above.strip().endswith(("{", "(", "[")):
                    opened = placed[x] if x in placed else _definition_at(orig, above)
                    if opened >= 0 and orig.keys[end := block_end(orig, opened)] == key:
                        out[i] = end
                break
    return out


def _definition_at(orig: Original, line: str) -> int:
    """Where the file has the line once, else, for a definition's first line edited, the file line of the one definition
    it edits (`def f(a)` → `def f(a, b)`), else -1."""
    key = line.strip()
    if (at := _once_at(orig, line)) >= 0 or orig.counts.get(key, 0) or not DEFINITION.match(key):
        return at
    hits = orig.at_sig.get(signature(key), NONE).tolist()
    return hits[0] if len(hits) == 1 and edits_its_definition(orig, hits[0], key) else -1


def _unique_in_context(orig: Original, sketch: Sketch) -> dict[int, int]:
    """Sketch lines the file has several times but, together with the sketch's non-blank lines
    next to them (two or three in a row, no marker between), in one place only: line → that
    place. A run of shown lines is as good an anchor as a line the file has once."""
    nb = np.flatnonzero(~orig.blank).tolist()  # the non-blank lines; rank: line → its index there
    rank = {j: x for x, j in enumerate(nb)}
    same = _same_indent(orig, sketch)

    def starts_of(first: str, second: str) -> list[int]:
        """Indexes x into nb where the file's non-blank lines read `first`, `second`."""
        hits = orig.at_id.get(orig.ids.get(first, -1), NONE).tolist()
        return [x for j in hits if (x := rank[j]) + 1 < len(nb) and orig.keys[nb[x + 1]] == second]

    runs: list[list[int]] = [[]]
    for i, (line, is_marker) in enumerate(zip(sketch.lines, sketch.marker)):
        if is_marker:
            runs.append([])
        elif line.strip():
            runs[-1].append(i)
    out: dict[int, int] = {}
    for run in runs:
        keys = [sketch.lines[i].strip() for i in run]
        for x in range(len(run)):
            if orig.counts.get(keys[x], 0) < 2:
                continue
            for lo, hi in ((x - 1, x + 1), (x, x + 2), (x - 2, x + 1), (x - 1, x + 2), (x, x + 3)):
                if lo < 0 or hi > len(run):
                    continue
                starts = [p for p in starts_of(keys[lo], keys[lo + 1])
                          if p + hi - lo <= len(nb) and all(orig.keys[nb[p + d]] == keys[lo + d] for d in range(hi - lo))
                          and (not same or all(orig.indent[nb[p + d]] == len(indent_of(sketch.lines[run[lo + d]]))
                                               for d in range(hi - lo)))]  # (at the sketch's depths, if it keeps the file's)
                if len(starts) == 1:
                    out[run[x]] = nb[starts[0] + x - lo]
                    break
    return out


def _bodies_in_place(orig: Original, sketch: Sketch) -> dict[int, tuple[int, int]]:
    """Lines of the body of a definition whose first line the sketch shows as the file has it
    (once) or edited (the file's one definition of that name): the file lines of that definition,
    the only ones they may match or edit. A body line the file has elsewhere is then new code of
    this body, not that line pulled here with the code between deleted."""
    out: dict[int, tuple[int, int]] = {}
    stack: list[tuple[int, tuple[int, int] | None]] = []  # (depth, file lines) of the definitions around
    for i, (line, is_marker) in enumerate(zip(sketch.lines, sketch.marker)):
        key = line.strip()
        if not key:
            continue
        depth = len(indent_of(line))
        going_on = key[0] in ")]" and key.endswith("{") or key in ("{", "where")  # (a header over several lines)
        while stack and (stack[-1][0] > depth or stack[-1][0] == depth and (is_marker or key[0] not in "}])" and not going_on)):
            stack.pop()
        if is_marker:
            continue
        if stack and stack[-1][0] == depth and not going_on:  # (the definition's closing bracket: anchored as such)
            stack.pop()
            continue
        known = [r for _, r in stack if r is not None]
        if known:
            out[i] = known[-1]
        if DEFINITION.match(key):
            at = _definition_at(orig, line)
            stack.append((depth, (at, _chain_end(orig, at)) if at >= 0 else None))
    return out


def _chain_end(orig: Original, j: int) -> int:
    """The last line of the block opened at file line j (its header may go on over several lines:
    `pub fn f(`, `    a: u8,`, `) {`)."""
    end = block_end(orig, j)
    while orig.keys[end][:1] in ")]" and not orig.keys[end].endswith(("}", ";")):
        if (after := block_end(orig, end)) == end:
            break
        end = after
    return end


def _closing_ends(orig: Original, sketch: Sketch) -> frozenset[int]:
    """Closing-bracket lines (`}`, `});`) right before a marker, after a shown line, that the file has."""
    s, marker = sketch.lines, sketch.marker
    return frozenset(i for i in range(1, len(s) - 1) if (key := s[i].strip()) and key[0] in "})]" and is_trivial(key)
                     and orig.counts.get(key, 0) and marker[i + 1] and not marker[i - 1] and s[i - 1].strip())


def _stretch_ends(orig: Original, sketch: Sketch) -> frozenset[int]:
    """The first and last telling lines between markers (blank and trivial lines aside), when the file has them: a
    sketch shows unchanged lines around each change, so these are context. Re-typing them (to match a copy of old code
    further on) costs END more, and PINNED for a line the file has once: it says where the stretch is."""
    telling: dict[int, list[int]] = {}  # the marker before (or -1) → the stretch's telling lines
    opened = -1
    for i, line in enumerate(sketch.lines):
        if sketch.marker[i]:
            opened = i
        elif not is_trivial(line.strip()):  # (`try:` and `}` say nothing)
            telling.setdefault(opened, []).append(i)
    firsts = {m: t[0] for m, t in telling.items() if orig.counts.get(sketch.lines[t[0]].strip(), 0)}
    lasts = {m: t[-1] for m, t in telling.items() if orig.counts.get(sketch.lines[t[-1]].strip(), 0)}
    out = {i for i in firsts.values() if not _shifted_unlike_neighbours(orig, sketch, i, 1)}
    for opened, i in lasts.items():
        first = firsts.get(opened)
        if first is not None and first != i and _once_at(orig, sketch.lines[first]) > _once_at(orig, sketch.lines[i]) >= 0:
            continue  # the two cannot both be context (the file has them the other way round): the first is
        if not _shifted_unlike_neighbours(orig, sketch, i, -1):
            out.add(i)
    return frozenset(out)


def _shifted_unlike_neighbours(orig: Original, sketch: Sketch, i: int, step: int) -> bool:
    """Does the sketch shift stretch end i's depth from the file's otherwise than that of the next
    line inward that the file has once? Then i is no context but a line the sketch moved (an
    import moved up out of a `try:`), and the lines around it say where the stretch is."""
    at = _once_at(orig, sketch.lines[i])
    if at < 0:
        return False
    shift = len(indent_of(sketch.lines[i])) - int(orig.indent[at])
    x = i + step
    while 0 <= x < len(sketch.lines) and not sketch.marker[x]:
        there = _once_at(orig, sketch.lines[x]) if sketch.lines[x].strip() else -1
        if there >= 0:
            return len(indent_of(sketch.lines[x])) - int(orig.indent[there]) != shift
        x += step
    return False


def _protected(orig: Original, sketch: Sketch) -> np.ndarray:
    """Original definition lines the sketch does not show but still names (a call, a comment)
    without defining that name itself: the definition lives on, so its line is never deleted or
    edited into another one (new code that copies an old function is not that function renamed)."""
    written = [x.strip() for x, m in zip(sketch.lines, sketch.marker) if not m]
    words = set(WORD.findall("\n".join(written)))
    words -= {defined_name(x) for x in written}  # (edited there)
    words -= {m.group(1) for x in written if (m := ASSIGNED.match(x))}  # (or defined anew)
    shown = set(written)
    out = np.zeros(len(orig.keys), dtype=bool)
    for j, name in orig.definitions:
        if orig.keys[j] not in shown:
            out[j] = name in words
    return out


def _in_new_blocks(orig: Original, sketch: Sketch, renamed: frozenset[str],
                   pairs: frozenset[tuple[str, str]], named: bool = False) -> tuple[frozenset[int], frozenset[int]]:
    """Sketch lines inside a block whose opening line the file has in no form (not as it is, not alike, not renamed as
    the sketch renames): the body of a new definition, which edits no line of another block; and the brackets closing
    such blocks, which are no closing bracket of the file's. named: nor an opening line of the same name at that depth
    (`constructor(` written over three lines edits the file's `constructor(a, b) {`)."""
    out: set[int] = set()
    closers: set[int] = set()
    stack: list[tuple[int, bool]] = []  # (depth, new?) of the openers around the line
    last_at: dict[int, str] = {}  # depth → the last header line there (its first line, for `) {`, `{`)
    for i, (line, is_marker) in enumerate(zip(sketch.lines, sketch.marker)):
        if is_marker:
            stack, last_at = [], {}
            continue
        key = line.strip()
        if not key:
            continue
        depth = len(indent_of(line))
        going_on = key[0] in ")]" or key in ("{", "where")  # (a header written over several lines)
        header = last_at.get(depth, line) if going_on else line
        if not going_on:
            last_at[depth] = line
        while stack and stack[-1][0] >= depth:
            if stack[-1][0] == depth and stack[-1][1] and key[:1] in "}])":
                closers.add(i)
            stack.pop()
        if any(new for _, new in stack):
            out.add(i)
        if OPENER.search(key):
            new = orig.counts.get(header.strip(), 0) == 0 and not len(edited_lines(orig, header, renamed, pairs))
            if new and named:
                head = _head(header.strip())
                new = head is None or not any(orig.indent[j] == depth and OPENER.search(orig.keys[j])
                                              and _head(orig.keys[j]) == head for j in orig.lines_with(head))
            stack.append((depth, new))
    return frozenset(out), frozenset(closers)


def _comment_runs(sketch: Sketch) -> list[tuple[int, int]]:
    """The sketch's `/* ... */` comments: (first line, last line), no marker between."""
    out: list[tuple[int, int]] = []
    start = None
    for i, (line, is_marker) in enumerate(zip(sketch.lines, sketch.marker)):
        key = line.strip()
        if is_marker:
            start = None
        elif start is None and key.startswith("/*"):
            start = i
        if start is not None and "*/" in key:
            out.append((start, i))
            start = None
    return out


def _new_comments(orig: Original, sketch: Sketch) -> frozenset[int]:
    """The lines of `/* ... */` comments with a line the file does not have: a new doc comment, whose `/**` and ` */`
    are no anchors (matched to another comment's, they pull the code around them there)."""
    return frozenset(j for start, end in _comment_runs(sketch)
                     if any(sketch.lines[x].strip() not in orig.counts for x in range(start, end + 1))
                     for j in range(start, end + 1))


def _comments_of_the_undocumented(orig: Original, sketch: Sketch) -> frozenset[int]:
    """The lines of `/* ... */` comments the sketch writes right above a line the file has once with no comment right
    above it, or above a new definition of a name the file does not define: a new doc comment, whose `/**` and ` */` are
    no anchors (matched to the comment of the code above, they would delete what lies between)."""
    out: set[int] = set()
    for start, end in _comment_runs(sketch):
        after = end + 1
        k = sketch.lines[after].strip() if after < len(sketch.lines) and not sketch.marker[after] else ""
        if orig.counts.get(k, 0) == 1:
            j = _once_at(orig, k) - 1
            while j >= 0 and orig.blank[j]:
                j -= 1
            if j < 0 or not orig.keys[j].startswith(("*", "/*", "//")) and not orig.keys[j].endswith("*/"):
                out.update(range(start, end + 1))
        elif _defines_new_name(orig, k):
            out.update(range(start, end + 1))
    return frozenset(out)


def _attributes_of_new(orig: Original, sketch: Sketch) -> frozenset[int]:
    """Decorators and attributes (`@property`, `#[test]`) right above a definition of a name the file does not define
    (and no definition it renames): the new definition's own, no anchors (matched to the next definition's, they would
    delete what lies between)."""
    out: set[int] = set()
    renamed = new_names(orig, sketch)
    for i, line in enumerate(sketch.lines):
        if not sketch.marker[i] and _defines_new_name(orig, line.strip()) and not _renamed_definitions(orig, line, renamed):
            x = i - 1
            while x >= 0 and not sketch.marker[x] and sketch.lines[x].strip().startswith(DECORATOR):
                out.add(x)
                x -= 1
    return frozenset(out)


def _defines_new_name(orig: Original, key: str) -> bool:
    """Is the line (stripped) a definition of a name the file does not define?"""
    return bool(key) and not orig.counts.get(key, 0) and DEFINITION.match(key) is not None \
        and not len(orig.at_sig.get(signature(key), NONE))


@_per_expansion
def _same_indent(orig: Original, sketch: Sketch) -> bool:
    """Does the sketch indent the lines it shows as the file has them (every line the file has once, at its depth)?"""
    shown = [(line, j) for line, m in zip(sketch.lines, sketch.marker) if not m and (j := _once_at(orig, line)) >= 0]
    return bool(shown) and all(len(indent_of(line)) == orig.indent[j] for line, j in shown)


def _head(key: str) -> str | None:
    """The name an opening line opens: a definition's name, else its first word."""
    return definition_name(key) or ((m := WORD.match(key)) and m.group(0)) or None


@dataclass
class _Costs:
    """What every part of the programme reads: computed once per alignment, indexed globally."""
    del_cost: np.ndarray        # prefix sums of dropping lines (protected definitions cost PINNED)
    protected: np.ndarray
    anchored: dict[int, int]
    pinned_closers: frozenset[int]
    renamed: frozenset[str]
    pairs: frozenset[tuple[str, str]]
    in_new: frozenset[int]
    new_closers: frozenset[int]
    ends: frozenset[int]
    inside: dict[int, tuple[int, int]]  # body line → the file lines of the definition it is in
    same_indent: bool           # the sketch indents as the file does: a shown line matches one at its depth


def align(orig: Original, sketch: Sketch, new_bodies: bool = False, closers_close: bool = False,
          in_place: bool = False) -> list[Op]:
    """The cheapest path: every original line once (COVER/MATCH/DROP) and every non-marker sketch line once (MATCH/NEW),
    in output order. Sure anchors (see _sure_anchors) cut the programme into parts solved apart: the same path, in a
    fraction of the cells.
    new_bodies: the second reading, where the body of a block whose opening line the file does not have matches none of
    the file's lines (a new definition copied from an old one and changed is new code; the first reading may take it
    for the old one, edited).
    closers_close: the third reading, where a closing bracket that ends a stretch before a marker is the file's
    (re-typing it costs END): what the file has between it and the line shown above it goes, by adjacency. The first
    lets it be a new bracket and the marker keep those lines, which leaves a statement cut in two.
    in_place: a reading for drafts in doubt, where the body of a definition whose first line the sketch shows (as the
    file has it once, or edited) matches and edits only that definition's lines in the file (see _bodies_in_place)."""
    s, m, n = sketch.lines, len(sketch.lines), len(orig.lines)

    def once(name: str, make, *args):  # (what every reading of this sketch shares: computed once)
        return orig.memo((name, s, *args), make)

    protected = once("protected", lambda: _protected(orig, sketch))
    once("words", lambda: orig.index_words({w for x in s if orig.counts.get(x.strip(), 0) <= 1 for w in WORD.findall(x)}))
    renamed = new_names(orig, sketch)
    pairs = renames(orig, sketch, renamed)
    in_new, new_closers = once("in_new", lambda: _in_new_blocks(orig, sketch, renamed, pairs), pairs)
    attributes = once("attributes", lambda: _attributes_of_new(orig, sketch))
    new_closers |= once("undocumented", lambda: _comments_of_the_undocumented(orig, sketch)) | attributes
    if new_bodies:  # (new: nor named as an opening line of the file's; its body and closer written anew)
        new_closers = frozenset().union(*_in_new_blocks(orig, sketch, renamed, pairs, named=True),
                                        _new_comments(orig, sketch), attributes)
    ends = once("ends", lambda: _stretch_ends(orig, sketch))
    c = _Costs(orig.del_cost + np.concatenate([[0], np.cumsum(protected * PINNED)]), protected,
               *once("anchored", lambda: _anchored(orig, sketch)),
               renamed, pairs, in_new, new_closers,
               ends | _closing_ends(orig, sketch) if closers_close else ends,
               _bodies_in_place(orig, sketch) if in_place else {}, _same_indent(orig, sketch))
    bounds = [(-1, -1)] + once("sure", lambda: _sure_anchors(orig, sketch, c.ends), c.ends) + [(m, n)]
    ops = _solve(orig, sketch, c, bounds)
    if len(c.pairs) > 1:
        # lines alike but for the name (`i = skipKey(...)`, `i = skipVal(...)`) confirm each rename the
        # sketch makes for several old names; the places the alignment chose say which is which
        chosen = _chosen_renames(orig, sketch, ops, renamed)
        if chosen != c.pairs:
            orig.alike_cache[("renames", sketch, renamed)] = c.pairs = chosen
            ops = _solve(orig, sketch, c, bounds)
    return ops


def _solve(orig: Original, sketch: Sketch, c: _Costs, bounds: list[tuple[int, int]]) -> list[Op]:
    """The programme part by part. A reading differs from the first in a few sketch lines' costs
    (new_closers, inside, ends): a part none of them touches is solved once per expansion."""
    ops: list[Op] = []
    for (ia, ja), (ib, jb) in zip(bounds, bounds[1:]):
        rows = range(ia + 1, ib)
        memo = ("part", sketch.lines, ia, ib, ja, jb, c.pairs,
                *(tuple(i for i in rows if i in group) for group in (c.in_new, c.new_closers, c.ends)),
                tuple((i, c.inside[i]) for i in rows if i in c.inside))
        ops += orig.memo(memo, lambda: _align_part(orig, sketch, c, ia + 1, ib, ja + 1, jb))
        if ib < len(sketch.lines):
            ops.append(Op(Kind.MATCH, jb, ib))
    return ops


def _chosen_renames(orig: Original, sketch: Sketch, ops: list[Op], renamed: frozenset[str]) -> frozenset[tuple[str, str]]:
    """The renames the alignment's edits make on two or more lines: each new name's most frequent old one (no tie)."""
    seen: Counter = Counter()
    for k in range(len(ops) - 1):
        if replaces(ops, k):
            seen.update(renamed_all(orig, orig.keys[ops[k].o], sketch.lines[ops[k + 1].s].strip(), renamed))
    best: dict[str, list] = {}
    for (old, new), count in seen.items():
        if count >= 2:
            best.setdefault(new, []).append((count, old))
    out = set()
    for new, olds in best.items():
        olds.sort(reverse=True)
        if len(olds) == 1 or olds[0][0] > olds[1][0]:
            out.add((olds[0][1], new))
    return frozenset(out)


def _anchored(orig: Original, sketch: Sketch) -> tuple[dict[int, int], frozenset[int]]:
    """Sketch lines the file has several times that are placed all the same: runs of shown lines the file has in one
    place, and closing brackets of blocks whose opening line is placed; and of those brackets, the ones right after a
    marker (the block's body elided): a stretch's first line, its context, as re-typing it would cost PINNED."""
    placed = _unique_in_context(orig, sketch)
    closers = shown_block_closers(orig, sketch, placed)
    pinned = set()
    for i in closers:
        x = i - 1
        while x >= 0 and not sketch.marker[x] and not sketch.lines[x].strip():
            x -= 1
        if x >= 0 and sketch.marker[x]:
            pinned.add(i)
    return {**placed, **closers}, frozenset(pinned)


def _sure_anchors(orig: Original, sketch: Sketch, ends: frozenset[int]) -> list[tuple[int, int]]:
    """(sketch line, file line) pairs the cheapest path takes for sure: the first and last telling lines of stretches
    (see _stretch_ends: re-typing one costs PINNED) that the file and the sketch each have once, whose non-blank
    neighbours in the stretch are its neighbours in the file too, in the order of both (the longest such chain)."""
    s, marker, keys = sketch.lines, sketch.marker, orig.keys
    written = Counter(x.strip() for x, mk in zip(s, marker) if not mk)
    found = []
    for i in sorted(ends):
        if written[s[i].strip()] != 1 or orig.counts.get(s[i].strip(), 0) != 1:
            continue
        j = _once_at(orig, s[i])
        for step in (-1, 1):
            x, y = i + step, j + step
            while 0 <= x < len(s) and not marker[x] and not s[x].strip():
                x += step
            while 0 <= y < len(keys) and not keys[y]:
                y += step
            if 0 <= x < len(s) and not marker[x] and not (0 <= y < len(keys) and keys[y] == s[x].strip()):
                break
        else:
            found.append((i, j))
    return _rising_chain(found)


def _rising_chain(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of (i, j) pairs (i rising) whose j rise too."""
    tails: list[int] = []      # j of the last pair of the best chain of each length
    at: list[int] = []         # index into pairs of that pair
    back = [-1] * len(pairs)
    for x, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        back[x] = at[k - 1] if k else -1
        if k == len(tails):
            tails.append(j)
            at.append(x)
        else:
            tails[k], at[k] = j, x
    out, x = [], at[-1] if at else -1
    while x >= 0:
        out.append(pairs[x])
        x = back[x]
    return out[::-1]


def _align_part(orig: Original, sketch: Sketch, c: _Costs, i0: int, i1: int, lo: int, hi: int) -> list[Op]:
    """The programme for sketch lines [i0, i1) over file lines [lo, hi), started as the whole
    one starts (after a kept line) and ended at hi as the whole one ends at the file's end."""
    s, marker = sketch.lines, sketch.marker
    w = hi - lo
    rows = np.empty((i1 - i0 + 1, w + 1), dtype=np.int64)
    kept = np.empty((i1 - i0 + 1, w + 1), dtype=np.int64)
    del_cost = c.del_cost[lo:hi + 1] - c.del_cost[lo]
    rows[0], kept[0] = del_cost, np.concatenate([[0], np.full(w, BIG)])
    scratch = np.empty(w + 1, dtype=np.int64)
    steps: list[tuple] = []
    for r, i in enumerate(range(i0, i1)):
        prev = rows[r]
        if marker[i]:
            empty = 0 if i in (0, len(s) - 1) else EMPTY  # (a marker at the sketch's edge may stand for nothing)
            width = len(indent_of(s[i]))
            kept[r + 1] = rows[r + 1] = _cover(kept[r], _barriers(orig, width)[lo:hi + 1], empty)
            steps.append((width, empty))
            continue
        key = s[i].strip()
        count = orig.counts.get(key, 0)
        gain = reward(orig, key)
        inside = c.inside.get(i)
        if inside is not None and count == 1 and not inside[0] <= _once_at(orig, key) <= inside[1]:
            count = gain = 0  # (the file's one such line is another definition's: this one is new)
        anchor = c.anchored.get(i, -1)
        if inside is not None and not inside[0] <= anchor <= inside[1]:
            anchor = -1
        ins = (2 if not key else INS) + (gain if count == 1 else MATCH if anchor >= 0 else 0)
        if count == 1 and not gain and key:
            ins += 2 * DEL + 1  # (`finally:`, the file's one: re-typing it beside the file's own repeats it)
        if i in c.ends or i in c.pinned_closers:
            # (a lone `/**` the file has once is context, but says little about where)
            ins += PINNED if count == 1 and not DELIMITER.match(key) or i in c.pinned_closers else END
        a = kept[r + 1]  # (rows are written in place: no array per line)
        np.add(prev, ins, out=a)
        edits = _edit_costs(orig, c, s[i], key, count, ins, i, lo, hi)  # local line → cost of editing it
        if inside is not None:
            edits = {j: v for j, v in edits.items() if inside[0] <= j + lo <= inside[1]}
        for j, cost in edits.items():
            a[j + 1] = min(a[j + 1], prev[j] + cost)
        sid = orig.ids.get(key) if i not in c.new_closers else None  # (new code: written anew)
        hits = orig.at_id.get(sid) if sid is not None else None
        depth = len(indent_of(s[i])) if c.same_indent and key else -1
        if hits is not None:
            if depth >= 0:  # (`)` is the bracket at its own depth, `on_socket,` the argument at its depth)
                hits = hits[orig.indent[hits] == depth]
            if i in c.pinned_closers:  # (the block's own closing bracket, no other)
                hits = hits[hits == c.anchored[i]]
            first, last = inside or (lo, hi - 1)
            if len(hits) < 8:  # (most shown lines are the file's once: no array operations for them)
                for j in hits.tolist():
                    if lo <= j < hi and first <= j <= last:
                        a[j - lo + 1] = min(a[j - lo + 1], prev[j - lo] - gain)
            else:
                hits = hits[(hits >= max(lo, first)) & (hits <= min(hi - 1, last))] - lo
                a[hits + 1] = np.minimum(a[hits + 1], prev[hits] - gain)
            if lo <= anchor < hi:
                j = anchor - lo
                a[j + 1] = min(a[j + 1], prev[j] - MATCH)
        np.subtract(a, del_cost, out=scratch)
        np.minimum.accumulate(scratch, out=scratch)
        np.add(scratch, del_cost, out=rows[r + 1])
        steps.append((sid, gain, ins, edits, anchor - lo, inside or (lo, hi), depth))
    return _trace(orig, sketch, rows, kept, steps, del_cost, i0, lo)


def _edit_costs(orig: Original, c: _Costs, line: str, key: str, count: int, ins: int, i: int,
                lo: int, hi: int) -> dict[int, int]:
    """The file's lines in [lo, hi) that sketch line i may replace as their edit (local index → cost): its alike lines
    for ALIKE, or, for a line the file has elsewhere, for what re-typing it costs (ALIKE more than INS); the file's line
    with a trailing comment the sketch left out for ALIKE; and the file's one definition of the name a new definition
    line edits (`def f(a):` → `def f(a, b):`) as surely as a match of it."""
    out: dict[int, int] = {}
    if key and count <= 1 and i not in c.in_new:
        edit = ALIKE if count == 0 else ALIKE + ins - INS
        for j in edited_lines(orig, line, c.renamed, c.pairs).tolist():
            if lo <= j < hi and not c.protected[j] and orig.keys[j] != key:
                out[j - lo] = edit
        if count == 0 and (DEFINITION.match(key) or OPENED.match(key)):
            for j in [j for j in out if edits_its_definition(orig, j + lo, key)]:
                out[j] = ALIKE - 2 * MATCH
    for j in orig.at_bare.get(key, ()):
        if lo <= j < hi and not c.protected[j]:
            out[j - lo] = min(out.get(j - lo, ALIKE), ALIKE)
    return out


def _trace(orig: Original, sketch: Sketch, rows, kept, steps, del_cost, i0: int, lo: int) -> list[Op]:
    """Walk the cheapest path of a part back (local columns, global ops). At equal cost: a match, then a new line, then
    an alike replacement; drops as few as explain the cost; a marker covers as little as it can."""
    w, m = rows.shape[1] - 1, rows.shape[0] - 1
    j, target, after_drops = w, rows[m][w], True
    ops: list[Op] = []
    for r in range(m - 1, -1, -1):
        i = i0 + r
        if sketch.marker[i]:
            width, empty = steps[r]
            if kept[r][j] + empty != target:
                crossed, k = False, j - 1
                while k >= 0:
                    crossed = crossed or bool(orig.indent[lo + k] < width and not orig.blank[lo + k])
                    if kept[r][k] + (HINT if crossed else 0) == target:
                        break
                    k -= 1
                ops.extend(Op(Kind.COVER, lo + x, i) for x in range(j - 1, k - 1, -1))
                j = k
            target, after_drops = kept[r][j], False
            continue
        if after_drops:  # o[k:j] dropped after sketch line i
            k = j
            while kept[r + 1][k] + del_cost[j] - del_cost[k] != target:
                k -= 1
            ops.extend(Op(Kind.DROP, lo + x) for x in range(j - 1, k - 1, -1))
            j, target = k, kept[r + 1][k]
        sid, gain, ins, edits, anchor, (first, last), depth = steps[r]
        prev = rows[r]
        if j > 0 and sid is not None and orig.keys[lo + j - 1] == sketch.lines[i].strip() and first <= lo + j - 1 <= last and \
                (depth < 0 or j - 1 == anchor or orig.indent[lo + j - 1] == depth) and \
                prev[j - 1] - (MATCH if j - 1 == anchor else gain) == target:
            j -= 1
            ops.append(Op(Kind.MATCH, lo + j, i))
        elif prev[j] + ins == target:
            ops.append(Op(Kind.NEW, -1, i))
        elif j > 0 and (j - 1) in edits and prev[j - 1] + edits[j - 1] == target:
            j -= 1
            ops.append(Op(Kind.NEW, -1, i))
            ops.append(Op(Kind.DROP, lo + j))
        else:
            raise AssertionError("the alignment's trace lost its way")
        target, after_drops = prev[j], True
    ops.extend(Op(Kind.DROP, lo + x) for x in range(j - 1, -1, -1))
    ops.reverse()
    return ops
