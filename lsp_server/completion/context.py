"""The context window: which text around the cursor goes into the prompt, fitted to token budgets.

The window's start moves in steps of `stride` lines so that, while the user types down a file,
the start of the prompt (and so the KV cache) stays the same for many keystrokes.
"""
from __future__ import annotations

from dataclasses import dataclass

from lsp_server.inference.tokenizer import TokenizerWrapper

MAX_SCAN_LINES = 4000  # never tokenise more than this many lines per request


@dataclass(frozen=True)
class Window:
    before: str       # whole lines above the cursor line (trimmed to the budget)
    typed: str        # the cursor line up to the cursor
    after: str        # the rest of the cursor line and the lines below (trimmed to the budget)
    first_line: int   # index of the first line of `before` within the prefix's lines

    @property
    def line_suffix(self) -> str:
        return self.after.split("\n", 1)[0]


def split_prefix(prefix: str) -> tuple[str, str]:
    cut = prefix.rfind("\n") + 1
    return prefix[:cut], prefix[cut:]


def fit_window(tok: TokenizerWrapper, prefix: str, suffix: str, prefix_tokens: int = 1024,
               suffix_tokens: int = 96, stride: int = 16) -> Window:
    head, typed = split_prefix(prefix)
    lines = head.splitlines(keepends=True)
    scan_from = max(0, len(lines) - MAX_SCAN_LINES)
    counts = [len(ids) for ids in tok.encode_batch(lines[scan_from:])] if lines else []
    budget = max(prefix_tokens - len(tok.encode(typed)), 0)
    start, used = len(lines), 0
    for i in range(len(counts) - 1, -1, -1):
        if used + counts[i] > budget:
            break
        used += counts[i]
        start = scan_from + i
    if start > 0:
        start = min(len(lines), -(-start // stride) * stride)  # round up: stays inside the budget
    after_lines = suffix.splitlines(keepends=True)
    kept_after: list[str] = []
    if after_lines:
        used = 0
        counts_after = tok.encode_batch(after_lines[:200])
        for line, ids in zip(after_lines, counts_after):
            if used + len(ids) > suffix_tokens and kept_after:
                break
            kept_after.append(line)
            used += len(ids)
    after = "".join(kept_after)
    if kept_after and len(tok.encode(after)) > suffix_tokens:  # a single huge line: cut by characters
        after = after[: suffix_tokens * 3]
    return Window(before="".join(lines[start:]), typed=typed, after=after, first_line=start)


class CharBudget:
    """Token counts estimated from characters (≈3.5 per token in code), for windows sent to a
    remote engine whose tokenizer is not here. Fits fit_window's `tok`."""
    CHARS_PER_TOKEN = 3.5

    def encode(self, text: str) -> range:
        return range(int(len(text) / self.CHARS_PER_TOKEN + 0.999))

    def encode_batch(self, texts: list[str]) -> list[range]:
        return [self.encode(t) for t in texts]
