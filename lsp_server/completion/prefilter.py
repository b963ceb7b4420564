"""Cheap checks that decide, before any model work, that no suggestion should be made."""
from __future__ import annotations

from lsp_server.completion.complete import MAX_TYPED_CHARS
from lsp_server.config import Settings
from lsp_server.text import is_word_char


def skip_reason(settings: Settings, language_id: str, text: str, line_text: str, column: int) -> str | None:
    """Why this position gets no suggestion (None: go ahead). `column` is a code-point index."""
    if not settings.enable:
        return "disabled"
    if not settings.language_enabled(language_id):
        return f"disabled for {language_id}"
    if len(text) > settings.max_file_bytes:
        return "file too large"
    if "\x00" in text[:8192]:
        return "binary content"
    if column > MAX_TYPED_CHARS or len(line_text) > 20 * MAX_TYPED_CHARS:
        return "line too long"
    right = line_text[column:column + 1]
    if right and is_word_char(right):
        return "cursor inside a word"
    return None
