"""BM25 over code-aware tokens, updatable one document at a time.

Tokens: identifiers kept whole (lower-cased) and also split at snake_case / camelCase /
digit boundaries, so `parseHttpURL` matches "parse", "http", "url" and "parsehttpurl".
"""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
STOP = frozenset("the a an of to in is it and or for on with as by be this that self return def if else".split())


def tokenize(text: str) -> list[str]:
    out = []
    for word in WORD.findall(text):
        lw = word.lower()
        if lw not in STOP and len(lw) > 1:
            out.append(lw)
        parts = [p.lower() for p in PARTS.findall(word)]
        if len(parts) > 1:
            out += [p for p in parts if len(p) > 1 and p not in STOP]
    return out


class Bm25:
    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.postings: dict[str, dict[int, int]] = defaultdict(dict)
        self.lengths: dict[int, int] = {}
        self.terms: dict[int, list[str]] = {}
        self.total = 0

    def add(self, doc_id: int, text: str) -> None:
        counts = Counter(tokenize(text))
        for term, tf in counts.items():
            self.postings[term][doc_id] = tf
        n = sum(counts.values())
        self.lengths[doc_id] = n
        self.total += n
        self.terms[doc_id] = list(counts)

    def remove(self, doc_id: int) -> None:
        for term in self.terms.pop(doc_id, []):
            plist = self.postings.get(term)
            if plist is not None:
                plist.pop(doc_id, None)
                if not plist:
                    del self.postings[term]
        self.total -= self.lengths.pop(doc_id, 0)

    def search(self, query: str, k: int = 10) -> list[tuple[int, float]]:
        n_docs = len(self.lengths)
        if not n_docs:
            return []
        avg = self.total / n_docs
        scores: dict[int, float] = defaultdict(float)
        for term in set(tokenize(query)):
            plist = self.postings.get(term)
            if not plist:
                continue
            idf = math.log(1 + (n_docs - len(plist) + 0.5) / (len(plist) + 0.5))
            for doc, tf in plist.items():
                denom = tf + self.k1 * (1 - self.b + self.b * self.lengths[doc] / avg)
                scores[doc] += idf * tf * (self.k1 + 1) / denom
        return sorted(scores.items(), key=lambda kv: -kv[1])[:k]
