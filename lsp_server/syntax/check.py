"""tree-sitter error counts (the expander, next-edit checks), and Python's own parser, which is
stricter about indentation than tree-sitter's grammar, on the statements a change touches."""
from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from tree_sitter import Query, QueryCursor

from lsp_server.syntax.languages import grammar


def parser_for(path: str):
    """A tree-sitter Parser for the file's language, or None without a grammar."""
    g = grammar(Path(path).suffix.lower())
    if g is None:
        return None
    from tree_sitter import Parser

    return Parser(g[0])


@lru_cache(maxsize=4)  # one original is asked about by each reading (str hashes are cached)
def _tree(path: str, text: str):
    parser = parser_for(path)
    return None if parser is None else parser.parse(text.encode("utf-8"))


def error_count(path: str, text: str, empty_blocks: bool = True) -> int | None:
    """ERROR and MISSING nodes in the parse, or None without a grammar. In Python, empty blocks
    too: tree-sitter's grammar takes a `def` with no body followed by another `def` without an
    error node, where Python rejects it (empty_blocks=False leaves them out: the query over
    every block costs about as much as the parse)."""
    tree = _tree(path, text)
    if tree is None:
        return None
    count = count_errors(tree.root_node)
    if empty_blocks and path.endswith((".py", ".pyi")):
        count += sum(1 for b in _captures(path, tree, "block") if b.start_byte == b.end_byte)
    return count


@lru_cache(maxsize=8)  # an original is asked about by each reading
def python_parses(text: str) -> bool:
    """Does CPython's parser take the text? tree-sitter's Python grammar accepts a block's lines
    at a depth no block opened (typing_extensions: a method's body left under comments after the
    `class` and `def` lines that opened it were dropped), which Python rejects."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # `"\d"` and the like: warnings, not errors
        try:
            compile(text, "<sketch result>", "exec", ast.PyCF_ONLY_AST)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def _captures(path: str, tree, node_type: str) -> list:
    """Every node of that type in the tree (a tree-sitter query), or none if the grammar has no such node."""
    query = _query(Path(path).suffix.lower(), node_type)
    return [] if query is None else QueryCursor(query).captures(tree.root_node).get("n", [])


@lru_cache(maxsize=8)
def _query(suffix: str, node_type: str):
    try:
        return Query(grammar(suffix)[0], f"({node_type}) @n")
    except Exception:  # the grammar has no such node
        return None


def count_errors(root) -> int:
    """ERROR and MISSING nodes under a tree-sitter node (only subtrees that have errors are walked)."""
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
        if node.has_error:
            stack.extend(node.children)
    return count


TRIPLE = re.compile(r"\"\"\"|\'\'\'")
STRING = re.compile(r"""[rRbBuUfF]*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")
FOLLOWS = re.compile(r"^(?:else|elif|except|finally|case)\b|^[)\]}]")  # lines that continue the statement above
BRACKET = re.compile(r"[()\[\]{}]")
PIECE = 150  # a top-level class longer than this is cut at its members


def _statement_lines(lines: Sequence[str], stop_after: int | None = None) -> list[bool]:
    """Per line: does a statement begin there (outside any bracket, triple-quoted string or
    backslash continuation, and not a comment or blank line)? With stop_after: only up to the
    first top-level statement after that line (what comes later cannot matter to it)."""
    out, depth, quote, prev_open = [], 0, None, False
    for i, line in enumerate(lines):
        stripped = line.strip()
        start = quote is None and depth == 0 and not prev_open and bool(stripped) and not stripped.startswith("#")
        if stop_after is not None and i > stop_after and start and line[:1] not in (" ", "\t") \
                and not FOLLOWS.match(stripped) and not lines[i - 1].startswith("@"):
            break
        out.append(start)
        body = line
        if quote is not None:
            at = body.find(quote)
            if at < 0:
                continue
            body, quote = body[at + 3:], None
        if "'" in body or '"' in body:
            body = STRING.sub('""', body)
            for m in TRIPLE.finditer(body):
                quote = m.group(0) if quote is None else None
        code = body.split("#", 1)[0] if "#" in body else body
        if BRACKET.search(code):
            depth = max(0, depth + code.count("(") + code.count("[") + code.count("{")
                        - code.count(")") - code.count("]") - code.count("}"))
        prev_open = code.rstrip().endswith("\\")
    return out


def _cuts(lines: Sequence[str], starts: list[bool], lo: int, hi: int, width: int) -> list[int]:
    """Lines in [lo, hi) where a statement at `width` columns begins (not a clause that continues
    the one above, not the line after a decorator)."""
    cuts = []
    for i in range(lo, hi):
        line = lines[i]
        if starts[i] and len(line) - len(line.lstrip()) == width and not FOLLOWS.match(line.lstrip()):
            prev = next((x for x in range(i - 1, lo - 1, -1) if lines[x].strip()), None)
            if prev is None or not lines[prev].lstrip().startswith("@"):
                cuts.append(i)
    return cuts


def python_pieces(lines: Sequence[str], starts: list[bool] | None = None) -> list[tuple[int, int]]:
    """The top-level statements of Python source as [start, end) line ranges (decorators with
    what they decorate; a long class cut at its members), found by a scan of brackets, triple
    quotes and indentation — cheap, and only a way to parse less: a piece that does not compile
    is checked again whole. (starts: _statement_lines of the lines, if known.)"""
    if starts is None:
        starts = _statement_lines(lines)
    top = _cuts(lines, starts, 0, len(lines), 0)
    if not top or top[0] != 0:
        top = [0] + top
    out = []
    for a, b in zip(top, top[1:] + [len(lines)]):
        if b - a > PIECE and lines[a].startswith("class "):
            body = next((x for x in range(a + 1, b) if starts[x]), a)
            members = _cuts(lines, starts, a + 1, b, len(lines[body]) - len(lines[body].lstrip()))
            cuts = [a] + members[1:] + [b]  # (the first member stays with the `class` line)
            out.extend(zip(cuts, cuts[1:]))
        else:
            out.append((a, b))
    return out


def python_changed_parse(lines: Sequence[str], changed: set[int]) -> bool:
    """Do the top-level statements holding changed lines compile (a class member alone, under a
    stand-in `class _:`)? The statement ending right before a changed line counts as changed too
    (new code under `def f():` may leave it without a body). A False is checked again on the
    whole file."""
    if not changed:
        return True
    before = set()
    for i in changed:
        x = i - 1
        while x >= 0 and not lines[x].strip():
            x -= 1
        before.add(x)
    changed = changed | before
    starts = _statement_lines(lines, max(changed))
    lines = lines[:len(starts)]  # (the rest holds no changed line)
    units: list[list[int]] = []  # changed pieces; next to each other and alike (members or not): one compile
    for a, b in python_pieces(lines, starts):
        if not any(i in changed for i in range(a, b)):
            continue
        member = lines[a][:1] in (" ", "\t")
        if units and units[-1][1] == a and units[-1][2] == member:
            units[-1][1] = b
        else:
            units.append([a, b, member])
    for a, b, member in units:
        piece = "\n".join(lines[a:b])
        if not python_parses("class _:\n" + piece if member else piece):
            return False
    return True
