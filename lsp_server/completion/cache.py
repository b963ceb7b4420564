"""Bounded LRU of suggestions keyed by a hash of the text around the cursor.

The key covers only a few lines above and below the cursor (llama.vim does the same), so a
suggestion survives edits far away and the context window sliding as the cursor moves down.
"""
from __future__ import annotations

import hashlib
from collections import OrderedDict

LINES_ABOVE = 12
LINES_BELOW = 3


def context_key(prefix: str, suffix: str, model: str) -> str:
    above = prefix.split("\n")[-(LINES_ABOVE + 1):]
    below = suffix.split("\n")[: LINES_BELOW + 1]
    h = hashlib.blake2b(digest_size=16)
    for part in (model, "\n".join(above), "\x00", "\n".join(below)):
        h.update(part.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


class LruCache:
    def __init__(self, capacity: int = 256) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, str] = OrderedDict()

    def get(self, key: str) -> str | None:
        if key not in self._items:
            return None
        self._items.move_to_end(key)
        return self._items[key]

    def put(self, key: str, value: str) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)
