"""The model's tokenizer (HF `tokenizers`, byte-level BPE) plus the byte view of the vocabulary
that token healing needs."""
from __future__ import annotations

import bisect
from functools import cached_property
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer


def _byte_decoder() -> dict[str, int]:
    # GPT-2's reversible bytes→unicode map, inverted (byte-level BPE stores tokens in this alphabet).
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


class TokenizerWrapper:
    def __init__(self, path: Path) -> None:
        self.tok = Tokenizer.from_file(str(path))
        self.special_ids = set(self.tok.get_added_tokens_decoder())

    def encode(self, text: str) -> list[int]:
        return self.tok.encode(text, add_special_tokens=False).ids if text else []

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        return [e.ids for e in self.tok.encode_batch(texts, add_special_tokens=False)]

    def decode(self, ids: list[int]) -> str:
        return self.tok.decode(ids, skip_special_tokens=False) if ids else ""

    def token_id(self, token: str) -> int | None:
        return self.tok.token_to_id(token)

    @cached_property
    def _bytes_by_id(self) -> dict[int, bytes]:
        keys, ids = self._sorted_vocab
        return dict(zip(ids, keys))

    @cached_property
    def _id_by_bytes(self) -> dict[bytes, int]:
        keys, ids = self._sorted_vocab
        return dict(zip(keys, ids))

    def token_bytes(self, token_id: int) -> bytes:
        return self._bytes_by_id.get(token_id, b"")

    @cached_property
    def _sorted_vocab(self) -> tuple[list[bytes], list[int]]:
        dec = _byte_decoder()
        pairs = []
        for s, i in self.tok.get_vocab(with_added_tokens=False).items():
            if i in self.special_ids:
                continue
            try:
                pairs.append((bytes(dec[c] for c in s), i))
            except KeyError:  # not a byte-level token (other tokenizer families): skip
                continue
        pairs.sort()
        return [p[0] for p in pairs], [p[1] for p in pairs]

    def ids_starting_with(self, prefix: bytes) -> np.ndarray:
        """Ids of every ordinary token whose bytes start with `prefix` (binary search on sorted bytes)."""
        keys, ids = self._sorted_vocab
        lo = bisect.bisect_left(keys, prefix)
        hi = lo
        while hi < len(keys) and keys[hi].startswith(prefix):
            hi += 1
        return np.asarray(ids[lo:hi], dtype=np.int64)

    def healing_candidates(self, pending: bytes) -> np.ndarray:
        """Tokens consistent with text that is already on screen: those that start with all of
        `pending`, and those that are a proper prefix of it (the rest is healed by later tokens)."""
        ids = [self._id_by_bytes[pending[:k]] for k in range(1, len(pending)) if pending[:k] in self._id_by_bytes]
        return np.concatenate([self.ids_starting_with(pending), np.asarray(ids, dtype=np.int64)])


class Healer:
    """Token healing state for one generation: the typed text's last token was backed off, and
    generated tokens must reproduce its bytes before anything new is produced."""

    def __init__(self, tok: TokenizerWrapper, pending: bytes) -> None:
        self.tok = tok
        self.pending = pending

    @property
    def active(self) -> bool:
        return bool(self.pending)

    def allowed(self) -> np.ndarray:
        return self.tok.healing_candidates(self.pending)

    def consume(self, token_id: int) -> None:
        b = self.tok.token_bytes(token_id)
        self.pending = self.pending[len(b):] if self.pending.startswith(b) else b""
