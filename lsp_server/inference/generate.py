"""Greedy generation with KV-cache prefix reuse and prompt-lookup speculative decoding.

The loop is deliberately small (nanoGPT's sample.py is the model): it keeps one KV cache (the
tokens it was computed for and the arrays), so the next request recomputes only what differs
from the longest common token prefix; drafts are copied from earlier text (prompt lookup) and
verified in one forward pass. Greedy verification keeps the output token-for-token identical to
plain greedy decoding (tests/integration/test_engine.py proves it).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from lsp_server.inference.decoder import KV, Decoder
from lsp_server.inference.tokenizer import Healer


PREFILL_CHUNK = 128
SPARE_CHUNK = 12


@dataclass
class GenerationConfig:
    max_new_tokens: int = 48
    stop_ids: frozenset[int] = frozenset()
    # Token healing (None: unconstrained); stateful, so one per generation.
    healer: Healer | None = None
    reuse_prefix: bool = True
    speculate: bool = True
    draft_len: int = 16      # longest draft; file lookups start at 4 and grow while accepted
    ngram_max: int = 3
    ngram_min: int = 2
    # When a list: the log-probability of every yielded token is appended to it (confidence).
    logprobs: list | None = None


@dataclass
class GenerationStats:
    prompt_tokens: int = 0
    reused_tokens: int = 0
    forward_passes: int = 0
    generated: int = 0
    drafted: int = 0
    accepted: int = 0
    cancelled: bool = False
    stop_reason: str = ""

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def token_logprobs(rows: np.ndarray, tokens) -> np.ndarray:
    """log p(tokens[i]) under logits rows[i] (a log-softmax per row, computed stably)."""
    rows = rows.astype(np.float64)
    rows -= rows.max(axis=-1, keepdims=True)
    logp = rows - np.log(np.exp(rows).sum(axis=-1, keepdims=True))
    return logp[np.arange(len(rows)), np.asarray(tokens)]


def _logprob(row: np.ndarray, token: int) -> float:
    return float(token_logprobs(row[None, :], [token])[0])


def common_prefix_len(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def lookup_draft(context: list[int], ngram_max: int, ngram_min: int, max_len: int,
                 source: list[int] | None = None) -> list[int]:
    """Prompt lookup: find the latest occurrence of the context's last n tokens in `source`
    (default: earlier in the context itself) and propose the tokens that followed it there."""
    size = len(context)
    src = context if source is None else source
    end = size - 1 if source is None else len(src)  # in the context itself, skip the tail's own position
    for n in range(ngram_max, ngram_min - 1, -1):
        if size < n or (source is None and size <= n):
            continue
        tail = context[-n:]
        first = tail[0]
        for start in range(min(end, len(src)) - n, -1, -1):
            if src[start] == first and src[start:start + n] == tail:
                follow = src[start + n:start + n + max_len]
                if follow:
                    return follow
    return []


@dataclass
class _Cache:
    ids: list[int] = field(default_factory=list)
    past: KV | None = None


class Generator:
    """Not thread-safe: the engine serialises access."""

    def __init__(self, decoder: Decoder, adapter: bool = False) -> None:
        self.decoder = decoder
        self.adapter = adapter      # the next-edit adapter's branches on: this cache is next edit's
        self.cache = _Cache()       # the working cache: requests extend and truncate it in place
        # A second cache filled by speculative prefill (the next line, while the user pauses);
        # a request that matches it better swaps it in. ~27 MB for 1,100 tokens of this model.
        self.spare = _Cache()
        # The previous request's prompt + output. After a keystroke that follows the suggestion,
        # the model will mostly say the same again: it is the best draft source there is.
        self.last_sequence: list[int] = []

    def reset(self) -> None:
        self.cache = _Cache()
        self.spare = _Cache()
        self.last_sequence = []

    def _draft(self, context: list[int], cfg: GenerationConfig, room: int, file_len: int) -> list[int]:
        draft = lookup_draft(context, cfg.ngram_max, cfg.ngram_min, min(cfg.draft_len, room), self.last_sequence)
        return draft or lookup_draft(context, cfg.ngram_max, cfg.ngram_min, min(file_len, room))

    def _extend(self, ids: list[int], keep: int, cache: _Cache | None = None) -> np.ndarray:
        cache = self.cache if cache is None else cache
        past = cache.past if cache.past is not None else self.decoder.empty_past()
        logits, cache.past = self.decoder.forward(ids, past, keep, self.adapter)
        cache.ids = cache.ids + ids
        return logits

    def _truncate(self, n: int) -> None:
        if self.cache.past is not None and len(self.cache.ids) > n:
            self.cache.past = self.decoder.truncate(self.cache.past, n)
            self.cache.ids = self.cache.ids[:n]

    def prefill(self, prompt: list[int], cfg: GenerationConfig, stats: GenerationStats,
                cancelled: Callable[[], bool] = lambda: False) -> np.ndarray | None:
        """Bring the cache to `prompt` and return the logits after its last token (None when
        cancelled). Long prompts go in chunks so cancellation is honoured within ~0.5 s."""
        reuse = common_prefix_len(self.cache.ids, prompt) if cfg.reuse_prefix else 0
        if cfg.reuse_prefix and common_prefix_len(self.spare.ids, prompt) > reuse:
            self.cache, self.spare = self.spare, self.cache
            reuse = common_prefix_len(self.cache.ids, prompt)
        reuse = min(reuse, len(prompt) - 1)  # the last token is always run: its logits are needed
        if reuse <= 0:
            self.cache = _Cache()
            reuse = 0
        self._truncate(reuse)
        stats.prompt_tokens = len(prompt)
        stats.reused_tokens = reuse
        pos = reuse
        while True:
            chunk = prompt[pos:pos + PREFILL_CHUNK]
            stats.forward_passes += 1
            logits = self._extend(chunk, keep=1)
            pos += len(chunk)
            if pos >= len(prompt):
                return logits[-1]
            if cancelled():
                return None

    def prefill_spare(self, prompt: list[int], cancelled: Callable[[], bool] = lambda: False) -> int:
        """Speculative prefill into the spare cache, leaving the working cache untouched.
        Returns the number of tokens computed."""
        if not prompt:
            return 0
        own = common_prefix_len(self.spare.ids, prompt)
        shared = common_prefix_len(self.cache.ids, prompt)
        if shared > own and self.cache.past is not None:
            # Start from the working cache's prefix. Sharing its arrays is safe: KV arrays are
            # never written in place (forward returns new ones, truncate copies).
            self.spare = _Cache(list(self.cache.ids[:shared]), self.decoder.truncate(self.cache.past, shared))
            own = shared
        elif own < len(self.spare.ids):
            self.spare = _Cache(self.spare.ids[:own], self.decoder.truncate(self.spare.past, own) if own else None)
        done = 0
        pos = own
        while pos < len(prompt) and not cancelled():
            chunk = prompt[pos:pos + SPARE_CHUNK]  # small: a real request waits at most one chunk
            self._extend(chunk, 1, self.spare)
            pos += len(chunk)
            done += len(chunk)
        return done

    @staticmethod
    def _pick(logits: np.ndarray, healer: Healer | None) -> int:
        if healer is None:
            return int(np.argmax(logits))
        allowed = healer.allowed()
        token = int(allowed[np.argmax(logits[allowed])]) if len(allowed) else int(np.argmax(logits))
        healer.consume(token)
        return token

    def generate(self, prompt: list[int], cfg: GenerationConfig,
                 cancelled: Callable[[], bool] = lambda: False,
                 stats: GenerationStats | None = None) -> Iterator[int]:
        """Yield greedy tokens one by one. The caller may stop iterating at any time; the cache
        stays consistent because it is only updated between forward passes."""
        stats = stats if stats is not None else GenerationStats()
        if not prompt:
            raise ValueError("empty prompt")
        if cancelled():
            stats.cancelled, stats.stop_reason = True, "cancelled"
            return
        healer = cfg.healer if cfg.healer is not None and cfg.healer.active else None
        logits = self.prefill(prompt, cfg, stats, cancelled)
        if logits is None:
            stats.cancelled, stats.stop_reason = True, "cancelled"
            return
        token = self._pick(logits, healer)
        generated: list[int] = []
        try:
            yield from self._decode(token, generated, healer, cfg, cancelled, stats,
                                    [_logprob(logits, token)] if cfg.logprobs is not None else None)
        finally:
            self.last_sequence = list(prompt[-8:]) + generated  # the region around the old cursor only

    def _decode(self, token: int, generated: list[int], healer: Healer | None, cfg: GenerationConfig,
                cancelled: Callable[[], bool], stats: GenerationStats, lps: list[float] | None = None) -> Iterator[int]:
        file_len = 4  # adaptive length of drafts copied from the file
        pending = [token]  # chosen, not yet yielded; the last one is not yet in the KV cache
        while True:
            for i, t in enumerate(pending):
                if t in cfg.stop_ids:
                    stats.stop_reason = "stop_token"
                    return
                if lps is not None:
                    cfg.logprobs.append(lps[i])
                generated.append(t)
                stats.generated += 1
                yield t
                if len(generated) >= cfg.max_new_tokens:
                    stats.stop_reason = "max_tokens"
                    return
                if cancelled():
                    stats.cancelled, stats.stop_reason = True, "cancelled"
                    return
            token = pending[-1]
            draft: list[int] = []
            if healer is not None and not healer.active:
                healer = None
            if cfg.speculate and healer is None:
                draft = self._draft(self.cache.ids + [token], cfg, cfg.max_new_tokens - len(generated), file_len)
            stats.forward_passes += 1
            if not draft:
                row = self._extend([token], keep=1)[-1]
                pending = [self._pick(row, healer)]
                if lps is not None:
                    lps = [_logprob(row, pending[0])]
                continue
            # Verify: logits row j predicts the token after [token] + draft[:j].
            base = len(self.cache.ids)
            rows = self._extend([token] + draft, keep=len(draft) + 1)
            best = np.argmax(rows, axis=-1)
            stats.drafted += len(draft)
            ok = 0
            while ok < len(draft) and int(best[ok]) == draft[ok]:
                ok += 1
            stats.accepted += ok
            file_len = min(cfg.draft_len, file_len * 2) if ok == len(draft) else max(2, ok + 1)
            self._truncate(base + 1 + ok)  # drop the KV of rejected draft tokens
            pending = draft[:ok] + [int(best[ok])]
            if lps is not None:
                lps = list(token_logprobs(rows[:len(pending)], pending))
