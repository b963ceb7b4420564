"""Typing-through: when the user types the first characters of the suggestion on screen, the rest
is still the suggestion; answer at once, without the model."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shown:
    prefix: str   # document text before the cursor when the suggestion was made
    suffix: str   # document text after the cursor then
    text: str     # the suggestion


def remainder(shown: Shown | None, prefix: str, suffix: str) -> str | None:
    """The rest of `shown` if the user has typed a proper start of it since; else None."""
    if shown is None or suffix != shown.suffix or not prefix.startswith(shown.prefix):
        return None
    typed = prefix[len(shown.prefix):]
    if not typed or not shown.text.startswith(typed) or len(typed) >= len(shown.text):
        return None
    return shown.text[len(typed):]
