"""The expander's one failure: the sketch cannot be applied with confidence."""
from __future__ import annotations


class ApplyError(Exception):
    """The sketch cannot be applied with confidence; str() is the reason (it goes back to the
    planner's repair round, so it quotes only the sketch's own lines and line numbers)."""
