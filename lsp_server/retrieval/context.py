"""Snippets from other files for the completion prompt: definitions of identifiers used near
the cursor, then chunks similar to the code being written. Small and token-budgeted."""
from __future__ import annotations

import re
from dataclasses import dataclass

from lsp_server.retrieval.index import CodeIndex

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
KEYWORDS = frozenset("def class return import from self None True False for while with else elif try except "
                     "const let var function async await this new public private static void int".split())


@dataclass(frozen=True)
class Snippet:
    path: str
    text: str


def choose_snippets(index: CodeIndex, path: str, prefix: str, max_snippets: int = 3,
                    max_lines: int = 24, budget_chars: int = 1600) -> tuple[Snippet, ...]:
    recent = prefix.split("\n")[-20:]
    names: list[str] = []
    for line in reversed(recent):  # nearest first
        for name in reversed(IDENT.findall(line)):
            if name not in KEYWORDS and name not in names:
                names.append(name)
    chosen: list[Snippet] = []
    seen: set[tuple[str, int]] = set()
    used = 0

    def take(chunk) -> bool:
        nonlocal used
        key = (chunk.path, chunk.start_line)
        if key in seen or chunk.path == path:
            return False
        text = "\n".join(chunk.text.split("\n")[:max_lines])
        if used + len(text) > budget_chars:
            return False
        seen.add(key)
        used += len(text)
        chosen.append(Snippet(chunk.path, text))
        return True

    for name in names:
        for chunk in index.definitions(name, exclude_path=path)[:1]:
            take(chunk)
        if len(chosen) >= max_snippets - 1:
            break
    query = "\n".join(recent[-8:])
    if query.strip() and len(chosen) < max_snippets:
        for hit in index.search(query, k=6, mode="lexical"):
            if len(chosen) >= max_snippets:
                break
            take(hit.chunk)
    return tuple(chosen)
