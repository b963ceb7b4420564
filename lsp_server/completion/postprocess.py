"""Post-processing of raw model text into the suggestion shown after the cursor.

A chain of small pure filters (Continue's stream filters are the model): each takes the text
and the cursor context and returns the text, possibly shortened, or "" to suppress it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from lsp_server.text import indent_of

OPENERS = {"(": ")", "[": "]", "{": "}"}
CLOSERS = {v: k for k, v in OPENERS.items()}
BLOCK_OPENERS = (":", "{", "(", "[", "=>", "do", "then")
# Instruct-tuned models sometimes answer in prose; these openings are never code.
CHATTY = re.compile(r"^\s*(Here is|Here's|Sure|Certainly|I'm sorry|I cannot|As an AI|Note:|Explanation:|This (code|function))", re.I)
MAX_LINES = 16


@dataclass(frozen=True)
class CursorContext:
    typed: str              # cursor line before the cursor
    line_suffix: str        # cursor line after the cursor
    following: tuple[str, ...]  # lines below the cursor line (a few)
    previous: str           # last non-blank line above the cursor line
    multiline: bool


def wants_multiline(previous: str, typed: str, line_suffix: str) -> bool:
    """Copilot/Continue policy: a block body is suggested as a whole after a block opener on an
    otherwise empty line; everywhere else one line."""
    return not typed.strip() and not line_suffix.strip() and previous.rstrip().endswith(BLOCK_OPENERS)


def cut_chatter(text: str, ctx: CursorContext) -> str:
    if CHATTY.match(text):
        return ""
    fence = text.find("```")
    return text if fence < 0 else text[:fence]


def cut_lines(text: str, ctx: CursorContext) -> str:
    if not ctx.multiline:
        return text.split("\n", 1)[0]
    lines = text.split("\n")
    base = indent_of(ctx.typed + lines[0]) if (ctx.typed + lines[0]).strip() else None
    out = [lines[0]]
    blank_run = 0
    for line in lines[1:MAX_LINES]:
        if not line.strip():
            blank_run += 1
            if blank_run >= 2:
                break
            out.append(line)
            continue
        blank_run = 0
        if base is None:
            base = indent_of(line)
        if len(indent_of(line)) < len(base):  # dedent below the block body: the block has ended
            break
        out.append(line)
    return "\n".join(out).rstrip()


def drop_suffix_repeat(text: str, ctx: CursorContext) -> str:
    """Never repeat what already follows the cursor: the rest of the line or the next lines."""
    rest = ctx.line_suffix.strip()
    if rest and text.rstrip().endswith(rest):
        text = text.rstrip()[: -len(rest)]
    elif ctx.line_suffix:
        # `foo(a|)` + model "b)" → "b": drop a tail that the closers on screen already provide.
        lead = re.match(r"[\s\)\]\}\"'`;:,]*", ctx.line_suffix).group(0).strip()
        for k in range(len(lead), 0, -1):
            if text.endswith(lead[:k]):
                text = text[:-k]
                break
    following = [ln.strip() for ln in ctx.following if ln.strip()]
    lines = text.split("\n")
    if following:
        for i, line in enumerate(lines):
            if i > 0 or not ctx.typed.strip():
                if line.strip() and line.strip() == following[0]:
                    return "\n".join(lines[:i]).rstrip()
    return text


def balance_brackets(text: str, ctx: CursorContext) -> str:
    """Cut the suggestion before a closer that has no opener (in the typed line or in itself)."""
    stack: list[str] = []
    for ch in ctx.typed if not ctx.multiline else "":
        if ch in OPENERS:
            stack.append(ch)
        elif ch in CLOSERS and stack and stack[-1] == CLOSERS[ch]:
            stack.pop()
    in_str: str | None = None
    for i, ch in enumerate(text):
        if in_str:
            if ch == in_str:
                in_str = None
            continue
        if ch in "\"'":
            in_str = ch
        elif ch in OPENERS:
            stack.append(ch)
        elif ch in CLOSERS:
            if not stack or stack[-1] != CLOSERS[ch]:
                return text[:i].rstrip()
            stack.pop()
    return text


def drop_empty(text: str, ctx: CursorContext) -> str:
    return text if text.strip() else ""


def trim_end(text: str, ctx: CursorContext) -> str:
    return text.rstrip() if not ctx.line_suffix.strip() else text


FILTERS = (cut_chatter, cut_lines, drop_suffix_repeat, balance_brackets, trim_end, drop_empty)


def postprocess(text: str, ctx: CursorContext) -> str:
    for f in FILTERS:
        text = f(text, ctx)
        if not text:
            return ""
    return text


def should_stop(text: str, ctx: CursorContext) -> bool:
    """Early stop while streaming: the filters would cut everything after this point anyway."""
    if len(text) >= 4 and "\n" not in text and not text.strip():
        return True  # a run of spaces after the cursor: the model is stuck on indentation
    if not ctx.multiline:
        return "\n" in text
    if "```" in text:
        return True
    lines = text.split("\n")
    return len(lines) > MAX_LINES or cut_lines(text, ctx).count("\n") < len(lines) - 2
