"""Snippets from other files for the completion prompt. Small and token-budgeted.

Two kinds, as in RepoCoder / CrossCodeEval's retrieval baselines:
- *similar code*: chunks lexically similar to the lines above the cursor, cut to the window of
  lines that matches them best (the usage the model should imitate is rarely a chunk's head);
- *signatures* of functions and classes from other files whose names appear near the cursor
  (the head of a definition only: a whole body crowds out the similar code and distracts).
The most relevant snippet goes last, nearest to the current file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from lsp_server.retrieval.index import CodeIndex
from lsp_server.retrieval.lexical import tokenize

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
KEYWORDS = frozenset("def class return import from self None True False for while with else elif try except "
                     "const let var function async await this new public private static void int".split())
IMPORTS_FAR = 80        # lines above the cursor beyond which the file's imports are repeated as a snippet
MAX_IMPORT_LINES = 30
SIGNATURE_KINDS = frozenset({"function", "method", "class", "interface", "type"})


@dataclass(frozen=True)
class Snippet:
    path: str
    text: str


def best_window(text: str, query_tokens: set[str], lines: int) -> str:
    """The `lines`-line stretch of `text` sharing the most distinct tokens with the query."""
    rows = text.split("\n")
    if len(rows) <= lines:
        return text
    toks = [set(tokenize(r)) & query_tokens for r in rows]
    best, best_score = 0, -1
    for start in range(0, len(rows) - lines + 1):
        score = len(set().union(*toks[start:start + lines]))
        if score > best_score:
            best, best_score = start, score
    return "\n".join(rows[best:best + lines])


def signature(text: str, max_lines: int = 4) -> str:
    """The head of a definition: its signature lines and the first docstring line."""
    return "\n".join(text.split("\n")[:max_lines])


def choose_snippets(index: CodeIndex, path: str, prefix: str, max_snippets: int = 3,
                    max_lines: int = 16, budget_chars: int = 1600, max_signatures: int = 1) -> tuple[Snippet, ...]:
    recent = prefix.split("\n")[-12:]
    query = "\n".join(recent)
    if not query.strip():
        return ()
    query_tokens = set(tokenize(query))
    chosen: list[Snippet] = []  # most relevant first; reversed at the end
    seen: set[tuple[str, int]] = set()
    used = 0

    def take(chunk, text: str) -> bool:
        nonlocal used
        key = (chunk.path, chunk.start_line)
        if key in seen or chunk.path == path or used + len(text) > budget_chars:
            return False
        seen.add(key)
        used += len(text)
        chosen.append(Snippet(chunk.path, text))
        return True

    names: list[str] = []
    for line in reversed(recent[-6:]):  # nearest first
        for name in reversed(IDENT.findall(line)):
            if name not in KEYWORDS and name not in names:
                names.append(name)
    signatures = 0
    for name in names:
        if signatures >= max_signatures:
            break
        for chunk in index.definitions(name, exclude_path=path)[:1]:
            if chunk.kind in SIGNATURE_KINDS:
                signatures += take(chunk, signature(chunk.text))
    for hit in index.search(query, k=8, mode="lexical"):
        if len(chosen) >= max_snippets:
            break
        take(hit.chunk, best_window(hit.chunk.text, query_tokens, max_lines))
    # The current file's imports, when they are far above the cursor (outside the model's
    # window): they say which names from other modules are in scope here.
    far = prefix.split("\n")[:-IMPORTS_FAR]
    imports = [x for x in far if x.startswith(("import ", "from "))][:MAX_IMPORT_LINES]
    if imports:
        chosen.append(Snippet(path, "\n".join(imports)))
    return tuple(reversed(chosen))
