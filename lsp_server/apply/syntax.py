"""tree-sitter facts: error counts (the expander, next-edit checks) and where definitions end;
and Python's own parser, which is stricter about indentation than tree-sitter's grammar."""
from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from tree_sitter import Query, QueryCursor

from lsp_server.retrieval.languages import grammar


def parser_for(path: str):
    """A tree-sitter Parser for the file's language, or None without a grammar."""
    g = grammar(Path(path).suffix.lower())
    if g is None:
        return None
    from tree_sitter import Parser

    return Parser(g[0])


@lru_cache(maxsize=4)  # block_end asks about one original many times (str hashes are cached)
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


def statement_starts(path: str, text: str) -> frozenset[int]:
    """0-based lines where a statement starts at the top level (column 0) or directly in the body
    of a top-level class (its members but the first, which keeps the `class` line company),
    comments aside (a comment may sit inside a function at any column), or none without a
    grammar. A result is parsed in pieces cut at such lines."""
    tree = _tree(path, text)
    if tree is None:
        return frozenset()
    out = set()
    for node in tree.root_node.children:
        if node.type == "comment" or node.start_point[1] != 0:
            continue
        out.add(node.start_point[0])
        definition = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        if definition is not None and definition.type == "class_definition":
            body = definition.child_by_field_name("body")
            members = [m for m in (body.children if body is not None else ()) if m.type != "comment"
                       and m.start_point[0] > definition.start_point[0]]
            out.update(m.start_point[0] for m in members[1:])  # the first stays with the `class` line
    return frozenset(out)


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


def block_end(path: str, text: str, line: int, column: int = 0) -> int | None:
    """Last line (0-based) of the largest multi-line node that starts on `line` (a def, class,
    if-block...), or None without a grammar or such node."""
    tree = _tree(path, text)
    if tree is None:
        return None
    best = None
    node = tree.root_node.descendant_for_point_range((line, column), (line, column))
    # climb from the leaf at the line start to the largest ancestor still starting on that line
    while node is not None:
        # (not a Python `block`: it starts at its first statement, and is its parent's body)
        if node.start_point[0] == line and node.end_point[0] > line and node.type not in ("block", "module"):
            best = node
        elif node.start_point[0] < line:
            break
        node = node.parent
    if best is None:
        return None
    end = best.end_point[0]
    return end - 1 if best.end_point[1] == 0 else end


def string_lines(path: str, text: str) -> frozenset[int]:
    """0-based lines inside a multi-line string literal after its first (a docstring's body and
    closing line), or none without a grammar."""
    tree = _tree(path, text)
    if tree is None:
        return frozenset()
    return frozenset(k for node in _captures(path, tree, "string")
                     for k in range(node.start_point[0] + 1, node.end_point[0] + 1))


FUNCTION_OPENER = re.compile(r"^(?:async\s+)?def\s")
# a one-line string literal (prefixes, either quote, escapes)
STRING = re.compile(r"""[rRbBuUfF]*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")


def code_of(line: str) -> str:
    """A line's code: one-line strings emptied, the comment cut off."""
    return STRING.sub('""', line).split("#", 1)[0]


def enclosing_functions(lines: Sequence[str]) -> list[int | None]:
    """Per line, the indentation of the `def` whose body holds it (by indentation), or None at
    module or class level (and for blank lines). One pass: the lines that open around each line
    form a stack, innermost last."""
    out: list[int | None] = []
    stack: list[tuple[int, bool]] = []  # (indentation, is a def) of the lines enclosing the current one
    for line in lines:
        if not line.strip():
            out.append(None)
            continue
        width = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= width:
            stack.pop()
        out.append(next((w for w, is_def in reversed(stack) if is_def), None))
        stack.append((width, bool(FUNCTION_OPENER.match(line.strip()))))
    return out
