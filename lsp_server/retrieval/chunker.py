"""Split a source file into retrieval chunks: functions, methods and classes (with signature and
docstring) from tree-sitter definition queries; top-level statements grouped; oversized nodes
split at child boundaries; line windows where no grammar exists. Pure: text in, chunks out."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lsp_server.syntax.languages import grammar

MAX_LINES = 60       # a chunk longer than this is split
WINDOW = 40          # line-window size for files without a grammar and for loose statements


@dataclass(frozen=True)
class Chunk:
    path: str          # relative to the workspace root, "/" separated
    start_line: int    # 1-based, inclusive
    end_line: int      # 1-based, inclusive
    symbol: str        # "Class.method", "function", "" for statements / windows
    kind: str          # function | method | class | interface | type | enum | module | statements | window
    text: str

    @property
    def name(self) -> str:
        return self.symbol.rsplit(".", 1)[-1]


@dataclass
class _Def:
    start: int  # 0-based rows, inclusive
    end: int
    kind: str
    name: str
    node: object


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _chunk(path: str, lines: list[str], start: int, end: int, symbol: str, kind: str) -> Chunk:
    return Chunk(path, start + 1, end + 1, symbol, kind, "\n".join(lines[start:end + 1]))


def _windows(path: str, lines: list[str], start: int, end: int, kind: str, size: int = WINDOW) -> list[Chunk]:
    out = []
    row = start
    while row <= end:
        stop = min(end, row + size - 1)
        a, b = row, stop
        while a <= b and not lines[a].strip():
            a += 1
        while b >= a and not lines[b].strip():
            b -= 1
        if a <= b:
            out.append(_chunk(path, lines, a, b, "", kind))
        row = stop + 1
    return out


def _definitions(tree, query) -> list[_Def]:
    from tree_sitter import QueryCursor

    defs = []
    for _, caps in QueryCursor(query).matches(tree.root_node):
        name_nodes = caps.get("name", [])
        for cap, nodes in caps.items():
            if cap.startswith("definition."):
                node = nodes[0]
                name = name_nodes[0].text.decode("utf-8", "replace") if name_nodes else ""
                start = node.start_point[0]
                if node.parent is not None and node.parent.type == "decorated_definition":
                    start = node.parent.start_point[0]  # decorators belong to the definition
                defs.append(_Def(start, node.end_point[0], cap.split(".", 1)[1], name, node))
    defs.sort(key=lambda d: (d.start, -d.end))
    return defs


def _split_large(path: str, lines: list[str], d: _Def, symbol: str, kind: str) -> list[Chunk]:
    """Split a long definition at its children's boundaries; the first part keeps the signature."""
    body = d.node.child_by_field_name("body") or d.node
    children = [c for c in body.children if c.is_named] or [body]
    out, part_start = [], d.start
    for child in children:
        if child.end_point[0] - part_start + 1 > MAX_LINES and child.start_point[0] > part_start:
            out.append(_chunk(path, lines, part_start, child.start_point[0] - 1, symbol, kind))
            part_start = child.start_point[0]
    out.append(_chunk(path, lines, part_start, d.end, symbol, kind))
    final = []
    for c in out:  # a single child longer than the limit: windows inside it
        if c.end_line - c.start_line + 1 > MAX_LINES * 2:
            final += [Chunk(w.path, w.start_line, w.end_line, symbol, kind, w.text)
                      for w in _windows(path, lines, c.start_line - 1, c.end_line - 1, kind, MAX_LINES)]
        else:
            final.append(c)
    return final


def chunk_file(path: str, text: str) -> list[Chunk]:
    lines = _lines(text)
    g = grammar(Path(path).suffix.lower())
    if g is None:
        return _windows(path, lines, 0, len(lines) - 1, "window")
    from tree_sitter import Parser

    lang, query = g
    tree = Parser(lang).parse(text.encode("utf-8", "surrogatepass"))
    defs = _definitions(tree, query)
    chunks: list[Chunk] = []
    covered = [False] * len(lines)
    containers: list[_Def] = []  # large classes whose members become their own chunks

    def inside(d: _Def, outer: _Def) -> bool:
        return outer.start <= d.start and d.end <= outer.end and outer is not d

    taken: list[_Def] = []
    for d in defs:
        parent = next((c for c in reversed(containers) if inside(d, c)), None)
        if parent is None and any(inside(d, t) for t in taken):
            continue  # nested in a definition that is chunked whole
        symbol = f"{parent.name}.{d.name}" if parent else d.name
        kind = "method" if parent and d.kind == "function" else d.kind
        size = d.end - d.start + 1
        is_container = d.kind in ("class", "interface", "module") and size > MAX_LINES
        if is_container:
            containers.append(d)
            members = [m for m in defs if inside(m, d)]
            head_end = (min(m.start for m in members) - 1) if members else min(d.end, d.start + MAX_LINES - 1)
            head_end = max(head_end, d.start)
            chunks.append(_chunk(path, lines, d.start, min(head_end, d.start + MAX_LINES - 1), symbol, d.kind))
            for row in range(d.start, head_end + 1):
                covered[row] = True
            continue
        if size > MAX_LINES:
            chunks += _split_large(path, lines, d, symbol, kind)
        else:
            chunks.append(_chunk(path, lines, d.start, d.end, symbol, kind))
        taken.append(d)
        for row in range(d.start, d.end + 1):
            covered[row] = True
    # loose statements (imports, constants, top-level code): contiguous uncovered runs
    row = 0
    while row < len(lines):
        if covered[row]:
            row += 1
            continue
        start = row
        while row < len(lines) and not covered[row]:
            row += 1
        chunks += _windows(path, lines, start, row - 1, "statements")
    chunks.sort(key=lambda c: (c.start_line, c.end_line))
    return chunks
