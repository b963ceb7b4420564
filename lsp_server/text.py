"""Text helpers every layer may use: indentation, word characters, and the one family of patterns
for "a definition line" (Python, JavaScript/TypeScript, Go, Rust, Java-like). Pure functions on
strings; nothing of Tandem's is imported here."""
from __future__ import annotations

import re

# A line that opens a definition: def/class/function/func/fn/interface/struct/enum/impl/trait/
# type/mod, after the modifiers that may precede them (export, default, pub, async, static).
DEFINITION = re.compile(r"^(?:export\s+)?(?:default\s+)?(?:pub(?:\([\w:]+\))?\s+)?(?:async\s+)?(?:static\s+)?"
                        r"(?:def|class|function\*?|func|fn|interface|struct|enum|impl|trait|type|mod)\s+\w"
                        r"|^func\s+\([^)]*\)\s*\w")  # (a Go method: its receiver first)
# The name a definition line defines (group 1).
NAME = re.compile(r"^(?:func\s+\([^)]*\)\s*|.*?\b(?:def|class|function\*?|func|fn|interface|struct|enum|trait|type|mod)\s+)"
                  r"([A-Za-z_$][\w$]*)")


def indent_of(line: str) -> str:
    """The line's leading white space (all of it: a form feed before `def` counts, as Python's
    tokenizer lets it)."""
    return line[: len(line) - len(line.lstrip())]


def is_word_char(ch: str) -> bool:
    """A character of an identifier (Unicode letters and digits, and `_`)."""
    return ch.isalnum() or ch == "_"
