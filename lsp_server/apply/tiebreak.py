"""The local model as a tie-breaker: among candidate texts that differ only in where some lines
go, pick the one the model finds likeliest (sum of token log-probabilities over the stretch
where the candidates differ, plus some context)."""
from __future__ import annotations

from typing import Sequence

CONTEXT_LINES = 12
MAX_TOKENS = 1500  # one forward pass per candidate; longer stretches are not a tie to break
MARGIN = 8.0       # nats: a smaller lead is still a tie → no choice (measured: leads of 6–7 nats were wrong picks)


def differing_window(texts: Sequence[str]) -> tuple[int, int]:
    rows = [t.split("\n") for t in texts]
    first = 0
    while all(first < len(r) for r in rows) and len({r[first] for r in rows}) == 1:
        first += 1
    back = 0
    while all(back < len(r) - first for r in rows) and len({r[len(r) - 1 - back] for r in rows}) == 1:
        back += 1
    return max(0, first - CONTEXT_LINES), max(0, back - CONTEXT_LINES)


def model_chooser(engine):
    """A Chooser (see expander) backed by the engine's log-likelihood."""

    def choose(texts: Sequence[str]) -> int | None:
        head, tail = differing_window(texts)
        scores = []
        for t in texts:
            rows = t.split("\n")
            window = "\n".join(rows[head:len(rows) - tail])
            ids = engine.tokenizer.encode(window)
            if len(ids) > MAX_TOKENS:
                return None
            scores.append(engine.log_likelihood(ids))
        ranked = sorted(range(len(texts)), key=lambda i: -scores[i])
        if len(ranked) > 1 and scores[ranked[0]] - scores[ranked[1]] < MARGIN:
            return None
        return ranked[0]

    return choose
